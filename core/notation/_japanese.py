"""Reading the Japanese move texts of KIF and KI2 into their parts, once per distinct text.

    >>> from kifudb.core.pieces import square_name
    >>> t = tokens("▲７六歩(77)   ( 0:16/00:00:16)")
    >>> t.mark, square_name(t.to), t.piece_type, t.action, square_name(t.from_square)
    (0, '7f', 1, None, '7g')
    >>> t = tokens("△同　金左上")
    >>> t.mark, t.to, t.piece_type, t.side, t.direction
    (1, None, 7, '左', '上')
    >>> tokens("２二成銀(31)").piece_type, tokens("２二銀成(31)").action
    (12, '成')

Digits may be full-width (７), half-width (7) or kanji (七); 同 may be followed by a full-width
space, a half-width space or nothing; 行 and 入 read as 上, 生 as 不成.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple, Optional

from kifudb.core.pieces import KANJI_TYPES, FILE_DIGITS_FULL, RANK_KANJI
from kifudb.core.notation._common import bounded_store
from kifudb.core.notation.errors import NotationError
from kifudb.core.position import Position

_DIGIT = {}
for _i in range(1, 10):
    _DIGIT[str(_i)] = _DIGIT[FILE_DIGITS_FULL[_i]] = _DIGIT[RANK_KANJI[_i]] = _i
_MARKS = {"▲": 0, "☗": 0, "▼": 0, "△": 1, "☖": 1, "▽": 1}
_DIRECTIONS = {"上": "上", "行": "上", "入": "上", "引": "引", "寄": "寄"}
_SIDES = "右左直"
_ACTIONS = {"成": "成", "不成": "不成", "生": "不成", "打": "打"}

_D = "1-9１-９" + RANK_KANJI[1:]
_PIECES = "|".join(sorted(KANJI_TYPES, key=len, reverse=True))  # 成銀 before 銀
_MOVE = re.compile(
    rf"\s*(?P<mark>[▲☗▼△☖▽])?\s*"
    rf"(?:(?P<file>[{_D}])(?P<rank>[{_D}])[ 　]*[同仝]?|[同仝])[ 　]*"
    rf"(?P<piece>{_PIECES})"
    r"(?P<mods>[右左直上行入引寄]*)"
    r"(?P<action>不成|成|生|打)?"
    r"(?:[(（](?P<from>[1-9１-９]{2})[)）])?"
    r"\s*(?:\(\s*[0-9:/ ]*\))?\s*\+?\s*")


class Tokens(NamedTuple):
    """The parts of a Japanese move text. ``to`` is None for 同; ``side`` is 右, 左, 直 or None;
    ``direction`` 上, 引, 寄 or None; ``action`` 成, 不成, 打 or None."""

    mark: Optional[int]
    to: Optional[int]
    piece_type: int
    side: Optional[str]
    direction: Optional[str]
    action: Optional[str]
    from_square: Optional[int]


_CACHE: Final[dict] = {}


def tokens(text: str) -> Tokens:
    """The ``Tokens`` of a KIF or KI2 move text; raises ``NotationError`` (unparsable_move)."""
    found = _CACHE.get(text)
    if found is None:
        found = bounded_store(_CACHE, text, _read(text))
    return found


def _read(text: str) -> Tokens:
    if not isinstance(text, str):
        raise NotationError("unparsable_move", f"a move must be text, not {type(text).__name__}")
    m = _MOVE.fullmatch(text)
    if m is None:
        raise NotationError("unparsable_move", "not a move like ７六歩(77), ▲同　銀 or ５五角打",
                            text)
    mark = _MARKS[m["mark"]] if m["mark"] else None
    to = None if m["file"] is None else (_DIGIT[m["file"]] - 1) * 9 + _DIGIT[m["rank"]] - 1
    side = direction = None
    for ch in m["mods"]:
        if ch in _SIDES:
            if side is not None:
                raise NotationError("unparsable_move", f"both {side} and {ch}", text)
            side = ch
        else:
            if direction is not None:
                raise NotationError("unparsable_move", f"both {direction} and {ch}", text)
            direction = _DIRECTIONS[ch]
    if side == "直" and direction == "上":
        direction = None  # 直 already says "straight up"
    action = _ACTIONS[m["action"]] if m["action"] else None
    f = m["from"]
    from_square = None if f is None else (_DIGIT[f[0]] - 1) * 9 + _DIGIT[f[1]] - 1
    if from_square is not None and action == "打":
        raise NotationError("unparsable_move", "a drop (打) has no from-square", text)
    return Tokens(mark, to, KANJI_TYPES[m["piece"]], side, direction, action, from_square)


def destination(position: Position, tok: Tokens, text: str, previous_to: Optional[int]) -> int:
    """The to-square of ``tok``: its square, or for 同 ``previous_to`` (default: the last move's)."""
    if tok.to is not None:
        return tok.to
    if previous_to is None:
        last = position.last_move
        if last is None:
            raise NotationError("no_previous_move", "同 (same square) with no previous move", text)
        previous_to = last.to_square
    return previous_to


def check_mark(position: Position, tok: Tokens, text: str) -> None:
    """Raise ``wrong_turn`` if the text's ▲/△ mark is not the side to move."""
    if tok.mark is not None and tok.mark != position.turn:
        names = ("Black (▲)", "White (△)")
        raise NotationError("wrong_turn", f"the move is marked for {names[tok.mark]}, and "
                            f"{names[position.turn]} is to move", text)
