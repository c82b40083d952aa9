"""Every illegal-move code on a hand-made position, and the legal neighbours of each case."""

import pytest

from kifudb.core import GOLD, KNIGHT, PAWN, ROOK, Move, Position, perft

START = "startpos"
# White king in the corner, its knight on 2a, Black's gold on 2c guarding 1b and 2b.
CORNER = "7nk/9/7G1/9/9/9/9/9/K8 b {hand} 1"

ILLEGAL = [
    # code, position, move, piece the record names (or None)
    ("no_piece", START, "5e5d", None),
    ("no_piece", START, "7g7f", ROOK),  # the record says a rook moves from 7g; a pawn stands there
    ("not_own_piece", START, "3c3d", None),
    ("bad_geometry", START, "7g7e", None),  # a pawn moves one square
    ("bad_geometry", START, "8h6f", None),  # the bishop's path is blocked by the pawn on 7g
    ("bad_geometry", START, "2h2c", None),  # the rook's path is blocked
    ("bad_geometry", START, "6i4h", None),  # a gold moves one square
    ("capture_own_piece", START, "2h2g", None),
    ("not_in_hand", START, "P*5e", None),
    ("drop_on_occupied", "4k4/9/9/9/9/9/9/9/4K4 b G 1", "G*5i", None),
    ("illegal_promotion", START, "7g7f+", None),  # outside the zone
    ("illegal_promotion", "4k4/9/9/4G4/9/9/9/9/4K4 b - 1", "5d5c+", None),  # gold never promotes
    ("illegal_promotion", "4k4/9/9/4+P4/9/9/9/9/4K4 b - 1", "5d5c+", None),  # already promoted
    ("dead_piece", "4k4/P8/9/9/9/9/9/9/4K4 b - 1", "9b9a", None),  # pawn to the last rank
    ("dead_piece", "4k4/9/L8/9/9/9/9/9/4K4 b - 1", "9c9a", None),  # lance to the last rank
    ("dead_piece", "4k4/9/9/N8/9/9/9/9/4K4 b - 1", "9d8b", None),  # knight to the last two ranks
    ("dead_piece", "4k4/9/9/9/9/9/9/9/4K4 b P 1", "P*1a", None),
    ("dead_piece", "4k4/9/9/9/9/9/9/9/4K4 b N 1", "N*1b", None),
    ("dead_piece", "4k4/9/9/9/9/9/9/9/4K4 w n 1", "N*1h", None),  # White's last ranks are 8-9
    ("nifu", "4k4/9/9/9/9/9/4P4/9/4K4 b P 1", "P*5d", None),
    ("uchifuzume", CORNER.format(hand="P"), "P*1b", None),
    ("leaves_king_in_check", "4k4/9/9/9/4r4/9/9/4G4/4K4 b - 1", "5h4h", None),  # pinned gold
    ("leaves_king_in_check", "4k4/9/9/9/4r4/9/9/9/4K4 b - 1", "5i5h", None),  # into the rook's file
    ("leaves_king_in_check", "4k4/9/9/9/4r4/9/9/9/4K4 b G 1", "G*4h", None),  # ignores the check
    ("leaves_king_in_check", "4k4/9/9/9/9/9/3s5/9/4K4 b - 1", "5i5h", None),  # into a silver
]


@pytest.mark.parametrize("code, sfen, usi, piece", ILLEGAL)
def test_illegal_move_has_its_code(code, sfen, usi, piece):
    position = Position.from_sfen(sfen)
    move = Move.from_usi(usi)
    reason = position.illegality(move, piece)
    assert reason is not None and reason.code == code, reason
    assert reason.message  # a plain sentence for the user
    if piece is None:
        assert move not in position.legal_moves()


