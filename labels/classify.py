"""Castles (囲い), openings (戦型), techniques (手筋) and notes (備考) of a game, from the
definitions in ``labels.toml`` and a file per kind.

``classify_game`` replays the main line and reports, for each side, every castle and opening
reached and the ply at which it was first reached (the position after that many moves), every
ply at which it played a technique, and the notes of the whole game (``labels.techniques``)::

    >>> moves = "7g7f 3c3d 2h6h 8c8d 5i4h 8d8e 4h3h 4a3b 3h2h 7a6b 3i3h".split()
    >>> labels = classify_game("startpos", moves)
    >>> labels.black.openings
    [Reached(name='振り飛車', ply=3), Reached(name='四間飛車', ply=3), Reached(name='対抗形', ply=4)]
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
from typing import Iterable, NamedTuple, Optional

from kifudb.core.handicap import EVEN, handicap_name
from kifudb.core.move import Move
from kifudb.core.pieces import BLACK, WHITE, BISHOP, KING, ROOK, PROMOTE, UNPROMOTED, unpromoted
from kifudb.core.position import Position
from kifudb.labels import techniques as _techniques
from kifudb.labels.vocabulary import (_ALL_TYPES, _CONDITION_KEYS, DefinitionError,  # noqa: F401
                                      _compile_condition, _holds, _list, _names,
                                      _parse_condition, _piece_types, _squares, _turn)

#: The project's definitions: the vocabulary's documentation and defaults, then one file per kind.
LABELS_PATH = Path(__file__).with_name("labels.toml")
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

    castles: list = field(default_factory=list)
    openings: list = field(default_factory=list)
    primary_castle: Optional[str] = None
    primary_opening: Optional[str] = None
    techniques: list = field(default_factory=list)
    notes: list = field(default_factory=list)

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
        out = []
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

    def __init__(self, data: dict, version: str):
        self.version = version
        self._labels, techniques, notes, self.info = _parse(data)
        self._compiled = _Compiled(self._labels)
        self._techniques = _techniques.CompiledTechniques(
            techniques, {label.name: label.index for label in self._labels})
        self._notes = _techniques.CompiledNotes(notes, self.descendants)

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
        return next((label.condition for label in self._labels if label.name == name), None)

    def descendants(self, name: str) -> set:
        """A label and every label below it in the parent tree (its kinds)."""
        out, todo = set(), [name]
        while todo:
            one = todo.pop()
            if one not in out:
                out.add(one)
                todo.extend(self.children(one))
        return out

    def ancestors(self, name: str) -> set:
        """Every parent, grandparent … of a label."""
        out, todo = set(), list(self.info[name].parents)
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

    __slots__ = ("index", "name", "kind", "info", "condition", "played", "completed_by",
                 "before_capture", "requires", "opponent_requires", "not_after", "excludes",
                 "opponent_excludes", "weight")


class _Entry(NamedTuple):
    """A technique or a note as the checks of ``_parse`` see it."""

    name: str
    kind: str
    info: LabelInfo
    parsed: tuple  # the techniques module's Technique or Note


def _parse(data: dict) -> tuple:
    """(castles and openings as ``_Label``, techniques, notes, {name: LabelInfo} in file order)."""
    unknown = set(data) - {"defaults", *KINDS}
    if unknown:
        raise DefinitionError(f"unknown top-level keys: {sorted(unknown)}")
    defaults = data.get("defaults", {})
    labels, entries, by_name = [], [], {}
    for kind in KINDS:
        kind_defaults = defaults.get(kind, {})
        for table in _list(data, kind, "the file", dict):
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
    for entry in entries[len(labels):]:
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
    depths = {}

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
    techniques = [e.parsed for e in entries if e.kind == "technique"]
    notes = [e.parsed for e in entries if e.kind == "note"]
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
    if kind == "technique":
        parsed = _techniques.parse_technique(table, name)
        window = parsed.window
    else:
        parsed = _techniques.parse_note(table, name)
        window = 0
    note, source = table.get("note", ""), table.get("source", "")
    if not all(isinstance(text, str) for text in (note, source)):
        raise DefinitionError(f"{name}: note and source are text")
    info = LabelInfo(name, kind, english, tuple(_list(table, "parents", name, str)), 0, False,
                     False, False, window, "", note, tuple(_list(table, "aliases", name, str)),
                     source)
    return _Entry(name, kind, info, parsed)


def _check_requirement_cycles(labels, by_name) -> None:
    state = {}

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
    for key in ("requires", "opponent_requires", "not_after", "excludes", "opponent_excludes"):
        setattr(label, key, tuple(_list(table, key, where, str)))
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
    label.weight = (sum(len(label.condition[k]) for k in _CONDITION_KEYS) + len(label.played)
                    + bool(alternatives) + len(label.requires) + len(label.opponent_requires))
    group, note, source = (table.get(key, "") for key in ("group", "note", "source"))
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
    played = {"piece": frozenset(unpromoted(t) for t in _piece_types(table["piece"], where))}
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

def _triggers(compiled: tuple, arrive: set, leave: set, hands: set) -> None:
    """Collect the events that can make a compiled condition true: a piece code arriving on a
    square (``(code, s)`` in arrive: a required piece), a piece code leaving a square or being
    captured there (leave: a square that must be empty or must not hold that piece), or a hand
    growing or shrinking (``(colour, True)`` after a capture, ``(colour, False)`` after a drop)."""
    required, forbidden, empty, hand_terms, alternatives = compiled
    for squares, codes in required:
        arrive.update((code, s) for code in codes for s in squares)
    for squares, codes in forbidden:
        leave.update((code, s) for code in codes for s in squares)
    leave.update((t + 16 * colour, s) for s in empty for colour in (BLACK, WHITE)
                 for t in _ALL_TYPES)
    hands.update((colour, present) for colour, _, present in hand_terms)
    for alternative in alternatives:
        _triggers(alternative, arrive, leave, hands)


class _Compiled:
    """Everything the replay needs, indexed by label id ``i`` and side: conditions per side,
    which squares wake which (label, side), dependencies and played-move matchers."""

    def __init__(self, labels: list):
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
        self.opponent_requires = [tuple(by_name[r] for r in label.opponent_requires)
                                  for label in labels]
        self.not_after = [tuple(by_name[r] for r in label.not_after) for label in labels]
        self.excludes = [tuple(by_name[r] for r in label.excludes) for label in labels]
        self.opponent_excludes = [tuple(by_name[r] for r in label.opponent_excludes)
                                  for label in labels]
        self.condition = [[None] * n, [None] * n]
        # piece code -> square -> [(i, side)] woken when such a piece arrives there / leaves or
        # is captured there
        self.watch_arrive = [[[] for _ in range(81)] for _ in range(32)]
        self.watch_leave = [[[] for _ in range(81)] for _ in range(32)]
        # mover colour -> [(i, side)] woken when the mover's hand grows (capture) / shrinks (drop)
        self.watch_capture = [[], []]
        self.watch_drop = [[], []]
        self.played = [[[] for _ in range(n)], [[] for _ in range(n)]]  # side -> i -> matchers
        # side -> moved piece type -> [(i, k, matcher)]
        self.played_by_type = [[[] for _ in range(15)], [[] for _ in range(15)]]
        self.dependents = [[] for _ in range(n)]  # i -> [(j, same_side)]
        for label in labels:
            i = label.index
            for side in (BLACK, WHITE):
                compiled = _compile_condition(label.condition, side)
                self.condition[side][i] = compiled
                arrive, leave, hand_watch = set(), set(), set()
                _triggers(compiled, arrive, leave, hand_watch)
                for code, s in sorted(arrive):
                    self.watch_arrive[code][s].append((i, side))
                for code, s in sorted(leave):
                    self.watch_leave[code][s].append((i, side))
                for colour, grows in sorted(hand_watch):
                    (self.watch_capture if grows else self.watch_drop)[colour].append((i, side))
                for k, played in enumerate(label.played):
                    matcher = _compile_played(played, side)
                    self.played[side][i].append(matcher)
                    for t in played["piece"]:
                        self.played_by_type[side][t].append((i, k, matcher))
            for j in self.requires[i]:
                self.dependents[j].append((i, True))
            for j in self.opponent_requires[i]:
                self.dependents[j].append((i, False))
        self.has_played = [bool(label.played) for label in labels]
        self.weight = [label.weight for label in labels]
        self.group = [label.info.group for label in labels]
        self.depth = [label.info.depth for label in labels]
        self.primary = [label.info.primary for label in labels]
        self.ancestors = []
        for label in labels:
            out, todo = set(), [by_name[p] for p in label.info.parents]
            while todo:
                j = todo.pop()
                if j not in out:
                    out.add(j)
                    todo.extend(by_name[p] for p in labels[j].info.parents)
            self.ancestors.append(frozenset(out))


def _compile_played(played: dict, side: int) -> tuple:
    def squares(value):
        return None if value is None else frozenset(_turn(s, side) for s in value)
    return (played["piece"], squares(played["from"]), squares(played["to"]), played["drop"],
            played["capture"], played["promote"])


def _move_matches(matcher: tuple, piece_type: int, move: Move, captured_type: int) -> bool:
    pieces, from_squares, to_squares, drop, capture, promote = matcher
    if piece_type not in pieces:
        return False
    if drop is not None and (move.from_square is None) is not drop:
        return False
    if from_squares is not None and move.from_square not in from_squares:
        return False
    if to_squares is not None and move.to_square not in to_squares:
        return False
    if capture is not None and captured_type not in capture:
        return False
    return promote is None or move.promotion is promote


# ----- classifying a game ------------------------------------------------------------------------

def classify_game(start_sfen: str, moves: Iterable,
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
    moves = moves if isinstance(moves, (list, tuple)) else list(moves)
    # the board lives in a Position so that its (compiled) attack test can be asked about it
    holder = _start_position(start_sfen).copy()
    board = holder.board
    hands = [list(start_hands[0]), list(start_hands[1])]
    even = setup == EVEN
    if even:
        alive = [[True] * c.n, [True] * c.n]
    else:
        alive = [[k == "castle" or h for k, h in zip(c.kind, c.handicap)], [False] * c.n]
    reached = [[None] * c.n, [None] * c.n]  # side -> label -> ply first reached
    played = [[None] * c.n, [None] * c.n]  # side -> label -> flags of its played moves
    window, completed_by, requires, opponent_requires = (c.window, c.completed_by, c.requires,
                                                         c.opponent_requires)
    condition, both_sides, dependents = c.condition, c.both_sides, c.dependents
    has_played, not_after = c.has_played, c.not_after
    rook_taken = bishop_taken = False
    max_ply = c.max_window
    # techniques: per side, [(technique, ply)] in order; which sides are looked at
    occurrences = [[], []]
    fired = [[0] * tc.n, [0] * tc.n]  # side -> technique -> last ply it fired
    labelled = (True, even)
    facts = _techniques.GameFacts()
    m = _techniques.MoveFacts()
    m.kings = [None, None]
    for s, code in enumerate(board):
        if code & 15 == KING:
            m.kings[code >> 4] = s
    m.previous = m.own_previous = None
    m.attacked = holder.attacked
    material = m.material = [list(start_hands[0]), list(start_hands[1])]
    for code in board:
        if code and code & 15 != KING:
            material[code >> 4][UNPROMOTED[code & 15]] += 1
    last_ply = len(moves)
    track, once, tech_window = _techniques.track, tc.once, tc.window
    slots = tc.slots
    kings = m.kings
    ply = 0
    for move in moves:
        if isinstance(move, str):
            move = Move.from_usi(move)
        ply += 1
        mover = turn
        turn ^= 1
        frm, to = move.from_square, move.to_square
        captured_type = captured = 0
        if frm is None:
            moved_type = move.drop
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
            if c.played_by_type[mover][moved_type]:
                candidates = candidates + _played_now(c, played, mover, moved_type, move,
                                                      captured_type)
            while candidates:
                newly = []
                for i, side in candidates:
                    if not alive[side][i]:
                        continue
                    if ply > window[i]:
                        alive[side][i] = False
                        continue
                    if completed_by[i] and (side != mover or moved_type not in completed_by[i]):
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
                    if not_after[i] and any(reached[side][j] is not None for j in not_after[i]):
                        alive[side][i] = False
                        continue
                    if _holds(condition[side][i], board, hands):
                        newly.append((i, side))
                        if both_sides[i]:
                            newly.append((i, side ^ 1))
                candidates = []
                for i, side in newly:
                    if alive[side][i]:
                        alive[side][i] = False
                        reached[side][i] = ply
                        candidates.extend((j, side if same else side ^ 1)
                                          for j, same in dependents[i])
        key = (((mover * 32 + code) * 2 + (frm is None)) * 81 + to) * 15 + (captured & 15)
        lists = slots.get(key) or tc.lists(key)
        clauses = lists[0]
        if lists[1] and ply == last_ply:
            clauses = clauses + lists[1]
        if lists[2] and 0 not in board[to - to % 9:to - to % 9 + 9]:
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


def _add_notes(defs: Definitions, result: GameLabels, facts) -> None:
    """The notes of the game, from the labels both sides have and the facts of the game."""
    sides = (result.black, result.white)
    named = [{r.name for r in s.castles + s.openings + s.techniques} for s in sides]
    for side, found in enumerate(_techniques.note_plies(defs._notes, facts, named)):
        sides[side].notes = [Reached(defs._notes.notes[i].name, ply) for i, ply in found]


@lru_cache(maxsize=256)
def _start_position(start_sfen: str) -> Position:
    """The start position, read once (copy it before playing on it)."""
    return Position.from_sfen(start_sfen)


@lru_cache(maxsize=256)
def _start(start_sfen: str) -> tuple:
    """(setup name or None, board, hands, side to move) of a start position, read once."""
    position = Position.from_sfen(start_sfen)
    return (handicap_name(position.sfen()), tuple(position.board),
            (tuple(position.hands[0]), tuple(position.hands[1])), position.turn)


def _played_now(c: _Compiled, played: list, mover: int, moved_type: int, move: Move,
                captured_type: int) -> list:
    """Record the mover's played-move patterns this move matches; return the labels to look at."""
    woken = []
    for i, k, matcher in c.played_by_type[mover][moved_type]:
        if _move_matches(matcher, moved_type, move, captured_type):
            flags = played[mover][i]
            if flags is None:
                flags = played[mover][i] = [False] * len(c.played[mover][i])
            if not flags[k]:
                flags[k] = True
                woken.append((i, mover))
    return woken


