"""Accuracy and mistakes over the collection: what the engine's analysis (``analytics.judgement``)
says of the moves of many games, by player, opening, castle, year or ply range, and the most
costly moves.

The games are those of ``filters`` (``analytics.filters.GameFilter``: player, dates, event,
opening, castle, handicap …); the moves counted are those whose loss is known (both positions,
before and after the move, analysed). A group's **accuracy** is the mean of the accuracies of
its moves (lishogi's per-move formula, ``judgement.move_accuracy``), its **average loss** the
mean of their losses in win-percent points, and each figure comes with the number of
``games`` and ``moves`` behind it. By opening or castle, a side's moves count for the side's
main (primary) opening or castle (``labels``): a side without one is left out of that
grouping.

The per-move values are those of ``judgement.judged_moves``, one SQL statement for one game and
for the collection (DuckDB computes them; nothing is looped over in Python)."""

from __future__ import annotations

from typing import Optional

import sqlalchemy as sa

from kifudb.analytics import checks
from kifudb.analytics.filters import GameFilter
from kifudb.analytics.judgement import JUDGEMENTS, chosen_analysis, judged_moves
from kifudb.core.move import code_usi
from kifudb.labels.players import canonical as player_name
from kifudb.store.engine import as_store, fetch, game_summary, label_summary

__all__ = ["GROUPS", "accuracy", "mistakes"]

#: what ``accuracy`` groups the moves by
GROUPS = ("total", "player", "opening", "castle", "year", "ply-range")
G, L = game_summary.c, label_summary.c
_COUNTED = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}


def _figures(moves) -> list:
    """The aggregates of a group of judged moves."""
    return [sa.func.count(sa.distinct(moves.c.game)).label("games"),
            sa.func.count().label("moves"),
            sa.func.avg(moves.c.accuracy).label("accuracy"),
            sa.func.avg(moves.c.loss).label("average_loss"),
            *(sa.func.count().filter(moves.c.judgement == sa.literal(name)).label(_COUNTED[name])
              for name in JUDGEMENTS)]


def _side(moves):
    return sa.case((moves.c.black_moved, sa.literal("black")), else_=sa.literal("white"))


def accuracy(store, by: str = "total", bucket: int = 20, min_games: int = 1,
             engine: Optional[str] = None, engine_limit: Optional[str] = None, *,
             filters: GameFilter = GameFilter()) -> dict:
    """The accuracy of the moves of the games of ``filters``, in total or ``by`` one of
    ``GROUPS``: ``player`` (the mover, by canonical name), ``opening`` or ``castle`` (the
    mover's main one), ``year`` (of the game's date; undated games left out) or ``ply-range``
    (``bucket`` plies a range: 1–20, 21–40 …). The analysis is ``judgement.chosen_analysis(
    store, engine, engine_limit)`` (``NoAnalysis`` without one).

    Answers ``{"engine", "limit", "k", "by", "groups"}``; each group a dict of its key
    (``player``, ``opening``, ``castle``, ``year``, or ``plies_from`` and ``plies_to``;
    none in total), ``games``, ``moves``, ``accuracy`` (0–100), ``average_loss`` (win-percent
    points), ``inaccuracies``, ``mistakes`` and ``blunders``; groups of fewer than
    ``min_games`` games are left out; the most games first (years and ply ranges in order).
    """
    store = as_store(store)
    by = checks.choice(by, "by", GROUPS)
    bucket = checks.at_least(bucket, "bucket", 1)
    min_games = checks.at_least(min_games, "min_games", 1)
    choice = chosen_analysis(store, engine, engine_limit)
    judged = judged_moves(choice, filters)
    moves = sa.select(judged).where(judged.c.loss.is_not(None)).subquery("known")
    figures = _figures(moves)
    keys, order, labels = [], [], False
    statement = sa.select(*figures).select_from(moves)
    if by == "player":
        player = sa.case((moves.c.black_moved, G.black_player), else_=G.white_player)
        keys = [player.label("player")]
        statement = statement.join(game_summary, G.game == moves.c.game)
    elif by == "year":
        year = sa.extract("year", G.date)
        keys = [year.label("year")]
        statement = (statement.join(game_summary, G.game == moves.c.game)
                     .where(G.date.is_not(None)))
        order = [year]
    elif by in ("opening", "castle"):
        labels = True
        keys = [L.label.label(by)]
        statement = statement.join(label_summary, sa.and_(
            L.game == moves.c.game, L.side == _side(moves), L.primary,
            L.kind == sa.bindparam("kind", by)))
    elif by == "ply-range":
        start = (sa.func.floor((moves.c.ply - 1) / sa.bindparam("bucket", bucket))
                 * sa.bindparam("bucket", bucket) + 1)
        keys = [start.label("plies_from")]
        order = [start]
    if keys:
        statement = statement.add_columns(*keys).group_by(*(k.element for k in keys))
    if min_games > 1:
        statement = statement.having(figures[0] >= sa.bindparam("min_games", min_games))
    statement = statement.order_by(*(order or [sa.desc("games"), sa.desc("moves"),
                                               *(k.element for k in keys)]))
    groups = []
    for row in fetch(store, statement, labels=labels):
        if not row["moves"]:
            continue  # the total of nothing
        group = {}
        if by == "year":
            group["year"] = int(row["year"])
        elif by == "ply-range":
            group["plies_from"] = int(row["plies_from"])
            group["plies_to"] = int(row["plies_from"]) + bucket - 1
        elif by != "total":
            group[by] = row[by]
        group.update(games=row["games"], moves=row["moves"],
                     accuracy=round(float(row["accuracy"]), 2),
                     average_loss=round(float(row["average_loss"]), 2),
                     **{name: row[name] for name in _COUNTED.values()})
        groups.append(group)
    return {"engine": choice["engine"], "limit": choice["limit"], "k": choice["k"], "by": by,
            "groups": groups}


