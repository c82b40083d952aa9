"""Techniques (手筋) and notes (備考): the move patterns looked for after every move, and the
facts of a whole game, from the ``[[technique]]`` and ``[[note]]`` tables of the definitions
(``labels/techniques.toml``, ``labels/notes.toml``; the vocabulary is documented at the top of
``labels.toml``). ``labels.classify`` replays the game and asks this module after each move::

    >>> from kifudb.labels.classify import classify_game
    >>> labels = classify_game("startpos", "7g7f 3c3d 8h2b+ 3a2b B*5b".split())
    >>> labels.black.techniques  # ▲5二角: a bishop dropped between the two golds
    [Reached(name='たすきの角', ply=5)]
    >>> [r.name for r in labels.black.notes]  # ▲2二角成 took the bishop: Black lost a tempo
    ['短手数', '角交換型', '手損角交換型']

How it stays fast: each pattern is compiled for each colour into board squares and piece codes
(``_Clause``: its test asks only the checks the pattern has, cheapest first), and indexed by the mover's colour, the piece moved (as it stood
before the move: 歩 and と are different pieces), drop or not, the square it went to and the
piece it took, so a move looks only at the patterns it can fire (6.7 a move on the real games of
the tests); those that need a mate, a full file, a check or the other king nearby are looked at
only when the move gives one. The attack questions (forks, defended squares) are asked last.
"""

from __future__ import annotations

import re
from typing import Callable, Final, NamedTuple, Optional

from kifudb.core.pieces import (BLACK, HAND_TYPES, KING, WHITE, ZONE, can_promote,
                                unpromoted)
from kifudb.core.position import Position, sfen_of
from kifudb.labels.attacks import targets
from kifudb.labels.vocabulary import (_CONDITION_KEYS, Condition, DefinitionError, _code_mask,
                                      _compile_condition, _holds, _list, _parse_condition,
                                      _piece_types, _squares, _turn)

# ----- the vocabulary ----------------------------------------------------------------------------

_MOVE_FLAGS = ("drop", "promote", "could_promote", "captures", "check", "mate", "attacked",
               "defended", "file_full")
_AROUND_KEYS = ("around_own", "around_theirs", "around_not_own", "around_not_theirs",
                "around_empty")
_COUNT_KEYS = ("own_count", "their_count", "material", "their_material", "material_max",
               "their_material_max", "hand_count", "their_hand_count")
#: Where a count term counts: on the board (own_count), all the side owns (material), in hand.
_ON_BOARD: Final = 0
_OWNED: Final = 1
_IN_HAND: Final = 2
#: Keys of king steps: how far (in king moves) the square the piece came from or went to is
#: from the owner's or the opponent's king.
_KING_STEP_KEYS = ("own_king_from", "own_king_to", "their_king_from", "their_king_to")
#: Keys of one alternative of a technique (a clause): the move, its surroundings, the position.
CLAUSE_KEYS = (_CONDITION_KEYS | set(_MOVE_FLAGS) | set(_AROUND_KEYS) | set(_COUNT_KEYS)
               | set(_KING_STEP_KEYS)
               | {"mover", "piece", "becomes", "from", "to", "capture", "attacks", "reaches",
                  "previous", "own_previous"})
TECHNIQUE_KEYS = CLAUSE_KEYS | {"name", "english", "parents", "aliases", "source", "note", "once",
                                "window", "requires", "opponent_requires", "any"}
_PREVIOUS_KEYS = {"piece", "drop", "captures", "capture", "promote", "to", "at", "at_from",
                  "attacks"}
NOTE_KEYS = _CONDITION_KEYS | {
    "name", "english", "parents", "aliases", "source", "note", "at", "plies_min", "plies_max",
    "outbreak", "outbreak_by", "outbreak_after", "bishop_exchange", "bishop_moves", "reached",
    "opponent_reached", "not_reached", "opponent_not_reached"}

#: Unit steps of the relative squares, as (file step, rank step) seen from the owner as Black:
#: F(orward) is towards rank 1, L(eft) towards file 9 (Black's left).
_STEP = {"F": (0, -1), "B": (0, 1), "L": (1, 0), "R": (-1, 0)}
_PROBE = re.compile(r"([FBLR]+)(\*+|\$)?|\.")

#: The kinds of relative squares: a step, the n-th piece along a line, the board's edge.
_STEP_PROBE: Final = 0
_RAY_PROBE: Final = 1
_EDGE_PROBE: Final = 2


class Technique(NamedTuple):
    """A technique as read from the file: its name, clauses (alternatives) and limits."""

    name: str
    clauses: tuple  # of dicts, each a parsed clause (owner-as-Black squares)
    once: bool
    window: int  # 0: the whole game
    requires: tuple
    opponent_requires: tuple


class Note(NamedTuple):
    """A note as read from the file."""

    name: str
    at: str  # "end" or "outbreak"
    plies_min: Optional[int]
    plies_max: Optional[int]
    outbreak: Optional[bool]  # the game has an outbreak (or has none)
    outbreak_by: Optional[int]
    outbreak_after: Optional[int]
    bishop_exchange: Optional[bool]
    bishop_moves: Optional[str]  # "more" / "fewer" than the opponent's, up to the exchange
    reached: tuple
    opponent_reached: tuple
    not_reached: tuple
    opponent_not_reached: tuple
    condition: dict


