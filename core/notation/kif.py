"""KIF move texts (Kifu for Windows): ``７六歩(77)``, ``同　銀(68)``, ``５五角打``, ``２二角成(88)``.

A KIF move names the destination (or 同, the previous move's destination), the piece as it stands
before the move, 成 / 不成 / 打, and the from-square in brackets::

    >>> from kifudb.core.position import Position
    >>> pos = Position()
    >>> parse_kif_move(pos, "７六歩(77)   ( 0:16/00:00:16)")
    Move.from_usi('7g7f')
    >>> pos.push(Move.from_usi("7g7f")); pos.push(Move.from_usi("3c3d"))
    >>> kif_move(pos, Move.from_usi("8h2b+"))
    '２二角成(88)'
    >>> pos.push(Move.from_usi("8h2b+"))
    >>> parse_kif_move(pos, "同　銀(31)"), kif_move(pos, Move.from_usi("3a2b"))
    (Move.from_usi('3a2b'), '同　銀(31)')
    >>> pos = Position.from_sfen("4k4/9/9/9/9/9/9/9/4K4 b B 1")
    >>> parse_kif_move(pos, "５五角打"), parse_kif_move(pos, "５五角")
    (Move.from_usi('B*5e'), Move.from_usi('B*5e'))
    >>> kif_move(pos, Move.from_usi("B*5e"))
    '５五角打'

Readers accept half-width and kanji digits (``76歩(77)``, ``七六歩(77)``), ``同`` with a full-width,
half-width or no space, the one-character promoted names (全 圭 杏) and 竜 / 王, a ▲/△ mark, and
a trailing time and ``+`` (the variation mark). The piece named must be the one on the
from-square (``no_piece`` otherwise).
"""

from __future__ import annotations

from typing import Final, Optional

from kifudb.core.move import Move
from kifudb.core.pieces import KANJI, FILE_DIGITS_FULL, RANK_KANJI, square_name
from kifudb.core.notation._common import bounded_store, drop_of
from kifudb.core.position import Position, piece_name
from kifudb.core.notation._japanese import tokens, destination, check_mark
from kifudb.core.notation.errors import NotationError

#: text -> (from-square, piece type, Move) of a board move whose text names both squares
_BOARD_MOVES: Final[dict[str, tuple[int, int, Move]]] = {}


def parse_kif_move(position: Position, text: str, previous_to: Optional[int] = None) -> Move:
    """The ``Move`` a KIF move text describes in ``position``; raises ``NotationError``.

    ``previous_to`` is the square 同 refers to (default: the to-square of ``position.last_move``).
    """
    known = _BOARD_MOVES.get(text)
    if known is not None and position.board[known[0]] & 15 == known[1]:
        return known[2]
    tok = tokens(text)
    check_mark(position, tok, text)
    if tok.side or tok.direction:
        raise NotationError("unparsable_move", "KIF moves carry no 右/左/直/上/引/寄 (that is KI2)",
                            text)
    to = destination(position, tok, text, previous_to)
    f = tok.from_square
    if f is None:
        if tok.action in ("成", "不成"):
            raise NotationError("unparsable_move", "a board move needs its from-square, e.g. (88)",
                                text)
        return drop_of(position, tok.piece_type, to, text)
    on_board = position.board[f] & 15
    if on_board != tok.piece_type:
        what = f"a {piece_name(on_board)}" if on_board else "nothing"
        raise NotationError("no_piece", f"the move names a {piece_name(tok.piece_type)}, but "
                            f"{square_name(f)} holds {what}", text)
    move = Move(f, to, tok.action == "成", None)
    if tok.to is not None and tok.mark is None:  # the text alone makes the move
        bounded_store(_BOARD_MOVES, text, (f, tok.piece_type, move))
    return move


def kif_move(position, move: Move, previous_to: Optional[int] = None) -> str:
    """The KIF text of ``move`` as Kifu for Windows writes it: ``７六歩(77)``, ``同　成銀(54)``,
    ``２二角成(88)``, ``５五角打``. As in Kifu for Windows' files (and the KIF specification),
    a move that could promote but does not is written without 不成: ``８二銀(71)``; 同 is always
    followed by a full-width space.

    ``previous_to`` is the square 同 refers to (default: the to-square of ``position.last_move``).
    """
    to = move.to_square
    if previous_to is None and position.last_move is not None:
        previous_to = position.last_move.to_square
    dest = "同　" if to == previous_to else FILE_DIGITS_FULL[to // 9 + 1] + RANK_KANJI[to % 9 + 1]
    f = move.from_square
    if f is None:
        assert move.drop is not None, "a drop names the piece dropped"
        return f"{dest}{KANJI[move.drop]}打"
    suffix = "成" if move.promotion else ""
    return f"{dest}{KANJI[position.board[f] & 15]}{suffix}({f // 9 + 1}{f % 9 + 1})"