def mistakes(store, limit: int = 20, offset: int = 0, of: Optional[str] = None,
             least: str = "inaccuracy", engine: Optional[str] = None,
             engine_limit: Optional[str] = None, *, filters: GameFilter = GameFilter()) -> dict:
    """The most costly moves of the games of ``filters`` — judged at least ``least``
    (``inaccuracy``, ``mistake`` or ``blunder``), the largest loss first —, of the player
    ``of`` only when given (a canonical name or a spelling, or a part of the name as written:
    the mover, where the ``player`` filter keeps the games of a player, both sides' moves), a
    page of ``limit`` from ``offset``.

    Answers ``{"engine", "limit", "k", "moves"}``; each move a dict of ``game``, ``ply``,
    ``date``, ``black``, ``white``, ``event``, ``mover`` (black/white), ``player`` (the
    mover's canonical name), ``usi`` and ``ki2`` (the move played), ``best`` and ``best_ki2``
    (the engine's move), ``loss``, ``win_before`` and ``win_after`` (the mover's chance before
    and after the move, 0–100), ``judgement`` and ``sfen`` (the position before the move)."""
    from kifudb.analytics.game_record import ki2_of, positions_at

    store = as_store(store)
    limit = checks.at_least(limit, "limit", 1)
    offset = checks.at_least(offset, "offset", 0)
    least = checks.choice(least, "least", JUDGEMENTS)
    choice = chosen_analysis(store, engine, engine_limit)
    judged = judged_moves(choice, filters)
    j = judged.c
    worse = JUDGEMENTS[JUDGEMENTS.index(least):]
    player = sa.case((j.black_moved, G.black_player), else_=G.white_player)
    written = sa.case((j.black_moved, G.black), else_=G.white)
    statement = (sa.select(j.game, j.ply, j.black_moved, j.move, j.best_before, j.loss,
                           j.win_before, j.win_black, j.judgement, G.date, G.black, G.white,
                           G.event, player.label("player"))
                 .join_from(judged, game_summary, G.game == j.game)
                 .where(j.judgement.in_(sa.bindparam("judgements", list(worse),
                                                     expanding=True)))
                 .order_by(j.loss.desc(), j.game, j.ply)
                 .limit(sa.bindparam("limit", limit)).offset(sa.bindparam("offset", offset)))
    if of is not None:
        given = checks.name(of, "of")
        needle = sa.bindparam("of_part", given.lower())
        statement = statement.where(sa.or_(
            player == sa.bindparam("of_name", player_name(given).name),
            sa.func.contains(sa.func.lower(written), needle),
            sa.func.contains(sa.func.lower(player), needle)))
    rows = checks.iso_dates(fetch(store, statement), "date")
    wanted: dict = {}
    for row in rows:
        wanted.setdefault(row["game"], set()).add(row["ply"] - 1)
    before = positions_at(store, wanted)
    found = []
    for row in rows:
        position = before.get((row["game"], row["ply"] - 1))
        usi = code_usi(row["move"]) if row["move"] is not None else None
        mover = "black" if row["black_moved"] else "white"
        own = (lambda win: win) if mover == "black" else (lambda win: 100 - win)
        found.append({
            "game": row["game"], "ply": row["ply"], "date": row["date"], "black": row["black"],
            "white": row["white"], "event": row["event"], "mover": mover,
            "player": row["player"], "usi": usi,
            "ki2": ki2_of(position, usi) if position is not None else None,
            "best": row["best_before"],
            "best_ki2": ki2_of(position, row["best_before"]) if position is not None else None,
            "loss": round(float(row["loss"]), 2),
            "win_before": round(float(own(row["win_before"])), 2),
            "win_after": round(float(own(row["win_black"])), 2),
            "judgement": row["judgement"],
            "sfen": position.sfen() if position is not None else None})
    return {"engine": choice["engine"], "limit": choice["limit"], "k": choice["k"],
            "moves": found}