def _flag(table, key, where):
    value = table.get(key)
    if value is not None and not isinstance(value, bool):
        raise DefinitionError(f"{where}: {key} must be true or false")
    return value


def _whole(table, key, where, least=0):
    value = table.get(key)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                              or value < least):
        raise DefinitionError(f"{where}: {key} must be a whole number of at least {least}")
    return value


def _types(table, key, where) -> Optional[frozenset]:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise DefinitionError(f"{where}: {key} must be a piece name such as \"金/銀\"")
    return frozenset(_piece_types(value, where))


def _probes(text: str, where) -> tuple:
    """``"L/R"``, ``"B*"``, ``"F$"``, ``"."`` -> ((kind, (file step, rank step), n), …)."""
    out = []
    for part in text.split("/"):
        match = _PROBE.fullmatch(part.strip())
        if not match:
            raise DefinitionError(f"{where}: bad relative square {part!r} (letters F B L R, then "
                                  "* for the first piece along the line, ** the second …, or $ "
                                  "for the board's edge; . is the square itself)")
        if part.strip() == ".":
            out.append((_STEP_PROBE, (0, 0), 0))
            continue
        letters, suffix = match.group(1), match.group(2)
        df = sum(_STEP[c][0] for c in letters)
        dr = sum(_STEP[c][1] for c in letters)
        if suffix:
            if len(letters) > 2 or max(abs(df), abs(dr)) != 1:
                raise DefinitionError(f"{where}: a line {part!r} needs one of the eight "
                                      "directions (F, B, L, R, FL, FR, BL, BR)")
            out.append((_EDGE_PROBE, (df, dr), 0) if suffix == "$"
                       else (_RAY_PROBE, (df, dr), len(suffix)))
        else:
            out.append((_STEP_PROBE, (df, dr), 0))
    return tuple(out)


def _counts(table, where) -> list:
    """``own_count = ["2 馬 17-99"]`` … -> [(theirs, place, at_most, n, types, squares)]."""
    out = []
    for key in _COUNT_KEYS:
        theirs = key.startswith("their")
        place = (_IN_HAND if key.endswith("hand_count") else
                 _ON_BOARD if key.endswith("count") else _OWNED)
        on_board = place == _ON_BOARD
        for text in _list(table, key, where, str):
            parts = text.split()
            if not (2 + on_board >= len(parts) >= 2) or not parts[0].isdigit():
                raise DefinitionError(f"{where}: {key} entry {text!r} is \"number pieces"
                                      + (" squares\"" if on_board else "\""))
            types = _piece_types(parts[1], where)
            squares = _squares(parts[2], where) if len(parts) == 3 else tuple(range(81))
            if not on_board:
                types = tuple(sorted({unpromoted(t) for t in types}))
            out.append((theirs, place, key.endswith("_max"), int(parts[0]), types, squares))
    return out


def _king_steps(table, where) -> list:
    """``their_king_to = "1-2"`` … -> [(theirs, from the square the piece came from, least,
    most)]: king steps (the larger of the file and rank distances) between that square and the
    king."""
    out = []
    for key in _KING_STEP_KEYS:
        value = table.get(key)
        if value is None:
            continue
        match = re.fullmatch(r"([0-8])(?:-([0-8]))?", str(value).strip())
        if not isinstance(value, str) or not match:
            raise DefinitionError(f"{where}: {key} is a number of king steps or a range such as "
                                  "\"1-2\" (0 to 8)")
        least = int(match.group(1))
        most = int(match.group(2)) if match.group(2) else least
        if most < least:
            raise DefinitionError(f"{where}: {key} range {value!r} runs backwards")
        out.append((key.startswith("their"), key.endswith("_from"), least, most))
    return out


def _parse_previous(value, key, where) -> Optional[dict]:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) - _PREVIOUS_KEYS:
        raise DefinitionError(f"{where}: {key} is a table of {sorted(_PREVIOUS_KEYS)}")
    out: dict = {"piece": _types(value, "piece", where),
                 "capture": _types(value, "capture", where)}
    for flag in ("drop", "captures", "promote"):
        out[flag] = _flag(value, flag, where)
    out["to"] = _squares(value["to"], where) if "to" in value else None
    for key in ("at", "at_from"):
        out[key] = _probes(value[key], where) if key in value else None
        if out[key] and any(kind != _STEP_PROBE for kind, _, _ in out[key]):
            raise DefinitionError(f"{where}: {key} takes single squares, not lines")
    out["attacks"] = tuple(frozenset(_piece_types(t, where))
                           for t in _list(value, "attacks", where, str))
    return out


