"""Castles (囲い), openings (戦型), techniques (手筋) and notes (備考) of a game, from the
definitions in ``labels.toml`` and a file per kind.

``classify_game`` replays the main line and reports, for each side, every castle and opening
reached and the ply at which it was first reached (the position after that many moves), every
ply at which it played a technique, and the notes of the whole game (``labels.techniques``)::

    >>> moves = "7g7f 3c3d 2h6h 8c8d 5i4h 8d8e 4h3h 4a3b 3h2h 7a6b 3i3h".split()
    >>> labels = classify_game("startpos", moves)
    >>> [(r.name, r.ply) for r in labels.black.openings]
    [('振り飛車', 3), ('四間飛車', 3), ('角道オープン四間飛車', 3), ('対抗形', 4)]
    >>> labels.black.castles, labels.black.primary_castle
    ([Reached(name='片美濃囲い', ply=11)], '片美濃囲い')
    >>> labels.white.openings, labels.white.primary_opening
    ([Reached(name='居飛車', ply=4), Reached(name='対抗形', ply=4)], '居飛車')
    >>> labels.rows()[:2]
    [('black', 'castle', '片美濃囲い', 11, True), ('black', 'opening', '振り飛車', 3, False)]
    >>> definitions()["美濃囲い"].english, definitions()["美濃囲い"].parents
    ('Mino castle', ('片美濃囲い',))

    >>> labels.black.techniques, [r.name for r in labels.white.notes]
    ([], ['短手数'])

How it stays fast: each label is compiled, for each colour, into checks of board squares against
sets of piece codes; a label is looked at only after a move that changed one of its squares (or
a hand, or a label it depends on), never again once reached, and not past its ply window, so
castles and openings are no longer looked for after the largest window. Techniques are indexed by
the move (``labels.techniques``): a move looks only at the patterns it can fire. The vocabulary
of the definitions is documented at the top of ``labels.toml``.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterable, NamedTuple, Optional, Sequence, Union, cast

import kifudb.labels
from kifudb.core.handicap import EVEN, handicap_name
from kifudb.core.move import Move
from kifudb.core.pieces import BLACK, WHITE, BISHOP, KING, ROOK, PROMOTE, UNPROMOTED, unpromoted
from kifudb.core.position import Position
from kifudb.labels.techniques import (CompiledNotes, CompiledTechniques, GameFacts, MoveFacts,
                                      Note, Technique, file_full, note_plies, parse_note,
                                      parse_technique, slot, track)
from kifudb.labels.vocabulary import (_ALL_TYPES, _CONDITION_KEYS, Condition,  # noqa: F401
                                      DefinitionError, _compile_condition, _holds, _list,
                                      _mask_codes, _names, _parse_condition, _piece_types,
                                      _squares, _turn)

#: The project's definitions: the vocabulary's documentation and defaults, then one file per kind,
#: beside the package's ``__init__.py`` (this module's own ``__file__`` names where the compiled
#: build's shared library is, not its folder)
LABELS_PATH = Path(kifudb.labels.__file__).with_name("labels.toml")
DEFINITION_FILES = (LABELS_PATH, LABELS_PATH.with_name("castles.toml"),
                    LABELS_PATH.with_name("openings.toml"), LABELS_PATH.with_name("techniques.toml"),
                    LABELS_PATH.with_name("notes.toml"))
KINDS = ("castle", "opening", "technique", "note")
#: The kinds reached once, at a ply, with a primary label per side (the others are occurrences).
_POSITION_KINDS = ("castle", "opening")

_LABEL_KEYS = _CONDITION_KEYS | {
    "name", "english", "parents", "any", "window", "before_capture", "played", "completed_by",
    "requires", "opponent_requires", "not_after", "excludes", "opponent_excludes", "group",
    "both_sides", "primary", "handicap", "note", "aliases", "source"}
_PLAYED_KEYS = {"piece", "from", "to", "drop", "capture", "promote"}


class Reached(NamedTuple):
    """A label and the ply at which it was first reached (the position after ``ply`` moves); for
    a technique, one ply at which it was played; for a note, the ply it speaks of."""

    name: str
    ply: int


@dataclass
class SideLabels:
    """The castles and openings one side reached, in order of first ply, and the primary ones;
    the techniques it played, one entry per occurrence, in order of ply; the notes of the game
    that concern it."""

    castles: list[Reached] = field(default_factory=list)
    openings: list[Reached] = field(default_factory=list)
    primary_castle: Optional[str] = None
    primary_opening: Optional[str] = None
    techniques: list[Reached] = field(default_factory=list)
    notes: list[Reached] = field(default_factory=list)

    def as_dict(self) -> dict:
        """Plain data: lists of ``{"name", "ply"}`` and the two primary names."""
        return {"castles": [{"name": r.name, "ply": r.ply} for r in self.castles],
                "openings": [{"name": r.name, "ply": r.ply} for r in self.openings],
                "primary_castle": self.primary_castle, "primary_opening": self.primary_opening,
                "techniques": [{"name": r.name, "ply": r.ply} for r in self.techniques],
                "notes": [{"name": r.name, "ply": r.ply} for r in self.notes]}


@dataclass
class GameLabels:
    """The labels of both sides of one game."""

    black: SideLabels = field(default_factory=SideLabels)
    white: SideLabels = field(default_factory=SideLabels)

    def rows(self) -> list:
        """``(side, kind, name, ply, primary)`` for every label, Black first; castles, openings,
        techniques (a row per occurrence) and notes in that order (techniques and notes are
        never primary)."""
        out: list[tuple[str, str, str, int, bool]] = []
        for side, labels in (("black", self.black), ("white", self.white)):
            for kind, reached, primary in (("castle", labels.castles, labels.primary_castle),
                                           ("opening", labels.openings, labels.primary_opening),
                                           ("technique", labels.techniques, None),
                                           ("note", labels.notes, None)):
                out.extend((side, kind, r.name, r.ply, r.name == primary) for r in reached)
        return out

    def as_dict(self) -> dict:
        return {"black": self.black.as_dict(), "white": self.white.as_dict()}


# ----- the definitions ---------------------------------------------------------------------------

class LabelInfo(NamedTuple):
    """What the dashboard and the store need to know about one label."""

    name: str
    kind: str  # "castle", "opening", "technique" or "note"
    english: str
    parents: tuple
    depth: int  # longest chain of parents (0 for a root)
    both_sides: bool
    primary: bool
    handicap: bool
    window: int  # 0: the whole game (techniques without a window, notes)
    group: str  # "" for none
    note: str
    aliases: tuple  # other spellings in use (別名), each a name a user may give
    source: str  # where the definition comes from


class Definitions:
    """The parsed and compiled definitions: a read-only mapping of label name -> ``LabelInfo``."""

    version: str
    info: dict[str, LabelInfo]
    _labels: list[_Label]  # the castles and openings
    _by_name: dict[str, _Label]
    _compiled: _Compiled
    _techniques: CompiledTechniques
    _notes: CompiledNotes

    def __init__(self, data: dict, version: str) -> None:
        self.version = version
        self._labels, techniques, notes, self.info = _parse(data)
        self._by_name = {label.name: label for label in self._labels}
        self._compiled = _Compiled(self._labels)
        self._techniques = CompiledTechniques(
            techniques, {label.name: label.index for label in self._labels})
        self._notes = CompiledNotes(notes, self.descendants)

    def __getitem__(self, name: str) -> LabelInfo:
        return self.info[name]

    def __contains__(self, name) -> bool:
        return name in self.info

    def __iter__(self):
        return iter(self.info)

    def __len__(self) -> int:
        return len(self.info)

    def names(self, kind: Optional[str] = None) -> list:
        """Label names in file order, of one kind or all."""
        return [n for n, i in self.info.items() if kind is None or i.kind == kind]

    def children(self, name: str) -> list:
        """Labels that name ``name`` among their parents."""
        return [n for n, i in self.info.items() if name in i.parents]

    def condition(self, name: str) -> Optional[dict]:
        """The position a castle or opening asks for, as read from its definition (squares as
        if its owner were Black: ``labels.shapes`` draws it); None for other kinds."""
        label = self._by_name.get(name)
        return None if label is None else label.condition

    def requires(self, name: str) -> list[str]:
        """The labels a castle or opening requires its owner to have reached (``requires``),
        and those they require, nearest first; none for other kinds."""
        out: list[str] = []
        todo = [name]
        while todo:
            label = self._by_name.get(todo.pop(0))
            for required in label.requires if label is not None else ():
                if required not in out and required != name:
                    out.append(required)
                    todo.append(required)
        return out

    def descendants(self, name: str) -> set[str]:
        """A label and every label below it in the parent tree (its kinds)."""
        out: set[str] = set()
        todo = [name]
        while todo:
            one = todo.pop()
            if one not in out:
                out.add(one)
                todo.extend(self.children(one))
        return out

    def ancestors(self, name: str) -> set[str]:
        """Every parent, grandparent … of a label."""
        out: set[str] = set()
        todo = list(self.info[name].parents)
        while todo:
            parent = todo.pop()
            if parent not in out:
                out.add(parent)
                todo.extend(self.info[parent].parents)
        return out


def load_definitions(path=DEFINITION_FILES) -> Definitions:
    """Read and compile a definitions file, or several read as one (their ``defaults`` merged,
    their labels in file order); ``DefinitionError`` says what is wrong and where."""
    paths = [Path(path)] if isinstance(path, (str, Path)) else [Path(p) for p in path]
    data: dict = {}
    digest = hashlib.sha256()
    for one in paths:
        raw = one.read_bytes()
        digest.update(raw)
        try:
            part = tomllib.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise DefinitionError(f"{one}: {error}") from None
        for key, value in part.items():
            if key == "defaults" and isinstance(value, dict):
                data.setdefault(key, {}).update(value)
            elif isinstance(value, list):
                data.setdefault(key, []).extend(value)
            else:
                data[key] = value
    return Definitions(data, digest.hexdigest()[:12])


@lru_cache(maxsize=None)
def definitions() -> Definitions:
    """The project's definitions (``labels/labels.toml`` and a file per kind), read once."""
    return load_definitions()


