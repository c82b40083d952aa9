"""CSA move texts: ``+7776FU``, ``-0055KA``, ``+2822UM``.

A CSA move gives the side (``+`` Black, ``-`` White; optional here), the from-square (``00`` for a
drop), the to-square and the piece *after* the move, so a promotion shows as the promoted code::

    >>> from kifudb.core.position import Position
    >>> pos = Position()
    >>> parse_csa_move(pos, "+7776FU")
    Move.from_usi('7g7f')
    >>> pos = Position.from_sfen("4k4/9/9/9/9/9/9/7B1/4K4 b B 1")
    >>> parse_csa_move(pos, "+2822UM"), parse_csa_move(pos, "0055KA")
    (Move.from_usi('2h2b+'), Move.from_usi('B*5e'))
    >>> csa_move(pos, Move.from_usi("2h2b+")), csa_move(pos, Move.from_usi("B*5e"))
    ('+2822UM', '+0055KA')
    >>> try:
    ...     parse_csa_move(pos, "-5958OU")
    ... except NotationError as err:
    ...     print(err.code, "-", err.message)
    wrong_turn - the move is White's, and Black is to move

A time suffix (``+7776FU,T12``) is ignored.
"""

from __future__ import annotations

from typing import Final, Optional

from kifudb.core.move import Move
from kifudb.core.pieces import CSA_CODES, CSA_TYPES, COLOUR_NAMES, HAND_TYPES, PROMOTE, can_promote
from kifudb.core.notation._common import bounded_store
from kifudb.core.notation.errors import NotationError
from kifudb.core.position import Position

_DIGITS = "123456789"
#: (colour or None, from-square or None, to-square, piece type, Move, promoting Move or None)
_Tokens = tuple[Optional[int], Optional[int], int, int, Move, Optional[Move]]
#: text -> its ``_Tokens`` (typed, so that the compiled build reads them without a lookup)
_CACHE: Final[dict[str, _Tokens]] = {}


def _tokens(text: str):
    """(colour or None, from-square or None for a drop, to-square, CSA piece type) of ``text``."""
    if not isinstance(text, str):
        raise NotationError("unparsable_move",
                            f"a CSA move must be text, not {type(text).__name__}")
    core = text.strip().split(",", 1)[0]
    colour = None
    if core[:1] in ("+", "-"):
        colour = 0 if core[0] == "+" else 1
        core = core[1:]
    if len(core) != 6 or not core[:4].isdigit() or not core[:4].isascii():
        raise NotationError("unparsable_move", "expected a CSA move like +7776FU or -0055KA", text)
    piece_type = CSA_TYPES.get(core[4:])
    if piece_type is None:
        raise NotationError("unparsable_move", f"unknown CSA piece {core[4:]!r}", text)
    if core[2] not in _DIGITS or core[3] not in _DIGITS:
        raise NotationError("unparsable_move", f"bad destination square {core[2:4]!r}", text)
    to = _DIGITS.index(core[2]) * 9 + _DIGITS.index(core[3])
    if core[:2] == "00":
        if piece_type not in HAND_TYPES:
            raise NotationError("unparsable_move", f"{core[4:]} cannot be dropped", text)
        return colour, None, to, piece_type
    if core[0] not in _DIGITS or core[1] not in _DIGITS:
        raise NotationError("unparsable_move", f"bad origin square {core[:2]!r}", text)
    return colour, _DIGITS.index(core[0]) * 9 + _DIGITS.index(core[1]), to, piece_type


def _moves(colour: Optional[int], f: Optional[int], to: int, piece_type: int) -> _Tokens:
    """The tokens and the ``Move`` they make (a drop, or a board move) and, for a promoted piece
    type, the promoting board move as well (which one it is depends on the board)."""
    if f is None:
        return colour, f, to, piece_type, Move(None, to, False, piece_type), None
    return colour, f, to, piece_type, Move(f, to, False, None), Move(f, to, True, None)


def parse_csa_move(position: Position, text: str) -> Move:
    """The ``Move`` a CSA move text describes in ``position``; raises ``NotationError``."""
    tokens = _CACHE.get(text)
    if tokens is None:
        tokens = bounded_store(_CACHE, text, _moves(*_tokens(text)))
    colour, f, to, piece_type, move, promoting = tokens
    turn = position.turn
    if colour is not None and colour != turn:
        raise NotationError("wrong_turn", f"the move is {COLOUR_NAMES[colour].capitalize()}'s, and "
                            f"{COLOUR_NAMES[turn].capitalize()} is to move", text)
    if f is None:
        if not position.hands[turn][piece_type]:
            raise NotationError("not_in_hand", f"{COLOUR_NAMES[turn]} has no "
                                f"{CSA_CODES[piece_type]} in hand", text)
        return move
    on_board = position.board[f] & 15
    if on_board == piece_type:
        return move
    if on_board and can_promote(on_board) and on_board + PROMOTE == piece_type \
            and promoting is not None:  # a board move of a promoted type: one that promotes
        return promoting
    what = CSA_CODES[on_board] if on_board else "nothing"
    raise NotationError("no_piece", f"the move names {CSA_CODES[piece_type]}, but "
                        f"{f // 9 + 1}{f % 9 + 1} holds {what}", text)


def csa_move(position, move: Move) -> str:
    """The CSA text of ``move`` (played by the side to move in ``position``): ``+7776FU``."""
    sign = "+-"[position.turn]
    to = f"{move.to_square // 9 + 1}{move.to_square % 9 + 1}"
    if move.from_square is None:
        assert move.drop is not None, "a drop names the piece dropped"
        return f"{sign}00{to}{CSA_CODES[move.drop]}"
    f = move.from_square
    piece_type = position.board[f] & 15
    if move.promotion:
        piece_type += PROMOTE
    return f"{sign}{f // 9 + 1}{f % 9 + 1}{to}{CSA_CODES[piece_type]}"