def _parse_clause(table: dict, where) -> dict:
    mover = table.get("mover", "owner")
    if mover not in ("owner", "opponent"):
        raise DefinitionError(f"{where}: mover is \"owner\" or \"opponent\", not {mover!r}")
    clause = {"mover": mover == "opponent", "piece": _types(table, "piece", where),
              "becomes": _types(table, "becomes", where),
              "capture": _types(table, "capture", where)}
    for flag in _MOVE_FLAGS:
        clause[flag] = _flag(table, flag, where)
    for key in ("from", "to", "reaches"):
        clause[key] = _squares(table[key], where) if key in table else None
    clause["attacks"] = tuple(frozenset(_piece_types(t, where))
                              for t in _list(table, "attacks", where, str))
    around: list = []
    for key in _AROUND_KEYS:
        for text in _list(table, key, where, str):
            if key == "around_empty":
                around.append((key[7:], None, _probes(text.strip(), where)))
                continue
            pieces, _, squares = text.strip().partition(" ")
            if not squares.strip():
                raise DefinitionError(f"{where}: {key} entry {text!r} needs a piece and relative "
                                      "squares")
            around.append((key[7:], _piece_types(pieces, where), _probes(squares.strip(), where)))
    clause["around"] = around
    clause["counts"] = _counts(table, where)
    clause["king_steps"] = _king_steps(table, where)
    clause["condition"] = _parse_condition(table, where)
    clause["condition"]["any"] = []
    for key in ("previous", "own_previous"):
        clause[key] = _parse_previous(table.get(key), key, where)
    if clause["mate"] is False:
        raise DefinitionError(f"{where}: mate can only be required (true)")
    from_steps = [at_from for _, at_from, _, _ in clause["king_steps"] if at_from]
    if clause["drop"] and (clause["from"] is not None or clause["capture"] is not None
                           or clause["captures"] or clause["promote"] or from_steps):
        raise DefinitionError(f"{where}: a drop has no from square, capture or promotion")
    return clause


def _merged(base: dict, alternative: dict) -> dict:
    out = dict(base)
    for key, value in alternative.items():
        if isinstance(value, list) and isinstance(out.get(key), list):
            out[key] = out[key] + value
        else:
            out[key] = value
    return out


def parse_technique(table: dict, where: str) -> Technique:
    """One ``[[technique]]`` table -> ``Technique`` (``DefinitionError`` on a bad key)."""
    unknown = set(table) - TECHNIQUE_KEYS
    if unknown:
        raise DefinitionError(f"{where}: unknown keys {sorted(unknown)}")
    base = {k: v for k, v in table.items() if k in CLAUSE_KEYS}
    alternatives = _list(table, "any", where, dict)
    for alternative in alternatives:
        extra = set(alternative) - CLAUSE_KEYS
        if extra:
            raise DefinitionError(f"{where}: unknown keys in any: {sorted(extra)}")
    clauses = tuple(_parse_clause(_merged(base, a), where) for a in alternatives or [{}])
    once = _flag(table, "once", where) or False
    window = _whole(table, "window", where, 1) or 0
    return Technique(table["name"], clauses, once, window,
                     tuple(_list(table, "requires", where, str)),
                     tuple(_list(table, "opponent_requires", where, str)))


def parse_note(table: dict, where: str) -> Note:
    """One ``[[note]]`` table -> ``Note``."""
    unknown = set(table) - NOTE_KEYS
    if unknown:
        raise DefinitionError(f"{where}: unknown keys {sorted(unknown)}")
    at = table.get("at", "end")
    if at not in ("end", "outbreak"):
        raise DefinitionError(f"{where}: at is \"end\" or \"outbreak\", not {at!r}")
    moves = table.get("bishop_moves")
    if moves not in (None, "more", "fewer"):
        raise DefinitionError(f"{where}: bishop_moves is \"more\" or \"fewer\"")
    condition = _parse_condition(table, where)
    condition["any"] = []
    return Note(table["name"], at, _whole(table, "plies_min", where),
                _whole(table, "plies_max", where), _flag(table, "outbreak", where),
                _whole(table, "outbreak_by", where, 1),
                _whole(table, "outbreak_after", where, 1), _flag(table, "bishop_exchange", where),
                moves, tuple(_list(table, "reached", where, str)),
                tuple(_list(table, "opponent_reached", where, str)),
                tuple(_list(table, "not_reached", where, str)),
                tuple(_list(table, "opponent_not_reached", where, str)), condition)


# ----- compiling ---------------------------------------------------------------------------------

def _offset(sq: int, df: int, dr: int, side: int) -> int:
    """The board square ``(df, dr)`` away from ``sq`` as ``side`` sees it, or -1 off the board."""
    if side == WHITE:
        df, dr = -df, -dr
    f, r = sq // 9 + df, sq % 9 + dr
    return f * 9 + r if 0 <= f < 9 and 0 <= r < 9 else -1


class _Probe:
    """A relative square compiled for one owner colour: from each square a piece went to, the
    board square it names (``squares``, -1 off the board: a step or the board's edge), or the
    line to look along for the ``n``-th piece met (``rays``)."""

    kind: int  # _STEP_PROBE, _RAY_PROBE or _EDGE_PROBE
    squares: tuple[int, ...]  # a step or the edge: the square named from each square, or -1
    rays: tuple[tuple[int, ...], ...]  # a line: its squares from each square, nearest first
    n: int

    def __init__(self, kind: int, squares: tuple[int, ...], rays: tuple[tuple[int, ...], ...],
                 n: int) -> None:
        self.kind = kind
        self.squares = squares
        self.rays = rays
        self.n = n