def definitions_version() -> str:
    """A short hash of the definitions file, to store with the labels it produced."""
    return definitions().version


class _Label:
    """One label as read from the file, before compiling (squares as owner-as-Black indices)."""

    index: int
    name: str
    kind: str
    info: LabelInfo
    condition: dict  # as ``vocabulary._parse_condition`` reads it, with its alternatives ("any")
    played: list[dict]
    completed_by: frozenset[int]
    before_capture: frozenset[int]
    requires: tuple[str, ...]
    opponent_requires: tuple[str, ...]
    not_after: tuple[str, ...]
    excludes: tuple[str, ...]
    opponent_excludes: tuple[str, ...]
    weight: int


class _Entry(NamedTuple):
    """A technique or a note as the checks of ``_parse`` see it."""

    name: str
    kind: str
    info: LabelInfo
    parsed: Union[Technique, Note]


def _parse(data: dict) -> tuple:
    """(castles and openings as ``_Label``, techniques, notes, {name: LabelInfo} in file order)."""
    unknown = set(data) - {"defaults", *KINDS}
    if unknown:
        raise DefinitionError(f"unknown top-level keys: {sorted(unknown)}")
    defaults = data.get("defaults", {})
    labels: list[_Label] = []
    entries: list[Union[_Label, _Entry]] = []
    by_name: dict[str, Union[_Label, _Entry]] = {}
    for kind in KINDS:
        kind_defaults = defaults.get(kind, {})
        for table in _list(data, kind, "the file", dict):
            label: Union[_Label, _Entry]
            if kind in _POSITION_KINDS:
                label = _parse_label(table, kind, kind_defaults, len(labels))
                labels.append(label)
            else:
                label = _parse_other(table, kind, kind_defaults)
            if label.name in by_name:
                raise DefinitionError(f"{label.name}: defined twice")
            by_name[label.name] = label
            entries.append(label)

    def check_names(label, key, names, kinds):
        for other in names:
            if other not in by_name:
                raise DefinitionError(f"{label.name}: {key} names unknown label {other!r}")
            if by_name[other].kind not in kinds:
                raise DefinitionError(f"{label.name}: {key} names {other!r}, a "
                                      f"{by_name[other].kind}; it takes {' or '.join(kinds)}s")

    for label in labels:
        for key in ("requires", "opponent_requires", "not_after", "excludes",
                    "opponent_excludes"):
            check_names(label, key, getattr(label, key), _POSITION_KINDS)
    for entry in entries:
        if not isinstance(entry, _Entry):  # a castle or an opening, checked above
            continue
        parsed = entry.parsed
        if entry.kind == "technique":
            for key in ("requires", "opponent_requires"):
                check_names(entry, key, getattr(parsed, key), _POSITION_KINDS)
        else:
            for key in ("reached", "opponent_reached", "not_reached", "opponent_not_reached"):
                check_names(entry, key, getattr(parsed, key), _POSITION_KINDS + ("technique",))
    for label in entries:
        for alias in label.info.aliases:
            if alias in by_name:
                raise DefinitionError(f"{label.name}: alias {alias!r} is the name of a label")
        for parent in label.info.parents:
            if parent not in by_name:
                raise DefinitionError(f"{label.name}: unknown parent {parent!r}")
            if by_name[parent].kind != label.kind:
                raise DefinitionError(f"{label.name}: parent {parent!r} is of another kind")
    depths: dict[str, int] = {}

    def depth(name, path=()):
        if name in path:
            raise DefinitionError(f"{name}: its parents form a cycle")
        if name not in depths:
            parents = by_name[name].info.parents
            depths[name] = 1 + max(depth(p, path + (name,)) for p in parents) if parents else 0
        return depths[name]

    for label in labels:
        label.info = label.info._replace(depth=depth(label.name))
    info = {e.name: (e.info._replace(depth=depth(e.name)) if e.kind not in _POSITION_KINDS
                     else e.info) for e in entries}
    _check_requirement_cycles(labels, by_name)
    techniques = [e.parsed for e in entries if isinstance(e, _Entry) and e.kind == "technique"]
    notes = [e.parsed for e in entries if isinstance(e, _Entry) and e.kind == "note"]
    return labels, techniques, notes, info


