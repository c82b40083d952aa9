"""The main lines of the store's games as they were played: each game's start, result and
replayed moves with their stored evaluations, read in chunks of games — the one reading that
the training-data writer (``analytics.training``) and the opening-book writer
(``analytics.book``) share.

    >>> import tempfile
    >>> from kifudb.store.writer import ingest_paths
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["data/samples/games.usi"], folder)
    >>> first = next(played_games(folder))
    >>> first.game, first.winner, [m.usi for m in first.moves[:3]]
    (1, 'none', ['7g7f', '3c3d', '2g2f'])
    >>> [len(g.moves) for g in played_games(folder, max_ply=2)][:3]
    [2, 2, 2]
    >>> import shutil; shutil.rmtree(folder)

An evaluation is kept as the store keeps it (``score_black``: Black's view, a mate ±100000;
``mate``: plies, signed the same way); ``engine_score`` turns it into the side to move's score on
an engine's scale (YaneuraOu's: a mate in n plies is ±(32000 - n))::

    >>> engine_score(120, None, black_to_move=False), engine_score(-100000, -3, True)
    (-120, -31997)
    >>> engine_score(100000, None, True), engine_score(99999, None, True), engine_score(None, None, True)
    (32000, 31753, None)
"""

from __future__ import annotations

from typing import Iterator, NamedTuple, Optional

import sqlalchemy as sa

from kifudb.analytics import checks
from kifudb.analytics.filters import GameFilter
from kifudb.store.engine import fetch, game_summary, games, moves
from kifudb.store.schema import MATE as STORED_MATE  # a mate as ``score_black`` keeps it

__all__ = ["PlayedMove", "PlayedGame", "played_games", "engine_score", "VALUE_MATE"]

#: YaneuraOu's ``VALUE_MATE``: a mate in n plies scores ``VALUE_MATE - n`` for the side that mates.
VALUE_MATE = 32_000
#: Scores that are not mates are kept below YaneuraOu's ``VALUE_MATE_IN_MAX_PLY`` (32000 - 246).
LARGEST_SCORE = VALUE_MATE - 246 - 1
_CHUNK = 2_000  # games read per query


class PlayedMove(NamedTuple):
    """A main-line move: ``ply`` (1 for the first move), ``usi``, and its stored evaluation
    (``score_black``, ``mate``, ``depth``; None without one)."""

    ply: int
    usi: str
    score_black: Optional[int]
    mate: Optional[int]
    depth: Optional[int]


class PlayedGame(NamedTuple):
    """A game: its id, ``start_sfen``, ``winner`` (black, white, draw, none) and its replayed
    main-line moves (up to the first that could not be replayed)."""

    game: int
    start_sfen: str
    winner: str
    moves: list


def played_games(store, filters: GameFilter = GameFilter(),
                 max_ply: Optional[int] = None) -> Iterator[PlayedGame]:
    """The games of ``filters`` in the order of their ids, each with its replayed main line
    (its first ``max_ply`` moves when given)."""
    if max_ply is not None:
        checks.at_least(max_ply, "max_ply", 0)
    g = game_summary.c
    chosen = fetch(store, sa.select(g.game, g.winner, games.c.start_sfen)
                   .join_from(game_summary, games, games.c.game == g.game)
                   .where(*filters.where()).order_by(g.game))
    for at in range(0, len(chosen), _CHUNK):
        chunk = chosen[at:at + _CHUNK]
        lines = _main_lines(store, chunk[0]["game"], chunk[-1]["game"], max_ply)
        for row in chunk:
            yield PlayedGame(row["game"], row["start_sfen"], row["winner"] or "none",
                             lines.get(row["game"], []))


def _main_lines(store, first: int, last: int, max_ply: Optional[int]) -> dict:
    """game -> its replayed main-line moves, for the games ``first``..``last``."""
    m = moves.c
    conditions = [m.line == 0, m.game >= sa.bindparam("first", first),
                  m.game <= sa.bindparam("last", last)]
    if max_ply is not None:
        conditions.append(m.ply <= sa.bindparam("max_ply", max_ply))
    statement = (sa.select(m.game, m.ply, m.usi, m.score_black, m.mate, m.depth)
                 .where(*conditions).order_by(m.game, m.ply))
    lines: dict = {}
    stopped = set()
    for row in fetch(store, statement):
        game = row["game"]
        if game in stopped:
            continue
        if row["usi"] is None:  # the first move that could not be replayed: the line ends
            stopped.add(game)
            continue
        lines.setdefault(game, []).append(PlayedMove(row["ply"], row["usi"], row["score_black"],
                                                     row["mate"], row["depth"]))
    return lines


def engine_score(score_black: Optional[int], mate: Optional[int],
                 black_to_move: bool) -> Optional[int]:
    """A stored evaluation as the side to move's score on YaneuraOu's scale (fits 16 bits):
    a mate in ``mate`` plies is ``±(VALUE_MATE - plies)`` (``±VALUE_MATE`` when the plies are not
    known), any other score is clipped to ``±LARGEST_SCORE``; None without an evaluation."""
    if score_black is None:
        return None
    if abs(score_black) >= STORED_MATE:
        value = VALUE_MATE - min(abs(mate), 246) if mate else VALUE_MATE
        value = value if score_black > 0 else -value
    else:
        value = max(-LARGEST_SCORE, min(LARGEST_SCORE, score_black))
    return value if black_to_move else -value
