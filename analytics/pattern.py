"""Pattern search: the games whose main line reached a position of a pattern (``core.pattern``:
pieces on squares, empty squares, pieces in hand, material), with the first ply where it held,
for how many plies, and what was played next.

    >>> import tempfile
    >>> from kifudb.store.writer import ingest_paths
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["data/samples/games.usi"], folder)
    >>> found = find_pattern(folder, PatternSearch.of("▲持角 △持角", max_ply=30))  # bishops exchanged
    >>> found["games"], [(m["game"], m["ply"], m["plies"]) for m in found["matches"]][:2]
    (5, [(2, 7, 24), (7, 11, 20)])
    >>> found["next_moves"][0]["usi"], found["next_moves"][0]["games"]
    ('3a2b', 4)
    >>> found = find_pattern(folder, PatternSearch.of("▲飛2* ・27", max_ply=4), limit=1)
    >>> found["games"], len(found["matches"])
    (9, 1)
    >>> import shutil; shutil.rmtree(folder)

**How the boards are found.** Every stored main line is kept as *placements*
(``core.placement``; the store's ``placements`` table): a row for each stay of a piece on a
square, of a count of a kind in a hand, and of a side's material, from one ply to another. A
condition is one or more ``Atom``\\ s; each atom selects rows (a square's rows are stored
together, so it reads that square's row groups). In one DuckDB query, for the games that have a
row of every condition that needs one (and that the filters keep):

1. the plies where any atom's row starts or ends cut each game into *segments*, in which
   nothing the pattern looks at changes;
2. each segment gets, per atom, whether a row covers it, and so whether the pattern (or its
   mirror image, or its exchange: ``--mirror``, ``--either-side``) holds there;
3. a held segment's plies are clipped to ``min_ply``/``max_ply`` and counted for the side to
   move (``turn``), and each game keeps its first ply and the plies counted.

The cost follows the rows of the squares and kinds the pattern names, not the positions: a
search reads a few bytes per game for each condition. ``find_by_replay`` answers the same
question by replaying every game and testing each position (``Pattern.holds``); it is the
reference the tests compare with, and the design the benchmark measures against
(``python -m bench --only pattern``).
"""

from __future__ import annotations

from typing import NamedTuple, Optional

import sqlalchemy as sa

from kifudb.analytics import checks
from kifudb.analytics.filters import GameFilter
from kifudb.analytics.results import Results, count_columns
from kifudb.core.move import Move
from kifudb.core.pieces import KING
from kifudb.core.pattern import BOARD, HAND, HAND_PLACE, MATERIAL_PLACE, Pattern, parse_pattern
from kifudb.core.position import Position
from kifudb.store.engine import (as_store, fetch, fetch_each, game_summary, games, moves,
                                 placements)
from kifudb.store.manifest import PLACEMENTS_FORMAT

__all__ = ["PatternSearch", "find_pattern", "find_by_replay", "TURNS"]

TURNS = ("black", "white")


