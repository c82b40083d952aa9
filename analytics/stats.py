"""What wins: statistics over the store's games, results and labels (castles 囲い and openings
戦型, see ``labels.classify``).

Every function takes the store (a folder or an ``store.folder.Store``) first and returns plain
lists of dicts or dicts. The games counted are those of ``filters``, an
``analytics.filters.GameFilter`` (player, dates, event, handicap …; all games by default), the
same as the explorer's (``analytics.queries.explore``). Queries are SQLAlchemy Core statements
with bound values only, over two in-memory tables the engine builds once per commit
(``game_summary`` and ``label_summary``), so each answers in milliseconds on a store of millions
of positions.

Results are counted and scored by ``analytics.results.Results``: a draw counts as half a win;
games without a result (an abort, a record that stops) count among the games but not in the
score. Each score comes with a 95% Wilson score interval (``ci_low``, ``ci_high``)::

    >>> import tempfile
    >>> from kifudb.store.writer import ingest_paths
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["data/samples"], folder)
    >>> total = results(folder)
    >>> total["black_wins"], total["white_wins"], total["draws"], total["games"] - total["other"]
    (7, 8, 1, 16)
    >>> total["black_score"], total["ci_low"], total["ci_high"]
    (0.4688, 0.2551, 0.6945)
    >>> [(r["reason"], r["games"]) for r in results_by_reason(folder)][1:3]
    [('resign', 5), ('checkmate', 2)]
    >>> results(folder, filters=GameFilter(reason="resign"))["black_score"]
    0.6
"""

from __future__ import annotations

import functools
from typing import Optional

import pyarrow as pa
import sqlalchemy as sa

from kifudb.analytics import checks
from kifudb.analytics.filters import GameFilter
from kifudb.analytics.names import label_name
from kifudb.analytics.results import SIDES, Results, count_columns, wilson
from kifudb.labels.classify import KINDS, definitions, definitions_version
from kifudb.labels.players import canonical as player_name
from kifudb.store import engine as views
from kifudb.store.engine import as_store, fetch, fetch_arrow, game_summary, label_summary

__all__ = ["overview", "results", "results_by_year", "results_by_reason", "game_lengths", "games",
           "label_frequencies", "win_rates", "pairings", "label_games", "game_labels",
           "label_names", "players", "player_summary", "head_to_head", "finding_counts",
           "findings", "wilson"]

G, L = game_summary.c, label_summary.c
#: ``fetch`` for the statements that read ``label_summary`` (built on first use)
_labelled_fetch = functools.partial(fetch, labels=True)
_SEVERITIES = ("error", "warning", "info")


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
    total = _results(store, GameFilter())
    size["results"] = {"black": total.black, "white": total.white, "draw": total.draws,
                       "none": total.other}
    version = store.labels_state()["version"]
    size["labels_version"] = version
    size["labels_current"] = version is None or version == definitions_version()
    return checks.iso_dates([size], "date_from", "date_to")[0]


# ----- results -----------------------------------------------------------------------------------


def _results(store, filters: GameFilter) -> Results:
    return Results.from_row(fetch(store, sa.select(*count_columns(G.winner))
                                  .select_from(game_summary).where(*filters.where()))[0])


def results(store, *, filters: GameFilter = GameFilter()) -> dict:
    """Games, ``black_wins``, ``white_wins``, ``draws``, ``other`` (no result), ``decided`` and
    Black's score with its interval (``black_score``, ``ci_low``, ``ci_high``):
    ``Results.as_dict``."""
    return _results(store, filters).as_dict()


def results_by_year(store, *, filters: GameFilter = GameFilter()) -> list:
    """``results`` per year of the game's date (undated games are left out; no ``other``, but
    ``decided``: a year's score may stand on one game), oldest first."""
    year = sa.extract("year", G.date).label("year")
    rows = fetch(store, sa.select(year, *count_columns(G.winner))
                 .where(G.date.is_not(None), *filters.where()).group_by(year).order_by(year))
    return [{"year": int(r["year"]), **Results.from_row(r).as_dict(other=False)} for r in rows]


def results_by_reason(store, *, filters: GameFilter = GameFilter()) -> list:
    """Games by how they ended: dicts of ``reason`` (resign, checkmate, time, sennichite …),
    ``games``, ``black_wins``, ``white_wins``, ``draws``; most frequent first."""
    return fetch(store, sa.select(G.reason, *count_columns(G.winner))
                 .where(*filters.where()).group_by(G.reason)
                 .order_by(sa.desc("games"), G.reason))


