"""Puzzles from the store's games: positions where one move wins and the others do not, found in
the engine's analysis with two lines (``kifudb analyse --multipv 2``).

The anchor is lishogi's and lichess's puzzle finder (``lichess-puzzler``'s generator, which
lishogi's puzzles follow): a position of a real game where the side to move has a winning move
(the engine's best line), the second-best move does not win, and the win is new — the mover
was not winning before the opponent's last move (a puzzle starts after the opponent's mistake;
lichess-puzzler's "too much of a winning position to start with"). On the ±1 win scale of
``analytics.judgement`` (``win_chance``, with the analysis' ``k``), a position is a puzzle when

- the best line gives the mover at least ``WINNING`` (0.5, a win percent of 75; a mate for
  the mover is 1);
- the second line gives less than ``WINNING``, and at least ``ONLY_MOVE`` (0.42, lichess-
  puzzler's ``is_valid_attack`` margin) less than the best: one move wins, the others do not;
- the position before the opponent's last move is analysed and gave the mover less than
  ``WINNING``.

A position reached in several games is one puzzle (its first game: the earliest dated, then the
lowest id; ``occurrences`` says how often it was reached). The ``solution`` is the engine's best
line from the position (its first move is the one that wins; the engine's later moves are its
expectation, not checked move by move as lichess-puzzler does with deeper searches). The
clearest first: the widest margin between the two lines, then by game and ply."""

from __future__ import annotations

from typing import Optional

import sqlalchemy as sa

from kifudb.analytics import checks
from kifudb.analytics.filters import GameFilter
from kifudb.analytics.judgement import NoAnalysis, _win_black_sql, analyses, chosen_analysis, \
    analysis
from kifudb.core.move import code_usi
from kifudb.store.engine import as_store, fetch, game_summary, positions

__all__ = ["WINNING", "ONLY_MOVE", "puzzles", "puzzle_analysis"]

#: the mover's least win chance (±1 scale) of a winning move
WINNING = 0.5
#: how much better (±1 scale) the winning move must be than the second best
ONLY_MOVE = 0.42

P, G = positions.c, game_summary.c


def puzzle_analysis(store, engine: Optional[str] = None,
                    engine_limit: Optional[str] = None) -> dict:
    """The analysis puzzles are found in (``judgement.chosen_analysis``), one with two lines or
    more: of those, the one with the most positions when neither ``engine`` nor
    ``engine_limit`` is given; ``NoAnalysis`` when it has only one line (the message says how
    to add the second)."""
    store = as_store(store)
    if engine is None and engine_limit is None:
        lined = [row for row in analyses(store) if row["multipv"] >= 2]
        if lined:
            return lined[0]
    choice = chosen_analysis(store, engine, engine_limit)
    if choice["multipv"] < 2:
        raise NoAnalysis(f"puzzles need the engine's second-best line: the analysis of "
                         f"{choice['engine']} at {choice['limit']} in {store.root} has one; run "
                         f"'kifudb analyse --store {store.root} --engine ENGINE --multipv 2 …'")
    return choice


