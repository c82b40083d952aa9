"""What wins: statistics over the store's games, results and labels (castles 囲い and openings
戦型, see ``labels.classify``).

Every function takes the store (a folder or an ``store.folder.Store``) first and returns plain
lists of dicts or dicts. The filters are those of the explorer (``analytics.queries.explore``):
``player`` (a case-insensitive part of either name), ``date_from``/``date_to`` (inclusive; undated
games are left out once either is given), ``event`` (a part of the event's name) and
``handicap`` (exactly, e.g. ``平手``). Queries are SQLAlchemy Core statements with bound values
only, over two in-memory tables the engine builds once per commit (``game_summary`` and
``label_summary``), so each answers in milliseconds on a store of millions of positions.

Scores count a draw as half a win; games without a result (an abort, a record that stops) count
among the games but not in the score. Each score comes with a 95% Wilson score interval
(``ci_low``, ``ci_high``)::

    >>> import tempfile
    >>> from store.writer import ingest_paths
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["data/samples"], folder)
    >>> total = results(folder)
    >>> total["games"], total["black_wins"], total["white_wins"], total["draws"], total["other"]
    (18, 7, 8, 1, 2)
    >>> total["black_score"], total["ci_low"], total["ci_high"]
    (0.4688, 0.2551, 0.6945)
    >>> [(r["reason"], r["games"]) for r in results_by_reason(folder)][:3]
    [('unknown', 6), ('resign', 5), ('checkmate', 2)]
"""

from __future__ import annotations

import functools
import math
from typing import Optional

import sqlalchemy as sa

from labels.classify import definitions_version
from analytics.queries import game_filters
from store import engine as views
from store.engine import as_store, fetch, game_summary, label_summary

__all__ = ["overview", "results", "results_by_year", "results_by_reason", "game_lengths", "games",
           "label_frequencies", "win_rates", "pairings", "label_games", "game_labels",
           "players", "player_summary", "head_to_head", "finding_counts", "findings", "wilson"]

G, L = game_summary.c, label_summary.c
#: ``fetch`` for the statements that read ``label_summary`` (built on first use)
_labelled_fetch = functools.partial(fetch, labels=True)
_SIDES = ("black", "white")
_KINDS = ("castle", "opening")


# ----- scores ------------------------------------------------------------------------------------


def wilson(points: float, n: int, z: float = 1.96) -> tuple:
    """The Wilson score interval of ``points`` out of ``n`` (a draw is half a point), rounded to
    four places; ``(None, None)`` when ``n`` is 0.

    >>> wilson(0, 4), wilson(4, 4), wilson(0, 0)
    ((0.0, 0.4899), (0.5101, 1.0), (None, None))
    """
    if n <= 0:
        return None, None
    p = points / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    scale = 1 + z * z / n
    low, high = (centre - spread) / scale, (centre + spread) / scale
    return round(max(0.0, low), 4), round(min(1.0, high), 4)


def _score(wins: int, losses: int, draws: int) -> dict:
    """``score`` (None without a decided game) and its interval."""
    n = wins + losses + draws
    low, high = wilson(wins + draws / 2, n)
    score = round((wins + draws / 2) / n, 4) if n else None
    return {"score": score, "ci_low": low, "ci_high": high}


_RESULTS = (("black", "black_wins"), ("white", "white_wins"), ("draw", "draws"))


def _result_columns() -> list:
    """``black_wins``, ``white_wins``, ``draws`` counted over the games of a statement."""
    return [sa.func.count().filter(G.winner == sa.literal(value)).label(name)
            for value, name in _RESULTS]


def _black_score(row: dict) -> dict:
    score = _score(row["black_wins"], row["white_wins"], row["draws"])
    return {**row, "black_score": score["score"], "ci_low": score["ci_low"],
            "ci_high": score["ci_high"]}


# ----- checking arguments ------------------------------------------------------------------------


def _choice(value, name: str, choices: tuple):
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, not {value!r}")
    return value