def game_lengths(store, bucket: int = 10, *, filters: GameFilter = GameFilter()) -> list:
    """The distribution of game lengths (moves replayed): dicts of ``moves_from``,
    ``moves_to`` (inclusive) and ``games``, shortest first."""
    size = checks.at_least(bucket, "bucket", 1)
    start = (sa.func.floor(G.moves / sa.bindparam("bucket", size)) * size).label("moves_from")
    rows = fetch(store, sa.select(start, sa.func.count().label("games"))
                 .where(*filters.where()).group_by(start).order_by(start))
    return [{"moves_from": int(r["moves_from"]), "moves_to": int(r["moves_from"]) + size - 1,
             "games": r["games"]} for r in rows]


def games(store, limit: int = 20, offset: int = 0, *,
          filters: GameFilter = GameFilter()) -> list:
    """The games of ``filters`` (a reason, a winner, a length … narrow them), newest first
    (undated last, then the highest id), a page of ``limit`` from ``offset``: dicts of
    ``game``, ``black``, ``white``, ``date``, ``event``, ``winner``, ``reason``, ``handicap``
    and ``moves``."""
    return checks.iso_dates(fetch(store, _games(limit, offset, filters)), "date")


def games_table(store, limit: int = 20, offset: int = 0, *,
                filters: GameFilter = GameFilter()) -> pa.Table:
    """``games`` as an Arrow table, straight from DuckDB (dates as dates): the Python API's."""
    return fetch_arrow(store, _games(limit, offset, filters))


def _games(limit: int, offset: int, filters: GameFilter):
    return (sa.select(G.game, G.black, G.white, G.date, G.event, G.winner, G.reason,
                      G.handicap, G.moves).where(*filters.where())
            .order_by(G.date.desc().nulls_last(), G.game.desc())
            .limit(sa.bindparam("limit", checks.at_least(limit, "limit", 1)))
            .offset(sa.bindparam("offset", checks.at_least(offset, "offset", 0))))


# ----- castles and openings ----------------------------------------------------------------------


def _labelled(kind: str, primary_only: bool, filters: GameFilter) -> list:
    conditions = [L.kind == sa.bindparam("kind", checks.choice(kind, "kind", KINDS)),
                  *filters.where()]
    if primary_only:
        conditions.append(L.primary)
    return conditions


def _min_games(value: int):
    """``min_games`` (an integer of at least 1) as a bound value."""
    return sa.bindparam("min_games", checks.at_least(value, "min_games", 1))


