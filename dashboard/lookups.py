"""Small read-only questions the pages ask that ``analytics.queries`` does not answer as such:
the explorer and the search by SFEN (plain values that can be cached), how many
times a position occurred (to paginate a search), the variations of a game, the
latest games, example games for a result or a length, and a game's position at a ply as an
SFEN.

Like ``analytics.queries``, every statement is SQLAlchemy Core over the tables it describes,
every value a bound parameter; no SQL is built from user text. Each function takes the store
first, so that ``dashboard.state.stored`` can cache it per commit.
"""

from __future__ import annotations

import sqlalchemy as sa
from duckdb_engine.datatypes import UBigInteger

from analytics import queries
from analytics.position_input import position_from_game
from core.position import Position

__all__ = ["explore", "search", "occurrences", "variations", "latest_games", "result_games",
           "game_position"]


def explore(store, sfen: str, **filters) -> list:
    """``queries.explore`` of the position of ``sfen`` (plain values, so answers can be
    cached)."""
    return queries.explore(store, Position.from_sfen(sfen), **filters)


def search(store, sfen: str, mirror: bool = False, limit: int | None = None) -> list:
    """``queries.search`` of the position of ``sfen``."""
    return queries.search(store, Position.from_sfen(sfen), mirror=mirror, limit=limit)


def occurrences(store, sfen: str, mirror: bool = False) -> dict:
    """``{"occurrences", "games"}``: how often the position of ``sfen`` (and, with ``mirror``,
    its left-right mirror image) occurs in the games the store shows, counted as
    ``queries.search`` lists them."""
    position = Position.from_sfen(sfen)
    keys = {position.key()}
    if mirror:
        keys.add(position.mirror().key())
    p, g = queries.positions, queries.game_summary
    conditions = [p.c.key == sa.cast(sa.bindparam(f"key{i}", key), UBigInteger)
                  for i, key in enumerate(sorted(keys))]
    hits = (sa.select(p.c.game).where(sa.or_(*conditions)) if len(conditions) > 1
            else sa.select(p.c.game).where(conditions[0])).subquery("hits")
    statement = (sa.select(sa.func.count().label("occurrences"),
                           sa.func.count(sa.distinct(hits.c.game)).label("games"))
                 .select_from(hits.join(g, g.c.game == hits.c.game)))
    return queries.fetch(store, statement)[0]


def variations(store, game: int) -> list:
    """The moves of a game's variations (``line`` > 0): ``line``, ``ply``, ``text``,
    ``seconds``, ``comment``, by line and ply."""
    m = queries.moves
    statement = (sa.select(m.c.line, m.c.ply, m.c.text, m.c.seconds, m.c.comment)
                 .where(m.c.game == sa.bindparam("game", int(game)), m.c.line > 0)
                 .order_by(m.c.line, m.c.ply))
    return queries.fetch(store, statement)


def latest_games(store, limit: int = 20) -> list:
    """The newest games (by date, undated last, then the highest id): ``game``, ``black``,
    ``white``, ``date`` (ISO), ``event``, ``winner``, ``reason``, ``handicap``."""
    g = queries.game_summary
    statement = (sa.select(g.c.game, g.c.black, g.c.white, g.c.date, g.c.event, g.c.winner,
                           g.c.reason, g.c.handicap)
                 .order_by(g.c.date.desc().nulls_last(), g.c.game.desc())
                 .limit(sa.bindparam("limit", int(limit))))
    found = queries.fetch(store, statement)
    for row in found:
        row["date"] = row["date"].isoformat() if row["date"] is not None else None
    return found


def result_games(store, reason: str | None = None, winner: str | None = None,
                 moves_from: int | None = None, moves_to: int | None = None, limit: int = 10,
                 **filters) -> list:
    """Example games for a result: ended by ``reason``, won by ``winner``, or ``moves_from`` to
    ``moves_to`` moves long (inclusive), within the statistics' filters (``player``, dates,
    ``event``, ``handicap``); newest first, as ``latest_games`` gives them, with ``moves``."""
    g = queries.game_summary
    conditions = list(queries.game_filters(**filters))
    if reason is not None:
        conditions.append(g.c.reason == sa.bindparam("reason", str(reason)))
    if winner is not None:
        conditions.append(g.c.winner == sa.bindparam("winner", str(winner)))
    if moves_from is not None:
        conditions.append(g.c.moves >= sa.bindparam("moves_from", int(moves_from)))
    if moves_to is not None:
        conditions.append(g.c.moves <= sa.bindparam("moves_to", int(moves_to)))
    statement = (sa.select(g.c.game, g.c.black, g.c.white, g.c.date, g.c.event, g.c.winner,
                           g.c.reason, g.c.handicap, g.c.moves).where(*conditions)
                 .order_by(g.c.date.desc().nulls_last(), g.c.game.desc())
                 .limit(sa.bindparam("limit", int(limit))))
    found = queries.fetch(store, statement)
    for row in found:
        row["date"] = row["date"].isoformat() if row["date"] is not None else None
    return found


def game_position(store, game: int, ply: int) -> dict:
    """The position of ``game`` after ``ply`` main-line moves: ``{"sfen", "last_move"}`` (USI,
    None at ply 0); ``ValueError`` for an unknown game or a ply out of range."""
    position = position_from_game(store, int(game), int(ply))
    last = position.last_move
    return {"sfen": position.sfen(), "last_move": last.usi() if last is not None else None}