def _parse_other(table: dict, kind: str, defaults: dict) -> _Entry:
    """A ``[[technique]]`` or ``[[note]]`` table (their keys: ``labels.techniques``)."""
    name = table.get("name")
    if not isinstance(name, str) or not name:
        raise DefinitionError(f"a {kind} without a name: {table}")
    english = table.get("english")
    if not isinstance(english, str) or not english:
        raise DefinitionError(f"{name}: needs an english name")
    table = {**defaults, **table}
    parsed: Union[Technique, Note]
    if kind == "technique":
        parsed = parse_technique(table, name)
        window = parsed.window
    else:
        parsed = parse_note(table, name)
        window = 0
    note, source = table.get("note", ""), table.get("source", "")
    if not all(isinstance(text, str) for text in (note, source)):
        raise DefinitionError(f"{name}: note and source are text")
    info = LabelInfo(name, kind, english, tuple(_list(table, "parents", name, str)), 0, False,
                     False, False, window, "", note, tuple(_list(table, "aliases", name, str)),
                     source)
    return _Entry(name, kind, info, parsed)


def _check_requirement_cycles(labels, by_name) -> None:
    state: dict[str, int] = {}

    def visit(name):
        if state.get(name) == 1:
            raise DefinitionError(f"{name}: its requirements form a cycle")
        if state.get(name) == 2:
            return
        state[name] = 1
        label = by_name[name]
        for other in label.requires + label.opponent_requires:
            visit(other)
        state[name] = 2

    for label in labels:
        visit(label.name)


