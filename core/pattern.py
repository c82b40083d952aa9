"""A pattern: conditions on a position's board, hands and material, written as a shogi player
writes them, and whether a position meets them.

A pattern is a list of conditions that must all hold (``parse_pattern``). A condition:

=================  ===========================================================================
``▲金58``          Black has a gold on 5h (☗ and ☖ may stand for ▲ and △)
``△飛2*``          White has a rook somewhere on file 2 (``*5`` is any square of rank 5)
``▲玉28/39``       Black's king on 2h or on 3i (``/`` between squares: either)
``▲金/銀67``       a gold or a silver (``/`` between pieces: either); promoted pieces by their
                   names: と, 成香 (杏), 成桂 (圭), 成銀 (全), 馬, 龍 (竜)
``▲*77``           any Black piece on 7g (``▲77`` too)
``・55``           5e is empty (``.55`` too; ``・55/56``: 5e or 5f is empty)
``!▲銀77``         not: Black has no silver on 7g (``!`` before any condition; ``！`` too)
``▲持角``          Black holds at least one bishop; ``▲持歩3``: at least three pawns
``△持なし``        White's hand is empty
``▲飛=2``          material: Black has two rooks on the board and in hand together, promoted
                   or not (``>=``, ``<=``, ``>``, ``<`` too: ``△歩<5``)
=================  ===========================================================================

Squares are two digits, file then rank (``58`` is 5h, USI ``5h``); full-width digits and kanji
ranks are read too (``５八``). Conditions are separated by spaces (or given as separate
arguments)::

    >>> from kifudb.core.position import Position
    >>> pattern = parse_pattern("▲玉59 ▲飛28 ・55 !△角22/33")
    >>> pattern.holds(Position())
    False
    >>> parse_pattern("▲玉59 ▲飛28 ・55 △角22").holds(Position())
    True
    >>> str(parse_pattern("▲金/銀６七  △持歩3"))
    '▲金/銀67 △持歩3'

A pattern is checked by ``holds`` on one position (the reference, replaying games), and by the
store's placements (``store.schema``) on every stored position at once: both read the same
``Atom``\\ s. ``mirrored()`` reflects a pattern left-right, ``exchanged()`` gives it to the other
side (colours exchanged, the board turned half a turn)::

    >>> str(parse_pattern("▲金58 △飛2*").mirrored()), str(parse_pattern("▲金58 △飛2*").exchanged())
    ('▲金58 △飛8*', '△金52 ▲飛8*')

A condition that cannot be read, or conditions that contradict each other, raise
``PatternError`` naming the condition::

    >>> parse_pattern("▲金58 ・58")
    Traceback (most recent call last):
    ...
    kifudb.core.pattern.PatternError: '・58' contradicts '▲金58': no piece on 5h can meet both
"""

from __future__ import annotations

import operator
import re
from typing import Callable, NamedTuple

from kifudb.core.pieces import (BLACK, WHITE, KANJI, KANJI_TYPES, KANJI_SHORT, KING, UNPROMOTED,
                                HAND_TYPES, SIDE_MARKS, square_name)
from kifudb.core.placement import HAND_PLACE, MATERIAL_PLACE

__all__ = ["Atom", "Condition", "Pattern", "PatternError", "parse_pattern", "BOARD", "HAND",
           "MATERIAL", "HAND_PLACE", "MATERIAL_PLACE"]

#: where an atom looks: the board's squares, a side's hand, a side's material (board and hand)
BOARD, HAND, MATERIAL = "board", "hand", "material"
#: material and hands count the unpromoted kinds (the king counts in material only)
MATERIAL_TYPES = HAND_TYPES + (KING,)

_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "=": operator.eq, ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt}
_SIDES = {"▲": BLACK, "☗": BLACK, "△": WHITE, "☖": WHITE}
_EMPTY = ("・", ".")
_NOT = ("!", "！")
_DIGITS = {**{str(d): d for d in range(1, 10)}, **{"１２３４５６７８９"[d - 1]: d for d in range(1, 10)},
           **{"一二三四五六七八九"[d - 1]: d for d in range(1, 10)}}
