"""Training data for shogi engines from the store's games: hcpe (cshogi, dlshogi) and
PackedSfenValue (YaneuraOu's ``.bin``), one fixed-size record per main-line position that has a
move played next, every number little-endian.

hcpe, 38 bytes (cshogi's ``HuffmanCodedPosAndEval``):

====== ===== ============ ============================================================
offset bytes field        value
====== ===== ============ ============================================================
0      32    hcp          the position, ``core.packed.huffman_coded_pos``
32     2     eval         int16: the stored evaluation of the move, the side to move's
                          view (0 without one)
34     2     bestMove16   uint16: the move played, cshogi's ``move16``
36     1     gameResult   int8: 1 Black won, 2 White won, 0 a draw (cshogi's BLACK_WIN,
                          WHITE_WIN, DRAW)
37     1     dummy        0
====== ===== ============ ============================================================

PackedSfenValue, 40 bytes (YaneuraOu's; cshogi's ``PackedSfenValue``):

====== ===== ============ ============================================================
offset bytes field        value
====== ===== ============ ============================================================
0      32    sfen         the position, ``core.packed.packed_sfen``
32     2     score        int16: as ``eval`` above
34     2     move         uint16: the move played, YaneuraOu's ``Move16``
36     2     gamePly      uint16: the position's move number (1 at the start)
38     1     game_result  int8: 1 the side to move won, -1 it lost, 0 a draw
39     1     padding      0
====== ===== ============ ============================================================

The evaluation is the one stored with the move (``moves.score_black``, read from the record's
comments at ingest): the score of the search that chose the move, i.e. of the position the
record describes, seen from the side to move; a mate in n plies is ±(32000 - n), as YaneuraOu
scores it (``analytics.played.engine_score``). Where the record has none, the store's engine
analysis (``kifudb analyse``; ``analytics.analysed_moves``) of the position gives it,
on the same scale (``analysis=False``: never); where both exist, the record's wins (the
search made in the game itself, usually longer than an analysis). Games without a result are
left out (a record needs one), and so are games whose start lacks a king (a tsume problem:
neither packing holds one); ``min_ply`` leaves out each game's first positions and ``dedupe``
keeps one record per (position, move played)::

    >>> import tempfile, os
    >>> from kifudb.store.writer import ingest_paths
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["data/samples/records"], folder)
    >>> output = os.path.join(folder, "games.hcpe")
    >>> summary = write_training(folder, output, "hcpe")
    >>> summary["records"] * 38 == os.path.getsize(output), summary["games"] > 0
    (True, True)
    >>> write_training(folder, output, "psv", min_ply=10_000)["records"]
    0
    >>> import shutil; shutil.rmtree(folder)
"""

from __future__ import annotations

import struct

from kifudb.analytics import checks
from kifudb.analytics.files import OutputFile
from kifudb.analytics.filters import GameFilter
from kifudb.analytics.played import engine_score, played_games
from kifudb.store.schema import MATE as STORED_MATE
from kifudb.core.move import Move
from kifudb.core.packed import (PackingError, apery_move16, huffman_coded_pos, packed_sfen,
                         yaneuraou_move16)
from kifudb.core.pieces import BLACK
from kifudb.core.position import Position

__all__ = ["write_training", "FORMATS", "RECORD_SIZE"]

FORMATS = ("hcpe", "psv")
_HCPE = struct.Struct("<32shHbx")
_PSV = struct.Struct("<32shHHbx")
#: bytes per record of each format
RECORD_SIZE = {"hcpe": _HCPE.size, "psv": _PSV.size}
_HCPE_RESULT = {"black": 1, "white": 2, "draw": 0}