def _parse_label(table: dict, kind: str, defaults: dict, index: int) -> _Label:
    name = table.get("name")
    if not isinstance(name, str) or not name:
        raise DefinitionError(f"a {kind} without a name: {table}")
    unknown = set(table) - _LABEL_KEYS
    if unknown:
        raise DefinitionError(f"{name}: unknown keys {sorted(unknown)}")
    where = name
    english = table.get("english")
    if not isinstance(english, str) or not english:
        raise DefinitionError(f"{where}: needs an english name")
    label = _Label()
    label.index, label.name, label.kind = index, name, kind
    label.condition = _parse_condition(table, where)
    alternatives = table.get("any", [])
    if not isinstance(alternatives, list) or not all(isinstance(a, dict) for a in alternatives):
        raise DefinitionError(f"{where}: any must be a list of tables")
    for alternative in alternatives:
        extra = set(alternative) - _CONDITION_KEYS
        if extra:
            raise DefinitionError(f"{where}: unknown keys in any: {sorted(extra)}")
    label.condition["any"] = [_parse_condition(a, where) for a in alternatives]
    label.played = [_parse_played(p, where) for p in _list(table, "played", where, dict)]
    completed_by = _names(table.get("completed_by", []), where)
    label.completed_by = frozenset(unpromoted(t) for p in completed_by
                                   for t in _piece_types(p, where))
    before = table.get("before_capture", defaults.get("before_capture", []))
    label.before_capture = frozenset(t for p in _names(before, where)
                                     for t in _piece_types(p, where))
    if not label.before_capture <= {ROOK, BISHOP}:
        raise DefinitionError(f"{where}: before_capture takes 飛 and 角 only")
    label.requires = tuple(_list(table, "requires", where, str))
    label.opponent_requires = tuple(_list(table, "opponent_requires", where, str))
    label.not_after = tuple(_list(table, "not_after", where, str))
    label.excludes = tuple(_list(table, "excludes", where, str))
    label.opponent_excludes = tuple(_list(table, "opponent_excludes", where, str))
    window = table.get("window", defaults.get("window"))
    if not isinstance(window, int) or isinstance(window, bool) or window < 1:
        raise DefinitionError(f"{where}: window must be a positive number of plies, not {window!r}")
    flags = {}
    for key, default in (("both_sides", False), ("primary", True), ("handicap", False)):
        flags[key] = table.get(key, default)
        if not isinstance(flags[key], bool):
            raise DefinitionError(f"{where}: {key} must be true or false")
    looks_at_opponent = any(c[k] for c in [label.condition] + label.condition["any"]
                            for k in ("theirs", "not_theirs", "their_hand", "not_their_hand"))
    if flags["handicap"] and (looks_at_opponent or label.opponent_requires
                              or label.opponent_excludes or flags["both_sides"]):
        raise DefinitionError(f"{where}: a label valid in handicap games cannot look at the "
                              "opponent")
    label.weight = (sum([len(label.condition[k]) for k in _CONDITION_KEYS]) + len(label.played)
                    + bool(alternatives) + len(label.requires) + len(label.opponent_requires))
    group, note, source = [table.get(key, "") for key in ("group", "note", "source")]
    if not all(isinstance(text, str) for text in (group, note, source)):
        raise DefinitionError(f"{where}: group, note and source are text")
    label.info = LabelInfo(name, kind, english, tuple(_list(table, "parents", where, str)), 0,
                           flags["both_sides"], flags["primary"], flags["handicap"], window,
                           group, note, tuple(_list(table, "aliases", where, str)), source)
    return label


def _parse_played(table: dict, where) -> dict:
    unknown = set(table) - _PLAYED_KEYS
    if unknown or "piece" not in table:
        raise DefinitionError(f"{where}: played moves need a piece and take {sorted(_PLAYED_KEYS)}")
    played: dict = {"piece": frozenset(unpromoted(t) for t in _piece_types(table["piece"], where))}
    for key in ("from", "to"):
        played[key] = _squares(table[key], where) if key in table else None
    played["capture"] = (frozenset(unpromoted(t) for t in _piece_types(table["capture"], where))
                         if "capture" in table else None)
    for key in ("drop", "promote"):
        played[key] = table.get(key)
        if played[key] is not None and not isinstance(played[key], bool):
            raise DefinitionError(f"{where}: played {key} must be true or false")
    return played


# ----- compiling ---------------------------------------------------------------------------------

def _triggers(compiled: Condition, arrive: set[tuple[int, int]], leave: set[tuple[int, int]],
              hands: set[tuple[int, bool]]) -> None:
    """Collect the events that can make a compiled condition true: a piece code arriving on a
    square (``(code, s)`` in arrive: a required piece), a piece code leaving a square or being
    captured there (leave: a square that must be empty or must not hold that piece), or a hand
    growing or shrinking (``(colour, True)`` after a capture, ``(colour, False)`` after a drop)."""
    for squares, codes in compiled.required:
        arrive.update((code, s) for code in _mask_codes(codes) for s in squares)
    for squares, codes in compiled.forbidden:
        leave.update((code, s) for code in _mask_codes(codes) for s in squares)
    leave.update((t + 16 * colour, s) for s in compiled.empty for colour in (BLACK, WHITE)
                 for t in _ALL_TYPES)
    hands.update((colour, present) for colour, _, present in compiled.hands)
    for alternative in compiled.alternatives:
        _triggers(alternative, arrive, leave, hands)


