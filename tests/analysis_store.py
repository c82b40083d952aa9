"""Stores with an engine's analysis for the tests of where it shows (the dashboard, records
out): real records ingested, then analysis rows made by hand and committed the way the runner
commits them (``Store.writing`` + ``Store.commit({"analysis": table}, next_game)``), so that a
test knows every score. The end-to-end tests use the real engine instead
(``kifudb.analysis.run``).

The hand-made analysis of a game (``scripted``): every position after a move gets a score from
Black's view that drifts slowly (``+20`` a ply, no judgement), except that the move ``BLUNDER``
of the game (a Black move) turns +300 into -2000 (a blunder for Black, with a better move than
the one played: the first legal move that is not it), and the position before the game's last
move is a mate for whoever played it (``mate_black`` ±3, no score). Each PV is the game's own
next moves (legal: they were played), at most 16, but for the blunder's better line. The
position after the blunder is a puzzle (``analytics.puzzles``): its second line
(``multipv`` 2, ``SECOND``) scores 0, so only White's best move (the game's own next move)
wins.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from kifudb.core.move import Move
from kifudb.core.position import Position
from kifudb.store.folder import Store
from kifudb.store.schema import ANALYSIS

ENGINE, LIMIT = "Hand-made 1.0", "nodes=1000"
#: the second line's score at the puzzle (the position after the blunder)
SECOND = 0
#: the ply of the blunder (a Black move in an even game)
BLUNDER = 11


def main_line(store_dir, game: int) -> tuple:
    """``(start_sfen, [usi …], {ply: key})`` of a stored game's main line."""
    connection = Store(store_dir).connect()
    try:
        start = connection.execute("SELECT start_sfen FROM games WHERE game = ?",
                                   [game]).fetchone()[0]
        moves = [u for (u,) in connection.execute(
            "SELECT usi FROM moves WHERE game = ? AND line = 0 AND usi IS NOT NULL ORDER BY ply",
            [game]).fetchall()]
        keys = dict(connection.execute("SELECT ply, key FROM positions WHERE game = ?",
                                       [game]).fetchall())
    finally:
        connection.close()
    return start, moves, keys


def scripted(start_sfen: str, moves: list) -> dict:
    """``{ply: row}`` of the hand-made analysis of a main line (see the module docstring):
    rows of ``score_black``, ``mate_black``, ``best``, ``pv``, ``depth``, ``nodes`` for the
    positions at ply 0 (the start) … n-1 (the position before the last move; the final
    position is left out as the runner leaves out a mate's)."""
    position = Position.from_sfen(start_sfen)
    rows = {}
    for ply in range(len(moves)):
        pv = moves[ply:ply + 16]
        score, mate = 20 * ply, None
        if ply == BLUNDER - 1:  # before the blunder: good for Black, and another move is best
            score = 300
            other = next(m.usi() for m in position.legal_moves() if m.usi() != moves[ply])
            pv = [other]
        elif ply >= BLUNDER:
            score = -2000 - 20 * (ply - BLUNDER)
        if ply == len(moves) - 1 and ply > BLUNDER:
            score, mate = None, (3 if ply % 2 == 0 else -3)  # the mover of the last move mates
        rows[ply] = {"score_black": score, "mate_black": mate, "best": pv[0], "pv": " ".join(pv),
                     "depth": 8 + ply % 3, "nodes": 1000 + ply}
        position.push(Move.from_usi(moves[ply]))
    return rows


def _second_line(start_sfen: str, moves: list):
    """The second line of the puzzle: a legal move other than the game's next one, scored
    ``SECOND``; None when the game is too short."""
    if len(moves) <= BLUNDER + 1:
        return None
    position = Position.from_sfen(start_sfen)
    for usi in moves[:BLUNDER]:
        position.push(Move.from_usi(usi))
    other = next(m.usi() for m in position.legal_moves() if m.usi() != moves[BLUNDER])
    return {"score_black": SECOND, "mate_black": None, "best": other, "pv": other, "depth": 8,
            "nodes": 1000}


def commit_analysis(store_dir, games: list, engine: str = ENGINE, limit: str = LIMIT,
                    second: bool = True) -> dict:
    """Commit the hand-made analysis of ``games`` (with the puzzle's second line unless not
    ``second``); returns ``{game: {ply: row}}`` (a position several games reach has the row of
    the first of them)."""
    table, made, kept, seconds = {name: [] for name in ANALYSIS.names}, {}, {}, set()
    for game in games:
        start, moves, keys = main_line(store_dir, game)
        made[game] = {}
        for ply, row in scripted(start, moves).items():
            key = keys[ply]
            if key not in kept:  # a position of several games (the start …): analysed once
                kept[key] = row
                for name, value in {"key": key, "engine": engine, "limit": limit,
                                    "multipv": 1, **row}.items():
                    table[name].append(value)
            made[game][ply] = kept[key]
        line = _second_line(start, moves) if second else None
        if line is not None and keys[BLUNDER] not in seconds:
            seconds.add(keys[BLUNDER])
            for name, value in {"key": keys[BLUNDER], "engine": engine, "limit": limit,
                                "multipv": 2, **line}.items():
                table[name].append(value)
    store = Store(store_dir)
    with store.writing():
        manifest = store.manifest()
        batch = store.next_batch(manifest)
        table["batch"] = [batch] * len(table["key"])
        store.commit({"analysis": pa.table(table, schema=ANALYSIS)}, manifest["next_game"])
    return made


def games_of(store_dir, minimum_moves: int = 30, limit: int = 3,
             evaluated: bool = False) -> list:
    """Games of an even start with at least ``minimum_moves`` moves, all replayed, whose
    records carry no evaluation of their own (``evaluated``: only those that do)."""
    connection = Store(store_dir).connect()
    try:
        return [g for (g,) in connection.execute(
            "SELECT game FROM games WHERE valid AND moves >= ? AND start_sfen LIKE "
            "'lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b%' AND game "
            f"{'' if evaluated else 'NOT'} IN (SELECT game FROM moves WHERE score_black IS NOT "
            "NULL) ORDER BY game LIMIT ?", [minimum_moves, limit]).fetchall()]
    finally:
        connection.close()


ROOT = Path(__file__).resolve().parent.parent

