"""The engine's analysis of the main-line moves of many games, for the writers that go through
the store game by game in the order of the games' ids (records out: ``analytics.export``;
training data: ``analytics.training``): the rows of ``analytics.judgement.judged_moves`` —
the values ``judgement.game_analysis`` gives one game, of the analysis it chooses
(``judgement.chosen_analysis``) — read for a range of ``CHUNK`` game ids at a time, one query
a range instead of one a game (about 50 ms a game).

    >>> import tempfile
    >>> from kifudb.store.writer import ingest_paths
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["data/samples/records/habu-fujii-2006.kif"], folder)
    >>> moves = AnalysedMoves(folder)
    >>> bool(moves), moves.of(1)
    (False, {})
    >>> import shutil; shutil.rmtree(folder)
"""

from __future__ import annotations

from typing import Optional

import sqlalchemy as sa

from kifudb.analytics.judgement import analyses, chosen_analysis, judged_moves
from kifudb.core.position import Position
from kifudb.store.engine import analysis, as_store, fetch

__all__ = ["AnalysedMoves", "CHUNK", "analysed_positions", "kifu_analysis"]

#: game ids read a query
CHUNK = 500


class AnalysedMoves:
    """The analysed moves of the store's games (false when the store holds no analysis).
    ``of(game)``: ``{ply: row}`` for the moves whose position after the move is analysed
    (ply 1 is the first move; the start position has no row), each row a dict of ``ply``,
    ``score_black``, ``mate_black`` and ``pv`` (of the position after the move), ``engine``
    and ``limit``."""

    def __init__(self, store, engine: Optional[str] = None, limit: Optional[str] = None):
        self.store = as_store(store)
        self.choice = chosen_analysis(self.store, engine, limit) \
            if engine is not None or limit is not None or analyses(self.store) else None
        self._first, self._last, self._rows = 1, 0, {}

    def __bool__(self) -> bool:
        return self.choice is not None

    def of(self, game: int) -> dict:
        if self.choice is None:
            return {}
        if not self._first <= game <= self._last:
            self._load(game, game + CHUNK - 1)
        return self._rows.get(game, {})

    def _load(self, first: int, last: int) -> None:
        judged = judged_moves(self.choice)
        j = judged.c
        rows = fetch(self.store, sa.select(j.game, j.ply, j.score_black, j.mate_black, j.pv)
                     .where(j.game >= sa.bindparam("first", first),
                            j.game <= sa.bindparam("last", last),
                            sa.or_(j.score_black.is_not(None), j.mate_black.is_not(None)))
                     .order_by(j.game, j.ply))
        self._rows = {}
        for row in rows:
            game = row.pop("game")
            self._rows.setdefault(game, {})[row["ply"]] = {
                **row, "engine": self.choice["engine"], "limit": self.choice["limit"]}
        self._first, self._last = first, last


def analysed_positions(store, keys, choice: dict) -> dict:
    """``{key: row}``: the analysis ``choice`` (``judgement.chosen_analysis``) of each of
    ``keys`` the store has (its best line: ``score_black``, ``mate_black``, ``pv``,
    ``depth``, ``nodes``, ``engine``, ``limit``), read ``CHUNK`` keys a query."""
    a = analysis.c
    keys = sorted(set(keys))
    found = {}
    for start in range(0, len(keys), CHUNK):
        for row in fetch(store, sa.select(a.key, a.score_black, a.mate_black, a.pv, a.depth,
                                          a.nodes, a.engine, a["limit"])
                         .where(a.key.in_(keys[start:start + CHUNK]),
                                a.engine == sa.bindparam("engine", choice["engine"]),
                                a["limit"] == sa.bindparam("limit", choice["limit"]),
                                a.multipv == 1)):
            found[row.pop("key")] = row
    return found


def kifu_analysis(store, kifu, choice: dict) -> dict:
    """``{ply: row}`` of ``kifu``'s main line (a record read from a file, not the store's):
    the store's analysis (``choice``) of the position after each move, found by its key, the
    rows ``analysis_comments.annotated`` writes."""
    position = Position.from_sfen(kifu.start_sfen)
    keys = []
    for kifu_move in kifu.moves:
        position.push(kifu_move.move)
        keys.append(position.key())
    found = analysed_positions(store, keys, choice)
    return {ply: found[key] for ply, key in enumerate(keys, 1) if key in found}
