"""The words every kind of label definition shares (``labels.toml``): pieces, squares and the
position conditions (own, theirs, not_own, not_theirs, empty, hands), parsed from the file and
compiled, for one side, into checks of board squares against sets of piece codes::

    >>> condition = _parse_condition({"own": ["玉 28", "金 38/39"], "empty": ["37"]}, "example")
    >>> from kifudb.core.position import Position
    >>> board = Position("9/9/9/9/9/9/9/7K1/6G2 b - 1").board
    >>> _holds(_compile_condition(condition, 0), board, [[0] * 8, [0] * 8])
    True
    >>> _squares("56-67/11", "example")  # a rectangle, then one square: owner-as-Black indices
    (41, 42, 50, 51, 0)
"""

from __future__ import annotations

from kifudb.core.pieces import HAND_TYPES, KANJI_TYPES, WHITE

_ALL_TYPES = tuple(range(1, 15))

#: The keys of a position condition.
_CONDITION_KEYS = {"own", "theirs", "not_own", "not_theirs", "empty", "hand", "their_hand",
                   "not_hand", "not_their_hand"}


class DefinitionError(ValueError):
    """A definitions file that does not follow the vocabulary of ``labels.toml``."""



def _list(table, key, where, item_type) -> list:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, item_type) for v in value):
        raise DefinitionError(f"{where}: {key} must be a list of {item_type.__name__}")
    return value


def _names(value, where) -> list:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise DefinitionError(f"{where}: expected a piece name or a list of them, not {value!r}")


def _piece_types(text: str, where) -> tuple:
    """``"金/銀"`` -> (GOLD, SILVER); ``"*"`` -> every type."""
    if text == "*":
        return _ALL_TYPES
    types = []
    for part in text.split("/"):
        if part not in KANJI_TYPES:
            raise DefinitionError(f"{where}: unknown piece {part!r}")
        types.append(KANJI_TYPES[part])
    return tuple(types)


def _squares(text: str, where) -> tuple:
    """``"58/47"`` or ``"56-99"`` (a rectangle) -> owner-as-Black square indices."""
    out = []
    for part in text.split("/"):
        corners = part.split("-")
        if len(corners) > 2 or not all(len(c) == 2 and c.isdigit() and "0" not in c
                                       for c in corners):
            raise DefinitionError(f"{where}: bad square {part!r} (two digits 1-9, file then rank)")
        (f1, r1), (f2, r2) = [(int(c[0]), int(c[1])) for c in (corners[0], corners[-1])]
        for f in range(min(f1, f2), max(f1, f2) + 1):
            for r in range(min(r1, r2), max(r1, r2) + 1):
                out.append((f - 1) * 9 + r - 1)
    return tuple(dict.fromkeys(out))


def _parse_condition(table: dict, where) -> dict:
    condition = {}
    for key in ("own", "theirs", "not_own", "not_theirs"):
        terms = []
        for text in _list(table, key, where, str):
            pieces, _, squares = text.strip().partition(" ")
            if not squares.strip():
                raise DefinitionError(f"{where}: {key} entry {text!r} needs a piece and squares")
            terms.append((_piece_types(pieces, where), _squares(squares.strip(), where)))
        condition[key] = terms
    condition["empty"] = [s for text in _list(table, "empty", where, str)
                          for s in _squares(text.strip(), where)]
    for key in ("hand", "their_hand", "not_hand", "not_their_hand"):
        types = [t for text in _list(table, key, where, str) for t in _piece_types(text, where)]
        if not all(t in HAND_TYPES for t in types):
            raise DefinitionError(f"{where}: {key} takes pieces that can be held in hand")
        condition[key] = types
    return condition



def _turn(sq: int, side: int) -> int:
    """A square seen from the owner (as if Black) -> the board square for ``side``."""
    return 80 - sq if side == WHITE else sq


def _compile_condition(condition: dict, side: int) -> tuple:
    """(required, forbidden, empty, hands, alternatives) with board squares and piece codes:
    required/forbidden are (squares, codes) pairs, hands (colour, type, wanted present)."""
    other = side ^ 1

    def terms(key, colour):
        return tuple((tuple(_turn(s, side) for s in squares),
                      frozenset(t + 16 * colour for t in types))
                     for types, squares in condition[key])

    required = terms("own", side) + terms("theirs", other)
    forbidden = terms("not_own", side) + terms("not_theirs", other)
    empty = tuple(_turn(s, side) for s in condition["empty"])
    hands = tuple([(side, t, True) for t in condition["hand"]]
                  + [(other, t, True) for t in condition["their_hand"]]
                  + [(side, t, False) for t in condition["not_hand"]]
                  + [(other, t, False) for t in condition["not_their_hand"]])
    alternatives = tuple(_compile_condition(a, side) for a in condition.get("any", []))
    return required, forbidden, empty, hands, alternatives


def _holds(compiled: tuple, board: list, hands: list) -> bool:
    required, forbidden, empty, hand_terms, alternatives = compiled
    for squares, codes in required:
        for s in squares:
            if board[s] in codes:
                break
        else:
            return False
    for s in empty:
        if board[s]:
            return False
    for squares, codes in forbidden:
        for s in squares:
            if board[s] in codes:
                return False
    for colour, t, present in hand_terms:
        if (hands[colour][t] > 0) is not present:
            return False
    if alternatives:
        for alternative in alternatives:
            if _holds(alternative, board, hands):
                return True
        return False
    return True
