"""SFEN reading and writing, the position key, push/pop, and handicap start positions."""

import pytest

from kifudb.core import Move, Position, SfenError, STARTING_SFEN
from kifudb.core.handicap import HANDICAPS, handicap_name, handicap_sfen, removed_pieces
from kifudb.core.key import splitmix64
from kifudb.core.pieces import FULL_SET


def test_sfen_round_trip():
    for sfen in [STARTING_SFEN, "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
                 "ln1g3nl/1r3kg2/p2pppsp1/2ps2p1p/1p7/2P1P1P2/PPSP1PN1P/2G2S1R1/LN2KG2L w Bb 32",
                 "8l/+P+L+N+S1+B+R2/9/9/9/9/9/9/4K3k b - 1"]:
        assert Position.from_sfen(sfen).sfen() == sfen
        assert Position.from_sfen("sfen " + sfen).sfen() == sfen


@pytest.mark.parametrize("text, fragment", [
    ("", "board, side"),
    ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1 b - 1", "9 ranks separated by '/', not 8"),
    ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNLL b - 1", "more than 9"),
    ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN b - 1", "9 squares"),
    ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL x - 1", "side to move"),
    ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b P 1", "19 pawns"),
    ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNS+GKGSNL b - 1", "cannot be promoted"),
    ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNX b - 1", "unknown piece"),
    ("4k4/9/9/9/9/9/9/9/4K4 b 0P 1", "zero count"),
    ("4k4/9/9/9/9/9/9/9/4K4 b X 1", "unknown piece"),
    ("4k4/9/9/9/9/9/9/9/4K4 b - one", "move number"),
    ("4k4/9/9/9/9/9/9/9/3KK4 b - 1", "kings"),
])
def test_bad_sfen_says_what_is_wrong(text, fragment):
    with pytest.raises(SfenError, match=fragment):
        Position.from_sfen(text)


def test_splitmix64_matches_the_reference_stream():
    # the first outputs for seed 0 published with the algorithm (Vigna, splitmix64.c)
    stream = splitmix64(0)
    assert [next(stream) for _ in range(3)] == [
        0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_key_ignores_move_number_and_follows_side_hands_board():
    base = Position.from_sfen("4k4/9/9/9/9/9/9/9/4K4 b G 1")
    assert base.key() == Position.from_sfen("4k4/9/9/9/9/9/9/9/4K4 b G 57").key()
    different = ["4k4/9/9/9/9/9/9/9/4K4 w G 1", "4k4/9/9/9/9/9/9/9/4K4 b g 1",
                 "4k4/9/9/9/9/9/9/9/4K4 b S 1", "4k4/9/9/9/9/9/9/9/4K4 b 2G 1",
                 "4k4/9/9/9/9/9/9/9/3K5 b G 1", "4k4/9/9/9/9/9/9/9/4K4 b - 1"]
    keys = {base.key()} | {Position.from_sfen(s).key() for s in different}
    assert len(keys) == len(different) + 1
    assert 0 <= base.key() < 2 ** 64


def test_incremental_key_equals_key_from_sfen():
    position = Position()
    for usi in "7g7f 3c3d 8h2b+ 3a2b B*4e 8b3b 4e3d 3b3d 2g2f B*5e".split():
        position.push_usi(usi)
        assert position.key() == Position.from_sfen(position.sfen()).key()
    while position.history:
        position.pop()
        assert position.key() == Position.from_sfen(position.sfen()).key()
    assert position.sfen() == STARTING_SFEN


def test_push_usi_raises_with_the_reason():
    position = Position()
    with pytest.raises(ValueError, match="bad_geometry"):
        position.push_usi("7g7e")
    with pytest.raises(ValueError, match="not a USI move"):
        position.push_usi("7g7")
    assert position.sfen() == STARTING_SFEN


def test_move_usi_round_trip():
    for text in ("7g7f", "8h2b+", "P*5e", "G*1a", "1a9i"):
        assert Move.from_usi(text).usi() == text
    for bad in ("", "K*5e", "P*5", "7g7f=", "0a1a", "7j7f", "p*5e", "7g7f++"):
        with pytest.raises(ValueError):
            Move.from_usi(bad)


def test_every_handicap_removes_its_pieces_and_white_moves_first():
    even = Position()
    for name, sfen in HANDICAPS.items():
        position = Position.from_sfen(sfen)
        assert handicap_name(sfen) == name
        if name == "平手":
            continue
        assert position.turn == 1, name
        removed = sorted(removed_pieces(name))
        missing = []
        for sq in range(81):
            if even.board[sq] != position.board[sq]:
                assert position.board[sq] == 0 and even.board[sq] >= 16, name  # only White's
                missing.append(even.board[sq] & 15)
        assert sorted(missing) == removed, name
        assert position.hands == [[0] * 8, [0] * 8]


def test_handicap_spellings():
    assert handicap_sfen("KY_R") == handicap_sfen("右香落ち")
    assert handicap_sfen("8") == handicap_sfen("八枚落ち")
    assert handicap_sfen("飛車落") == handicap_sfen("飛車落ち")
    assert handicap_sfen("HIRATE") == STARTING_SFEN
    with pytest.raises(KeyError):
        handicap_sfen("九枚落ち")


def test_full_set_is_forty_pieces():
    assert sum(FULL_SET) == 40
