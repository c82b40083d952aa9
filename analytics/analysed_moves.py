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
from kifudb.store.engine import as_store, fetch

__all__ = ["AnalysedMoves", "CHUNK"]

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
