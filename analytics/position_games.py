"""The games beside the opening explorer's moves: the games that reached a position, in the games
of a ``GameFilter``, each once — the most **recent**, or the **top** games: as lichess shows
its highest-rated games, the games whose players' average rating is highest (shogi-server's
rate lines), then — most records carry no rating — those of the most-seen players (the most
games in the store).

    >>> import tempfile
    >>> from kifudb.store.writer import ingest_paths
    >>> from kifudb.analytics.position_input import position_from_moves
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["data/samples"], folder)
    >>> after = position_from_moves("7g7f 3c3d 2g2f")
    >>> [(g["game"], g["ply"], g["date"], g["next_move"]) for g in position_games(folder, after)][:2]
    [(2, 3, '2014-09-02', '4a3b'), (1, 3, '2006-12-15', '4c4d')]
    >>> [(g["black"], g["player_games"]) for g in position_games(folder, after, order="top")][:2]
    [('羽生善治', 5), ('羽生善治', 4)]
    >>> position_games(folder, after, filters=GameFilter(player="nobody"))
    []
    >>> import shutil; shutil.rmtree(folder)

Like ``analytics.queries.search``, the key filter is the only predicate of the innermost select
(one row group read); the games are those the ``games`` view shows (``game_summary``).
"""

from __future__ import annotations

import sqlalchemy as sa

from kifudb.analytics import checks
from kifudb.analytics.filters import GameFilter
from kifudb.analytics.queries import _usi, hit_keys
from kifudb.store.engine import fetch, game_summary, hits

__all__ = ["position_games", "ORDERS"]

#: How the games are ordered: newest first, or by their players' games in the store.
ORDERS = ("recent", "top")

G = game_summary.c


def _player_games():
    """One row per player name: ``player`` and the ``games`` the store holds of it."""
    names = sa.union_all(sa.select(G.black.label("player")).where(G.black.is_not(None)),
                         sa.select(G.white.label("player")).where(G.white.is_not(None))
                         ).subquery("names")
    return (sa.select(names.c.player, sa.func.count().label("games"))
            .group_by(names.c.player).subquery("player_games"))


def position_games(store, position, *, filters: GameFilter = GameFilter(),
                   order: str = "recent", limit: int = 8) -> list:
    """At most ``limit`` games of ``filters`` that reached ``position`` (a ``Position``, an SFEN
    or a key), each once: dicts of ``game``, ``ply`` (its first occurrence), ``next_move`` (USI,
    None where the game ended), ``black``, ``white``, ``date`` (ISO), ``event``, ``winner``,
    ``reason``, ``handicap``, ``moves``, ``black_rating``, ``white_rating`` (None: unrated)
    and ``player_games`` (the games its two players have in the store together). ``order``:
    ``recent`` (newest first, undated last) or ``top`` (the highest average rating of two
    rated players first, then the most ``player_games``, then the newest)."""
    order = checks.choice(order, "order", ORDERS)
    nth = sa.func.row_number().over(partition_by=hits.c.game, order_by=hits.c.ply)
    ranked = sa.select(hits.c.game, hits.c.ply, hits.c.next_move, hits.c.black_to_move,
                       nth.label("nth")).subquery()
    first = (sa.select(ranked.c.game, ranked.c.ply, ranked.c.next_move, ranked.c.black_to_move)
             .where(ranked.c.nth == sa.bindparam("first", 1)).subquery("first_hits"))
    counts = _player_games()
    black, white = counts.alias("black_games"), counts.alias("white_games")
    seen = (sa.func.coalesce(black.c.games, 0) + sa.func.coalesce(white.c.games, 0)) \
        .label("player_games")
    statement = (sa.select(first.c.game, first.c.ply, first.c.next_move, G.black, G.white,
                           G.date, G.event, G.winner, G.reason, G.handicap, G.moves,
                           G.black_rating, G.white_rating, seen)
                 .join_from(first, game_summary, G.game == first.c.game)
                 .outerjoin(black, black.c.player == G.black)
                 .outerjoin(white, white.c.player == G.white)
                 .where(*filters.where(sa.case((first.c.black_to_move, G.black_rating),
                                               else_=G.white_rating))))
    newest = (G.date.desc().nulls_last(), G.game.desc())
    rated = ((G.black_rating + G.white_rating) / 2).desc().nulls_last()
    statement = statement.order_by(*((rated, sa.desc("player_games")) if order == "top"
                                     else ()), *newest)
    statement = statement.limit(sa.bindparam("limit", checks.at_least(limit, "limit", 1)))
    found = checks.iso_dates(fetch(store, statement, keys=hit_keys(position)), "date")
    for row in found:
        code = row["next_move"]
        row["next_move"] = None if code is None else _usi(code)
    return found
