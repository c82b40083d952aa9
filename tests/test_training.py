"""hcpe and PackedSfenValue files (``analytics.training``, ``core.packed``) read back by cshogi:
every record's position, move, evaluation, move number and result against the store's games
replayed by cshogi itself (its ``Board``, ``set_hcp``/``set_psfen``, move16 functions and numpy
record types), on the store of the real fixture records."""

from __future__ import annotations

from pathlib import Path

import cshogi
import numpy as np
import pytest
import sqlalchemy as sa

from kifudb.analytics.filters import GameFilter
from kifudb.analytics.stats import results
from kifudb.analytics.training import RECORD_SIZE, write_training
from kifudb.core.move import Move
from kifudb.core.packed import (PackingError, apery_move16, from_huffman_coded_pos, from_packed_sfen,
                         huffman_coded_pos, packed_sfen, yaneuraou_move16)
from kifudb.core.position import Position
from kifudb.store.engine import fetch, game_summary, games, moves

ROOT = Path(__file__).resolve().parent.parent
MATE_SCORES = 31_000  # |eval| above this: a mate (YaneuraOu's scale)


def _games(store, winners=("black", "white", "draw")) -> list:
    """Every stored game with a result whose start has both kings: (start, winner, [(usi,
    score_black)]) — read straight from the views, replayed below by cshogi, not by kifudb."""
    chosen = fetch(store, sa.select(game_summary.c.game, game_summary.c.winner,
                                    games.c.start_sfen)
                   .join_from(game_summary, games, games.c.game == game_summary.c.game)
                   .order_by(game_summary.c.game))
    rows = fetch(store, sa.select(moves.c.game, moves.c.usi, moves.c.score_black)
                 .where(moves.c.line == 0).order_by(moves.c.game, moves.c.ply))
    lines: dict = {}
    for row in rows:
        lines.setdefault(row["game"], []).append((row["usi"], row["score_black"]))
    found = []
    for row in chosen:
        board = cshogi.Board(row["start_sfen"])
        if row["winner"] not in winners or 0 in (board.pieces.count(cshogi.BKING),
                                                 board.pieces.count(cshogi.WKING)):
            continue
        line = []
        for usi, score in lines.get(row["game"], []):
            if usi is None:
                break
            line.append((usi, score))
        found.append((row["start_sfen"], row["winner"], line))
    return found


def _expected(store) -> list:
    """(SFEN without the move number, USI move, stored score of Black, move number, winner,
    black to move, moves played since the start) of every position a record must be written
    for, by cshogi's replay."""
    expected = []
    for start, winner, line in _games(store):
        board = cshogi.Board(start)
        for ply, (usi, score) in enumerate(line):
            sfen, number = board.sfen().rsplit(" ", 1)
            expected.append((sfen, usi, score, int(number), winner, board.turn == cshogi.BLACK,
                             ply))
            board.push_usi(usi)
    return expected


def _check_eval(value: int, score_black, black_to_move: bool) -> None:
    if score_black is None:
        assert value == 0
        return
    mover = score_black if black_to_move else -score_black
    if abs(score_black) >= 100_000:
        assert abs(value) > MATE_SCORES and (value > 0) == (mover > 0)
    else:
        assert value == mover


def test_hcpe_records_read_back_by_cshogi(dashboard_store, tmp_path):
    output = tmp_path / "games.hcpe"
    summary = write_training(dashboard_store, output, "hcpe")
    records = np.fromfile(output, dtype=cshogi.HuffmanCodedPosAndEval)
    expected = _expected(dashboard_store)
    assert len(records) == summary["records"] == len(expected) > 5000
    assert output.stat().st_size == summary["bytes"] == len(records) * RECORD_SIZE["hcpe"] == \
        len(records) * 38
    assert summary["evaluated"] > 500  # the floodgate and ShogiHome records hold evaluations
    assert summary["without_result"] == results(dashboard_store)["other"]
    board = cshogi.Board()
    handicaps = 0
    for record, (sfen, usi, score, _, winner, black_to_move, _) in zip(records, expected):
        board.set_hcp(record["hcp"])
        assert board.sfen().rsplit(" ", 1)[0] == sfen
        assert cshogi.move_to_usi(board.move_from_move16(int(record["bestMove16"]) & 0xFFFF)) == usi
        assert record["gameResult"] == {"black": cshogi.BLACK_WIN, "white": cshogi.WHITE_WIN,
                                        "draw": cshogi.DRAW}[winner]
        assert record["dummy"] == 0
        _check_eval(int(record["eval"]), score, black_to_move)
        handicaps += sum(board.pieces_in_hand[0]) + sum(board.pieces_in_hand[1]) + sum(
            1 for p in board.pieces if p) < 40
    assert handicaps > 100  # the piece box (駒箱) of handicap games is exercised