def _retire(alive: list, flags: list) -> None:
    """Close the labels that had to be reached before a capture."""
    for side in (BLACK, WHITE):
        for i, flag in enumerate(flags):
            if flag:
                alive[side][i] = False


def _withdrawn(c: _Compiled, reached: list) -> list:
    """Per side, the labels withdrawn at the end: excluded by a label reached (by the side or its
    opponent), or requiring a withdrawn label."""
    out = [set(), set()]
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


def _result(c: _Compiled, reached: list) -> GameLabels:
    withdrawn = _withdrawn(c, reached)
    sides = []
    for side in (BLACK, WHITE):
        own = reached[side]
        kept = [i for i in range(c.n) if own[i] is not None and i not in withdrawn[side]]
        first_in_group = {}
        for i in kept:
            if c.group[i]:
                first_in_group[c.group[i]] = min(own[i], first_in_group.get(c.group[i], own[i]))
        kept = [i for i in kept if not c.group[i] or own[i] == first_in_group[c.group[i]]]
        kept.sort(key=lambda i: (own[i], i))
        labels = SideLabels()
        for kind, target in (("castle", labels.castles), ("opening", labels.openings)):
            of_kind = [i for i in kept if c.kind[i] == kind]
            target.extend(Reached(c.names[i], own[i]) for i in of_kind)
            primary = _primary(c, of_kind, own)
            if kind == "castle":
                labels.primary_castle = primary
            else:
                labels.primary_opening = primary
        sides.append(labels)
    return GameLabels(*sides)


def _primary(c: _Compiled, indices: list, plies: list) -> Optional[str]:
    """The most specific label: not an ancestor of another one reached, then the deepest, then
    the one with the most conditions, then the latest."""
    candidates = [i for i in indices if c.primary[i]]
    implied = set().union(*(c.ancestors[i] for i in candidates)) if candidates else set()
    candidates = [i for i in candidates if i not in implied]
    if not candidates:
        return None
    best = max(candidates, key=lambda i: (c.depth[i], c.weight[i], plies[i], -i))
    return c.names[best]