#: every name of a piece type: KIF's and the one-character forms, 王 and 竜, 全 and its kin
_NAMES = dict(KANJI_TYPES)
_SQUARE = "[1-9１-９*][1-9１-９一二三四五六七八九*]"
_PIECE = "(?:[^/0-9１-９一二三四五六七八九*]+|\\*)"
_CONDITION = re.compile(  # ▲金/銀67/68, or as KIF writes it: ▲６七金
    rf"(?P<pieces>{_PIECE}(?:/{_PIECE})*)?(?P<squares>{_SQUARE}(?:/{_SQUARE})*)"
    rf"|(?P<squares_first>{_SQUARE}(?:/{_SQUARE})*)(?P<pieces_after>{_PIECE}(?:/{_PIECE})*)")
#: every board code of both sides (what "any piece" and "empty" look for)
_ALL_PIECES = frozenset(t + 16 * c for c in (BLACK, WHITE) for t in range(1, 15))
_COUNT = re.compile(r"(?P<piece>[^=<>\d]+)(?P<op>>=|<=|=|>|<)(?P<n>\d+)")


class PatternError(ValueError):
    """A condition that cannot be read, or conditions that cannot hold together."""


class Atom(NamedTuple):
    """What one condition looks for: a piece of ``pieces`` (board codes, ``type + 16 * colour``)
    on one of ``squares`` (``where`` BOARD), or a count ``op n`` of a kind held in hand (HAND:
    any of ``pieces``) or owned on the board and in hand together (MATERIAL: one kind)."""

    where: str
    pieces: frozenset
    squares: frozenset = frozenset()
    op: str = ">="
    n: int = 1

    def covers(self, board: list, hands: list) -> bool:
        """True if a position with ``board`` and ``hands`` (``Position``'s) has what it looks for."""
        if self.where == BOARD:
            return any(board[s] in self.pieces for s in self.squares)
        compare = _COMPARE[self.op]
        if self.where == HAND:
            return any(compare(hands[code >> 4][code & 15], self.n) for code in self.pieces)
        (code,) = self.pieces
        colour, kind = code >> 4, code & 15
        owned = hands[colour][kind] if kind != KING else 0
        owned += sum(1 for c in board if c and c >> 4 == colour and UNPROMOTED[c & 15] == kind)
        return compare(owned, self.n)


class Condition(NamedTuple):
    """One condition as written (``text``): true when any of its ``atoms`` covers the position
    (with ``inverted``, when any does not: ``・55/56``), the opposite with ``negated``."""

    text: str
    atoms: tuple
    inverted: bool = False
    negated: bool = False

    def holds(self, board: list, hands: list) -> bool:
        found = any(atom.covers(board, hands) != self.inverted for atom in self.atoms)
        return found != self.negated