LEGAL = [
    # the legal neighbour of each case above
    ("4k4/9/9/9/9/9/9/9/4K4 b G 1", "G*5h"),
    ("4k4/P8/9/9/9/9/9/9/4K4 b - 1", "9b9a+"),
    ("4k4/9/9/N8/9/9/9/9/4K4 b - 1", "9d8b+"),
    ("4k4/9/9/N8/9/9/9/9/4K4 b N 1", "N*1c"),
    ("4k4/9/9/9/9/9/4+P4/9/4K4 b P 1", "P*5d"),  # a tokin on the file is no nifu
    ("4k4/9/9/9/9/9/4p4/9/4K4 b P 1", "P*5d"),  # nor is the opponent's pawn
    ("4k4/9/9/9/4r4/9/9/4G4/4K4 b - 1", "5h5g"),  # the pinned gold moves along the pin
    ("4k4/9/9/9/4r4/9/9/9/4K4 b G 1", "G*5h"),  # a drop that blocks the check
    ("4k4/9/9/9/4r4/9/9/9/4K4 b - 1", "5i4h"),  # stepping out of the check
    ("7n1/8k/7G1/9/9/9/9/9/K8 b P 1", "P*1c"),  # a pawn drop check that is not mate
    ("4k4/9/9/9/9/9/9/9/4K4 b G 1", "G*5b"),
    ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "7g7f"),
    ("9/4k4/9/4P4/9/9/9/9/4K4 b - 1", "5d5c"),  # no promotion is fine where the piece can move on
    ("9/4k4/9/4P4/9/9/9/9/4K4 b - 1", "5d5c+"),
]


@pytest.mark.parametrize("sfen, usi", LEGAL)
def test_legal_neighbours_are_accepted(sfen, usi):
    position = Position.from_sfen(sfen)
    move = Move.from_usi(usi)
    assert position.illegality(move) is None
    assert move in position.legal_moves()


def test_pawn_push_mate_is_legal():
    position = Position.from_sfen("7nk/9/7GP/9/9/9/9/9/K8 b - 1")
    move = Move.from_usi("1c1b")
    assert position.illegality(move) is None
    position.push(move)
    assert position.is_check() and position.is_checkmate()


def test_non_pawn_drop_mate_is_legal():
    position = Position.from_sfen(CORNER.format(hand="G"))
    assert position.illegality(Move.from_usi("G*1b")) is None
    position.push(Move.from_usi("G*1b"))
    assert position.is_checkmate()


def test_uchifuzume_only_when_the_drop_mates():
    # the same drop is legal once the king can escape to 2a
    position = Position.from_sfen("8k/9/7G1/9/9/9/9/9/K8 b P 1")
    assert position.illegality(Move.from_usi("P*1b")) is None
    # and a pawn drop that mates by discovered... cannot exist; a pawn drop elsewhere is fine
    position = Position.from_sfen(CORNER.format(hand="P"))
    assert position.illegality(Move.from_usi("P*3b")) is None


def test_illegality_does_not_change_the_position():
    position = Position.from_sfen(CORNER.format(hand="P"))
    before = (position.sfen(), position.key())
    for usi in ("P*1b", "2c2b", "2c1b", "P*1c", "9i9h"):
        position.illegality(Move.from_usi(usi))
    assert (position.sfen(), position.key()) == before


def test_named_piece_must_match():
    position = Position()
    assert position.illegality(Move.from_usi("7g7f"), PAWN) is None
    assert position.illegality(Move.from_usi("8i7g"), KNIGHT).code == "capture_own_piece"
    assert position.illegality(Move.from_usi("6i5h"), GOLD) is None


def test_king_may_not_capture_a_protected_piece():
    position = Position.from_sfen("4k4/9/9/9/9/9/3s5/4g4/4K4 b - 1")
    assert position.illegality(Move.from_usi("5i5h")).code == "leaves_king_in_check"
    assert position.illegality(Move.from_usi("5i6i")).code == "leaves_king_in_check"


def test_perft_from_the_start():
    position = Position()
    assert [perft(position, d) for d in (1, 2, 3)] == [30, 900, 25470]
    assert position.sfen() == Position().sfen()  # perft leaves the position as it was


def test_position_with_593_legal_moves():
    position = Position.from_sfen("R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1")
    moves = position.legal_moves()
    assert len(moves) == 593
    assert len(set(moves)) == 593


def test_no_legal_move_without_check_loses():
    # White's lone king on 1a: 2a (knight), 2b and 1b (gold) are attacked, 1a itself is not
    position = Position.from_sfen("8k/9/6NG1/9/9/9/9/9/K8 w - 1")
    assert not position.is_check()
    assert not position.legal_moves() and not position.has_legal_move()