def _compile_probe(probe: tuple, side: int) -> _Probe:
    kind, (df, dr), n = probe
    if kind == _STEP_PROBE:
        return _Probe(kind, tuple(_offset(s, df, dr, side) for s in range(81)), (), n)
    rays: list[tuple[int, ...]] = []
    for s in range(81):
        ray: list[int] = []
        cur = _offset(s, df, dr, side)
        while cur >= 0:
            ray.append(cur)
            cur = _offset(cur, df, dr, side)
        rays.append(tuple(ray))
    if kind == _EDGE_PROBE:
        return _Probe(kind, tuple(r[-1] if r else -1 for r in rays), (), n)
    return _Probe(kind, (), tuple(rays), n)


def _probe_at(probe: _Probe, sq: int, board: list[int]) -> int:
    """The board square ``probe`` names from ``sq``, or -1."""
    if probe.kind != _RAY_PROBE:
        return probe.squares[sq]
    n = probe.n
    for s in probe.rays[sq]:
        if board[s]:
            n -= 1
            if not n:
                return s
    return -1


#: The kinds of ``_Around`` terms.
_AROUND_ANY: Final = 0  # around_own, around_theirs: one of the squares holds one of the pieces
_AROUND_NONE: Final = 1  # around_not_own, around_not_theirs: none of them does
_AROUND_EMPTY: Final = 2  # around_empty: every one is on the board and empty


class _Around:
    """A term about the squares around the one the piece went to (``probes``), compiled for one
    owner colour: ``codes`` the piece codes asked for, as a ``_code_mask``."""

    kind: int
    codes: int
    probes: tuple[_Probe, ...]

    def __init__(self, kind: int, codes: int, probes: tuple[_Probe, ...]) -> None:
        self.kind = kind
        self.codes = codes
        self.probes = probes

    def holds(self, to: int, board: list[int]) -> bool:
        if self.kind == _AROUND_EMPTY:
            for probe in self.probes:
                s = _probe_at(probe, to, board)
                if s < 0 or board[s]:
                    return False
            return True
        found = False
        for probe in self.probes:
            s = _probe_at(probe, to, board)
            if s >= 0 and self.codes >> board[s] & 1:
                found = True
                break
        return found != (self.kind == _AROUND_NONE)


#: A move as the next ones remember it: (from square or None, to square, piece code before the
#: move, after it, code of the piece taken or 0).
PlayedMove = tuple[Optional[int], int, int, int, int]


class _Previous:
    """A ``previous`` or ``own_previous`` table compiled for one owner colour (board squares,
    piece codes); None: not asked."""

    codes: Optional[frozenset[int]]
    drop: Optional[bool]
    captures: Optional[bool]
    capture: Optional[frozenset[int]]
    promote: Optional[bool]
    to: Optional[frozenset[int]]
    at: Optional[tuple[tuple[int, ...], ...]]  # step tables from the square the piece went to
    at_from: Optional[tuple[tuple[int, ...], ...]]  # … from the square it came from
    attacks: tuple[frozenset[int], ...]


def _step_tables(probes: Optional[tuple], owner: int) -> Optional[tuple[tuple[int, ...], ...]]:
    if probes is None:
        return None
    return tuple(_compile_probe(probe, owner).squares for probe in probes)


def _compile_previous(previous: Optional[dict], mover_colour: int,
                      owner: int) -> Optional[_Previous]:
    if previous is None:
        return None
    p = _Previous()
    p.codes = None if previous["piece"] is None else frozenset(t + 16 * mover_colour
                                                               for t in previous["piece"])
    p.capture = (None if previous["capture"] is None
                 else frozenset(t + 16 * (mover_colour ^ 1) for t in previous["capture"]))
    p.to = None if previous["to"] is None else frozenset(_turn(s, owner) for s in previous["to"])
    p.at = _step_tables(previous["at"], owner)
    p.at_from = _step_tables(previous["at_from"], owner)
    p.attacks = tuple(frozenset(t + 16 * (mover_colour ^ 1) for t in types)
                      for types in previous["attacks"])
    p.drop, p.captures, p.promote = previous["drop"], previous["captures"], previous["promote"]
    return p


#: A count term compiled for one owner colour: (colour, where it counts (_ON_BOARD, _OWNED,
#: _IN_HAND), at most (else at least), number, piece codes on the board (else unpromoted types),
#: squares or None: all).
_Count = tuple[int, int, bool, int, tuple[int, ...], Optional[frozenset[int]]]
#: A king-steps term compiled for one owner colour: (colour of the king, from the square the
#: piece came from (else went to), least, most).
_KingSteps = tuple[int, bool, int, int]


