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

from typing import Iterable, Sequence

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


def _code_mask(codes: Iterable[int]) -> int:
    """A set of piece codes (0..31) as the bits of one number: ``mask >> code & 1`` asks whether
    ``code`` is in it (0, the empty square, never is)::

        >>> _code_mask([1, 17]), _mask_codes(131074)
        (131074, [1, 17])
    """
    mask = 0
    for code in codes:
        mask |= 1 << code
    return mask


def _mask_codes(mask: int) -> list[int]:
    """The piece codes of a ``_code_mask``."""
    return [code for code in range(32) if mask >> code & 1]


#: One term of a compiled condition: (board squares, piece codes as a ``_code_mask``).
Term = tuple[tuple[int, ...], int]


class Condition:
    """A position condition compiled for one side, with board squares and piece codes:
    ``required`` terms (one of the squares holds one of the codes), ``forbidden`` terms (none
    does), ``empty`` squares, ``hands`` terms ``(colour, type, wanted present)`` and
    ``alternatives`` (one of them must hold too, when there are any)."""

    required: tuple[Term, ...]
    forbidden: tuple[Term, ...]
    empty: tuple[int, ...]
    hands: tuple[tuple[int, int, bool], ...]
    alternatives: tuple[Condition, ...]

    def __init__(self, required: tuple[Term, ...], forbidden: tuple[Term, ...],
                 empty: tuple[int, ...], hands: tuple[tuple[int, int, bool], ...],
                 alternatives: tuple[Condition, ...]) -> None:
        self.required = required
        self.forbidden = forbidden
        self.empty = empty
        self.hands = hands
        self.alternatives = alternatives

    def names_something(self) -> bool:
        """True if the condition itself (not its alternatives) names a square or a hand."""
        return bool(self.required or self.forbidden or self.empty or self.hands)


def _compile_condition(condition: dict, side: int) -> Condition:
    """The parsed ``condition`` (owner-as-Black squares, piece types) for ``side``."""
    other = side ^ 1

    def terms(key: str, colour: int) -> tuple[Term, ...]:
        return tuple((tuple(_turn(s, side) for s in squares),
                      _code_mask([t + 16 * colour for t in types]))
                     for types, squares in condition[key])

    # the narrowest terms first: they fail soonest when the condition does not hold
    required = tuple(sorted(terms("own", side) + terms("theirs", other),
                            key=lambda term: len(term[0])))
    forbidden = terms("not_own", side) + terms("not_theirs", other)
    empty = tuple(_turn(s, side) for s in condition["empty"])
    hands = tuple([(side, t, True) for t in condition["hand"]]
                  + [(other, t, True) for t in condition["their_hand"]]
                  + [(side, t, False) for t in condition["not_hand"]]
                  + [(other, t, False) for t in condition["not_their_hand"]])
    alternatives = tuple(_compile_condition(a, side) for a in condition.get("any", []))
    return Condition(required, forbidden, empty, hands, alternatives)


def _holds(compiled: Condition, board: list[int], hands: Sequence[Sequence[int]]) -> bool:
    """True if the position (``board``: 81 piece codes; ``hands[colour][type]``) meets the
    condition."""
    for squares, codes in compiled.required:
        for s in squares:
            if codes >> board[s] & 1:
                break
        else:
            return False
    for s in compiled.empty:
        if board[s]:
            return False
    for squares, codes in compiled.forbidden:
        for s in squares:
            if codes >> board[s] & 1:
                return False
    for colour, t, present in compiled.hands:
        if (hands[colour][t] > 0) != present:
            return False
    if compiled.alternatives:
        for alternative in compiled.alternatives:
            if _holds(alternative, board, hands):
                return True
        return False
    return True