def label_frequencies(store, kind: str = "castle", by_year: bool = False, min_games: int = 1,
                      primary_only: bool = False, *, filters: GameFilter = GameFilter()) -> list:
    """How often each side reached each label: dicts of ``side``, ``label``, ``games`` and
    ``share`` of ``scope_games`` (the games in scope, that year with ``by_year``, when ``year``
    is added and undated games are left out); ``primary_only`` counts only a side's main
    castle/opening."""
    conditions = _labelled(kind, primary_only, filters)
    groups = [L.side, L.label]
    totals_query = (sa.select(sa.func.count().label("games")).select_from(game_summary)
                    .where(*filters.where()))
    if by_year:
        year = sa.extract("year", G.date).label("year")
        groups.insert(0, year)
        conditions.append(G.date.is_not(None))
        totals_query = (sa.select(year, sa.func.count().label("games"))
                        .where(G.date.is_not(None), *filters.where()).group_by(year))
    count = sa.func.count(sa.distinct(L.game)).label("games")
    statement = (sa.select(*groups, count)
                 .join_from(label_summary, game_summary, G.game == L.game)
                 .where(*conditions).group_by(*groups)
                 .having(count >= _min_games(min_games))
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
        row["scope_games"] = total
    return rows


def win_rates(store, kind: str = "castle", min_games: int = 1, primary_only: bool = False, *,
              filters: GameFilter = GameFilter()) -> list:
    """How each label scores for the side that reached it: dicts of ``side``, ``label``,
    ``games``, ``wins``, ``losses``, ``draws``, ``score`` and its interval; most played first."""
    counts = count_columns(G.winner, L.side)
    rows = _labelled_fetch(store, sa.select(L.side, L.label, *counts)
                           .join_from(label_summary, game_summary, G.game == L.game)
                           .where(*_labelled(kind, primary_only, filters))
                           .group_by(L.side, L.label)
                           .having(counts[0] >= _min_games(min_games))
                           .order_by(sa.desc("games"), L.side, L.label))
    return [{"side": r["side"], "label": r["label"],
             **Results.from_row(r, r["side"]).side_dict(r["side"])} for r in rows]


def pairings(store, kind: str = "castle", against: Optional[str] = None, min_games: int = 1, *,
             filters: GameFilter = GameFilter()) -> list:
    """Black's main label against White's (``kind`` for Black, ``against``, default the same
    kind, for White: ``pairings(store, "castle", "opening")`` gives 居飛車穴熊 vs 四間飛車):
    dicts of ``black_label``, ``white_label``, ``games``, ``black_wins``, ``white_wins``,
    ``draws``, ``black_score`` and its interval; most played first."""
    black, white = label_summary.alias("b"), label_summary.alias("w")
    against = checks.choice(against or kind, "against", KINDS)
    counts = count_columns(G.winner)
    statement = (sa.select(black.c.label.label("black_label"), white.c.label.label("white_label"),
                           *counts)
                 .join_from(game_summary, black, sa.and_(
                     black.c.game == G.game, black.c.side == sa.literal("black"), black.c.primary,
                     black.c.kind == sa.bindparam("kind", checks.choice(kind, "kind", KINDS))))
                 .join(white, sa.and_(white.c.game == G.game, white.c.side == sa.literal("white"),
                                      white.c.primary,
                                      white.c.kind == sa.bindparam("against", against)))
                 .where(*filters.where())
                 .group_by(black.c.label, white.c.label)
                 .having(counts[0] >= _min_games(min_games))
                 .order_by(sa.desc("games"), black.c.label, white.c.label))
    return [{"black_label": r["black_label"], "white_label": r["white_label"],
             **Results.from_row(r).as_dict(other=False)}
            for r in _labelled_fetch(store, statement)]


def label_games(store, label: str, side: Optional[str] = None, limit: int = 20, *,
                filters: GameFilter = GameFilter()) -> list:
    """Example games for a label (its name or English name; an unknown one is a
    ``ValueError`` with the nearest, ``analytics.names``): the ``limit`` newest games in which
    a side reached it, a dict for each side that did (a game both sides reached gives two; a
    name that is a castle and an opening counts once): ``game``, ``side``, ``ply`` where it
    did first, ``black``, ``white``, ``date``, ``event``, ``winner``, ``reason``. ``limit``
    counts games, not rows."""
    conditions = [L.label == sa.bindparam("label", label_name(label, "label")),
                  *filters.where()]
    if side is not None:
        conditions.append(L.side == sa.bindparam("side", checks.choice(side, "side", SIDES)))
    reached = (sa.select(L.game, L.side, sa.func.min(L.ply).label("ply"))
               .join_from(label_summary, game_summary, G.game == L.game).where(*conditions)
               .group_by(L.game, L.side).subquery("reached"))
    page = (sa.select(reached.c.game).join_from(reached, game_summary, G.game == reached.c.game)
            .group_by(reached.c.game, G.date)
            .order_by(G.date.desc().nulls_last(), reached.c.game)
            .limit(sa.bindparam("limit", checks.at_least(limit, "limit", 1))))
    statement = (sa.select(reached.c.game, reached.c.side, reached.c.ply, G.black, G.white,
                           G.date, G.event, G.winner, G.reason)
                 .join_from(reached, game_summary, G.game == reached.c.game)
                 .where(reached.c.game.in_(page))
                 .order_by(G.date.desc().nulls_last(), reached.c.game, reached.c.side))
    return checks.iso_dates(_labelled_fetch(store, statement), "date")


@functools.cache
def label_names() -> dict:
    """Each castle's and opening's English name, by its name (``labels/labels.toml``; a label
    without one is left out)."""
    return {name: info.english for name, info in definitions().info.items() if info.english}


def game_labels(store, game: int) -> list:
    """The labels of one game: dicts of ``side``, ``kind``, ``label``, ``ply``, ``primary``,
    in the order they were reached."""
    return _labelled_fetch(store, sa.select(L.side, L.kind, L.label, L.ply, L.primary)
                           .where(L.game == sa.bindparam("game", checks.game_id(game)))
                           .order_by(L.ply, L.side, L.kind, L.label))


# ----- players -----------------------------------------------------------------------------------

#: A player's games are counted from the player's seat, whichever colour it was
#: (``count_columns(winner, seat)``); their ``Results`` keep the player's wins on this side.
_PLAYER = "black"


def _player_record(row: dict) -> dict:
    """``games``, ``wins``, ``losses``, ``draws``, ``score`` and its interval of a row of
    ``count_columns(seat.c.winner, seat.c.side)``."""
    return Results.from_row(row, _PLAYER).side_dict(_PLAYER)


def _player_sides(filters: GameFilter):
    """One row per (game, player, side): the games as each player saw them, the players by
    their canonical names (``labels.players``; ``spelling``: as the record wrote it)."""
    sides = []
    for side, name, written, other in (("black", G.black_player, G.black, G.white_player),
                                       ("white", G.white_player, G.white, G.black_player)):
        sides.append(sa.select(G.game, name.label("player"), written.label("spelling"),
                               other.label("opponent"),
                               sa.literal(side).label("side"), G.winner, G.date, G.event,
                               G.reason, G.moves)
                     .where(name.is_not(None), *filters.where()))
    return sa.union_all(*sides).subquery("seat")


def _is_player(seat, parameter: str, name: str):
    """The seats of the player ``name``: its canonical name (``labels.players``, on the
    games' dates) or the name exactly as written."""
    given = checks.name(name, parameter)
    known = player_name(given)
    return sa.or_(seat.c.player == sa.bindparam(f"{parameter}_name", known.name),
                  seat.c.spelling == sa.bindparam(f"{parameter}_written", given))


def players(store, min_games: int = 1, limit: Optional[int] = None, *,
            filters: GameFilter = GameFilter()) -> list:
    """Every player by canonical name (``labels.players``): ``player`` and ``name`` (the
    same), ``spellings`` (the names as written, most used first), ``games``, ``wins``,
    ``losses``, ``draws`` and ``score`` (with its interval), most games first."""
    seat = _player_sides(filters)
    counts = count_columns(seat.c.winner, seat.c.side)
    statement = (sa.select(seat.c.player, *counts).group_by(seat.c.player)
                 .having(counts[0] >= _min_games(min_games))
                 .order_by(sa.desc("games"), seat.c.player))
    if limit is not None:
        statement = statement.limit(sa.bindparam("limit", checks.at_least(limit, "limit", 1)))
    listed = fetch(store, statement)
    spellings: dict = {}
    if listed:
        chosen = sa.select(statement.subquery().c.player).scalar_subquery()
        used = sa.func.count().label("games")
        for r in fetch(store, sa.select(seat.c.player, seat.c.spelling, used)
                       .where(seat.c.player.in_(chosen))
                       .group_by(seat.c.player, seat.c.spelling)
                       .order_by(seat.c.player, sa.desc("games"), seat.c.spelling)):
            spellings.setdefault(r["player"], []).append(r["spelling"])
    return [{"player": r["player"], "name": r["player"], "spellings": spellings[r["player"]],
             **_player_record(r)} for r in listed]


def player_summary(store, player: str, *, filters: GameFilter = GameFilter()) -> Optional[dict]:
    """One player (by canonical name or any spelling of it, ``labels.players``; or a name
    exactly as written) in the games of ``filters`` (whose ``player``, a part of either name,
    is another matter): ``player`` (canonical), ``games``, ``spellings`` (as written, most
    used first), ``as_black`` and ``as_white`` (games,
    wins, losses, draws, score, interval), favourite ``openings`` and ``castles`` (label, games,
    wins, losses, draws, score), ``opponents`` (head-to-head: opponent, games, wins, losses,
    draws, score) and ``recent_games``; None if no game in scope has the player."""
    seat = _player_sides(filters)
    counts = count_columns(seat.c.winner, seat.c.side)
    mine = _is_player(seat, "player", player)
    by_side = {r["side"]: Results.from_row(r, r["side"]) for r in fetch(
        store, sa.select(seat.c.side, *counts).where(mine).group_by(seat.c.side))}
    if not by_side:
        return None
    names = fetch(store, sa.select(seat.c.player, seat.c.spelling, sa.func.count().label("n"))
                  .where(mine).group_by(seat.c.player, seat.c.spelling)
                  .order_by(sa.desc("n"), seat.c.player, seat.c.spelling))
    summary = {"player": names[0]["player"], "games": sum(r.games for r in by_side.values()),
               "spellings": list(dict.fromkeys(r["spelling"] for r in names))}
    for side in SIDES:
        summary[f"as_{side}"] = by_side.get(side, Results()).side_dict(side)
    for kind in KINDS:
        labelled = (sa.select(L.label, *counts)
                    .join_from(seat, label_summary, sa.and_(L.game == seat.c.game,
                                                            L.side == seat.c.side))
                    .where(mine, L.kind == sa.literal(kind), L.primary)
                    .group_by(L.label).order_by(sa.desc("games"), L.label))
        summary[f"{kind}s"] = [{"label": r["label"], **_player_record(r)}
                               for r in _labelled_fetch(store, labelled)]
    opponents = (sa.select(seat.c.opponent, *counts)
                 .where(mine, seat.c.opponent.is_not(None)).group_by(seat.c.opponent)
                 .order_by(sa.desc("games"), seat.c.opponent))
    summary["opponents"] = [{"opponent": r["opponent"], **_player_record(r)}
                            for r in fetch(store, opponents)]
    recent = (sa.select(seat.c.game, seat.c.side, seat.c.opponent, seat.c.winner, seat.c.reason,
                        seat.c.date, seat.c.event, seat.c.moves).where(mine)
              .order_by(seat.c.date.desc().nulls_last(), seat.c.game.desc()).limit(20))
    summary["recent_games"] = checks.iso_dates(fetch(store, recent), "date")
    return summary


def head_to_head(store, player: str, opponent: str, *,
                 filters: GameFilter = GameFilter()) -> dict:
    """The games between two players (canonical names or spellings): ``games`` (list, newest first), and
    ``wins``, ``losses``, ``draws`` and ``score`` from ``player``'s side."""
    seat = _player_sides(filters)
    other = seat.c.opponent == sa.bindparam("opponent_name",
                                            player_name(checks.name(opponent, "opponent")).name)
    between = (_is_player(seat, "player", player), other)
    rows = fetch(store, sa.select(seat.c.game, seat.c.side, seat.c.winner, seat.c.reason,
                                  seat.c.date, seat.c.event, seat.c.moves).where(*between)
                 .order_by(seat.c.date.desc().nulls_last(), seat.c.game.desc()))
    record = fetch(store, sa.select(*count_columns(seat.c.winner, seat.c.side))
                   .where(*between))[0]
    # "games" keeps its place in the dict and holds the games themselves
    return {"player": player, "opponent": opponent, **_player_record(record),
            "games": checks.iso_dates(rows, "date")}


# ----- validation findings ----------------------------------------------------------------------


def finding_counts(store, by: str = "code", severity: Optional[str] = None,
                   code: Optional[str] = None, path: Optional[str] = None) -> list:
    """Findings (of ``severity``, of ``code``, of the files whose path holds ``path``: None,
    all — as ``findings`` chooses them) counted by ``code`` or by ``path`` (and severity):
    dicts of that column, ``severity`` and ``count``, most frequent first."""
    f = views.findings.c
    column = f[checks.choice(by, "by", ("code", "path"))]
    return fetch(store, sa.select(column, f.severity, sa.func.count().label("count"))
                 .where(*_finding_conditions(code, severity, path)).group_by(column, f.severity)
                 .order_by(sa.desc("count"), column, f.severity))


def findings(store, code: Optional[str] = None, severity: Optional[str] = None,
             path: Optional[str] = None, limit: int = 100, offset: int = 0) -> list:
    """The findings themselves (``path`` is a part of the file's path), by file, line and ply:
    dicts of ``game``, ``path``, ``index``, ``severity``, ``code``, ``line``, ``ply``, ``text``,
    ``message``."""
    f = views.findings.c
    return fetch(store, sa.select(f.game, f.path, f["index"], f.severity, f.code, f.line, f.ply,
                                  f.text, f.message).where(*_finding_conditions(code, severity,
                                                                                path))
                 .order_by(f.path, f["index"].nulls_first(), f.line.nulls_first(), f.ply, f.code)
                 .limit(sa.bindparam("limit", checks.at_least(limit, "limit", 1)))
                 .offset(sa.bindparam("offset", checks.at_least(offset, "offset", 0))))


def _finding_conditions(code: Optional[str], severity: Optional[str],
                        path: Optional[str]) -> list:
    """The conditions that choose the findings, the same for the counts and for the list."""
    f = views.findings.c
    conditions = []
    if code is not None:
        conditions.append(f.code == sa.bindparam("code", checks.name(code, "code")))
    if severity is not None:
        conditions.append(f.severity == sa.bindparam(
            "severity", checks.choice(severity, "severity", _SEVERITIES)))
    if path is not None:
        conditions.append(sa.func.contains(f.path, sa.bindparam("path",
                                                               checks.name(path, "path"))))
    return conditions