#: A played-move pattern compiled for one side: (unpromoted types, from squares or None, to
#: squares or None, drop or None, types captured or None, promotion or None).
_Matcher = tuple[frozenset[int], Optional[frozenset[int]], Optional[frozenset[int]],
                 Optional[bool], Optional[frozenset[int]], Optional[bool]]


class _Compiled:
    """Everything the replay needs, indexed by label id ``i`` and side: conditions per side,
    which squares wake which (label, side), dependencies and played-move matchers. A (label,
    side) pair to look at is one number, ``2 * i + side``."""

    labels: list[_Label]
    n: int
    names: list[str]
    kind: list[str]
    window: list[int]
    max_window: int
    both_sides: list[bool]
    handicap: list[bool]
    completed_by: list[frozenset[int]]
    before_rook: list[bool]
    before_bishop: list[bool]
    requires: list[tuple[int, ...]]
    opponent_requires: list[tuple[int, ...]]
    grouped: list[int]  # the labels of a group
    required: list[bool]  # required by some label (of either side)
    not_after: list[tuple[int, ...]]
    excludes: list[tuple[int, ...]]
    opponent_excludes: list[tuple[int, ...]]
    condition: list[list[Condition]]  # side -> i -> its condition
    # piece code -> square -> [2 * i + side] woken when such a piece arrives there / leaves or
    # is captured there
    watch_arrive: list[list[list[int]]]
    watch_leave: list[list[list[int]]]
    # mover colour -> [2 * i + side] woken when the mover's hand grows (capture) / shrinks (drop)
    watch_capture: list[list[int]]
    watch_drop: list[list[int]]
    played: list[list[list[_Matcher]]]  # side -> i -> matchers
    # side -> moved type -> to square -> [(i, k, matcher)]: the played-move patterns a move of
    # that piece to that square may match (pattern k of label i)
    played_at: list[list[list[list[tuple[int, int, _Matcher]]]]]
    dependents: list[list[tuple[int, bool]]]  # i -> [(j, same_side)]
    has_played: list[bool]
    # True if a label asks more than its position: a piece completing it, played moves,
    # labels required (or not_after)
    gated: list[bool]
    weight: list[int]
    group: list[str]
    depth: list[int]
    primary: list[bool]
    ancestors: list[frozenset[int]]

    def __init__(self, labels: list[_Label]) -> None:
        n = len(labels)
        self.labels = labels
        self.n = n
        by_name = {label.name: label.index for label in labels}
        self.names = [label.name for label in labels]
        self.kind = [label.kind for label in labels]
        self.window = [label.info.window for label in labels]
        self.max_window = max(self.window, default=0)
        self.both_sides = [label.info.both_sides for label in labels]
        self.handicap = [label.info.handicap for label in labels]
        self.completed_by = [label.completed_by for label in labels]
        self.before_rook = [ROOK in label.before_capture for label in labels]
        self.before_bishop = [BISHOP in label.before_capture for label in labels]
        self.requires = [tuple(by_name[r] for r in label.requires) for label in labels]
        self.required = [False] * self.n
        self.opponent_requires = [tuple(by_name[r] for r in label.opponent_requires)
                                  for label in labels]
        for needed in self.requires + self.opponent_requires:
            for j in needed:
                self.required[j] = True
        self.not_after = [tuple(by_name[r] for r in label.not_after) for label in labels]
        self.excludes = [tuple(by_name[r] for r in label.excludes) for label in labels]
        self.opponent_excludes = [tuple(by_name[r] for r in label.opponent_excludes)
                                  for label in labels]
        self.condition = [[_compile_condition(label.condition, side) for label in labels]
                          for side in (BLACK, WHITE)]
        self.watch_arrive = [[[] for _ in range(81)] for _ in range(32)]
        self.watch_leave = [[[] for _ in range(81)] for _ in range(32)]
        self.watch_capture = [[], []]
        self.watch_drop = [[], []]
        self.played = [[[] for _ in range(n)], [[] for _ in range(n)]]
        self.played_at = [[[[] for _ in range(81)] for _ in range(15)] for _ in (BLACK, WHITE)]
        self.dependents = [[] for _ in range(n)]
        for label in labels:
            i = label.index
            for side in (BLACK, WHITE):
                pair = 2 * i + side
                arrive: set[tuple[int, int]] = set()
                leave: set[tuple[int, int]] = set()
                hand_watch: set[tuple[int, bool]] = set()
                _triggers(self.condition[side][i], arrive, leave, hand_watch)
                for code, s in sorted(arrive):
                    self.watch_arrive[code][s].append(pair)
                for code, s in sorted(leave):
                    self.watch_leave[code][s].append(pair)
                for colour, grows in sorted(hand_watch):
                    (self.watch_capture if grows else self.watch_drop)[colour].append(pair)
                for k, played in enumerate(label.played):
                    matcher = _compile_played(played, side)
                    self.played[side][i].append(matcher)
                    to_squares = matcher[2]
                    for t in played["piece"]:
                        for to in range(81):
                            if to_squares is None or to in to_squares:
                                self.played_at[side][t][to].append((i, k, matcher))
            for j in self.requires[i]:
                self.dependents[j].append((i, True))
            for j in self.opponent_requires[i]:
                self.dependents[j].append((i, False))
        self.has_played = [bool(label.played) for label in labels]
        self.gated = [bool(label.completed_by or label.played or label.requires
                           or label.opponent_requires or label.not_after) for label in labels]
        self.weight = [label.weight for label in labels]
        self.group = [label.info.group for label in labels]
        self.grouped = [i for i in range(n) if self.group[i]]
        self.depth = [label.info.depth for label in labels]
        self.primary = [label.info.primary for label in labels]
        self.ancestors = []
        for label in labels:
            out: set[int] = set()
            todo = [by_name[p] for p in label.info.parents]
            while todo:
                j = todo.pop()
                if j not in out:
                    out.add(j)
                    todo.extend(by_name[p] for p in labels[j].info.parents)
            self.ancestors.append(frozenset(out))