def write_training(store, output, fmt: str, *, filters: GameFilter = GameFilter(),
                   min_ply: int = 0, dedupe: bool = False, overwrite: bool = True,
                   analysis: bool = True) -> dict:
    """Write the training records of the games of ``filters`` to the file ``output``, made
    whole (``analytics.files``; a file there is replaced once complete if ``overwrite``, else
    ``OutputRefused`` before the work), and say what was written: ``format``, ``records``,
    ``games`` (that gave records), ``evaluated`` (records with a score), ``from_analysis``
    (those of them scored by the engine's analysis, the record having none),
    ``duplicates`` (left out by ``dedupe``), ``without_result`` and ``without_kings`` (games
    left out), ``bytes``, and whether a file was ``replaced``."""
    checks.choice(fmt, "format", FORMATS)
    checks.at_least(min_ply, "min_ply", 0)
    out = OutputFile(output, overwrite=overwrite)
    out.check()
    summary = {"format": fmt, "records": 0, "games": 0, "evaluated": 0, "from_analysis": 0,
               "duplicates": 0, "without_result": 0, "without_kings": 0}
    seen: set = set()
    if analysis:
        from kifudb.analytics.analysed_moves import AnalysedMoves

        analysis = AnalysedMoves(store)
    with out.stream() as stream:
        for played in played_games(store, filters):
            if played.winner not in _HCPE_RESULT:
                summary["without_result"] += 1
                continue
            scores = _analysis_scores(analysis.of(played.game)) if analysis else {}
            try:
                records = _records(played, fmt, min_ply, dedupe, seen, summary, scores)
            except PackingError:
                summary["without_kings"] += 1
                continue
            if records:
                stream.write(b"".join(records))
                summary["records"] += len(records)
                summary["games"] += 1
    summary["bytes"] = summary["records"] * RECORD_SIZE[fmt]
    summary["replaced"] = bool(out.replaced)
    return summary


def _analysis_scores(rows: dict) -> dict:
    """``{ply: (score_black, mate)}``: the engine's analysis of the position after move
    ``ply`` of a game's main line (``rows``: ``analytics.analysed_moves``; none of the start
    position), as the store keeps a record's evaluation (a mate's ``score_black`` is
    ±``MATE``)."""
    out = {}
    for ply, row in rows.items():
        score, mate = row["score_black"], row["mate_black"]
        if mate:
            out[ply] = (STORED_MATE if mate > 0 else -STORED_MATE, mate)
        elif score is not None:
            out[ply] = (score, None)
    return out


def _records(played, fmt: str, min_ply: int, dedupe: bool, seen: set, summary: dict,
             scores: dict) -> list:
    """The records of one game's main line (``PackingError`` if its start lacks a king);
    ``scores``: ``_analysis_scores``, for the moves whose record has no evaluation."""
    position = Position.from_sfen(played.start_sfen)
    if None in position.king_squares:
        raise PackingError("a king is missing")
    hcpe = fmt == "hcpe"
    pack, code = (huffman_coded_pos, apery_move16) if hcpe else (packed_sfen, yaneuraou_move16)
    winner = played.winner
    records = []
    for played_move in played.moves:
        move = Move.from_usi(played_move.usi)
        if played_move.ply - 1 >= min_ply:
            packed, move16 = pack(position), code(move)
            if dedupe:
                key = packed + move16.to_bytes(2, "little")
                if key in seen:
                    summary["duplicates"] += 1
                    position.push(move)
                    continue
                seen.add(key)
            black_to_move = position.turn == BLACK
            score = engine_score(played_move.score_black, played_move.mate, black_to_move)
            if score is None and played_move.ply - 1 in scores:  # the position's analysis
                score = engine_score(*scores[played_move.ply - 1], black_to_move)
                summary["from_analysis"] += 1
            if score is not None:
                summary["evaluated"] += 1
            if hcpe:
                records.append(_HCPE.pack(packed, score or 0, move16, _HCPE_RESULT[winner]))
            else:
                result = 0 if winner == "draw" else (
                    1 if (winner == "black") == black_to_move else -1)
                records.append(_PSV.pack(packed, score or 0, move16,
                                         min(position.move_number, 0xFFFF), result))
        position.push(move)
    return records