class PatternSearch(NamedTuple):
    """A pattern and where it is looked for: ``turn`` (the side to move, or either), the plies
    from ``min_ply`` to ``max_ply`` (both included), ``mirror`` (its left-right mirror image
    too) and ``either_side`` (the pattern given to the other side too)."""

    pattern: Pattern
    turn: Optional[str] = None
    min_ply: Optional[int] = None
    max_ply: Optional[int] = None
    mirror: bool = False
    either_side: bool = False

    @classmethod
    def of(cls, conditions, turn: Optional[str] = None, min_ply: Optional[int] = None,
           max_ply: Optional[int] = None, mirror: bool = False,
           either_side: bool = False) -> "PatternSearch":
        """The search of ``conditions`` (text or a list of conditions, ``parse_pattern``),
        its values checked (``ValueError`` names the one that is wrong)::

            >>> PatternSearch.of("▲玉28", turn="sente")
            Traceback (most recent call last):
            ...
            ValueError: turn must be one of black, white, not 'sente'
            >>> PatternSearch.of("▲玉28", min_ply=40, max_ply=10)
            Traceback (most recent call last):
            ...
            ValueError: min_ply (40) is after max_ply (10)
        """
        pattern = conditions if isinstance(conditions, Pattern) else parse_pattern(conditions)
        if turn is not None:
            checks.choice(turn, "turn", TURNS)
        for name, value in (("min_ply", min_ply), ("max_ply", max_ply)):
            if value is not None:
                checks.at_least(value, name, 0)
        if min_ply is not None and max_ply is not None and min_ply > max_ply:
            raise ValueError(f"min_ply ({min_ply}) is after max_ply ({max_ply})")
        return cls(pattern, turn, min_ply, max_ply, bool(mirror), bool(either_side))

    def variants(self) -> list:
        """``(pattern, turn)`` of each form looked for: the pattern, its mirror image
        (``mirror``), and both given to the other side (``either_side``: the turn too)."""
        forms = [(self.pattern, self.turn)]
        if self.mirror:
            forms.append((self.pattern.mirrored(), self.turn))
        if self.either_side:
            other = None if self.turn is None else TURNS[1 - TURNS.index(self.turn)]
            forms += [(p.exchanged(), other) for p, _ in list(forms)]
        return forms

    def text(self) -> str:
        """The search as ``kifudb pattern`` arguments (the conditions, then the options)."""
        words = [str(self.pattern)]
        if self.turn:
            words.append(f"--turn {self.turn}")
        if self.min_ply is not None:
            words.append(f"--min-ply {self.min_ply}")
        if self.max_ply is not None:
            words.append(f"--max-ply {self.max_ply}")
        words += [flag for flag, on in (("--mirror", self.mirror),
                                        ("--either-side", self.either_side)) if on]
        return " ".join(words)


def _mover(ply: int, white_first: bool) -> str:
    """Who is to move at ``ply``."""
    return TURNS[(ply + white_first) % 2]


# ----- the query ------------------------------------------------------------------------------------


def _atom_where(atom) -> list:
    p = placements.c
    if atom.where == BOARD:
        return [p.place.in_(sorted(atom.squares)), p.piece.in_(sorted(atom.pieces))]
    compare = {"=": p.count.__eq__, ">=": p.count.__ge__, "<=": p.count.__le__,
               ">": p.count.__gt__, "<": p.count.__lt__}[atom.op]
    place = HAND_PLACE if atom.where == HAND else MATERIAL_PLACE
    return [p.place == place, p.piece.in_(sorted(atom.pieces)), compare(atom.n)]