def _compile_played(played: dict, side: int) -> _Matcher:
    def squares(value: Optional[tuple]) -> Optional[frozenset[int]]:
        return None if value is None else frozenset(_turn(s, side) for s in value)
    return (played["piece"], squares(played["from"]), squares(played["to"]), played["drop"],
            played["capture"], played["promote"])


def _move_matches(matcher: _Matcher, piece_type: int, move: Move, captured_type: int) -> bool:
    pieces, from_squares, to_squares, drop, capture, promote = matcher
    if piece_type not in pieces:
        return False
    if drop is not None and (move.from_square is None) != drop:
        return False
    if from_squares is not None and move.from_square not in from_squares:
        return False
    if to_squares is not None and move.to_square not in to_squares:
        return False
    if capture is not None and captured_type not in capture:
        return False
    return promote is None or move.promotion == promote


# ----- classifying a game ------------------------------------------------------------------------

def classify_game(start_sfen: str, moves: Iterable[Union[Move, str]],
                  defs: Optional[Definitions] = None) -> GameLabels:
    """The labels of a game: ``start_sfen`` (an SFEN or ``"startpos"``) and the legal main line
    ``moves`` (``core.move.Move`` values or USI strings; trusted, not checked).

    An even game is looked at for every label; a standard handicap game only for castles, the
    openings marked ``handicap`` and techniques, of the side with the full army (下手, Black),
    and gets no notes; a game from any other position gets no labels. Nothing is looked for in
    the start position itself. Castles and openings are looked for up to the largest window;
    techniques after every move of the game; notes at its end.
    """
    defs = defs or definitions()
    c = defs._compiled
    tc = defs._techniques
    setup, start_board, start_hands, turn = _start(start_sfen)
    if setup is None:
        return GameLabels()
    line: Sequence[Union[Move, str]] = moves if isinstance(moves, (list, tuple)) else list(moves)
    # the board lives in a Position so that its (compiled) attack test can be asked about it
    holder = _start_position(start_sfen).copy()
    board = holder.board
    hands = [list(start_hands[0]), list(start_hands[1])]
    even = setup == EVEN
    alive: list[list[bool]]
    if even:
        alive = [[True] * c.n, [True] * c.n]
    else:
        alive = [[k == "castle" or h for k, h in zip(c.kind, c.handicap)], [False] * c.n]
    # side -> label -> ply first reached
    reached: list[list[Optional[int]]] = [[None] * c.n, [None] * c.n]
    # side -> label -> flags of its played moves
    played: list[list[Optional[list[bool]]]] = [[None] * c.n, [None] * c.n]
    window, completed_by, requires, opponent_requires = (c.window, c.completed_by, c.requires,
                                                         c.opponent_requires)
    condition, both_sides, dependents = c.condition, c.both_sides, c.dependents
    has_played, not_after, gated = c.has_played, c.not_after, c.gated
    rook_taken = bishop_taken = False
    max_ply = c.max_window
    # techniques: per side, [(technique, ply)] in order; which sides are looked at
    occurrences: list[list[tuple[int, int]]] = [[], []]
    fired = [[0] * tc.n, [0] * tc.n]  # side -> technique -> last ply it fired
    labelled = (True, even)
    facts = GameFacts()
    material = [list(start_hands[0]), list(start_hands[1])]
    for code in board:
        if code and code & 15 != KING:
            material[code >> 4][UNPROMOTED[code & 15]] += 1
    m = MoveFacts(holder, material)
    last_ply = len(line)
    once, tech_window = tc.once, tc.window
    slots = tc.slots
    kings = m.kings
    ply = 0
    for item in line:
        move = Move.from_usi(item) if isinstance(item, str) else item
        ply += 1
        mover = turn
        turn ^= 1
        frm, to = move.from_square, move.to_square
        captured_type = captured = 0
        if frm is None:
            moved_type = cast(int, move.drop)  # a drop names its piece
            code = after = moved_type + 16 * mover
            board[to] = code
            hands[mover][moved_type] -= 1
        else:
            code = board[frm]
            moved_type = UNPROMOTED[code & 15]
            captured = board[to]
            after = code + PROMOTE if move.promotion else code
            board[to] = after
            board[frm] = 0
            if captured:
                captured_type = UNPROMOTED[captured & 15]
                hands[mover][captured_type] += 1
                material[mover][captured_type] += 1
                material[turn][captured_type] -= 1
            if moved_type == KING:
                kings[mover] = to
        if captured_type == 5 or moved_type == 5 or (captured_type > 1 and facts.outbreak is None):
            track(facts, ply, mover, moved_type, captured_type, board, hands)
        if ply <= max_ply:
            candidates: list[int]  # (label, side) pairs, 2 * label + side
            if frm is None:
                candidates = c.watch_arrive[after][to] + c.watch_drop[mover]
            else:
                candidates = c.watch_arrive[after][to] + c.watch_leave[code][frm]
                if captured:
                    candidates = candidates + c.watch_leave[captured][to] + c.watch_capture[mover]
                    if captured_type == ROOK and not rook_taken:
                        rook_taken = True
                        _retire(alive, c.before_rook)
                    elif captured_type == BISHOP and not bishop_taken:
                        bishop_taken = True
                        _retire(alive, c.before_bishop)
            if c.played_at[mover][moved_type][to]:
                candidates = candidates + _played_now(c, played, alive[mover], mover,
                                                      moved_type, move, captured_type)
            while candidates:
                newly: list[int] = []
                for pair in candidates:
                    i, side = pair >> 1, pair & 1
                    if not alive[side][i]:
                        continue
                    if ply > window[i]:
                        alive[side][i] = False
                        continue
                    if gated[i]:
                        if completed_by[i] and (side != mover
                                                or moved_type not in completed_by[i]):
                            continue
                        if has_played[i]:
                            flags = played[side][i]
                            if flags is None or not all(flags):
                                continue
                        if requires[i] and any(reached[side][j] is None for j in requires[i]):
                            continue
                        if opponent_requires[i] and any(reached[side ^ 1][j] is None
                                                        for j in opponent_requires[i]):
                            continue
                        if not_after[i] and any(reached[side][j] is not None
                                                for j in not_after[i]):
                            alive[side][i] = False
                            continue
                    if _holds(condition[side][i], board, hands):
                        newly.append(pair)
                        if both_sides[i]:
                            newly.append(pair ^ 1)
                candidates = []
                for pair in newly:
                    i, side = pair >> 1, pair & 1
                    if alive[side][i]:
                        alive[side][i] = False
                        reached[side][i] = ply
                        for j, same in dependents[i]:
                            candidates.append(2 * j + (side if same else side ^ 1))
        key = slot(mover, code, 1 if frm is None else 0, to, captured & 15)
        lists = slots[key]
        if lists is None:
            lists = tc.lists(key)
        clauses = lists[0]
        if lists[1] and ply == last_ply:
            clauses = clauses + lists[1]
        if lists[2] and file_full(board, to):
            clauses = clauses + lists[2]
        king = kings[turn]
        if lists[4] and king is not None and -2 <= king // 9 - to // 9 <= 2 \
                and -2 <= king % 9 - to % 9 <= 2:
            clauses = clauses + lists[4]
        if lists[3] and king is not None and holder.attacked(king, mover):
            clauses = clauses + lists[3]
        if clauses:
            m.ply, m.mover, m.frm, m.to, m.before, m.after, m.captured = (
                ply, mover, frm, to, code, after, captured)
            m.promoted, m.last, m.targets = move.promotion, ply == last_ply, None
            for clause in clauses:
                if not clause.test(m, board, hands):
                    continue
                t, owner = clause.technique, clause.owner
                last = fired[owner][t]
                if last == ply or (last and once[t]) or ply > tech_window[t]:
                    continue  # (last == ply: another clause of it fired with this move)
                if tc.requires[t] and any(reached[owner][j] is None for j in tc.requires[t]):
                    continue
                if tc.opponent_requires[t] and any(reached[owner ^ 1][j] is None
                                                   for j in tc.opponent_requires[t]):
                    continue
                fired[owner][t] = ply
                occurrences[owner].append((t, ply))
        m.own_previous = m.previous
        m.previous = (frm, to, code, after, captured)
    facts.plies = ply
    facts.board, facts.hands = board, hands
    result = _result(c, reached)
    for side, labels in ((BLACK, result.black), (WHITE, result.white)):
        if labelled[side]:
            labels.techniques = [Reached(tc.names[t], p) for t, p in occurrences[side]]
    if even and ply:
        _add_notes(defs, result, facts)
    return result