def puzzles(store, limit: int = 50, offset: int = 0, engine: Optional[str] = None,
            engine_limit: Optional[str] = None, *, filters: GameFilter = GameFilter()) -> dict:
    """The puzzles of the games of ``filters`` (see the module), a page of ``limit`` from
    ``offset``: ``{"engine", "limit", "k", "puzzles"}``, each puzzle a dict of ``game``,
    ``ply`` (the moves played before the position: the solution is move ``ply + 1``),
    ``date``, ``black``, ``white``, ``event``, ``side`` (to move), ``sfen``, ``move`` (the
    winning move, USI) and ``ki2``, ``solution`` (the engine's line, USI, space-separated),
    ``score_black`` and ``mate_black`` (of the best line), ``win`` and ``second_win`` (the
    mover's chance, 0–100, after the best and the second move), ``second_move``, ``played``
    (the move the game went on with, USI), ``found`` (whether it was the winning move) and
    ``occurrences``."""
    from kifudb.analytics.game_record import ki2_of, positions_at

    store = as_store(store)
    limit = checks.at_least(limit, "limit", 1)
    offset = checks.at_least(offset, "offset", 0)
    choice = puzzle_analysis(store, engine, engine_limit)
    k = choice["k"]
    first, second = analysis.alias("first"), analysis.alias("second")

    def line(alias, number: int):
        return sa.and_(alias.c.key == P.key,
                       alias.c.engine == sa.bindparam("analysis_engine", choice["engine"]),
                       alias.c["limit"] == sa.bindparam("analysis_limit", choice["limit"]),
                       alias.c.multipv == sa.literal(number))

    def mover(win):  # the side to move's chance, 0–100
        return sa.case((P.black_to_move, win), else_=100 - win)

    win = mover(_win_black_sql(first.c.score_black, first.c.mate_black, P.black_to_move, k))
    scored = (sa.select(P.key, P.game, P.ply, P.black_to_move, P.next_move, G.date,
                        first.c.score_black, first.c.mate_black, first.c.best, first.c.pv,
                        second.c.best.label("second_move"), win.label("win"),
                        mover(_win_black_sql(second.c.score_black, second.c.mate_black,
                                             P.black_to_move, k)).label("second_win"))
              .join_from(positions, game_summary, G.game == P.game)
              .outerjoin(first, line(first, 1)).outerjoin(second, line(second, 2))
              .where(*filters.where())).subquery("scored")
    s = scored.c
    # the mover's chance before the opponent's last move (the opponent was to move there)
    earlier = 100 - sa.func.lag(s.win).over(partition_by=s.game, order_by=s.ply)
    framed = sa.select(*s, earlier.label("earlier_win")).subquery("framed")
    f = framed.c
    winning, margin = 50 * (WINNING + 1), 50 * ONLY_MOVE
    found = (sa.select(*f, (f.win - f.second_win).label("margin"),
                       sa.func.row_number().over(partition_by=f.key, order_by=(
                           f.date.asc().nulls_last(), f.game, f.ply)).label("nth"),
                       sa.func.count().over(partition_by=f.key).label("occurrences"))
             .where(f.win >= winning, f.second_win < winning, f.win - f.second_win >= margin,
                    f.earlier_win < winning)).subquery("found")
    page = (sa.select(found, G.black, G.white, G.event)
            .join_from(found, game_summary, G.game == found.c.game)
            .where(found.c.nth == 1)
            .order_by(found.c.margin.desc(), found.c.game, found.c.ply)
            .limit(sa.bindparam("limit", limit)).offset(sa.bindparam("offset", offset)))
    rows = checks.iso_dates(fetch(store, page), "date")
    wanted: dict = {}
    for row in rows:
        wanted.setdefault(row["game"], set()).add(row["ply"])
    at = positions_at(store, wanted)
    shown = []
    for row in rows:
        position = at.get((row["game"], row["ply"]))
        played = code_usi(row["next_move"]) if row["next_move"] is not None else None
        shown.append({
            "game": row["game"], "ply": row["ply"], "date": row["date"], "black": row["black"],
            "white": row["white"], "event": row["event"],
            "side": "black" if row["black_to_move"] else "white",
            "sfen": position.sfen() if position is not None else None,
            "move": row["best"], "ki2": ki2_of(position, row["best"]) if position else None,
            "solution": row["pv"], "score_black": row["score_black"],
            "mate_black": row["mate_black"], "win": round(float(row["win"]), 2),
            "second_win": round(float(row["second_win"]), 2),
            "second_move": row["second_move"], "played": played,
            "found": played is not None and played == row["best"],
            "occurrences": row["occurrences"]})
    return {"engine": choice["engine"], "limit": choice["limit"], "k": k, "puzzles": shown}