def _at_least(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer of at least {minimum}, not {value!r}")
    return value


def _name(value, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name} must be a non-empty name, not {value!r}")
    return value.strip()


def _iso_dates(rows: list, *columns) -> list:
    for row in rows:
        for column in columns:
            if row.get(column) is not None:
                row[column] = row[column].isoformat()
    return rows


# ----- the store at a glance ---------------------------------------------------------------------


def overview(store) -> dict:
    """The size of the store and what it holds: ``games``, ``positions``, ``players``,
    ``events``, ``date_from``/``date_to``, ``files``, ``valid_games``, ``findings_by_severity``,
    ``results`` (games by winner: black, white, draw, none), ``labels_version`` and
    ``labels_current`` (False when the definitions changed since: run ``kifudb relabel``)."""
    store = as_store(store)
    names = sa.union(sa.select(G.black.label("name")), sa.select(G.white.label("name"))).subquery()
    size = fetch(store, sa.select(
        sa.func.count().label("games"),
        sa.func.count(sa.distinct(G.event)).label("events"),
        sa.func.min(G.date).label("date_from"), sa.func.max(G.date).label("date_to"),
        sa.func.count().filter(G.valid).label("valid_games")))[0]
    size["players"] = fetch(store, sa.select(sa.func.count(names.c.name).label("n")))[0]["n"]
    size["positions"] = fetch(store, sa.select(sa.func.count().label("n"))
                              .select_from(views.positions))[0]["n"]
    size["files"] = fetch(store, sa.select(sa.func.count().label("n"))
                          .select_from(views.files))[0]["n"]
    f = views.findings.c
    size["findings_by_severity"] = {r["severity"]: r["n"] for r in fetch(
        store, sa.select(f.severity, sa.func.count().label("n")).group_by(f.severity))}
    size["results"] = {"black": 0, "white": 0, "draw": 0, "none": 0}
    for r in fetch(store, sa.select(G.winner, sa.func.count().label("n")).group_by(G.winner)):
        size["results"][r["winner"] or "none"] = r["n"]
    version = store.labels_state()["version"]
    size["labels_version"] = version
    size["labels_current"] = version is None or version == definitions_version()
    return _iso_dates([size], "date_from", "date_to")[0]


# ----- results -----------------------------------------------------------------------------------


def results(store, **filters) -> dict:
    """Games, ``black_wins``, ``white_wins``, ``draws``, ``other`` (no result) and Black's score
    with its interval (``black_score``, ``ci_low``, ``ci_high``)."""
    row = fetch(store, sa.select(sa.func.count().label("games"), *_result_columns())
                .select_from(game_summary).where(*game_filters(**filters)))[0]
    row["other"] = row["games"] - row["black_wins"] - row["white_wins"] - row["draws"]
    return _black_score(row)


def results_by_year(store, **filters) -> list:
    """``results`` per year of the game's date (undated games are left out), oldest first."""
    year = sa.extract("year", G.date).label("year")
    rows = fetch(store, sa.select(year, sa.func.count().label("games"), *_result_columns())
                 .where(G.date.is_not(None), *game_filters(**filters))
                 .group_by(year).order_by(year))
    return [_black_score({**r, "year": int(r["year"])}) for r in rows]


def results_by_reason(store, **filters) -> list:
    """Games by how they ended: dicts of ``reason`` (resign, checkmate, time, sennichite …),
    ``games``, ``black_wins``, ``white_wins``, ``draws``; most frequent first."""
    return fetch(store, sa.select(G.reason, sa.func.count().label("games"), *_result_columns())
                 .where(*game_filters(**filters)).group_by(G.reason)
                 .order_by(sa.desc("games"), G.reason))


def game_lengths(store, bucket: int = 10, **filters) -> list:
    """The distribution of game lengths (moves replayed): dicts of ``moves_from``,
    ``moves_to`` (inclusive) and ``games``, shortest first."""
    size = _at_least(bucket, "bucket", 1)
    start = (sa.func.floor(G.moves / sa.bindparam("bucket", size)) * size).label("moves_from")
    rows = fetch(store, sa.select(start, sa.func.count().label("games"))
                 .where(*game_filters(**filters)).group_by(start).order_by(start))
    return [{"moves_from": int(r["moves_from"]), "moves_to": int(r["moves_from"]) + size - 1,
             "games": r["games"]} for r in rows]


def games(store, reason: Optional[str] = None, winner: Optional[str] = None,
          moves_from: Optional[int] = None, moves_to: Optional[int] = None, limit: int = 20,
          offset: int = 0, **filters) -> list:
    """The games in scope, newest first (undated last, then the highest id): dicts of ``game``,
    ``black``, ``white``, ``date``, ``event``, ``winner``, ``reason``, ``handicap`` and
    ``moves``; ``reason``, ``winner`` and a length from ``moves_from`` to ``moves_to``
    (inclusive) narrow them, ``offset`` and ``limit`` take a page."""
    conditions = list(game_filters(**filters))
    if reason is not None:
        conditions.append(G.reason == sa.bindparam("reason", _name(reason, "reason")))
    if winner is not None:
        conditions.append(G.winner == sa.bindparam(
            "winner", _choice(winner, "winner", ("black", "white", "draw", "none"))))
    if moves_from is not None:
        conditions.append(G.moves >= sa.bindparam("moves_from",
                                                  _at_least(moves_from, "moves_from", 0)))
    if moves_to is not None:
        conditions.append(G.moves <= sa.bindparam("moves_to", _at_least(moves_to, "moves_to", 0)))
    statement = (sa.select(G.game, G.black, G.white, G.date, G.event, G.winner, G.reason,
                           G.handicap, G.moves).where(*conditions)
                 .order_by(G.date.desc().nulls_last(), G.game.desc())
                 .limit(sa.bindparam("limit", _at_least(limit, "limit", 1)))
                 .offset(sa.bindparam("offset", _at_least(offset, "offset", 0))))
    return _iso_dates(fetch(store, statement), "date")


# ----- castles and openings ----------------------------------------------------------------------


def _labelled(kind: str, primary_only: bool, filters: dict) -> list:
    conditions = [L.kind == sa.bindparam("kind", _choice(kind, "kind", _KINDS)),
                  *game_filters(**filters)]
    if primary_only:
        conditions.append(L.primary)
    return conditions


def label_frequencies(store, kind: str = "castle", by_year: bool = False, min_games: int = 1,
                      primary_only: bool = False, **filters) -> list:
    """How often each side reached each label: dicts of ``side``, ``label``, ``games`` and
    ``share`` (of the games in scope, that year with ``by_year``, when ``year`` is added and
    undated games are left out); ``primary_only`` counts only a side's main castle/opening."""
    conditions = _labelled(kind, primary_only, filters)
    groups = [L.side, L.label]
    totals_query = (sa.select(sa.func.count().label("games")).select_from(game_summary)
                    .where(*game_filters(**filters)))
    if by_year:
        year = sa.extract("year", G.date).label("year")
        groups.insert(0, year)
        conditions.append(G.date.is_not(None))
        totals_query = (sa.select(year, sa.func.count().label("games"))
                        .where(G.date.is_not(None), *game_filters(**filters)).group_by(year))
    count = sa.func.count(sa.distinct(L.game)).label("games")
    statement = (sa.select(*groups, count)
                 .join_from(label_summary, game_summary, G.game == L.game)
                 .where(*conditions).group_by(*groups)
                 .having(count >= sa.bindparam("min_games", _at_least(min_games, "min_games", 1)))
                 .order_by(*(groups[:1] if by_year else []), sa.desc("games"), L.side, L.label))
    rows = _labelled_fetch(store, statement)
    if by_year:
        totals = {int(r["year"]): r["games"] for r in fetch(store, totals_query)}
    else:
        totals = {None: fetch(store, totals_query)[0]["games"]}
    for row in rows:
        if by_year:
            row["year"] = int(row["year"])
        total = totals.get(row.get("year"))
        row["share"] = round(row["games"] / total, 4) if total else None
    return rows


def win_rates(store, kind: str = "castle", min_games: int = 1, primary_only: bool = False,
              **filters) -> list:
    """How each label scores for the side that reached it: dicts of ``side``, ``label``,
    ``games``, ``wins``, ``losses``, ``draws``, ``score`` and its interval; most played first."""
    opponent = sa.case((L.side == sa.literal("black"), sa.literal("white")),
                       else_=sa.literal("black"))
    count = sa.func.count().label("games")
    rows = _labelled_fetch(store, sa.select(
        L.side, L.label, count,
        sa.func.count().filter(G.winner == L.side).label("wins"),
        sa.func.count().filter(G.winner == opponent).label("losses"),
        sa.func.count().filter(G.winner == sa.literal("draw")).label("draws"))
        .join_from(label_summary, game_summary, G.game == L.game)
        .where(*_labelled(kind, primary_only, filters)).group_by(L.side, L.label)
        .having(count >= sa.bindparam("min_games", _at_least(min_games, "min_games", 1)))
        .order_by(sa.desc("games"), L.side, L.label))
    return [{**r, **_score(r["wins"], r["losses"], r["draws"])} for r in rows]


def pairings(store, kind: str = "castle", against: Optional[str] = None, min_games: int = 1,
             **filters) -> list:
    """Black's main label against White's (``kind`` for Black, ``against``, default the same
    kind, for White: ``pairings(store, "castle", "opening")`` gives 居飛車穴熊 vs 四間飛車):
    dicts of ``black_label``, ``white_label``, ``games``, ``black_wins``, ``white_wins``,
    ``draws``, ``black_score`` and its interval; most played first."""
    black, white = label_summary.alias("b"), label_summary.alias("w")
    against = _choice(against or kind, "against", _KINDS)
    count = sa.func.count().label("games")
    statement = (sa.select(black.c.label.label("black_label"), white.c.label.label("white_label"),
                           count, *_result_columns())
                 .join_from(game_summary, black, sa.and_(
                     black.c.game == G.game, black.c.side == sa.literal("black"), black.c.primary,
                     black.c.kind == sa.bindparam("kind", _choice(kind, "kind", _KINDS))))
                 .join(white, sa.and_(white.c.game == G.game, white.c.side == sa.literal("white"),
                                      white.c.primary,
                                      white.c.kind == sa.bindparam("against", against)))
                 .where(*game_filters(**filters))
                 .group_by(black.c.label, white.c.label)
                 .having(count >= sa.bindparam("min_games", _at_least(min_games, "min_games", 1)))
                 .order_by(sa.desc("games"), black.c.label, white.c.label))
    return [_black_score(r) for r in _labelled_fetch(store, statement)]


def label_games(store, label: str, side: Optional[str] = None, limit: int = 20,
                **filters) -> list:
    """Example games for a label (newest first): dicts of ``game``, ``side`` that reached it,
    ``ply`` where it did, ``black``, ``white``, ``date``, ``event``, ``winner``, ``reason``."""
    conditions = [L.label == sa.bindparam("label", _name(label, "label")), *game_filters(**filters)]
    if side is not None:
        conditions.append(L.side == sa.bindparam("side", _choice(side, "side", _SIDES)))
    statement = (sa.select(L.game, L.side, L.ply, G.black, G.white, G.date, G.event, G.winner,
                           G.reason)
                 .join_from(label_summary, game_summary, G.game == L.game).where(*conditions)
                 .order_by(G.date.desc().nulls_last(), L.game, L.side)
                 .limit(sa.bindparam("limit", _at_least(limit, "limit", 1))))
    return _iso_dates(_labelled_fetch(store, statement), "date")


def game_labels(store, game: int) -> list:
    """The labels of one game: dicts of ``side``, ``kind``, ``label``, ``ply``, ``primary``,
    in the order they were reached."""
    if isinstance(game, bool) or not isinstance(game, int):
        raise ValueError(f"a game id is an integer, not {game!r}")
    return _labelled_fetch(store, sa.select(L.side, L.kind, L.label, L.ply, L.primary)
                 .where(L.game == sa.bindparam("game", game))
                 .order_by(L.ply, L.side, L.kind, L.label))


# ----- players -----------------------------------------------------------------------------------


def _player_sides(filters: dict):
    """One row per (game, player, side): the games as each player saw them."""
    sides = []
    for side, name, other in (("black", G.black, G.white), ("white", G.white, G.black)):
        sides.append(sa.select(G.game, name.label("player"), other.label("opponent"),
                               sa.literal(side).label("side"), G.winner, G.date, G.event,
                               G.reason, G.moves)
                     .where(name.is_not(None), *game_filters(**filters)))
    return sa.union_all(*sides).subquery("seat")


def _seat_results(seat) -> list:
    return [sa.func.count().label("games"),
            sa.func.count().filter(seat.c.winner == seat.c.side).label("wins"),
            sa.func.count().filter(seat.c.winner.in_(_SIDES), seat.c.winner != seat.c.side)
            .label("losses"),
            sa.func.count().filter(seat.c.winner == sa.literal("draw")).label("draws")]


def players(store, min_games: int = 1, limit: Optional[int] = None, **filters) -> list:
    """Every player with ``games``, ``wins``, ``losses``, ``draws`` and ``score`` (with its
    interval), most games first."""
    seat = _player_sides(filters)
    columns = _seat_results(seat)
    statement = (sa.select(seat.c.player, *columns).group_by(seat.c.player)
                 .having(columns[0] >= sa.bindparam("min_games",
                                                    _at_least(min_games, "min_games", 1)))
                 .order_by(sa.desc("games"), seat.c.player))
    if limit is not None:
        statement = statement.limit(sa.bindparam("limit", _at_least(limit, "limit", 1)))
    return [{**r, **_score(r["wins"], r["losses"], r["draws"])} for r in fetch(store, statement)]


def player_summary(store, player: str, **filters) -> Optional[dict]:
    """One player (the exact name as stored): ``games``, ``as_black`` and ``as_white``
    (games, wins, losses, draws, score, interval), favourite ``openings`` and ``castles``
    (label, games, wins, losses, draws, score), ``opponents`` (head-to-head: opponent, games,
    wins, losses, draws, score) and ``recent_games``; None if no game in scope has the player."""
    name = _name(player, "player")
    seat = _player_sides(filters)
    mine = seat.c.player == sa.bindparam("name", name)
    by_side = {r["side"]: r for r in fetch(store, sa.select(seat.c.side, *_seat_results(seat))
                                           .where(mine).group_by(seat.c.side))}
    if not by_side:
        return None
    empty = {"games": 0, "wins": 0, "losses": 0, "draws": 0}
    summary = {"player": name, "games": sum(r["games"] for r in by_side.values())}
    for side in _SIDES:
        row = {k: v for k, v in by_side.get(side, {"side": side, **empty}).items() if k != "side"}
        summary[f"as_{side}"] = {**row, **_score(row["wins"], row["losses"], row["draws"])}
    for kind in _KINDS:
        labelled = (sa.select(L.label, *_seat_results(seat))
                    .join_from(seat, label_summary, sa.and_(L.game == seat.c.game,
                                                            L.side == seat.c.side))
                    .where(mine, L.kind == sa.literal(kind), L.primary)
                    .group_by(L.label).order_by(sa.desc("games"), L.label))
        summary[f"{kind}s"] = [{**r, **_score(r["wins"], r["losses"], r["draws"])}
                               for r in _labelled_fetch(store, labelled)]
    opponents = (sa.select(seat.c.opponent, *_seat_results(seat))
                 .where(mine, seat.c.opponent.is_not(None)).group_by(seat.c.opponent)
                 .order_by(sa.desc("games"), seat.c.opponent))
    summary["opponents"] = [{**r, **_score(r["wins"], r["losses"], r["draws"])}
                            for r in fetch(store, opponents)]
    recent = (sa.select(seat.c.game, seat.c.side, seat.c.opponent, seat.c.winner, seat.c.reason,
                        seat.c.date, seat.c.event, seat.c.moves).where(mine)
              .order_by(seat.c.date.desc().nulls_last(), seat.c.game.desc()).limit(20))
    summary["recent_games"] = _iso_dates(fetch(store, recent), "date")
    return summary


def head_to_head(store, player: str, opponent: str, **filters) -> dict:
    """The games between two players (exact names): ``games`` (list, newest first), and
    ``wins``, ``losses``, ``draws`` and ``score`` from ``player``'s side."""
    seat = _player_sides(filters)
    rows = fetch(store, sa.select(seat.c.game, seat.c.side, seat.c.winner, seat.c.reason,
                                  seat.c.date, seat.c.event, seat.c.moves)
                 .where(seat.c.player == sa.bindparam("name", _name(player, "player")),
                        seat.c.opponent == sa.bindparam("opponent", _name(opponent, "opponent")))
                 .order_by(seat.c.date.desc().nulls_last(), seat.c.game.desc()))
    wins = sum(r["winner"] == r["side"] for r in rows)
    draws = sum(r["winner"] == "draw" for r in rows)
    losses = sum(r["winner"] in _SIDES and r["winner"] != r["side"] for r in rows)
    return {"player": player, "opponent": opponent, "games": _iso_dates(rows, "date"),
            "wins": wins, "losses": losses, "draws": draws, **_score(wins, losses, draws)}


# ----- validation findings ----------------------------------------------------------------------


def finding_counts(store, by: str = "code", severity: Optional[str] = None) -> list:
    """Findings counted by ``code`` or by ``path`` (and severity): dicts of that column,
    ``severity`` and ``count``, most frequent first."""
    f = views.findings.c
    column = f[_choice(by, "by", ("code", "path"))]
    conditions = []
    if severity is not None:
        conditions.append(f.severity == sa.bindparam(
            "severity", _choice(severity, "severity", ("error", "warning", "info"))))
    return fetch(store, sa.select(column, f.severity, sa.func.count().label("count"))
                 .where(*conditions).group_by(column, f.severity)
                 .order_by(sa.desc("count"), column, f.severity))


def findings(store, code: Optional[str] = None, severity: Optional[str] = None,
             path: Optional[str] = None, limit: int = 100, offset: int = 0) -> list:
    """The findings themselves (``path`` is a part of the file's path), by file, line and ply:
    dicts of ``game``, ``path``, ``index``, ``severity``, ``code``, ``line``, ``ply``, ``text``,
    ``message``."""
    f = views.findings.c
    conditions = []
    if code is not None:
        conditions.append(f.code == sa.bindparam("code", _name(code, "code")))
    if severity is not None:
        conditions.append(f.severity == sa.bindparam(
            "severity", _choice(severity, "severity", ("error", "warning", "info"))))
    if path is not None:
        conditions.append(sa.func.contains(f.path, sa.bindparam("path", _name(path, "path"))))
    return fetch(store, sa.select(f.game, f.path, f["index"], f.severity, f.code, f.line, f.ply,
                                  f.text, f.message).where(*conditions)
                 .order_by(f.path, f["index"].nulls_first(), f.line.nulls_first(), f.ply, f.code)
                 .limit(sa.bindparam("limit", _at_least(limit, "limit", 1)))
                 .offset(sa.bindparam("offset", _at_least(offset, "offset", 0))))