def _add_notes(defs: Definitions, result: GameLabels, facts: GameFacts) -> None:
    """The notes of the game, from the labels both sides have and the facts of the game."""
    sides = (result.black, result.white)
    named = [{r.name for r in s.castles + s.openings + s.techniques} for s in sides]
    for side, found in enumerate(note_plies(defs._notes, facts, named)):
        sides[side].notes = [Reached(defs._notes.notes[i].name, ply) for i, ply in found]


@lru_cache(maxsize=256)
def _start_position(start_sfen: str) -> Position:
    """The start position, read once (copy it before playing on it)."""
    return Position.from_sfen(start_sfen)


@lru_cache(maxsize=256)
def _start(start_sfen: str) -> tuple[Optional[str], tuple[int, ...],
                                     tuple[tuple[int, ...], tuple[int, ...]], int]:
    """(setup name or None, board, hands, side to move) of a start position, read once."""
    position = Position.from_sfen(start_sfen)
    return (handicap_name(position.sfen()), tuple(position.board),
            (tuple(position.hands[0]), tuple(position.hands[1])), position.turn)


def _played_now(c: _Compiled, played: list[list[Optional[list[bool]]]], alive: list[bool],
                mover: int, moved_type: int, move: Move, captured_type: int) -> list[int]:
    """Record the mover's played-move patterns this move matches, of the labels still looked
    for; return the (label, side) pairs to look at."""
    woken: list[int] = []
    for i, k, matcher in c.played_at[mover][moved_type][move.to_square]:
        if alive[i] and _move_matches(matcher, moved_type, move, captured_type):
            flags = played[mover][i]
            if flags is None:
                flags = [False] * len(c.played[mover][i])
                played[mover][i] = flags
            if not flags[k]:
                flags[k] = True
                woken.append(2 * i + mover)
    return woken


