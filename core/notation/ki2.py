"""KI2 move texts: ``▲７六歩``, ``△同　歩``, ``▲５二金右``, ``△６二金左上``, ``▲４四銀打``.

KI2 gives no from-square. When several pieces of the named kind can reach the destination, the
text says which one, following the JSA rules (日本将棋連盟「棋譜の表記方法」):

* first the movement: 上 (moving forward, toward the enemy), 引 (backward), 寄 (sideways);
* if that is not enough, the position: 右 / 左 (the piece on the mover's right / left; White's
  right is Black's left), or 直 (moving straight forward; gold, silver and promoted minors);
* both (``左上``, ``右引``) when neither alone is enough;
* 打 for a drop, only when a board piece of the kind could also move there; 成 / 不成 when the
  move may promote.

For gold, silver, knight and the promoted minors, 右 / 左 say on which side of the destination
the piece stood; for rook, bishop, dragon and horse (which can come from further away, and of
which there are at most two) they say which of the candidates is further right / left.

    >>> from kifudb.core.position import Position
    >>> pos = Position.from_sfen("4k4/9/9/9/9/9/9/9/3GKG3 b - 1")   # golds on 6i and 4i
    >>> ki2_move(pos, Move.from_usi("6i5h")), ki2_move(pos, Move.from_usi("4i5h"))
    ('▲５八金左', '▲５八金右')
    >>> parse_ki2_move(pos, "▲５八金右")
    Move.from_usi('4i5h')
    >>> parse_ki2_move(pos, "５八金")
    Traceback (most recent call last):
    ...
    kifudb.core.notation.errors.NotationError: ５八金: ambiguous_move: ５八金 matches 2 moves: 4i5h, 6i5h

``parse_ki2_move`` considers the pieces whose move fits the board (path clear, no capture of its
own piece), applies the modifiers, and only if several remain keeps the legal ones. The move it
returns may still be illegal (a pinned piece, 二歩): ask ``Position.illegality``.
"""

from __future__ import annotations

from typing import Optional

from kifudb.core.move import Move
from kifudb.core.pieces import (BLACK, LANCE, BISHOP, ROOK, HORSE, DRAGON, HAND_TYPES, KANJI,
                         FILE_DIGITS_FULL, RANK_KANJI, COLOUR_NAMES)
from kifudb.core.notation._common import reaching, may_promote, board_move_legal, drop_of, resolve
from kifudb.core.notation._japanese import tokens, destination, check_mark
from kifudb.core.notation.errors import NotationError
from kifudb.core.position import Position

#: Kinds whose 右/左 compare the candidates with one another (the others: with the destination).
_RANGED = frozenset((LANCE, BISHOP, ROOK, HORSE, DRAGON))
_MARK = ("▲", "△")


def _direction(colour: int, f: int, to: int) -> str:
    """上, 引 or 寄: how a piece of ``colour`` moves from ``f`` to ``to``."""
    forward = f % 9 - to % 9 if colour == BLACK else to % 9 - f % 9
    return "上" if forward > 0 else "引" if forward < 0 else "寄"


def _rightness(colour: int, sq: int) -> int:
    """Larger is further to the right of ``colour``'s player (Black's right is file 1)."""
    return sq // 9 if colour else -(sq // 9)


