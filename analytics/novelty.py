"""The novelty of a game: the first ply whose position (after the move; a transposition counts,
the position is matched by its key) no earlier-dated game of the store reached, with the number
of earlier-dated games that had reached the position before it (where the game left the known
path).

Only dated games count, on both sides: an undated game has no novelty and is nobody's earlier
game; games of the same day are not earlier than each other. A game whose every position an
earlier game reached has none either (None)::

    >>> import tempfile
    >>> from kifudb.store.writer import ingest_paths
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["tests/fixtures/players"], folder)
    >>> [(n["game"], n["date"], n["ply"], n["earlier_games"]) for n in novelties(folder)][-3:]
    [(9, '2005-11-29', 2, 1), (4, '1985-01-23', 1, 1), (3, '1948-02-08', 1, 0)]
    >>> game_novelty(folder, 9), game_novelty(folder, 11)   # game 11 has no date
    ({'ply': 2, 'earlier_games': 1}, None)

How: set-wise in DuckDB, never a loop over games. ``first_dates`` is the first date at which
each position key was reached (one aggregate over the dated games' positions); a game's
novelty is its lowest ply (≥ 1) whose key was first reached on the game's own date; the
earlier games are counted with one join on the key of the position before it. ``game_novelty``
asks the same of one game's keys only.
"""

from __future__ import annotations

from typing import Optional

import sqlalchemy as sa

from kifudb.analytics import checks
from kifudb.analytics.filters import GameFilter
from kifudb.core.move import code_usi
from kifudb.store.engine import fetch, game_summary, positions

__all__ = ["novelties", "game_novelty", "all_novelties"]

G, P = game_summary.c, positions.c


def _dated():
    """Every position of every dated game the store shows: ``key``, ``game``, ``ply``,
    ``date``."""
    return (sa.select(P.key, P.game, P.ply, G.date)
            .join_from(positions, game_summary, G.game == P.game)
            .where(G.date.is_not(None)).subquery("dated"))


def _novelty_rows(filters: GameFilter):
    """A subquery of ``game``, ``ply`` (the novelty) and ``earlier_games``, for the dated
    games of ``filters`` that have one."""
    dated = _dated()
    first = (sa.select(dated.c.key, sa.func.min(dated.c.date).label("first_date"))
             .group_by(dated.c.key).subquery("first_dates"))
    chosen = sa.select(G.game).where(G.date.is_not(None), *filters.where())
    novel = (sa.select(dated.c.game, dated.c.date, sa.func.min(dated.c.ply).label("ply"))
             .join_from(dated, first, first.c.key == dated.c.key)
             .where(first.c.first_date >= dated.c.date, dated.c.ply >= 1,
                    dated.c.game.in_(chosen))
             .group_by(dated.c.game, dated.c.date).subquery("novel"))
    before = positions.alias("before")
    earlier = dated.alias("earlier")
    return (sa.select(novel.c.game, novel.c.ply,
                      sa.func.count(sa.distinct(earlier.c.game)).label("earlier_games"))
            .join_from(novel, before, sa.and_(before.c.game == novel.c.game,
                                              before.c.ply == novel.c.ply - 1))
            .outerjoin(earlier, sa.and_(earlier.c.key == before.c.key,
                                        earlier.c.date < novel.c.date))
            .group_by(novel.c.game, novel.c.ply).subquery("novelties"))


def novelties(store, limit: int = 20, offset: int = 0, *,
              filters: GameFilter = GameFilter()) -> list:
    """The novelties of the latest dated games of ``filters`` that have one, newest first (then
    by id, highest first), a page of ``limit`` of them from ``offset``: dicts of ``game``,
    ``date`` (ISO), ``black``, ``white``, ``event``, ``ply``, ``move`` (the novelty's move,
    USI) and ``earlier_games``. ``limit`` counts novelties, never the games looked at: a game
    without one (every position reached earlier) is skipped and the next one looked at, so a
    page is short only at the end. The dated games are looked at newest first, in chunks
    (``_chunk_novelties``: only their positions are looked up), so a page costs a fraction of
    ``all_novelties``."""
    limit = checks.at_least(limit, "limit", 1)
    offset = checks.at_least(offset, "offset", 0)
    wanted = offset + limit
    found: list = []
    looked, chunk = 0, max(2 * wanted, _FIRST_CHUNK)
    while len(found) < wanted:
        ids = [r["game"] for r in fetch(
            store, sa.select(G.game).where(G.date.is_not(None), *filters.where())
            .order_by(G.date.desc(), G.game.desc())
            .limit(sa.bindparam("limit", chunk)).offset(sa.bindparam("offset", looked)))]
        found += _chunk_novelties(store, ids)
        looked += len(ids)
        if len(ids) < chunk:
            break
        chunk *= 2
    return found[offset:wanted]