def _retire(alive: list[list[bool]], flags: list[bool]) -> None:
    """Close the labels that had to be reached before a capture."""
    for side in (BLACK, WHITE):
        for i, flag in enumerate(flags):
            if flag:
                alive[side][i] = False


def _withdrawn(c: _Compiled, reached: list[list[Optional[int]]],
               lost: list[set[int]]) -> list[set[int]]:
    """Per side, the labels withdrawn at the end: ``lost`` ones (not first of their group),
    those excluded by a label reached (by the side or its opponent), and those requiring a
    withdrawn label."""
    out: list[set[int]] = [set(lost[BLACK]), set(lost[WHITE])]
    changed = True
    while changed:
        changed = False
        for side in (BLACK, WHITE):
            own, other = reached[side], reached[side ^ 1]
            for i in range(c.n):
                if own[i] is None or i in out[side]:
                    continue
                if (any(own[j] is not None for j in c.excludes[i])
                        or any(other[j] is not None for j in c.opponent_excludes[i])
                        or any(j in out[side] for j in c.requires[i])
                        or any(j in out[side ^ 1] for j in c.opponent_requires[i])):
                    out[side].add(i)
                    changed = True
    return out


def _kept_of_groups(c: _Compiled, reached: list[list[Optional[int]]]) -> list[set[int]]:
    """Per side, the labels withdrawn (``_withdrawn``) or not the first of their group that the
    side kept; a label requiring one of those goes too, until nothing changes."""
    lost: list[set[int]] = [set(), set()]
    while True:
        withdrawn = _withdrawn(c, reached, lost)
        required = False
        for side in (BLACK, WHITE):
            first_in_group: dict[str, int] = {}
            for i in c.grouped:
                ply = reached[side][i]
                if ply is not None and i not in withdrawn[side]:
                    first_in_group[c.group[i]] = min(ply, first_in_group.get(c.group[i], ply))
            for i in c.grouped:
                ply = reached[side][i]
                if (ply is not None and i not in withdrawn[side]
                        and ply > first_in_group[c.group[i]]):
                    lost[side].add(i)
                    withdrawn[side].add(i)
                    required = required or c.required[i]
        if not required:  # no label requires one lost: nothing else goes with them
            return withdrawn


def _result(c: _Compiled, reached: list[list[Optional[int]]]) -> GameLabels:
    withdrawn = _kept_of_groups(c, reached)
    sides = []
    for side in (BLACK, WHITE):
        plies = [0 if ply is None else ply for ply in reached[side]]  # 0: not reached
        kept = [i for i in range(c.n) if plies[i] and i not in withdrawn[side]]
        kept.sort(key=lambda i: (plies[i], i))
        labels = SideLabels()
        for kind, target in (("castle", labels.castles), ("opening", labels.openings)):
            of_kind = [i for i in kept if c.kind[i] == kind]
            target.extend(Reached(c.names[i], plies[i]) for i in of_kind)
            primary = _primary(c, of_kind, plies)
            if kind == "castle":
                labels.primary_castle = primary
            else:
                labels.primary_opening = primary
        sides.append(labels)
    return GameLabels(*sides)


def _primary(c: _Compiled, indices: list[int], plies: list[int]) -> Optional[str]:
    """The most specific label, not an ancestor of another one reached (of castles, one of the
    family of the castle reached latest: where the king ended): the deepest, then the one with
    the most conditions, then the latest."""
    candidates = [i for i in indices if c.primary[i]]
    implied: set[int] = set().union(*[c.ancestors[i] for i in candidates]) if candidates else set()
    candidates = [i for i in candidates if i not in implied]
    if not candidates:
        return None
    if c.kind[candidates[0]] == "castle":  # the family of the castle the king ended in
        latest = max([plies[i] for i in candidates])
        family: set[int] = set()
        for i in candidates:
            if plies[i] == latest:
                family |= _roots(c, i)
        candidates = [i for i in candidates if _roots(c, i) & family]
    best = max(candidates, key=lambda i: (c.depth[i], c.weight[i], plies[i], -i))
    return c.names[best]


def _roots(c: _Compiled, i: int) -> set[int]:
    """The labels at the top of ``i``'s family tree (``i`` itself for a root)."""
    roots = {j for j in c.ancestors[i] if c.depth[j] == 0}
    return roots if roots else {i}
