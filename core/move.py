"""``Move``: a board move (with or without promotion) or a drop, and its USI text.

    >>> m = Move.from_usi("7g7f")
    >>> m.from_square, m.to_square, m.promotion, m.drop
    (60, 59, False, None)
    >>> Move.from_usi("P*5e").usi()
    'P*5e'
    >>> Move.from_usi("8h2b+").promotion
    True

A move knows nothing of the position: whether it is legal is
``Position.illegality(move)``'s question.
"""

from __future__ import annotations

from typing import Final, NamedTuple, Optional

from kifudb.core.pieces import USI_LETTERS, USI_RANKS, PAWN, GOLD, square_name

_FILES: Final = "123456789"


class Move(NamedTuple):
    """A move: ``from_square`` is None for a drop, ``drop`` is the dropped piece type (1..7)."""

    from_square: Optional[int]
    to_square: int
    promotion: bool = False
    drop: Optional[int] = None

    @classmethod
    def from_usi(cls, text: object) -> "Move":
        """Parse USI text (``7g7f``, ``8h2b+``, ``P*5e``); raises ``ValueError`` if malformed
        (or not text at all)."""
        if not isinstance(text, str):
            return _parse_usi(text)  # raises the ValueError
        move = _USI_CACHE.get(text)
        if move is None:
            move = _parse_usi(text)
            _USI_CACHE[text] = move
        return move

    @property
    def is_drop(self) -> bool:
        return self.from_square is None

    def usi(self) -> str:
        """The USI text of the move."""
        text = _USI_TEXT.get(self)
        if text is None:
            text = _USI_TEXT[self] = self._usi()
        return text

    def _usi(self) -> str:
        if self.from_square is None:
            assert self.drop is not None, "a drop names the piece dropped"
            return f"{USI_LETTERS[self.drop]}*{square_name(self.to_square)}"
        text = square_name(self.from_square) + square_name(self.to_square)
        return text + "+" if self.promotion else text

    def __str__(self) -> str:
        return self.usi()

    def __repr__(self) -> str:
        return f"Move.from_usi({self.usi()!r})"


def _square(text: str) -> int:
    return _FILES.index(text[0]) * 9 + USI_RANKS.index(text[1])


def _parse_usi(text: object) -> Move:
    if not isinstance(text, str):
        raise ValueError(f"USI move must be text, not {type(text).__name__}")
    try:
        if len(text) == 4 and text[1] == "*":
            letter = USI_LETTERS.index(text[0])
            if text[0] == " " or not PAWN <= letter <= GOLD:
                raise ValueError
            return Move(None, _square(text[2:4]), False, letter)
        if len(text) in (4, 5) and (len(text) == 4 or text[4] == "+"):
            return Move(_square(text[0:2]), _square(text[2:4]), len(text) == 5, None)
    except ValueError:
        pass
    raise ValueError(f"not a USI move: {text!r} (expected e.g. 7g7f, 8h2b+ or P*5e)")


#: text -> Move (valid USI texts only, so at most ~13,000 entries)
_USI_CACHE: Final[dict[str, Move]] = {}
_USI_TEXT: Final[dict[Move, str]] = {}  # Move -> text, likewise bounded


#: the first code of a drop (below it, board moves: ``from * 81 + to``, +6561 promoting)
DROP_BASE: Final = 13122
#: move codes are below this (the last: a gold dropped on 9i)
MOVE_CODES: Final = DROP_BASE + 7 * 81


def move_code(move: Move) -> int:
    """The 14-bit code of a move: a board move is ``from * 81 + to`` (+ 6561 when it promotes),
    a drop ``13122 + (type - 1) * 81 + to``; the store keeps moves so::

        >>> move_code(Move.from_usi("7g7f")), move_code(Move.from_usi("P*5e"))
        (4919, 13162)
        >>> code_move(4919) == Move.from_usi("7g7f"), code_usi(13162)
        (True, 'P*5e')
    """
    if move.from_square is None:
        assert move.drop is not None, "a drop names the piece dropped"
        return DROP_BASE + (move.drop - 1) * 81 + move.to_square
    return move.from_square * 81 + move.to_square + (6561 if move.promotion else 0)


def code_move(code: int) -> Move:
    """The move of a ``move_code``: one shared value per move (moves are values, and handing out
    the same one is cheaper than making a new one each time)."""
    move = _BY_CODE[code]
    if move is None:
        move = _BY_CODE[code] = _new_move(code)
    return move


def board_move(from_square: int, to_square: int, promotion: bool) -> Move:
    """The board move from ``from_square`` to ``to_square`` (promoting or not), as
    ``code_move`` hands it out; how ``Position`` generates moves.

    >>> board_move(60, 59, False), drop_move(PAWN, 40)
    (Move.from_usi('7g7f'), Move.from_usi('P*5e'))
    >>> board_move(60, 59, False) is board_move(60, 59, False)
    True
    """
    return code_move(from_square * 81 + to_square + (6561 if promotion else 0))


def drop_move(piece_type: int, to_square: int) -> Move:
    """The drop of ``piece_type`` on ``to_square``, as ``code_move`` hands it out."""
    return code_move(DROP_BASE + (piece_type - 1) * 81 + to_square)


def _new_move(code: int) -> Move:
    if code >= DROP_BASE:
        drop, to = divmod(code - DROP_BASE, 81)
        return Move(None, to, False, drop + 1)
    promotion = code >= 6561
    from_square, to = divmod(code - 6561 if promotion else code, 81)
    return Move(from_square, to, promotion, None)


#: move code -> its move, made on first use (13,689 codes: every board move, promoting or not,
#: and every drop)
_BY_CODE: Final[list[Optional[Move]]] = [None] * MOVE_CODES


def code_usi(code: int) -> str:
    """The USI text of a ``move_code``."""
    return code_move(code).usi()
