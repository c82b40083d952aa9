"""JKF move objects (JSON Kifu Format): ``{"from": {"x": 7, "y": 7}, "to": {"x": 7, "y": 6}, "piece": "FU"}``.

A JKF move names the piece *before* the move (CSA codes, ``FU`` … ``RY``), the from-square (absent
or null for a drop), the to-square, ``promote`` (true, false, or absent when there is no choice),
``color`` (0 Black, 1 White; the first JKF versions wrote true for Black and false for White) and,
as annotations, ``capture`` (the piece taken, as it stood), ``same`` (同: the destination is the
previous move's) and ``relative`` (KI2's 右/左/上/引/寄/直/打 as letters)::

    >>> from kifudb.core.position import Position
    >>> pos = Position()
    >>> parse_jkf_move(pos, {"from": {"x": 7, "y": 7}, "to": {"x": 7, "y": 6}, "piece": "FU", "color": 0})
    Move.from_usi('7g7f')
    >>> pos = Position.from_sfen("4k4/9/9/9/9/9/9/7B1/4K4 b B 1")
    >>> parse_jkf_move(pos, {"from": {"x": 2, "y": 8}, "to": {"x": 2, "y": 2}, "piece": "KA", "promote": True})
    Move.from_usi('2h2b+')
    >>> parse_jkf_move(pos, {"to": {"x": 5, "y": 5}, "piece": "KA"})
    Move.from_usi('B*5e')
    >>> jkf_move(pos, Move.from_usi("2h2b+"))
    {'color': 0, 'from': {'x': 2, 'y': 8}, 'to': {'x': 2, 'y': 2}, 'piece': 'KA', 'promote': True}
    >>> parse_jkf_move(pos, {"from": {"x": 5, "y": 9}, "to": {"x": 5, "y": 8}, "piece": "KI"})
    Traceback (most recent call last):
    ...
    kifudb.core.notation.errors.NotationError: {"from":{"x":5,"y":9},"piece":"KI","to":{"x":5,"y":8}}: no_piece: the move names KI (gold), but 59 holds OU (king)

``same`` without ``to`` takes the destination of the previous move (``position.last_move``, or the
``previous`` move given)::

    >>> pos = Position()
    >>> for usi in ("7g7f", "3c3d", "8h2b+"):
    ...     pos.push(Move.from_usi(usi))
    >>> parse_jkf_move(pos, {"from": {"x": 3, "y": 1}, "same": True, "piece": "GI", "capture": "UM"})
    Move.from_usi('3a2b')
    >>> jkf_move(pos, Move.from_usi("3a2b"))
    {'color': 1, 'from': {'x': 3, 'y': 1}, 'to': {'x': 2, 'y': 2}, 'piece': 'GI', 'capture': 'UM', 'same': True}

A move object may also be given as its JSON text (as ``ingest.jkf`` stores it). ``relative`` is
not checked: the squares say which piece moves. A returned move still has to pass
``Position.illegality`` (a pinned piece, 二歩, a promotion outside the zone …).
"""

from __future__ import annotations

import json
from typing import Optional, TypeGuard

from kifudb.core.move import Move
from kifudb.core.pieces import (BLACK, WHITE, COLOUR_NAMES, CSA_CODES, CSA_TYPES, HAND_TYPES, PROMOTE,
                         can_promote)
from kifudb.core.notation._common import may_promote
from kifudb.core.position import piece_name
from kifudb.core.notation.errors import NotationError
from kifudb.core.notation.ki2 import ki2_move

#: KI2's modifiers as JKF's ``relative`` letters (右 R, 左 L, 直 C, 上 U, 寄 M, 引 D, 打 H).
_RELATIVE = {"右": "R", "左": "L", "直": "C", "上": "U", "寄": "M", "引": "D", "打": "H"}


