"""Differential tests: our engine against cshogi, an independent engine, on real and random games.

For every position of every real game in ``tests/fixtures/usi`` and of seeded random playouts, the
set of legal moves, check (also as ``push_and_check`` finds it from the move alone) and checkmate
must agree; on a share of the positions every geometrically possible move (and every drop) is put
to ``Position.illegality`` one by one, which must accept exactly cshogi's legal moves. cshogi is
a dev-only dependency.
"""

import random
from pathlib import Path

import cshogi
import pytest

from kifudb.core import Move, Position
from kifudb.core.pieces import HAND_TYPES
from kifudb.core.tables import REACH
from kifudb.ingest.usi_file import read_usi_games

FIXTURES = Path(__file__).parent / "fixtures" / "usi"

pytestmark = pytest.mark.slow  # about 25 s: `make test` runs it, `make test-fast` not


def candidate_moves(position):
    """Every move a piece could make on an empty board from where it stands, and every drop."""
    moves = []
    for sq, code in enumerate(position.board):
        if code and code >> 4 == position.turn:
            for to in REACH[code][sq]:
                moves.append(Move(sq, to, False, None))
                moves.append(Move(sq, to, True, None))
    for t in HAND_TYPES:
        for to in range(81):
            moves.append(Move(None, to, False, t))
    return moves


def assert_same(position, board, single_moves=False):
    ours = {m.usi() for m in position.legal_moves()}
    theirs = {cshogi.move_to_usi(m) for m in board.legal_moves}
    where = position.sfen()
    assert ours == theirs, (where, ours - theirs, theirs - ours)
    assert position.is_check() == bool(board.is_check()), where
    assert position.is_checkmate() == (bool(board.is_check()) and not theirs), where
    if single_moves:
        accepted = {m.usi() for m in candidate_moves(position) if position.illegality(m) is None}
        assert accepted == theirs, (where, accepted - theirs, theirs - accepted)
    return theirs


def replay_both(start_sfen, moves, every=4):
    position = Position.from_sfen(start_sfen)
    board = cshogi.Board(start_sfen)
    for ply, usi in enumerate(moves):
        legal = assert_same(position, board, single_moves=ply % every == 0)
        assert usi in legal, (position.sfen(), usi)
        gives_check = position.push_and_check(Move.from_usi(usi))
        board.push_usi(usi)
        assert gives_check == bool(board.is_check()), (position.sfen(), usi)
        assert position.key() == Position.from_sfen(position.sfen()).key()
    assert_same(position, board, single_moves=True)
    return len(moves)


def load(name):
    with open(FIXTURES / name, encoding="utf-8") as stream:
        return [g for g in read_usi_games(stream)]


def test_every_real_game_agrees_with_cshogi():
    games = load("real_games.usi")
    assert len(games) >= 350
    plies = sum(replay_both(g.start_sfen, g.moves) for g in games)
    assert plies > 25000


def test_floodgate_openings_agree_with_cshogi():
    games = load("openings.usi")[:500]
    assert sum(replay_both(g.start_sfen, g.moves, every=8) for g in games) > 10000


# Sparse positions with full hands: drops, checks, mates and uchifuzume come up all the time.
PLAYOUT_STARTS = [
    "startpos",
    "4k4/9/9/9/9/9/9/9/4K4 b RBGSNLPrbgsnlp 1",
    "8k/9/9/9/9/9/9/9/K8 b R2B4G4S4N4L9Pr8p 1",
    "lnsgk4/9/ppppp4/9/9/9/4PPPPP/9/4KGSNL b RBrb 1",
    "3gkg3/9/4p4/9/9/9/9/9/4K4 b 2R2B2G4S4N4L17P 1",
]


@pytest.mark.parametrize("start", PLAYOUT_STARTS)
def test_seeded_random_playouts_agree_with_cshogi(start):
    rng = random.Random(f"kifudb-{start}")
    sfen = Position.from_sfen(start).sfen()
    played = 0
    for _ in range(40):
        position = Position.from_sfen(sfen)
        board = cshogi.Board(sfen)
        for ply in range(160):
            legal = sorted(assert_same(position, board, single_moves=ply % 3 == 0))
            if not legal:
                break
            # prefer checks now and then, to reach mates and pawn-drop mates
            usi = rng.choice(legal)
            gives_check = position.push_and_check(Move.from_usi(usi))
            board.push_usi(usi)
            assert gives_check == bool(board.is_check()), (position.sfen(), usi)
            played += 1
    assert played > 1000