def _select(colour: int, kind: int, to: int, squares: list, side, direction) -> list:
    """The from-squares among ``squares`` that fit the modifiers ``side`` and ``direction``."""
    if direction:
        squares = [f for f in squares if _direction(colour, f, to) == direction]
    if side == "直":
        return [f for f in squares if f // 9 == to // 9 and _direction(colour, f, to) == "上"]
    if side and squares:
        sign = 1 if side == "右" else -1
        if kind in _RANGED:
            best = max(sign * _rightness(colour, f) for f in squares)
            return [f for f in squares if sign * _rightness(colour, f) == best]
        ref = sign * _rightness(colour, to)
        return [f for f in squares if sign * _rightness(colour, f) > ref]
    return squares


def _disambiguator(colour: int, kind: int, f: int, to: int, rivals: list) -> str:
    """The shortest JSA modifier that singles out ``f`` among the ``rivals`` from-squares."""
    if len(rivals) < 2:
        return ""
    d = _direction(colour, f, to)
    tries = [(None, d), ("右", None), ("左", None), ("右", d), ("左", d)]
    if kind not in _RANGED:
        tries.insert(1, ("直", None))
    for side, direction in tries:
        if _select(colour, kind, to, rivals, side, direction) == [f]:
            return (side or "") + (direction or "")
    return d  # cannot happen with legal positions: two pieces never share file and direction


def parse_ki2_move(position: Position, text: str, previous_to: Optional[int] = None) -> Move:
    """The ``Move`` a KI2 move text describes in ``position``; raises ``NotationError``.

    ``previous_to`` is the square 同 refers to (default: the to-square of ``position.last_move``).
    """
    tok = tokens(text)
    check_mark(position, tok, text)
    if tok.from_square is not None:
        raise NotationError("unparsable_move", "a KI2 move has no from-square", text)
    to = destination(position, tok, text, previous_to)
    kind = tok.piece_type
    if tok.action == "打":
        return drop_of(position, kind, to, text)
    found = reaching(position, kind, to)
    plain = tok.side is None and tok.direction is None and tok.action is None
    if plain and _is_drop(position, kind, to, found):
        return drop_of(position, kind, to, text)
    promotion = tok.action == "成"
    chosen = _select(position.turn, kind, to, found, tok.side, tok.direction)
    return resolve(position, text, to, promotion, chosen, f"no {KANJI[kind]} of "
                   f"{COLOUR_NAMES[position.turn].capitalize()} fits {text.strip()}")


def _is_drop(position: Position, kind: int, to: int, found: list) -> bool:
    """For a text without 打 or modifiers: a drop if no board piece of the kind may move there."""
    if kind not in HAND_TYPES or not position.hands[position.turn][kind]:
        return False
    if not found:
        return True
    if any(board_move_legal(position, f, to) for f in found):
        return False
    return position.illegality(Move(None, to, False, kind)) is None


def ki2_move(position, move: Move, previous_to: Optional[int] = None, mark: bool = True, *,
             legal_only: bool = True) -> str:
    """The KI2 text of ``move`` (``▲７六歩``, ``△同　銀``, ``▲５二金左上``, ``▲同銀成``).

    ``previous_to`` is the square 同 refers to (default: the to-square of ``position.last_move``);
    ``mark=False`` leaves off the ▲/△. The modifiers and 打 tell ``move`` apart from the other
    *legal* moves of the same kind to the same square, so a pinned rival needs none;
    ``legal_only=False`` counts every piece whose move fits the board instead, as Kifu for
    Windows and rsshogi do (``parse_ki2_move`` reads both).
    """
    colour = position.turn
    to = move.to_square
    f = move.from_square

    def rivals(kind):
        found = reaching(position, kind, to)
        if not legal_only:
            return found
        return [g for g in found if g == f or board_move_legal(position, g, to)]

    if f is None:
        assert move.drop is not None, "a drop names the piece dropped"
        kind = move.drop
        rest = KANJI[kind] + ("打" if rivals(kind) else "")
    else:
        kind = position.board[f] & 15
        candidates = rivals(kind)
        if f not in candidates:
            candidates.append(f)
        rest = KANJI[kind] + _disambiguator(colour, kind, f, to, candidates)
        if move.promotion:
            rest += "成"
        elif may_promote(colour, kind, f, to):
            rest += "不成"
    if previous_to is None and position.last_move is not None:
        previous_to = position.last_move.to_square
    if to == previous_to:
        dest = "同　" if len(rest) == 1 else "同"
    else:
        dest = FILE_DIGITS_FULL[to // 9 + 1] + RANK_KANJI[to % 9 + 1]
    return (_MARK[colour] if mark else "") + dest + rest