def _matches_statement(search: PatternSearch, filters: GameFilter):
    """The statement of every matching game: ``game``, ``ply`` (the first), ``plies`` (how many
    held), before the games' details are joined."""
    forms = search.variants()
    atoms = list(dict.fromkeys(a for pattern, _ in forms for a in pattern.atoms()))
    index = {a: i for i, a in enumerate(atoms)}
    p = placements.c
    rows = sa.union_all(*(sa.select(p.game, p.from_ply, p.to_ply, sa.literal(i).label("atom"))
                          .where(*_atom_where(a)) for i, a in enumerate(atoms))).cte("atom_rows")
    # the games each form could match: a row of every condition that needs one
    candidates = []
    for pattern, _ in forms:
        needed = [c for c in pattern.conditions if not c.inverted and not c.negated]
        if not needed:  # every game (one row each: see ``ends``)
            candidates = [sa.select(p.game).where(p.place == MATERIAL_PLACE, p.piece == KING)]
            break
        candidates.append(sa.intersect(*(
            sa.select(rows.c.game).where(rows.c.atom.in_([index[a] for a in c.atoms]))
            for c in needed)))
    union = candidates[0] if len(candidates) == 1 else sa.union(*candidates)
    g = game_summary.c
    chosen = (sa.select(g.game, g.white_first).where(g.game.in_(union.subquery().select()),
                                                   *filters.where()).cte("chosen"))
    # where each game's main line ends: its Black king's material row spans it whole (a king
    # is never captured; the row is there, count 0, when Black has none)
    ends = (sa.select(p.game, p.to_ply.label("end"))
            .where(p.place == MATERIAL_PLACE, p.piece == KING,
                   p.game.in_(sa.select(chosen.c.game))).cte("ends"))
    in_chosen = rows.c.game.in_(sa.select(chosen.c.game))
    bounds = sa.union(
        sa.select(rows.c.game, rows.c.from_ply.label("at")).where(in_chosen),
        sa.select(rows.c.game, rows.c.to_ply.label("at")).where(in_chosen),
        sa.select(ends.c.game, sa.literal(0).label("at")),
        sa.select(ends.c.game, ends.c.end.label("at"))).subquery("bounds")
    following = sa.func.lead(bounds.c.at).over(partition_by=bounds.c.game, order_by=bounds.c.at)
    cuts = sa.select(bounds.c.game, bounds.c.at.label("low"), following.label("high")).subquery()
    segments = sa.select(cuts).where(cuts.c.high.is_not(None)).cte("segments")
    s = segments.c
    covered = (sa.select(s.game, s.low, s.high,
                         *(sa.func.coalesce(sa.func.bool_or(rows.c.atom == i), False).label(f"a{i}")
                           for i in range(len(atoms))))
               .join_from(segments, rows, sa.and_(rows.c.game == s.game, rows.c.from_ply <= s.low,
                                                  rows.c.to_ply > s.low), isouter=True)
               .group_by(s.game, s.low, s.high).subquery("covered"))

    def holds(pattern) -> sa.ColumnElement:
        conditions = []
        for c in pattern.conditions:
            hits = [covered.c[f"a{index[a]}"] for a in c.atoms]
            any_hit = sa.or_(*(sa.not_(h) if c.inverted else h for h in hits))
            conditions.append(sa.not_(any_hit) if c.negated else any_hit)
        return sa.and_(*conditions)

    black_ok = sa.or_(sa.false(), *(holds(pt) for pt, turn in forms if turn in (None, "black")))
    white_ok = sa.or_(sa.false(), *(holds(pt) for pt, turn in forms if turn in (None, "white")))
    held = (sa.select(covered.c.game, chosen.c.white_first,
                      sa.func.greatest(covered.c.low, search.min_ply or 0).label("low"),
                      (covered.c.high if search.max_ply is None else
                       sa.func.least(covered.c.high, search.max_ply + 1)).label("high"),
                      black_ok.label("black_ok"), white_ok.label("white_ok"))
            .join_from(covered, chosen, chosen.c.game == covered.c.game)
            .where(sa.or_(black_ok, white_ok)).subquery("held"))
    h = held.c
    # the plies where a side is to move in [low, high) are those of one parity (Black's are
    # the even ones, unless White moved first); below x, (x + 1 - parity) // 2 of them
    sides = []
    for black, ok in ((True, h.black_ok), (False, h.white_ok)):
        parity = sa.case((h.white_first, int(black)), else_=int(not black))
        first = h.low + (h.low + parity) % 2
        count = _half(h.high + 1 - parity) - _half(h.low + 1 - parity)
        sides.append((ok, first, count))
    firsts = [sa.case((sa.and_(ok, first < h.high), first)) for ok, first, _ in sides]
    counts = [sa.case((ok, sa.func.greatest(count, 0)), else_=0) for ok, _, count in sides]
    per_segment = (sa.select(h.game, sa.func.least(*firsts).label("ply"),
                             (counts[0] + counts[1]).label("plies"))
                   .where(h.low < h.high).subquery("per_segment"))
    return (sa.select(per_segment.c.game, sa.func.min(per_segment.c.ply).label("ply"),
                      sa.func.sum(per_segment.c.plies).label("plies"))
            .group_by(per_segment.c.game)
            .having(sa.func.sum(per_segment.c.plies) > 0)).subquery("matched")


def _half(value) -> sa.ColumnElement:
    """``value // 2`` of a whole number of at least 0."""
    return sa.cast(sa.func.floor(sa.cast(value, sa.Float) / 2), sa.Integer)


def _placed(store) -> None:
    """``ValueError`` for a store written before placements (an older format, until a writer
    migrates it)."""
    store = as_store(store)
    version = store.manifest()["format"] if store.manifest_path.exists() else PLACEMENTS_FORMAT
    if version < PLACEMENTS_FORMAT:
        raise ValueError(f"the store {store.root} was written by an older kifudb (format "
                         f"{version}) and pattern search needs the placements of its games: "
                         f"any write brings it up to date, e.g. `kifudb relabel --store "
                         f"{store.root}`")