def test_psv_records_read_back_by_cshogi(dashboard_store, tmp_path):
    output = tmp_path / "games.bin"
    summary = write_training(dashboard_store, output, "psv")
    records = np.fromfile(output, dtype=cshogi.PackedSfenValue)
    expected = _expected(dashboard_store)
    assert len(records) == summary["records"] == len(expected)
    assert output.stat().st_size == len(records) * 40
    board = cshogi.Board()
    for record, (sfen, usi, score, number, winner, black_to_move, _) in zip(records, expected):
        board.set_psfen(record["sfen"])
        assert board.sfen().rsplit(" ", 1)[0] == sfen
        move = board.move_from_psv(int(record["move"]))
        assert cshogi.move_to_usi(move) == usi
        assert record["gamePly"] == number
        won = {"draw": 0, "black": 1 if black_to_move else -1,
               "white": -1 if black_to_move else 1}[winner]
        assert record["game_result"] == won and record["padding"] == 0
        _check_eval(int(record["score"]), score, black_to_move)


def test_min_ply_dedupe_and_filters(dashboard_store, tmp_path):
    everything = write_training(dashboard_store, tmp_path / "all.hcpe", "hcpe")
    expected = _expected(dashboard_store)
    later = write_training(dashboard_store, tmp_path / "later.hcpe", "hcpe", min_ply=20)
    openings = sum(1 for entry in expected if entry[6] < 20)
    assert later["records"] == everything["records"] - openings > 0

    deduped = write_training(dashboard_store, tmp_path / "once.hcpe", "hcpe", dedupe=True)
    assert deduped["duplicates"] > 0
    assert deduped["records"] + deduped["duplicates"] == everything["records"]
    once = np.fromfile(tmp_path / "once.hcpe", dtype=cshogi.HuffmanCodedPosAndEval)
    pairs = {(bytes(r["hcp"]), int(r["bestMove16"])) for r in once}
    assert len(pairs) == len(once)

    wins = write_training(dashboard_store, tmp_path / "black.psv", "psv",
                          filters=GameFilter(winner="black"))
    kept = np.fromfile(tmp_path / "black.psv", dtype=cshogi.PackedSfenValue)
    assert 0 < wins["records"] == len(kept) < everything["records"]
    board = cshogi.Board()
    for record in kept:  # Black won every game: the side to move won iff it is Black
        board.set_psfen(record["sfen"])
        assert record["game_result"] == (1 if board.turn == cshogi.BLACK else -1)


@pytest.mark.slow
def test_every_position_packs_as_cshogi_packs_it():
    """Every position of 399 real games (handicaps among them) and two hand-made ones (kings
    only, a handicap), packed by kifudb and by cshogi: the same 32 bytes, unpacked to the same
    position; the moves' codes are cshogi's ``move16`` and ``move16_to_psv``; a position
    without both kings is refused (cshogi writes one it cannot read back)."""
    from bench.others import load_usi

    hcp = np.zeros(1, cshogi.HuffmanCodedPos)
    psfen = np.zeros(1, cshogi.PackedSfen)
    games = load_usi(ROOT / "tests/fixtures/usi/real_games.usi") + [
        ("4k4/9/9/9/9/9/9/9/4K4 b 2G2r 1", []),
        ("lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1", ["3c3d"])]
    checked = 0
    for start, line in games:
        position, board = Position.from_sfen(start), cshogi.Board(start)
        if None in position.king_squares:
            with pytest.raises(PackingError):
                huffman_coded_pos(position)
            continue
        for usi in line + [None]:
            board.to_hcp(hcp)
            board.to_psfen(psfen)
            assert huffman_coded_pos(position) == bytes(hcp[0][0]), position.sfen()
            assert packed_sfen(position) == bytes(psfen[0][0]), position.sfen()
            if checked % 5 == 0:  # unpacking is slow: every fifth position
                assert from_huffman_coded_pos(bytes(hcp[0][0])) == position
                assert from_packed_sfen(bytes(psfen[0][0])) == position
            checked += 1
            if usi is None:
                break
            move, theirs = Move.from_usi(usi), board.move_from_usi(usi)
            assert apery_move16(move) == cshogi.move16(theirs)
            assert yaneuraou_move16(move) == cshogi.move16_to_psv(cshogi.move16(theirs))
            position.push(move)
            board.push(theirs)
    assert checked > 27_000


def test_bad_requests_are_refused(dashboard_store, tmp_path):
    with pytest.raises(ValueError, match="format must be one of hcpe, psv"):
        write_training(dashboard_store, tmp_path / "x", "bin")
    with pytest.raises(ValueError, match="min_ply must be an integer of at least 0"):
        write_training(dashboard_store, tmp_path / "x", "hcpe", min_ply=-1)
    with pytest.raises(ValueError, match="no folder"):
        write_training(dashboard_store, tmp_path / "missing" / "x.hcpe", "hcpe")
    with pytest.raises(ValueError, match="it is a folder"):
        write_training(dashboard_store, tmp_path, "psv")
    assert not (tmp_path / "x").exists() and list(tmp_path.iterdir()) == []
