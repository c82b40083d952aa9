"""Western (Hodges) move texts: ``P-7f``, ``Bx2b+``, ``Nx7c=``, ``P*5e``, ``G6i-5h``.

Piece letter (``P L N S G B R K``, promoted ``+P +L +N +S +B +R``), the origin square only when
another piece of the same kind could legally move to the same square, ``-`` for a move, ``x`` for
a capture, ``*`` for a drop, the destination (file digit, rank letter a-i: 1a is the top right
corner as Black sees it), then ``+`` (promotes) or ``=`` (could promote, does not)::

    >>> from kifudb.core.position import Position
    >>> pos = Position()
    >>> parse_western_move(pos, "P-7f"), western_move(pos, Move.from_usi("7g7f"))
    (Move.from_usi('7g7f'), 'P-7f')
    >>> western_move(pos, Move.from_usi("6i5h")), parse_western_move(pos, "G6i-5h")
    ('G6i-5h', Move.from_usi('6i5h'))
    >>> pos.push(Move.from_usi("7g7f")); pos.push(Move.from_usi("3c3d"))
    >>> western_move(pos, Move.from_usi("8h2b+")), parse_western_move(pos, "Bx2b+")
    ('Bx2b+', Move.from_usi('8h2b+'))

Readers also take ``@`` for ``*``, ``D`` / ``H`` for dragon / horse, and do not insist on ``x``
versus ``-``.
"""

from __future__ import annotations

import re

from kifudb.core.move import Move
from kifudb.core.pieces import WESTERN_LETTERS, HORSE, DRAGON, square_name
from kifudb.core.notation._common import (reaching, may_promote, board_move_legal, drop_of,
                                   bounded_store, resolve)
from kifudb.core.notation.errors import NotationError

_LETTER_TYPES = {letter: t for t, letter in enumerate(WESTERN_LETTERS) if letter}
_LETTER_TYPES.update({"D": DRAGON, "H": HORSE})
_MOVE = re.compile(r"\s*(?P<piece>\+[PLNSBR]|[PLNSGBRKDH])(?P<from>[1-9][a-i])?(?P<op>[-x*@])"
                   r"(?P<to>[1-9][a-i])(?P<promo>[+=])?\s*")
_CACHE: dict = {}  # text -> (piece type, from square or None, drop?, to, promotion)


def _square(text: str) -> int:
    return (ord(text[0]) - 49) * 9 + ord(text[1]) - 97


def _tokens(text: str):
    if not isinstance(text, str):
        raise NotationError("unparsable_move", f"a move must be text, not {type(text).__name__}")
    m = _MOVE.fullmatch(text)
    if m is None:
        raise NotationError("unparsable_move", "not a move like P-7f, Bx2b+, P*5e or G6i-5h", text)
    drop = m["op"] in "*@"
    if drop and (m["from"] or m["promo"]):
        raise NotationError("unparsable_move", "a drop has no origin and does not promote", text)
    f = _square(m["from"]) if m["from"] else None
    return _LETTER_TYPES[m["piece"]], f, drop, _square(m["to"]), m["promo"] == "+"


def parse_western_move(position, text: str) -> Move:
    """The ``Move`` a Western (Hodges) move text describes in ``position``; raises
    ``NotationError``."""
    found = _CACHE.get(text)
    if found is None:
        found = bounded_store(_CACHE, text, _tokens(text))
    piece_type, f, drop, to, promotion = found
    if drop:
        return drop_of(position, piece_type, to, text)
    if f is not None:
        on_board = position.board[f] & 15
        if on_board != piece_type:
            what = WESTERN_LETTERS[on_board] if on_board else "nothing"
            raise NotationError("no_piece", f"the move names {WESTERN_LETTERS[piece_type]}, but "
                                f"{square_name(f)} holds {what}", text)
        return Move(f, to, promotion, None)
    return resolve(position, text, to, promotion, reaching(position, piece_type, to),
                   f"no {WESTERN_LETTERS[piece_type]} can move to {square_name(to)}")


def western_move(position, move: Move) -> str:
    """The Western (Hodges) text of ``move``, played by the side to move in ``position``."""
    to = move.to_square
    f = move.from_square
    if f is None:
        assert move.drop is not None, "a drop names the piece dropped"
        return f"{WESTERN_LETTERS[move.drop]}*{square_name(to)}"
    piece_type = position.board[f] & 15
    others = [g for g in reaching(position, piece_type, to)
              if g != f and board_move_legal(position, g, to)]
    origin = square_name(f) if others else ""
    op = "x" if position.board[to] else "-"
    if move.promotion:
        suffix = "+"
    elif may_promote(position.turn, piece_type, f, to):
        suffix = "="
    else:
        suffix = ""
    return f"{WESTERN_LETTERS[piece_type]}{origin}{op}{square_name(to)}{suffix}"
