"""Game replay: repetition (draw and perpetual check), checkmate, and the impasse rules."""

from kifudb.core import BLACK, WHITE, Position
from kifudb.core.game import Game
from kifudb.core.impasse import declaration, jishogi_24, points
from kifudb.core.outcome import Reason, Winner

ROOK_CHASE = "4k4/9/9/9/9/9/9/9/K3R4 w - 1"  # Black's rook on 5i checks the king on 5a


def play(game, moves):
    for usi in moves.split():
        assert game.play_usi(usi) is None, usi


def test_fourfold_repetition_is_a_draw():
    game = Game()
    play(game, "2h5h 5a4b 5h2h 4b5a " * 3)
    assert game.ending.reason is Reason.SENNICHITE and game.ending.winner is Winner.DRAW
    assert game.ending.ply == 12
    assert game.occurrences() == [0, 4, 8, 12]


def test_three_occurrences_are_not_enough():
    game = Game()
    play(game, "2h5h 5a4b 5h2h 4b5a " * 2 + "2h5h 5a4b 5h2h")
    assert game.ending is None and game.final_ending() is None


def test_perpetual_check_loses_for_the_checking_side():
    game = Game(ROOK_CHASE)
    play(game, "5a4a 5i4i 4a5a 4i5i " * 3)
    assert game.ending.reason is Reason.PERPETUAL_CHECK
    assert game.ending.winner is Winner.WHITE  # Black gave check with every move
    assert "black giving check" in game.ending.message


def test_moves_after_the_repetition_are_still_replayed_but_the_ending_stays():
    game = Game(ROOK_CHASE)
    play(game, "5a4a 5i4i 4a5a 4i5i " * 4)
    assert game.ending.ply == 12 and game.ply == 16


def test_checkmate_is_the_final_ending():
    game = Game("7nk/9/7GP/9/9/9/9/9/K8 b - 1")
    play(game, "1c1b")
    ending = game.final_ending()
    assert ending.reason is Reason.CHECKMATE and ending.winner is Winner.BLACK and ending.ply == 1


def test_illegal_move_is_reported_and_not_played():
    game = Game()
    play(game, "7g7f 3c3d")
    reason = game.play_usi("8h1b")
    assert reason.code == "bad_geometry"
    assert game.ply == 2 and len(game.keys) == 3


def test_keys_follow_every_position():
    game = Game()
    play(game, "7g7f 3c3d 8h2b+ 3a2b")
    replayed = Position()
    for ply, move in enumerate(game.moves, start=1):
        replayed.push(move)
        assert game.keys[ply] == replayed.key()


DECLARING = "9/RB2K4/PPPPPPPP1/9/9/9/9/4k4/9 b 2G2S2N2L{pawns} 1"


def test_declaration_with_28_points_and_10_pieces():
    verdict = declaration(Position.from_sfen(DECLARING.format(pawns="2P")))
    assert verdict.valid and verdict.points == 28 and verdict.pieces_in_zone == 10


def test_declaration_fails_one_point_short():
    verdict = declaration(Position.from_sfen(DECLARING.format(pawns="P")))
    assert not verdict.valid and verdict.points == 27
    assert "needs 28" in verdict.message


def test_white_needs_27():
    # the same material for White, turned around
    position = Position.from_sfen("9/4K4/9/9/9/9/1pppppppp/4k2br/9 w 2g2s2n2lp 1")
    verdict = declaration(position)
    assert verdict.points == 27 and verdict.required == 27 and verdict.valid


def test_declaration_needs_the_king_in_the_zone_and_out_of_check():
    position = Position.from_sfen("9/RB7/PPPPPPPP1/4K4/9/9/9/4k4/9 b 2G2S2N2L2P 1")
    assert "king is not in the enemy zone" in declaration(position).message
    position = Position.from_sfen("4r4/RB2K4/PPPPPPPP1/9/9/9/9/4k4/9 b 2G2S2N2L2P 1")
    assert "in check" in declaration(position).message


def test_24_point_rule():
    even = Position.from_sfen("4K4/9/9/9/9/9/9/9/4k4 b RB2G2S2N2L9Prb2g2s2n2l9p 1")
    assert points(even, BLACK) == points(even, WHITE) == 27
    verdict = jishogi_24(even)
    assert verdict.winner is Winner.DRAW and verdict.both_entered
    short = Position.from_sfen("4K4/9/9/9/9/9/9/9/4k4 b R2G2S2N2L9Prbb2g2s2n2l9p 1")
    assert jishogi_24(short).winner is Winner.WHITE
    # in a handicap game the removed pieces count for White
    handicap = Position.from_sfen("4K4/9/9/9/9/9/9/9/4k4 b RB2G2S2N2L9P2g2s2n2l9p 1")
    assert jishogi_24(handicap).winner is Winner.BLACK
    assert jishogi_24(handicap, removed=(6, 5)).winner is Winner.DRAW