class MoveFacts:
    """The move just played, as the clauses ask about it; ``position`` holds the board after
    the move, and its attack test (``Position.attacked``) answers the attack questions."""

    ply: int
    mover: int
    frm: Optional[int]  # None: a drop
    to: int
    before: int  # the piece code before the move (the dropped piece for a drop)
    after: int  # … after it
    captured: int  # the code of the piece taken, or 0
    promoted: bool
    last: bool  # the last move of the game
    kings: list[Optional[int]]  # the square of each colour's king
    previous: Optional[PlayedMove]  # the move before this one
    own_previous: Optional[PlayedMove]  # the mover's move before this one
    targets: Optional[list[int]]  # the squares the piece moved attacks, once asked for
    material: list[list[int]]  # what each colour owns, by unpromoted type (see _counts_hold)
    position: Position

    def __init__(self, position: Position, material: list[list[int]]) -> None:
        self.position = position
        self.material = material
        self.kings = [None, None]
        for s, code in enumerate(position.board):
            if code & 15 == KING:
                self.kings[code >> 4] = s
        self.ply = self.mover = self.to = self.before = self.after = self.captured = 0
        self.frm = None
        self.promoted = self.last = False
        self.previous = self.own_previous = None
        self.targets = None


class _Clause:
    """One clause compiled for one owner colour (board squares, piece codes); ``test(move facts,
    board, hands)`` says whether it holds after a move."""

    technique: int
    owner: int
    mover: int
    frm: Optional[frozenset[int]]
    to: Optional[frozenset[int]]
    promote: Optional[bool]
    could_promote: Optional[bool]
    becomes: Optional[frozenset[int]]
    captures: Optional[bool]
    capture: Optional[frozenset[int]]
    previous: Optional[_Previous]
    own_previous: Optional[_Previous]
    around: tuple[_Around, ...]
    condition: Condition
    has_condition: bool
    counts: tuple[_Count, ...]
    king_steps: tuple[_KingSteps, ...]
    check: Optional[bool]
    mate: Optional[bool]
    attacked: Optional[bool]
    defended: Optional[bool]
    attacks: tuple[frozenset[int], ...]
    attacks_any: frozenset[int]
    reaches: Optional[frozenset[int]]
    file_full: Optional[bool]
    late: bool  # it asks an attack question (``_late``)
    near_king: bool

    def test(self, m: MoveFacts, board: list[int], hands: list[list[int]]) -> bool:
        """True if the clause holds after the move ``m``: the checks it has, cheapest first."""
        if self.frm is not None and m.frm not in self.frm:
            return False
        if self.promote is not None and m.promoted != self.promote:
            return False
        if self.could_promote is not None and _could_promote(m) != self.could_promote:
            return False
        if self.becomes is not None and m.after not in self.becomes:
            return False
        if self.previous is not None and not _previous_matches(self.previous, m.previous, m,
                                                               board):
            return False
        if self.own_previous is not None and not _previous_matches(self.own_previous,
                                                                   m.own_previous, m, board):
            return False
        to = m.to
        if self.file_full is not None and file_full(board, to) != self.file_full:
            return False
        for around in self.around:
            if not around.holds(to, board):
                return False
        if self.has_condition and not _holds(self.condition, board, hands):
            return False
        for colour, at_from, least, most in self.king_steps:
            king = m.kings[colour]
            square = m.frm if at_from else to
            if king is None or square is None:
                return False
            steps = max(abs(king // 9 - square // 9), abs(king % 9 - square % 9))
            if steps < least or steps > most:
                return False
        if self.counts and not _counts_hold(self.counts, board, m.material, hands):
            return False
        return _late(self, m, board, hands) if self.late else True


def _compile_clause(index: int, clause: dict, owner: int) -> _Clause:
    c = _Clause()
    c.technique, c.owner = index, owner
    c.mover = owner ^ 1 if clause["mover"] else owner
    other = c.mover ^ 1
    c.frm = None if clause["from"] is None else frozenset(_turn(s, owner) for s in clause["from"])
    c.to = None if clause["to"] is None else frozenset(_turn(s, owner) for s in clause["to"])
    c.promote, c.could_promote, c.captures = (clause["promote"], clause["could_promote"],
                                              clause["captures"])
    c.becomes = (None if clause["becomes"] is None
                 else frozenset(t + 16 * c.mover for t in clause["becomes"]))
    c.capture = (None if clause["capture"] is None
                 else frozenset(t + 16 * other for t in clause["capture"]))
    c.previous = _compile_previous(clause["previous"], other, owner)
    c.own_previous = _compile_previous(clause["own_previous"], c.mover, owner)
    around = []
    for mode, types, probes in clause["around"]:
        colour = owner if mode in ("own", "not_own") else owner ^ 1
        kind = (_AROUND_EMPTY if mode == "empty" else _AROUND_NONE if mode.startswith("not")
                else _AROUND_ANY)
        codes = 0 if types is None else _code_mask([t + 16 * colour for t in types])
        around.append(_Around(kind, codes, tuple(_compile_probe(p, owner) for p in probes)))
    c.around = tuple(around)
    c.condition = _compile_condition(clause["condition"], owner)
    c.has_condition = c.condition.names_something()
    c.counts = tuple((owner ^ theirs, place, at_most, n,
                      tuple(t + 16 * (owner ^ theirs) for t in types) if place == _ON_BOARD
                      else types,
                      None if len(squares) == 81 else frozenset(_turn(s, owner) for s in squares))
                     for theirs, place, at_most, n, types, squares in clause["counts"])
    king_steps: list[_KingSteps] = []
    for theirs, at_from, least, most in clause["king_steps"]:
        king_steps.append((owner ^ theirs, at_from, least, most))
    c.king_steps = tuple(king_steps)
    c.check, c.mate, c.attacked, c.defended, c.file_full = (
        clause["check"], clause["mate"], clause["attacked"], clause["defended"],
        clause["file_full"])
    c.attacks = tuple(frozenset(t + 16 * other for t in types) for types in clause["attacks"])
    c.attacks_any = frozenset(code for codes in c.attacks for code in codes)
    c.reaches = (None if clause["reaches"] is None
                 else frozenset(_turn(s, owner) for s in clause["reaches"]))
    c.late = bool(c.check or c.mate or c.attacked is not None or c.defended is not None
                  or c.attacks or c.reaches is not None)
    # a term that wants the king of the side not moving on a square at most two steps away
    other_king = "own" if clause["mover"] else "theirs"
    c.near_king = any(mode == other_king and types is not None and set(types) == {KING}
                      and all(kind == _STEP_PROBE and max(abs(df), abs(dr)) <= 2
                              for kind, (df, dr), _ in probes)
                      for mode, types, probes in clause["around"])
    for colour, at_from, _, most in c.king_steps:
        if colour == other and not at_from and most <= 2:
            c.near_king = True
    return c


#: What a clause needs before it is looked at: nothing more than its slot (PLAIN), the last
#: move of the game (MATE), a full file (FULL), a check (CHECK), the other king near (KING_NEAR).
PLAIN, MATE, FULL, CHECK, KING_NEAR = range(5)

#: A clause as ``CompiledTechniques`` indexes it: (clause, the squares it may go to or None: any,
#: the types it may take (0: none) or None: any, what it needs).
_Indexed = tuple[_Clause, Optional[frozenset[int]], Optional[frozenset[int]], int]


class CompiledTechniques:
    """Every technique compiled for both owners and indexed by what the move was: its slot
    (``slot(mover, code before the move, drop, to square, type captured or 0)``) gives the
    clauses to look at, in five lists (``PLAIN`` … ``KING_NEAR``): those that need a mate are
    looked at after the last move only, those that need a full file only when the move filled
    the file, those that need a check only when the move gives check, those that need the king
    of the side not moving within two steps of the square the piece went to only when it is.
    The lists of a slot are made the first time a move of that slot is seen (``lists``)."""

    names: list[str]
    n: int
    once: list[bool]
    window: list[int]
    requires: list[tuple[int, ...]]
    opponent_requires: list[tuple[int, ...]]
    by_piece: dict[tuple[int, int, bool], list[_Indexed]]  # (mover, code, drop) -> clauses
    slots: list[Optional[tuple[tuple[_Clause, ...], ...]]]  # slot -> the five lists, or None


    def __init__(self, techniques: list, label_index: dict) -> None:
        self.names = [t.name for t in techniques]
        self.n = len(techniques)
        self.once = [t.once for t in techniques]
        self.window = [t.window or 1 << 30 for t in techniques]
        self.requires = [tuple(label_index[r] for r in t.requires) for t in techniques]
        self.opponent_requires = [tuple(label_index[r] for r in t.opponent_requires)
                                  for t in techniques]
        self.by_piece = {}
        self.slots = [None] * SLOTS
        for i, technique in enumerate(techniques):
            for owner in (BLACK, WHITE):
                for clause in technique.clauses:
                    compiled = _compile_clause(i, clause, owner)
                    captured: Optional[frozenset[int]]
                    if clause["capture"] is not None:
                        captured = frozenset(clause["capture"])
                    elif clause["captures"] is not None:
                        captured = (frozenset(range(1, 15)) if clause["captures"]
                                    else frozenset((0,)))
                    else:
                        captured = None
                    need = (MATE if clause["mate"] else FULL if clause["file_full"] else
                            CHECK if clause["check"] else
                            KING_NEAR if compiled.near_king else PLAIN)
                    drops = (False, True) if clause["drop"] is None else (clause["drop"],)
                    for t in clause["piece"] or range(1, 15):
                        for drop in drops:
                            if not drop or t in HAND_TYPES:
                                self.by_piece.setdefault(
                                    (compiled.mover, t + 16 * compiled.mover, drop), []).append(
                                    (compiled, compiled.to, captured, need))

    def lists(self, key: int) -> tuple[tuple[_Clause, ...], ...]:
        """The five lists of clauses of a slot (see ``slot``), made once."""
        found = self.slots[key]
        if found is None:
            rest, captured = divmod(key, 15)
            rest, to = divmod(rest, 81)
            rest, drop = divmod(rest, 2)
            mover, code = divmod(rest, 32)
            chosen: list[list[_Clause]] = [[], [], [], [], []]
            for clause, squares, taken, need in self.by_piece.get((mover, code, bool(drop)), []):
                if (squares is None or to in squares) and (taken is None or captured in taken):
                    chosen[need].append(clause)
            found = tuple(tuple(one) for one in chosen)
            self.slots[key] = found
        return found

    def clauses(self) -> list[_Clause]:
        """Every compiled clause (each technique's, for each owner)."""
        return list({id(c): c for entries in self.by_piece.values()
                     for c, _, _, _ in entries}.values())


def slot(mover: int, code: int, drop: int, to: int, captured: int) -> int:
    """The slot of a move in ``CompiledTechniques`` (``code``: the piece before the move;
    ``drop``: 1 (or True) for a drop; ``captured``: the type of the piece taken, promoted or
    not, or 0)."""
    return (((mover * 32 + code) * 2 + drop) * 81 + to) * 15 + captured


#: How many slots there are.
SLOTS: Final = slot(1, 31, 1, 80, 14) + 1


def file_full(board: list[int], sq: int) -> bool:
    """True if every square of the file of ``sq`` holds a piece."""
    first = sq - sq % 9
    for s in range(first, first + 9):
        if not board[s]:
            return False
    return True


def _could_promote(m: MoveFacts) -> bool:
    frm = m.frm
    return m.promoted or (frm is not None and can_promote(m.before & 15)
                          and (ZONE[m.mover][frm] or ZONE[m.mover][m.to]))


def _counts_hold(counts: tuple[_Count, ...], board: list[int], material: list[list[int]],
                 hands: list[list[int]]) -> bool:
    """``material[colour][type]``: the pieces each side owns (on the board promoted or not, and
    in hand), by unpromoted type; ``hands[colour][type]``: in hand."""
    for colour, place, at_most, n, kinds, squares in counts:
        count = 0
        for t in kinds:
            if place == _OWNED:
                count += material[colour][t]
            elif place == _IN_HAND:
                count += hands[colour][t]
            elif squares is None:
                count += board.count(t)
            else:
                for s in squares:
                    if board[s] == t:
                        count += 1
            if at_most and count > n:
                return False
        if count < n and not at_most:
            return False
    return True


def _previous_matches(matcher: _Previous, move: Optional[PlayedMove], m: MoveFacts,
                      board: list[int]) -> bool:
    if move is None:
        return False
    frm, square, before, after, captured = move
    if matcher.codes is not None and before not in matcher.codes:
        return False
    if matcher.drop is not None and (frm is None) != matcher.drop:
        return False
    if matcher.captures is not None and bool(captured) != matcher.captures:
        return False
    if matcher.capture is not None and captured not in matcher.capture:
        return False
    if matcher.promote is not None and (before != after) != matcher.promote:
        return False
    if matcher.to is not None and square not in matcher.to:
        return False
    if matcher.at is not None:
        to = m.to
        for table in matcher.at:
            if table[to] == square:
                break
        else:
            return False
    if matcher.at_from is not None:
        moved_from = m.frm
        if moved_from is None:
            return False
        for table in matcher.at_from:
            if table[moved_from] == square:
                break
        else:
            return False
    if matcher.attacks:
        if board[square] != after:
            return False
        return _distinct(matcher.attacks, [board[t] for t in targets(board, square) if board[t]])
    return True


def _distinct(wanted: tuple[frozenset[int], ...], pieces: list[int]) -> bool:
    """True if each set of ``wanted`` can be matched by a different piece of ``pieces``."""
    if len(wanted) > 1:
        pieces = [p for p in pieces if p and any(p in w for w in wanted)]
        if len(pieces) < len(wanted):
            return False
    return _matched(wanted, pieces)


def _matched(wanted: tuple[frozenset[int], ...], pieces: list[int]) -> bool:
    if not wanted:
        return True
    first, rest = wanted[0], wanted[1:]
    for k, code in enumerate(pieces):
        if code in first and _matched(rest, pieces[:k] + pieces[k + 1:]):
            return True
    return False


def _late(c: _Clause, m: MoveFacts, board: list[int], hands: list[list[int]]) -> bool:
    """The attack questions, asked last."""
    to, mover = m.to, m.mover
    position = m.position
    if c.check or c.mate:
        king = m.kings[mover ^ 1]
        if king is None or not position.attacked(king, mover):
            return False
    if c.attacked is not None and position.attacked(to, mover ^ 1) != c.attacked:
        return False
    if c.defended is not None and position.attacked(to, mover) != c.defended:
        return False
    reaches = c.reaches
    if c.attacks or reaches is not None:
        reached = m.targets
        if reached is None:
            reached = targets(board, to)
            m.targets = reached
        if reaches is not None and not any(s in reaches for s in reached):
            return False
        if c.attacks:
            union = c.attacks_any
            pieces = [board[s] for s in reached if board[s] in union]
            if len(pieces) < len(c.attacks) or not _matched(c.attacks, pieces):
                return False
    if c.mate:
        return m.last and _is_mate(board, hands, mover ^ 1)
    return True


def _is_mate(board: list[int], hands: list[list[int]], turn: int) -> bool:
    return Position.from_sfen(sfen_of(board, hands, turn)).is_checkmate()


# ----- notes -------------------------------------------------------------------------------------

class GameFacts:
    """What the notes ask about a whole game, gathered during the replay."""

    plies: int
    outbreak: Optional[int]  # ply of the first capture of a piece other than a pawn or bishop
    outbreak_board: list[int]  # the position then (empty lists until there is one)
    outbreak_hands: list[list[int]]
    board: list[int]  # the position at the end
    hands: list[list[int]]
    bishop_captures: list[tuple[int, int]]  # (colour, ply) of the first two captures of a bishop
    bishop_moves: list[int]  # bishop moves of each side until the second of them

    def __init__(self) -> None:
        self.plies = 0
        self.outbreak = None
        self.outbreak_board, self.outbreak_hands = [], []
        self.board, self.hands = [], []
        self.bishop_captures = []
        self.bishop_moves = [0, 0]


class CompiledNotes:
    """The notes compiled for both owners, with each ``reached`` name widened to the label and
    every label below it in the parent tree."""

    notes: list[Note]
    condition: list[list[Condition]]  # side -> note -> its position condition
    has_condition: list[bool]
    wide: list[tuple[frozenset[str], ...]]

    def __init__(self, notes: list[Note], descendants: Callable[[str], set]) -> None:
        self.notes = notes
        self.condition = [[_compile_condition(n.condition, side) for n in notes]
                          for side in (BLACK, WHITE)]
        self.has_condition = [self.condition[BLACK][i].names_something()
                              for i in range(len(notes))]
        self.wide = [tuple(frozenset(descendants(name)) for name in names)
                     for n in notes
                     for names in [n.reached + n.opponent_reached + n.not_reached
                                   + n.opponent_not_reached]]


def note_plies(c: CompiledNotes, facts: GameFacts,
               named: list[set[str]]) -> list[list[tuple[int, int]]]:
    """Per side, ``[(note index, ply)]`` of the notes that hold at the end of the game;
    ``named[side]`` is the set of label names the side has."""
    exchange = _bishop_exchange(facts)
    out: list[list[tuple[int, int]]] = [[], []]
    for side in (BLACK, WHITE):
        for i, note in enumerate(c.notes):
            if note.plies_min is not None and facts.plies < note.plies_min:
                continue
            if note.plies_max is not None and facts.plies > note.plies_max:
                continue
            outbreak = facts.outbreak
            if note.outbreak is not None and (outbreak is not None) is not note.outbreak:
                continue
            if note.outbreak_by is not None and (outbreak is None or outbreak > note.outbreak_by):
                continue
            if note.outbreak_after is not None and (
                    (outbreak is not None and outbreak <= note.outbreak_after)
                    or facts.plies <= note.outbreak_after):
                continue
            if note.bishop_exchange is not None and (exchange is not None) is not note.bishop_exchange:
                continue
            if note.bishop_moves is not None:
                if exchange is None:
                    continue
                mine, theirs = facts.bishop_moves[side], facts.bishop_moves[side ^ 1]
                if not (mine > theirs if note.bishop_moves == "more" else mine < theirs):
                    continue
            if not _names_hold(note, c.wide[i], named[side], named[side ^ 1]):
                continue
            board, hands, ply = facts.board, facts.hands, facts.plies
            if note.at == "outbreak" and outbreak is not None:
                board, hands, ply = facts.outbreak_board, facts.outbreak_hands, outbreak
            if c.has_condition[i] and not _holds(c.condition[side][i], board, hands):
                continue
            out[side].append((i, ply))
    return out


def _names_hold(note: Note, wide: tuple[frozenset[str], ...], own: set[str],
                other: set[str]) -> bool:
    k = 0
    for names, wanted, present in ((note.reached, own, True), (note.opponent_reached, other, True),
                                   (note.not_reached, own, False),
                                   (note.opponent_not_reached, other, False)):
        for _ in names:
            if bool(wide[k] & wanted) is not present:
                return False
            k += 1
    return True


def _bishop_exchange(facts: GameFacts) -> Optional[int]:
    """The ply of the bishop exchange: the first two captures of a bishop, one by each side,
    before the outbreak (or in a game without one); None if there was none."""
    if len(facts.bishop_captures) < 2:
        return None
    (first, _), (second, ply) = facts.bishop_captures[:2]
    if first == second or (facts.outbreak is not None and facts.outbreak < ply):
        return None
    return ply


def track(facts: GameFacts, ply: int, mover: int, moved_type: int, captured_type: int,
          board: list[int], hands: list[list[int]]) -> None:
    """Record the game facts of one move (``moved_type`` and ``captured_type`` unpromoted)."""
    captures = facts.bishop_captures
    if len(captures) < 2 and moved_type == 5:
        facts.bishop_moves[mover] += 1
    if captured_type:
        if captured_type == 5 and len(captures) < 2:
            captures.append((mover, ply))
        elif captured_type not in (1, 5) and facts.outbreak is None:
            facts.outbreak = ply
            facts.outbreak_board = list(board)
            facts.outbreak_hands = [list(hands[0]), list(hands[1])]


__all__ = ["Technique", "Note", "CompiledTechniques", "CompiledNotes", "MoveFacts", "GameFacts",
           "parse_technique", "parse_note", "note_plies", "track", "slot", "PLAIN", "MATE", "FULL",
           "CHECK", "KING_NEAR"]
