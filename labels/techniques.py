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

How it stays fast: each pattern is compiled for each colour into one small Python function
holding only its own checks, and indexed by the mover's colour, the piece moved (as it stood
before the move: 歩 and と are different pieces), drop or not, the square it went to and the
piece it took, so a move looks only at the patterns it can fire (6.7 a move on the real games of
the tests); those that need a mate, a full file, a check or the other king nearby are looked at
only when the move gives one. The attack questions (forks, defended squares) are asked last.
"""

from __future__ import annotations

import re
from typing import NamedTuple, Optional

from kifudb.core.pieces import (BLACK, HAND_TYPES, KING, WHITE, ZONE, can_promote,
                                unpromoted)
from kifudb.labels.attacks import targets
from kifudb.labels.vocabulary import (_CONDITION_KEYS, DefinitionError, _compile_condition,
                                      _holds, _list, _parse_condition, _piece_types, _squares,
                                      _turn)

# ----- the vocabulary ----------------------------------------------------------------------------

_MOVE_FLAGS = ("drop", "promote", "could_promote", "captures", "check", "mate", "attacked",
               "defended", "file_full")
_AROUND_KEYS = ("around_own", "around_theirs", "around_not_own", "around_not_theirs",
                "around_empty")
_COUNT_KEYS = ("own_count", "their_count", "material", "their_material", "material_max",
               "their_material_max")
#: Keys of one alternative of a technique (a clause): the move, its surroundings, the position.
CLAUSE_KEYS = (_CONDITION_KEYS | set(_MOVE_FLAGS) | set(_AROUND_KEYS) | set(_COUNT_KEYS)
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

_STEP_PROBE, _RAY_PROBE, _EDGE_PROBE = 0, 1, 2


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
    """``own_count = ["2 馬 17-99"]`` … -> [(theirs, on_board, at_most, n, types, squares)]."""
    out = []
    for key in _COUNT_KEYS:
        theirs = key.startswith("their")
        on_board = key.endswith("count")
        for text in _list(table, key, where, str):
            parts = text.split()
            if not (2 + on_board >= len(parts) >= 2) or not parts[0].isdigit():
                raise DefinitionError(f"{where}: {key} entry {text!r} is \"number pieces"
                                      + (" squares\"" if on_board else "\""))
            types = _piece_types(parts[1], where)
            squares = _squares(parts[2], where) if len(parts) == 3 else tuple(range(81))
            if not on_board:
                types = tuple(sorted({unpromoted(t) for t in types}))
            out.append((theirs, on_board, key.endswith("_max"), int(parts[0]), types, squares))
    return out


def _parse_previous(value, key, where) -> Optional[dict]:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) - _PREVIOUS_KEYS:
        raise DefinitionError(f"{where}: {key} is a table of {sorted(_PREVIOUS_KEYS)}")
    out = {"piece": _types(value, "piece", where), "capture": _types(value, "capture", where)}
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
    around = []
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
    clause["condition"] = _parse_condition(table, where)
    clause["condition"]["any"] = []
    for key in ("previous", "own_previous"):
        clause[key] = _parse_previous(table.get(key), key, where)
    if clause["mate"] is False:
        raise DefinitionError(f"{where}: mate can only be required (true)")
    if clause["drop"] and (clause["from"] is not None or clause["capture"] is not None
                           or clause["captures"] or clause["promote"]):
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
                moves, *(tuple(_list(table, key, where, str)) for key in (
                    "reached", "opponent_reached", "not_reached", "opponent_not_reached")),
                condition)


# ----- compiling ---------------------------------------------------------------------------------

def _offset(sq: int, df: int, dr: int, side: int) -> int:
    """The board square ``(df, dr)`` away from ``sq`` as ``side`` sees it, or -1 off the board."""
    if side == WHITE:
        df, dr = -df, -dr
    f, r = sq // 9 + df, sq % 9 + dr
    return f * 9 + r if 0 <= f < 9 and 0 <= r < 9 else -1


def _compile_probe(probe: tuple, side: int) -> tuple:
    kind, (df, dr), n = probe
    if kind == _STEP_PROBE:
        return kind, tuple(_offset(s, df, dr, side) for s in range(81)), n
    rays = []
    for s in range(81):
        ray, cur = [], _offset(s, df, dr, side)
        while cur >= 0:
            ray.append(cur)
            cur = _offset(cur, df, dr, side)
        rays.append(tuple(ray))
    if kind == _EDGE_PROBE:
        return kind, tuple(r[-1] if r else -1 for r in rays), n
    return kind, tuple(rays), n


def _probe_at(probe: tuple, sq: int, board: list) -> int:
    kind, table, n = probe
    if kind != _RAY_PROBE:
        return table[sq]
    for s in table[sq]:
        if board[s]:
            n -= 1
            if not n:
                return s
    return -1


class _Clause:
    """One clause compiled for one owner colour (board squares, piece codes); ``test(move facts,
    board, hands)`` says whether it holds after a move."""

    __slots__ = ("technique", "owner", "mover", "frm", "to", "promote", "could_promote",
                 "becomes", "captures", "capture", "previous", "own_previous", "around",
                 "condition", "has_condition", "counts", "check", "mate", "attacked", "defended",
                 "attacks", "attacks_any", "reaches", "file_full", "late", "test", "near_king")


def _compile_previous(previous: Optional[dict], mover_colour: int, owner: int) -> Optional[tuple]:
    if previous is None:
        return None
    codes = None if previous["piece"] is None else frozenset(t + 16 * mover_colour
                                                             for t in previous["piece"])
    capture = (None if previous["capture"] is None
               else frozenset(t + 16 * (mover_colour ^ 1) for t in previous["capture"]))
    to = None if previous["to"] is None else frozenset(_turn(s, owner) for s in previous["to"])
    at, at_from = (None if previous[key] is None
                   else tuple(_compile_probe(p, owner)[1] for p in previous[key])
                   for key in ("at", "at_from"))
    attacks = tuple(frozenset(t + 16 * (mover_colour ^ 1) for t in types)
                    for types in previous["attacks"])
    return (codes, previous["drop"], previous["captures"], capture, previous["promote"], to, at,
            at_from, attacks)


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
        codes = None if types is None else frozenset(t + 16 * colour for t in types)
        around.append((mode, codes, tuple(_compile_probe(p, owner) for p in probes)))
    c.around = tuple(around)
    c.condition = _compile_condition(clause["condition"], owner)
    c.has_condition = any(c.condition[:4])
    c.counts = tuple((owner ^ theirs, on_board, at_most, n,
                      tuple(t + 16 * (owner ^ theirs) for t in types) if on_board else types,
                      None if len(squares) == 81 else frozenset(_turn(s, owner) for s in squares))
                     for theirs, on_board, at_most, n, types, squares in clause["counts"])
    c.check, c.mate, c.attacked, c.defended, c.file_full = (
        clause["check"], clause["mate"], clause["attacked"], clause["defended"],
        clause["file_full"])
    c.attacks = tuple(frozenset(t + 16 * other for t in types) for types in clause["attacks"])
    c.attacks_any = frozenset().union(*c.attacks)
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
    c.test = _test(c)
    return c


#: What a clause needs before it is looked at: nothing more than its slot (PLAIN), the last
#: move of the game (MATE), a full file (FULL), a check (CHECK), the other king near (KING_NEAR).
PLAIN, MATE, FULL, CHECK, KING_NEAR = range(5)


class CompiledTechniques:
    """Every technique compiled for both owners and indexed by what the move was: its slot
    (``slot(mover, code before the move, drop, to square, type captured or 0)``) gives the
    clauses to look at, in five lists (``PLAIN`` … ``KING_NEAR``): those that need a mate are
    looked at after the last move only, those that need a full file only when the move filled
    the file, those that need a check only when the move gives check, those that need the king
    of the side not moving within two steps of the square the piece went to only when it is.
    The lists of a slot are made the first time a move of that slot is seen (``lists``)."""

    def __init__(self, techniques: list, label_index: dict):
        self.names = [t.name for t in techniques]
        self.n = len(techniques)
        self.once = [t.once for t in techniques]
        self.window = [t.window or 1 << 30 for t in techniques]
        self.requires = [tuple(label_index[r] for r in t.requires) for t in techniques]
        self.opponent_requires = [tuple(label_index[r] for r in t.opponent_requires)
                                  for t in techniques]
        # (mover, code, drop) -> [(clause, to squares or None, captured types or None, need)]
        self.by_piece = {}
        self.slots = {}  # slot -> the five lists, made when first asked for
        for i, technique in enumerate(techniques):
            for owner in (BLACK, WHITE):
                for clause in technique.clauses:
                    compiled = _compile_clause(i, clause, owner)
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

    def lists(self, key: int) -> tuple:
        """The five lists of clauses of a slot (see ``slot``), made once."""
        found = self.slots.get(key)
        if found is None:
            rest, captured = divmod(key, 15)
            rest, to = divmod(rest, 81)
            rest, drop = divmod(rest, 2)
            mover, code = divmod(rest, 32)
            found = ([], [], [], [], [])
            for clause, squares, taken, need in self.by_piece.get((mover, code, bool(drop)), ()):
                if (squares is None or to in squares) and (taken is None or captured in taken):
                    found[need].append(clause)
            found = self.slots[key] = tuple(tuple(one) for one in found)
        return found

    def clauses(self) -> list:
        """Every compiled clause (each technique's, for each owner)."""
        return list({id(c): c for entries in self.by_piece.values()
                     for c, _, _, _ in entries}.values())


def slot(mover: int, code: int, drop: bool, to: int, captured: int) -> int:
    """The slot of a move in ``CompiledTechniques`` (``code``: the piece before the move;
    ``captured``: the type of the piece taken, promoted or not, or 0)."""
    return (((mover * 32 + code) * 2 + drop) * 81 + to) * 15 + captured


class MoveFacts:
    """The move just played, as the clauses ask about it (``attacked(square, colour)``: the
    attack test of the board, ``labels.attacks.attacked`` or a ``Position``'s)."""

    __slots__ = ("ply", "mover", "frm", "to", "before", "after", "captured", "promoted", "last",
                 "kings", "previous", "own_previous", "targets", "material", "attacked")


def _could_promote(m: MoveFacts) -> bool:
    frm = m.frm
    return m.promoted or (frm is not None and can_promote(m.before & 15)
                          and (ZONE[m.mover][frm] or ZONE[m.mover][m.to]))


def _counts_hold(counts: tuple, board: list, material: list) -> bool:
    """``material[colour][type]``: the pieces each side owns (on the board promoted or not, and
    in hand), by unpromoted type."""
    for colour, on_board, at_most, n, kinds, squares in counts:
        count = 0
        for t in kinds:
            if not on_board:
                count += material[colour][t]
            elif squares is None:
                count += board.count(t)
            else:
                count += sum(1 for s in squares if board[s] == t)
            if at_most and count > n:
                return False
        if count < n and not at_most:
            return False
    return True


def _test(c: _Clause):
    """The clause as one Python function of (move facts, board, hands) holding only the checks
    it needs, cheapest first: written out as source and compiled once."""
    consts, lines = {}, []

    def const(value):
        name = f"K{len(consts)}"
        consts[name] = value
        return name

    def fail_unless(condition):
        lines.append(f"    if not ({condition}): return False")

    if c.frm is not None:
        fail_unless(f"m.frm in {const(c.frm)}")
    if c.promote is not None:
        fail_unless(f"m.promoted is {c.promote}")
    if c.could_promote is not None:
        fail_unless(f"_could_promote(m) is {c.could_promote}")
    if c.becomes is not None:
        fail_unless(f"m.after in {const(c.becomes)}")
    for key in ("previous", "own_previous"):
        matcher = getattr(c, key)
        if matcher is not None:
            fail_unless(f"_previous_matches({const(matcher)}, m.{key}, m, board)")
    lines.append("    to = m.to")
    if c.file_full is not None:
        fail_unless(f"(0 not in board[to - to % 9:to - to % 9 + 9]) is {c.file_full}")
    for mode, codes, probes in c.around:
        squares = []
        for probe in probes:
            name = f"s{len(consts)}"
            if probe[0] == _STEP_PROBE:
                lines.append(f"    {name} = {const(probe[1])}[to]")
            else:
                lines.append(f"    {name} = _probe_at({const(probe)}, to, board)")
            squares.append(name)
        if mode == "empty":
            fail_unless(" and ".join(f"{s} >= 0 and not board[{s}]" for s in squares))
            continue
        codes_name = const(codes)
        found = " or ".join(f"({s} >= 0 and board[{s}] in {codes_name})" for s in squares)
        fail_unless(f"not ({found})" if mode.startswith("not") else found)
    if c.has_condition:
        fail_unless(f"_holds({const(c.condition)}, board, hands)")
    if c.counts:
        fail_unless(f"_counts_hold({const(c.counts)}, board, m.material)")
    lines.append(f"    return _late({const(c)}, m, board, hands)" if c.late else "    return True")
    source = "def test(m, board, hands):\n" + "\n".join(lines) + "\n"
    namespace = {**consts, "_could_promote": _could_promote, "_previous_matches": _previous_matches,
                 "_probe_at": _probe_at, "_holds": _holds, "_counts_hold": _counts_hold,
                 "_late": _late}
    exec(compile(source, f"<technique {c.technique}>", "exec"), namespace)
    return namespace["test"]


def _previous_matches(matcher: tuple, move: Optional[tuple], m: MoveFacts, board: list) -> bool:
    if move is None:
        return False
    codes, drop, captures, capture, promote, to, at, at_from, attacks = matcher
    frm, square, before, after, captured = move
    if codes is not None and before not in codes:
        return False
    if drop is not None and (frm is None) is not drop:
        return False
    if captures is not None and bool(captured) is not captures:
        return False
    if capture is not None and captured not in capture:
        return False
    if promote is not None and (before != after) is not promote:
        return False
    if to is not None and square not in to:
        return False
    if at is not None:
        to = m.to
        for table in at:
            if table[to] == square:
                break
        else:
            return False
    if at_from is not None:
        frm = m.frm
        if frm is None:
            return False
        for table in at_from:
            if table[frm] == square:
                break
        else:
            return False
    if attacks:
        if board[square] != after:
            return False
        return _distinct(attacks, [board[t] for t in targets(board, square) if board[t]])
    return True


def _distinct(wanted: tuple, pieces: list) -> bool:
    """True if each set of ``wanted`` can be matched by a different piece of ``pieces``."""
    if len(wanted) > 1:
        pieces = [p for p in pieces if p and any(p in w for w in wanted)]
        if len(pieces) < len(wanted):
            return False
    return _matched(wanted, pieces)


def _matched(wanted: tuple, pieces: list) -> bool:
    if not wanted:
        return True
    first, rest = wanted[0], wanted[1:]
    for k, code in enumerate(pieces):
        if code in first and _matched(rest, pieces[:k] + pieces[k + 1:]):
            return True
    return False


def _late(c: _Clause, m: MoveFacts, board: list, hands: list) -> bool:
    """The attack questions, asked last."""
    to, mover = m.to, m.mover
    if c.check or c.mate:
        king = m.kings[mover ^ 1]
        if king is None or not m.attacked(king, mover):
            return False
    if c.attacked is not None and m.attacked(to, mover ^ 1) is not c.attacked:
        return False
    if c.defended is not None and m.attacked(to, mover) is not c.defended:
        return False
    if c.attacks or c.reaches is not None:
        reached = m.targets
        if reached is None:
            reached = m.targets = targets(board, to)
        if c.reaches is not None and not any(s in c.reaches for s in reached):
            return False
        if c.attacks:
            union = c.attacks_any
            pieces = [board[s] for s in reached if board[s] in union]
            if len(pieces) < len(c.attacks) or not _matched(c.attacks, pieces):
                return False
    if c.mate:
        return m.last and _is_mate(board, hands, mover ^ 1)
    return True


def _is_mate(board: list, hands: list, turn: int) -> bool:
    from kifudb.core.position import Position, sfen_of
    return Position.from_sfen(sfen_of(board, hands, turn)).is_checkmate()


# ----- notes -------------------------------------------------------------------------------------

class GameFacts:
    """What the notes ask about a whole game, gathered during the replay."""

    __slots__ = ("plies", "outbreak", "outbreak_board", "outbreak_hands", "board", "hands",
                 "bishop_captures", "bishop_moves")

    def __init__(self):
        self.plies = 0
        self.outbreak = None  # ply of the first capture of a piece other than a pawn or bishop
        self.outbreak_board = self.outbreak_hands = None
        self.board = self.hands = None
        self.bishop_captures = []  # (colour, ply) of the first two captures of a bishop
        self.bishop_moves = [0, 0]  # bishop moves of each side until the second of them


class CompiledNotes:
    """The notes compiled for both owners, with each ``reached`` name widened to the label and
    every label below it in the parent tree."""

    def __init__(self, notes: list, descendants):
        self.notes = notes
        self.condition = [[_compile_condition(n.condition, side) for n in notes]
                          for side in (BLACK, WHITE)]
        self.has_condition = [any(self.condition[BLACK][i][:4]) for i in range(len(notes))]
        self.wide = [tuple(frozenset(descendants(name)) for name in names)
                     for n in notes
                     for names in [n.reached + n.opponent_reached + n.not_reached
                                   + n.opponent_not_reached]]


def note_plies(c: CompiledNotes, facts: GameFacts, named: list) -> list:
    """Per side, ``[(note index, ply)]`` of the notes that hold at the end of the game;
    ``named[side]`` is the set of label names the side has."""
    exchange = _bishop_exchange(facts)
    out = [[], []]
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
            at_outbreak = note.at == "outbreak" and outbreak is not None
            board, hands = ((facts.outbreak_board, facts.outbreak_hands) if at_outbreak
                            else (facts.board, facts.hands))
            if c.has_condition[i] and not _holds(c.condition[side][i], board, hands):
                continue
            out[side].append((i, outbreak if at_outbreak else facts.plies))
    return out


def _names_hold(note: Note, wide: tuple, own: set, other: set) -> bool:
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
          board: list, hands: list) -> None:
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