def _text(move_obj) -> str:
    """The move object as compact JSON, for error messages (``text`` of ``NotationError``)."""
    if isinstance(move_obj, str):
        return move_obj
    try:
        return json.dumps(move_obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return repr(move_obj)


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _square(place, what: str, text: str) -> int:
    """The square of a JKF place ``{"x": file, "y": rank}``."""
    if not isinstance(place, dict):
        raise NotationError("unparsable_move", f"'{what}' must be an object like "
                            f'{{"x": 7, "y": 6}}, not {_text(place)}', text)
    x, y = place.get("x"), place.get("y")
    if not (_is_int(x) and _is_int(y) and 1 <= x <= 9 and 1 <= y <= 9):
        raise NotationError("unparsable_move", f"'{what}' needs x and y from 1 to 9, not "
                            f"{_text(place)}", text)
    return (x - 1) * 9 + (y - 1)


def _place(sq: int) -> dict:
    return {"x": sq // 9 + 1, "y": sq % 9 + 1}


def _colour(value, text: str) -> Optional[int]:
    """The colour of a JKF ``color``: 0/1, or the first versions' true (Black) / false (White)."""
    if value is None:
        return None
    if value is True:
        return BLACK
    if value is False:
        return WHITE
    if value in (0, 1) and _is_int(value):
        return value
    raise NotationError("unparsable_move", f"'color' must be 0 (Black) or 1 (White), not "
                        f"{_text(value)}", text)


def _named(t: int) -> str:
    return f"{CSA_CODES[t]} ({piece_name(t)})"


def parse_jkf_move(position, move_obj, previous: Optional[Move] = None) -> Move:
    """The ``Move`` a JKF move object describes in ``position``; raises ``NotationError``.

    ``move_obj`` is the object (a dict) or its JSON text. Codes: ``unparsable_move`` (not a move
    object, or a field of the wrong shape), ``wrong_turn`` (``color`` is not the side to move),
    ``no_piece`` (the from-square does not hold ``piece``, or ``capture`` names a piece the
    destination does not hold), ``not_in_hand`` (a drop of a piece the mover does not hold),
    ``no_previous_move`` (``same`` without ``to`` and no previous move).

    >>> from kifudb.core.position import Position
    >>> parse_jkf_move(Position(), '{"to":{"x":5,"y":5},"piece":"KA","color":0}')
    Traceback (most recent call last):
    ...
    kifudb.core.notation.errors.NotationError: {"to":{"x":5,"y":5},"piece":"KA","color":0}: not_in_hand: black has no KA (bishop) in hand
    >>> parse_jkf_move(Position(), {"from": {"x": 3, "y": 3}, "to": {"x": 3, "y": 4}, "piece": "FU", "color": 1}).usi()
    Traceback (most recent call last):
    ...
    kifudb.core.notation.errors.NotationError: {"color":1,"from":{"x":3,"y":3},"piece":"FU","to":{"x":3,"y":4}}: wrong_turn: the move is White's, and Black is to move
    """
    if isinstance(move_obj, str):
        text = move_obj
        try:
            move_obj = json.loads(move_obj)
        except (ValueError, RecursionError) as error:
            raise NotationError("unparsable_move", f"not JSON: {error}", text) from None
    else:
        text = None
    if not isinstance(move_obj, dict):
        raise NotationError("unparsable_move", "a JKF move must be an object with 'to' and "
                            f"'piece', not {type(move_obj).__name__}", text or _text(move_obj))
    if text is None:
        text = _text(move_obj)

    code = move_obj.get("piece")
    piece_type = CSA_TYPES.get(code) if isinstance(code, str) else None
    if piece_type is None:
        raise NotationError("unparsable_move", f"'piece' must be a CSA piece code (FU … RY), "
                            f"not {_text(code)}", text)
    promote = move_obj.get("promote")
    if promote is not None and not isinstance(promote, bool):
        raise NotationError("unparsable_move", f"'promote' must be true, false or absent, not "
                            f"{_text(promote)}", text)
    colour = _colour(move_obj.get("color"), text)
    turn = position.turn
    if colour is not None and colour != turn:
        raise NotationError("wrong_turn", f"the move is {COLOUR_NAMES[colour].capitalize()}'s, "
                            f"and {COLOUR_NAMES[turn].capitalize()} is to move", text)

    if move_obj.get("to") is not None:
        to = _square(move_obj["to"], "to", text)
    elif move_obj.get("same") is True:
        last = previous if previous is not None else position.last_move
        if last is None:
            raise NotationError("no_previous_move", "'same' without 'to', and there is no "
                                "previous move", text)
        to = last.to_square
    else:
        raise NotationError("unparsable_move", "the move has no 'to' square", text)

    capture = move_obj.get("capture")
    if capture is not None:
        captured = CSA_TYPES.get(capture) if isinstance(capture, str) else None
        if captured is None:
            raise NotationError("unparsable_move", f"'capture' must be a CSA piece code, not "
                                f"{_text(capture)}", text)
        on_to = position.board[to]
        if on_to & 15 != captured or on_to >> 4 == turn:
            held = (f"{COLOUR_NAMES[on_to >> 4]}'s {_named(on_to & 15)}" if on_to else "nothing")
            raise NotationError("no_piece", f"the move captures {_named(captured)}, but "
                                f"{to // 9 + 1}{to % 9 + 1} holds {held}", text)

    if move_obj.get("from") is None:
        if piece_type not in HAND_TYPES:
            raise NotationError("unparsable_move", f"a drop (no 'from') of {_named(piece_type)}: "
                                "only unpromoted pieces other than the king are dropped", text)
        if promote:
            raise NotationError("unparsable_move", "a drop (no 'from') cannot promote", text)
        if not position.hands[turn][piece_type]:
            raise NotationError("not_in_hand", f"{COLOUR_NAMES[turn]} has no "
                                f"{_named(piece_type)} in hand", text)
        return Move(None, to, False, piece_type)

    f = _square(move_obj["from"], "from", text)
    on_board = position.board[f]
    if not on_board or on_board & 15 != piece_type or on_board >> 4 != turn:
        if not on_board:
            held = "nothing"
        elif on_board >> 4 != turn:
            held = f"{COLOUR_NAMES[on_board >> 4]}'s {_named(on_board & 15)}"
        else:
            held = _named(on_board & 15)
        hint = ""
        if on_board and can_promote(on_board & 15) and (on_board & 15) + PROMOTE == piece_type:
            hint = " (JKF names the piece before the move, and 'promote': true for a promotion)"
        raise NotationError("no_piece", f"the move names {_named(piece_type)}, but "
                            f"{f // 9 + 1}{f % 9 + 1} holds {held}{hint}", text)
    return Move(f, to, bool(promote), None)


def jkf_move(position, move: Move, previous: Optional[Move] = None) -> dict:
    """The JKF move object of ``move`` (played by the side to move in ``position``).

    Keys: ``color``, ``from`` (left out for a drop), ``to``, ``piece`` (before the move),
    ``promote`` (only when the move could promote), ``capture`` (when it takes a piece), ``same``
    (when it lands where the previous move, ``position.last_move`` or ``previous``, did) and
    ``relative`` (when KI2 needs 右 左 直 上 引 寄 打 to tell the move apart; from ``ki2_move``).

    >>> from kifudb.core.position import Position
    >>> jkf_move(Position(), Move.from_usi("7g7f"))
    {'color': 0, 'from': {'x': 7, 'y': 7}, 'to': {'x': 7, 'y': 6}, 'piece': 'FU'}
    >>> pos = Position.from_sfen("4k4/9/9/9/9/9/9/9/4K4 w s 1")
    >>> jkf_move(pos, Move.from_usi("S*5b"))
    {'color': 1, 'to': {'x': 5, 'y': 2}, 'piece': 'GI'}
    >>> jkf_move(Position(), Move.from_usi("6i5h"))
    {'color': 0, 'from': {'x': 6, 'y': 9}, 'to': {'x': 5, 'y': 8}, 'piece': 'KI', 'relative': 'L'}
    """
    turn = position.turn
    to = move.to_square
    if move.from_square is None:
        assert move.drop is not None, "a drop names the piece dropped"
        obj = {"color": turn, "to": _place(to), "piece": CSA_CODES[move.drop]}
        if "打" in ki2_move(position, move):
            obj["relative"] = "H"
        return obj
    f = move.from_square
    piece_type = position.board[f] & 15
    obj = {"color": turn, "from": _place(f), "to": _place(to), "piece": CSA_CODES[piece_type]}
    if move.promotion or may_promote(turn, piece_type, f, to):
        obj["promote"] = bool(move.promotion)
    captured = position.board[to] & 15
    if captured:
        obj["capture"] = CSA_CODES[captured]
    last = previous if previous is not None else position.last_move
    if last is not None and last.to_square == to:
        obj["same"] = True
    relative = "".join(_RELATIVE[c] for c in ki2_move(position, move) if c in _RELATIVE)
    if relative:
        obj["relative"] = relative
    return obj


__all__ = ["parse_jkf_move", "jkf_move"]