class Pattern(NamedTuple):
    """Conditions that must all hold (``parse_pattern`` reads them)."""

    conditions: tuple

    def __str__(self) -> str:
        return " ".join(c.text for c in self.conditions)

    def holds(self, position) -> bool:
        """True if every condition holds in ``position`` (a ``core.position.Position``)."""
        return all(c.holds(position.board, position.hands) for c in self.conditions)

    def atoms(self) -> list:
        """Every distinct atom of the conditions, in the order first met."""
        return list(dict.fromkeys(a for c in self.conditions for a in c.atoms))

    def mirrored(self) -> "Pattern":
        """The pattern reflected left-right (file f becomes file 10 - f)."""
        return _transform(self, lambda s: (8 - s // 9) * 9 + s % 9, False)

    def exchanged(self) -> "Pattern":
        """The pattern for the other side: colours exchanged, the board turned half a turn."""
        return _transform(self, lambda s: 80 - s, True)


def parse_pattern(text) -> Pattern:
    """The pattern of ``text`` (conditions separated by white space), or of a list of
    conditions; ``PatternError`` names the condition that cannot be read or that contradicts
    another."""
    words = text.split() if isinstance(text, str) else [w for part in text for w in str(part).split()]
    if not words:
        raise PatternError("an empty pattern: give at least one condition, e.g. ▲玉28 or ▲持角")
    conditions = tuple(_condition(word) for word in words)
    _check_consistent(conditions)
    return Pattern(conditions)


def _condition(word: str) -> Condition:
    negated = word.startswith(_NOT)
    body = word[1:] if negated else word
    if body.startswith(_EMPTY):
        squares = _squares(body[1:], word)
        atoms = tuple(Atom(BOARD, _ALL_PIECES, frozenset(group)) for group in squares)
        return Condition(_text(negated, "・" + "/".join(_square_text(g) for g in squares)),
                         atoms, inverted=True, negated=negated)
    if not body or body[0] not in _SIDES:
        raise PatternError(f"{word!r}: a condition starts with ▲ or △ (the side), ・ (an empty "
                           f"square) or ! (not)")
    colour, rest = _SIDES[body[0]], body[1:]
    mark = SIDE_MARKS[colour]
    if rest.startswith("持"):
        return _hand(word, negated, colour, rest[1:])
    counted = _COUNT.fullmatch(rest)
    if counted:
        kind = _kind(counted["piece"], word, material=True)
        atom = Atom(MATERIAL, frozenset({kind + 16 * colour}), op=counted["op"], n=int(counted["n"]))
        return Condition(_text(negated, f"{mark}{KANJI_SHORT[kind]}{counted['op']}{atom.n}"),
                         (atom,), negated=negated)
    found = _CONDITION.fullmatch(rest)
    tail = re.search(r"[0-9A-Za-z０-９〇一二三四五六七八九*]+$", rest)
    if not found and tail:
        raise PatternError(f"{word!r}: {tail.group()!r} is not a square (two digits 1-9, file "
                           f"then rank: 58 is 5h; * for any file or rank)")
    if not found:
        raise PatternError(f"{word!r}: expected a piece and a square after {mark} (▲金58, △飛2*, "
                           f"▲*77), 持 and a piece in hand (▲持角), or a count (▲飛=2)")
    names = (found["pieces"] or found["pieces_after"] or "*").split("/")
    types = sorted({t for name in names for t in _types(name, word)})
    pieces = frozenset(t + 16 * colour for t in types)
    squares = _squares(found["squares"] or found["squares_first"], word)
    piece_text = "/".join("*" if n == "*" else KANJI_SHORT[_types(n, word)[0]]
                          if len(_types(n, word)) == 1 else n for n in names)
    return Condition(_text(negated, mark + piece_text + "/".join(_square_text(g) for g in squares)),
                     (Atom(BOARD, pieces, frozenset(s for g in squares for s in g)),),
                     negated=negated)


def _hand(word: str, negated: bool, colour: int, rest: str) -> Condition:
    mark = SIDE_MARKS[colour]
    if rest in ("なし", "無し"):  # the hand is empty: no piece of any kind in it
        atom = Atom(HAND, frozenset(t + 16 * colour for t in HAND_TYPES))
        return Condition(_text(negated, f"{mark}持なし"), (atom,), negated=not negated)
    found = re.fullmatch(r"(?P<piece>\D+?)(?P<n>\d*)", rest)
    if not found:
        raise PatternError(f"{word!r}: expected a piece after 持 (▲持角, ▲持歩3, △持なし)")
    kind = _kind(found["piece"], word, material=False)
    n = int(found["n"] or 1)
    if n < 1:
        raise PatternError(f"{word!r}: a count in hand is at least 1 (to say none: !{mark}持"
                           f"{KANJI_SHORT[kind]})")
    count = str(n) if n > 1 else ""
    return Condition(_text(negated, f"{mark}持{KANJI_SHORT[kind]}{count}"),
                     (Atom(HAND, frozenset({kind + 16 * colour}), n=n),), negated=negated)


def _kind(name: str, word: str, material: bool) -> int:
    types = _types(name, word)
    kind = types[0] if len(types) == 1 else 0
    allowed = MATERIAL_TYPES if material else HAND_TYPES
    if kind not in allowed:
        what = "material counts" if material else "a hand holds"
        raise PatternError(f"{word!r}: {what} an unpromoted kind "
                           f"({' '.join(KANJI[t] for t in allowed)}), not {name!r}")
    return kind


def _types(name: str, word: str) -> list:
    if name == "*":
        return list(range(1, 15))
    t = _NAMES.get(name)
    if t is None:
        raise PatternError(f"{word!r}: unknown piece {name!r} (pieces: "
                           f"{' '.join(KANJI[1:9])} と 成香 成桂 成銀 馬 龍, or * for any)")
    return [t]


def _squares(text: str, word: str) -> list:
    """The squares of ``28/39`` or ``2*``: one group (list of squares) per alternative."""
    groups = []
    for part in text.split("/"):
        if len(part) != 2 or not all(ch in _DIGITS or ch == "*" for ch in part):
            raise PatternError(f"{word!r}: {part!r} is not a square (two digits 1-9, file then "
                               f"rank, e.g. 58; * for any file or rank)")
        files = range(1, 10) if part[0] == "*" else [_DIGITS[part[0]]]
        ranks = range(1, 10) if part[1] == "*" else [_DIGITS[part[1]]]
        groups.append([(f - 1) * 9 + (r - 1) for f in files for r in ranks])
    return groups


def _square_text(group: list) -> str:
    files = sorted({s // 9 + 1 for s in group})
    ranks = sorted({s % 9 + 1 for s in group})
    return (str(files[0]) if len(files) == 1 else "*") + (str(ranks[0]) if len(ranks) == 1 else "*")


def _text(negated: bool, text: str) -> str:
    return "!" + text if negated else text



def _check_consistent(conditions: tuple) -> None:
    """Raise ``PatternError`` for two conditions on one square, or on one count (a kind in hand,
    material), that cannot both hold."""
    squares: dict = {}  # square -> (the codes it may hold, 0 for empty; the condition that said so)
    counts: dict = {}  # (where, code) -> (the counts it may have, the condition that said so)
    for c in conditions:
        if len(c.atoms) != 1:
            continue
        (atom,) = c.atoms
        if atom.where == BOARD:
            if len(atom.squares) != 1:
                continue
            (square,) = atom.squares
            meets = {0} if c.inverted else set(atom.pieces)
            allowed = (_ALL_PIECES | {0}) - meets if c.negated else meets
            _narrow(squares, square, allowed, c.text,
                    f"no piece on {square_name(square)} can meet both")
        elif atom.where == HAND and len(atom.pieces) > 1:
            if c.negated:  # an empty hand: none of each kind
                for code in atom.pieces:
                    _narrow(counts, (HAND, code), {0}, c.text, "")
        else:
            (code,) = atom.pieces
            allowed = {n for n in range(41) if _COMPARE[atom.op](n, atom.n) != c.negated}
            _narrow(counts, (atom.where, code), allowed, c.text, "")


def _narrow(known: dict, key, allowed: set, text: str, why: str) -> None:
    if key in known:
        before, said = known[key]
        allowed = before & allowed
        if not allowed:
            raise PatternError(f"{text!r} contradicts {said!r}" + (f": {why}" if why else ""))
    known[key] = (allowed, text)


def _transform(pattern: Pattern, square: Callable[[int], int], exchange: bool) -> Pattern:
    def atom(a: Atom) -> Atom:
        pieces = frozenset(c ^ 16 for c in a.pieces) if exchange else a.pieces
        return a._replace(pieces=pieces, squares=frozenset(square(s) for s in a.squares))

    conditions = []
    for c in pattern.conditions:
        atoms = tuple(atom(a) for a in c.atoms)
        conditions.append(c._replace(atoms=atoms, text=_retext(c.text, square, exchange)))
    return Pattern(tuple(conditions))


def _retext(text: str, square: Callable[[int], int], exchange: bool) -> str:
    if exchange:
        text = text.translate(str.maketrans("▲△", "△▲"))

    def one(match: "re.Match[str]") -> str:
        f, r = match.group(1), match.group(2)
        if f == "*" and r == "*":
            return "**"
        s = square((int(f) - 1 if f != "*" else 0) * 9 + (int(r) - 1 if r != "*" else 0))
        nf, nr = str(s // 9 + 1), str(s % 9 + 1)
        return (nf if f != "*" else "*") + (nr if r != "*" else "*")

    if "持" in text or re.search(r"[=<>]", text):  # a hand or a count: no square
        return text
    found = re.fullmatch(r"(.*?)((?:[1-9*][1-9*]/)*[1-9*][1-9*])", text)
    assert found, "a condition on the board ends with its squares"
    return found[1] + re.sub(r"([1-9*])([1-9*])", one, found[2])