def find_pattern(store, search: PatternSearch, *, filters: GameFilter = GameFilter(),
                 limit: Optional[int] = None, offset: int = 0) -> dict:
    """The games of ``filters`` whose main line meets ``search`` at some ply: ``{"pattern"
    (the search as text), "games" (how many), "matches" (a page of them: ``limit`` from
    ``offset``), "next_moves"}``. A match is a dict: ``game``, ``ply`` (the first where it
    held), ``plies`` (at how many plies it held), ``black``, ``white``, ``date`` (ISO),
    ``event``, ``winner``, ``reason``, ``handicap``, ``path``; newest first, as position search
    orders. ``next_moves``: the moves played at each game's first matching ply, most played
    first, each with ``usi`` (what each game played, in its own orientation) and the games'
    results (``analytics.results``)."""
    if limit is not None:
        checks.at_least(limit, "limit", 1)
    checks.at_least(offset, "offset", 0)
    _placed(store)
    found = _matches_statement(search, filters)
    # made once, as a temporary table that the page, the count and the moves read
    made = sa.select(found.c.game, found.c.ply, found.c.plies).into("pattern_matches",
                                                                     temporary=True)
    matched = made.table
    g = game_summary.c
    page = (sa.select(matched.c.game, matched.c.ply, matched.c.plies, g.black, g.white, g.date,
                      g.event, g.winner, g.reason, g.handicap, g.path)
            .join_from(matched, game_summary, g.game == matched.c.game)
            .order_by(g.date.desc().nulls_last(), matched.c.game))
    if limit is not None:
        page = page.limit(limit)
    if offset:
        page = page.offset(offset)
    m = moves.c
    played = (sa.select(m.usi, g.winner)
              .join_from(matched, moves, sa.and_(m.game == matched.c.game, m.line == 0,
                                                  m.ply == matched.c.ply + 1))
              .join(game_summary, g.game == matched.c.game)
              .where(m.usi.is_not(None)).subquery("played"))
    counts = count_columns(played.c.winner)
    summary = (sa.select(played.c.usi, *counts).group_by(played.c.usi)
               .order_by(sa.desc("games"), played.c.usi))
    _, rows, total, summary_rows = fetch_each(
        store, [made, page, sa.select(sa.func.count().label("games")).select_from(matched),
                summary])
    rows = checks.iso_dates(rows, "date")
    for row in rows:
        row["plies"] = int(row["plies"])
    next_moves = [{"usi": row["usi"], **Results.from_row(row).as_dict()} for row in summary_rows]
    return {"pattern": search.text(), "games": total[0]["games"], "matches": rows,
            "next_moves": next_moves}


# ----- the reference: every game replayed -------------------------------------------------------


def find_by_replay(store, search: PatternSearch, *, filters: GameFilter = GameFilter()) -> dict:
    """``{game: (first ply, plies held)}`` of the games of ``filters`` whose main line meets
    ``search``, found by replaying every game and testing each of its positions."""
    g = game_summary.c
    m = moves.c
    chosen = (sa.select(g.game, g.white_first, games.c.start_sfen)
              .join_from(game_summary, games, games.c.game == g.game).where(*filters.where())
              .order_by(g.game))
    lines: dict = {}
    for row in fetch(store, sa.select(m.game, m.usi).where(m.line == 0, m.usi.is_not(None))
                     .order_by(m.game, m.ply)):
        lines.setdefault(row["game"], []).append(row["usi"])
    forms = search.variants()
    found = {}
    for row in fetch(store, chosen):
        position = Position.from_sfen(row["start_sfen"])
        line = lines.get(row["game"], [])
        plies = []
        for ply in range(len(line) + 1):
            if ply:
                position.push(Move.from_usi(line[ply - 1]))
            if search.min_ply is not None and ply < search.min_ply:
                continue
            if search.max_ply is not None and ply > search.max_ply:
                break
            mover = _mover(ply, bool(row["white_first"]))
            if any(turn in (None, mover) and pattern.holds(position) for pattern, turn in forms):
                plies.append(ply)
        if plies:
            found[row["game"]] = (plies[0], len(plies))
    return found

