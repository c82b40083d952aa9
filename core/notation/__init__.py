"""Single-move notations, read and written: CSA, KIF, KI2 and Western (Hodges); USI position
lines (``startpos moves …``) in ``core.notation.usi`` (single USI moves are ``Move.from_usi``).

Each reader takes the position the move is played in and the text, and returns a ``Move`` or
raises ``NotationError`` (a ``ValueError`` with a ``code``); each writer takes the position and
a move and returns the text::

    >>> from kifudb.core.position import Position
    >>> pos = Position()
    >>> m = parse_kif_move(pos, "７六歩(77)")
    >>> csa_move(pos, m), kif_move(pos, m), ki2_move(pos, m), western_move(pos, m)
    ('+7776FU', '７六歩(77)', '▲７六歩', 'P-7f')
    >>> try:
    ...     parse_ki2_move(pos, "△３四歩")
    ... except NotationError as err:
    ...     print(err.code)
    wrong_turn

Readers return moves whose text fits the board; whether the move is legal is still
``Position.illegality``'s question (a pinned piece, 二歩, 打ち歩詰め ...).
"""

from kifudb.core.notation.errors import NotationError
from kifudb.core.notation.csa import parse_csa_move, csa_move
from kifudb.core.notation.kif import parse_kif_move, kif_move
from kifudb.core.notation.ki2 import parse_ki2_move, ki2_move
from kifudb.core.notation.western import parse_western_move, western_move
from kifudb.core.notation.usi import parse_position_line, position_line

__all__ = [
    "NotationError",
    "parse_csa_move", "csa_move",
    "parse_kif_move", "kif_move",
    "parse_ki2_move", "ki2_move",
    "parse_western_move", "western_move",
    "parse_position_line", "position_line",
]
