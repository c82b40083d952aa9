"""kifudb's rules engine: positions, moves, legality, repetition, impasse and notations.

Pure Python, standard library only. The public API in one place::

    >>> from kifudb.core import Position, Move, perft
    >>> pos = Position()
    >>> pos.push_usi("7g7f")
    Move.from_usi('7g7f')
    >>> pos.is_check(), len(pos.legal_moves())
    (False, 30)
"""

from kifudb.core import _native

_native.choose()  # first: the compiled build, or the interpreted source (core/_native.py)

from kifudb.core.pieces import (BLACK, WHITE, PAWN, LANCE, KNIGHT, SILVER, BISHOP, ROOK, GOLD, KING,
                         PRO_PAWN, PRO_LANCE, PRO_KNIGHT, PRO_SILVER, HORSE, DRAGON,
                         square, square_name, file_of, rank_of, piece, piece_type, piece_colour)
from kifudb.core.move import Move
from kifudb.core.outcome import Winner, Reason
from kifudb.core.position import (Position, IllegalMove, IllegalMoveError, SfenError, STARTING_SFEN,
                           perft, piece_name)

__all__ = [
    "BLACK", "WHITE", "PAWN", "LANCE", "KNIGHT", "SILVER", "BISHOP", "ROOK", "GOLD", "KING",
    "PRO_PAWN", "PRO_LANCE", "PRO_KNIGHT", "PRO_SILVER", "HORSE", "DRAGON",
    "square", "square_name", "file_of", "rank_of", "piece", "piece_type", "piece_colour",
    "Move", "Position", "IllegalMove", "IllegalMoveError", "SfenError", "STARTING_SFEN",
    "perft", "piece_name", "Winner", "Reason",
]