#: The dated games looked at first for a page of novelties (then twice as many, and so on).
_FIRST_CHUNK = 64


def _chunk_novelties(store, ids: list) -> list:
    """The novelties of the games ``ids`` (dated), newest first: one join of their positions
    with the dated games' positions of the same keys."""
    if not ids:
        return []
    page = (sa.select(G.game, G.date)
            .where(G.game.in_(sa.bindparam("ids", ids, expanding=True))).subquery("page"))
    own = (sa.select(P.key, P.game, P.ply, P.next_move, page.c.date)
           .join_from(positions, page, page.c.game == P.game).subquery("own"))
    dated = _dated()
    reached = (sa.select(own.c.game, own.c.ply, own.c.next_move,
                         sa.func.count(sa.distinct(dated.c.game)).label("earlier"))
               .join_from(own, dated, sa.and_(dated.c.key == own.c.key,
                                              dated.c.date < own.c.date), isouter=True)
               .group_by(own.c.game, own.c.ply, own.c.next_move))
    rows = fetch(store, reached)
    by_game: dict = {}
    for row in rows:
        by_game.setdefault(row["game"], {})[row["ply"]] = row
    shown = {r["game"]: r for r in checks.iso_dates(fetch(
        store, sa.select(G.game, G.date, G.black, G.white, G.event)
        .where(G.game.in_(sa.bindparam("ids", sorted(by_game) or [0], expanding=True)))),
        "date")}
    found = []
    for game, plies in by_game.items():
        ply = next((p for p in sorted(plies) if p >= 1 and plies[p]["earlier"] == 0), None)
        if ply is None:
            continue
        code = plies[ply - 1]["next_move"]
        found.append({**shown[game], "ply": ply,
                      "move": code_usi(code) if code is not None else None,
                      "earlier_games": plies[ply - 1]["earlier"]})
    return sorted(found, key=lambda r: (r["date"], r["game"]), reverse=True)


def all_novelties(store, *, filters: GameFilter = GameFilter()) -> dict:
    """``{game: (ply, earlier_games)}`` for every dated game of ``filters`` that has a
    novelty (the whole store at once: what the benchmark times)."""
    found = _novelty_rows(filters)
    return {r["game"]: (r["ply"], r["earlier_games"]) for r in fetch(
        store, sa.select(found.c.game, found.c.ply, found.c.earlier_games))}


def game_novelty(store, game: int) -> Optional[dict]:
    """The novelty of one game: ``{"ply", "earlier_games"}``, or None (no date, an unknown
    game, or every position reached by an earlier game)."""
    game = checks.game_id(game)
    own = (sa.select(P.key, P.ply).where(P.game == sa.bindparam("game", game))
           .subquery("own"))
    date = (sa.select(G.date).where(G.game == sa.bindparam("game", game))
            .scalar_subquery())
    dated = _dated()
    earlier = (sa.select(dated.c.key, sa.func.count(sa.distinct(dated.c.game)).label("games"))
               .where(dated.c.date < date, dated.c.key.in_(sa.select(own.c.key)))
               .group_by(dated.c.key).subquery("earlier"))
    rows = fetch(store, sa.select(own.c.ply, sa.func.coalesce(earlier.c.games, 0).label("n"),
                                  date.label("date"))
                 .join_from(own, earlier, earlier.c.key == own.c.key, isouter=True)
                 .order_by(own.c.ply))
    if not rows or rows[0]["date"] is None:
        return None
    reached = {}
    for row in rows:  # a repeated position has one row per occurrence, the same count
        reached[row["ply"]] = row["n"]
    for ply in sorted(reached):
        if ply >= 1 and reached[ply] == 0:
            return {"ply": ply, "earlier_games": reached.get(ply - 1, 0)}
    return None
