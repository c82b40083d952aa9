"""What the store answers: position search, the opening explorer, a game's headers and moves,
over the store's views (``store.engine``).

Queries are SQLAlchemy Core statements over ``Table`` objects that describe the store's views
(``games``, ``sources``, ``moves``, ``positions``; see ``store.schema``); every value is a
bound parameter, and no SQL is built from user text. They run on DuckDB through duckdb-engine::

    >>> import tempfile
    >>> from kifudb.store.writer import ingest_paths
    >>> from kifudb.analytics.position_input import position_from_moves
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["data/samples/games.usi"], folder)
    >>> hits = search(folder, position_from_moves("7g7f 3c3d 2g2f"))
    >>> sorted({(h["game"], h["ply"]) for h in hits})[:2]
    [(1, 3), (2, 3)]
    >>> [(m["move"], m["ki2"], m["count"]) for m in explore(folder, position_from_moves(""))][:2]
    [('7g7f', '▲７六歩', 8), ('2g2f', '▲２六歩', 2)]
    >>> explore(folder, "startpos", filters=GameFilter(player="nobody at all"))
    []
    >>> import shutil; shutil.rmtree(folder)

Latency: the positions of every batch are sorted by key with min/max statistics, so a key
lookup reads one row group of each batch. A query about a position reads its rows as
``store.engine.hits``, looked up first (``fetch(..., keys=hit_keys(position))``), so that
DuckDB joins them knowing how few they are. What a result shows of a
game comes from ``game_summary``, a table (one row per game of the ``games`` view, with its
first source path) that the engine builds once per manifest, on disk: evaluating the ``games``
view (a semi-join on ``sources``, itself filtered by ``retired``) costs more than the key
lookup, on every query (see ``store.engine``).
"""

from __future__ import annotations

import functools
import json
from typing import NamedTuple, Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import sqlalchemy as sa

from kifudb.analytics import checks
from kifudb.analytics.filters import GameFilter
from kifudb.analytics.results import Results, count_columns
from kifudb.core.move import MOVE_CODES, code_move, code_usi
from kifudb.core.notation import ki2_move, kif_move
from kifudb.core.position import Position
from kifudb.store.engine import (fetch, fetch_arrow, fold_shown_hits, game_rows, game_summary,
                                 games, hits, moves, sources)
from kifudb.store.folder import POSITIONS_ROW_GROUP
from kifudb.store.lookup import HITS_SCHEMA
from kifudb.store.schema import EVALUATION as EVALUATION_COLUMNS

__all__ = ["search", "search_table", "unfiltered_search", "occurrences", "explore", "game_info",
           "game_moves", "game_variations", "position_key", "SEARCH_HIT"]

#: The fields of a hit of position search (``search``), in this order.
SEARCH_HIT = ("game", "ply", "black", "white", "date", "event", "winner", "reason", "handicap",
              "path", "next_move", "mirrored")
#: the fields of a hit that come from the position's rows (``hits``), not from the game
_FROM_HITS = ("game", "ply", "next_move", "mirrored")

_usi = functools.lru_cache(maxsize=None)(code_usi)  # move codes are few (under 14,000)
#: the keys of a move's evaluation (``store.schema``'s evaluation columns)
EVALUATION = tuple(name for name, _ in EVALUATION_COLUMNS)


# ----- position search -----------------------------------------------------------------------


def position_key(position) -> int:
    """The unsigned 64-bit key of a ``Position`` (or of an SFEN), or a key given as an int (a
    negative int is read as the signed form of the same 64 bits).

    >>> hex(position_key(Position())), hex(position_key("startpos")), hex(position_key(-1))
    ('0x5a2210b47d303402', '0x5a2210b47d303402', '0xffffffffffffffff')
    """
    position = _given(position)
    if isinstance(position, Position):
        return position.key()
    if isinstance(position, int) and not isinstance(position, bool):
        if 0 <= position < 1 << 64:
            return position
        if -(1 << 63) <= position < 0:
            return position + (1 << 64)
        raise ValueError(f"a position key has 64 bits: {position} is out of range")
    raise ValueError(f"expected a Position or a 64-bit key, not {type(position).__name__}")


def _given(position):
    """A position given as SFEN text (what the dashboard caches on) as a ``Position``; a
    ``Position`` or a key as it is."""
    return Position.from_sfen(position) if isinstance(position, str) else position


def search(store, position, mirror: bool = False, limit: Optional[int] = None,
           offset: int = 0, one_per_game: bool = False, *,
           filters: GameFilter = GameFilter()) -> list:
    """Every game and ply where ``position`` (a ``Position``, an SFEN or a key) occurred, as
    dicts:
    ``game``, ``ply``, ``black``, ``white``, ``date`` (ISO), ``event``, ``winner``, ``reason``,
    ``handicap``, ``path`` (one source file, the first by name), ``next_move`` (USI, None at
    the end) and ``mirrored``. A position repeated in a game gives one row per occurrence, or
    with ``one_per_game`` only its first (the game listed once).

    ``mirror=True`` (a ``Position`` or an SFEN only) adds the games that reached its left-right
    mirror image, with ``mirrored`` True (a symmetric position is its own mirror and is found
    once).
    Only games the ``games`` view shows count, and of those the games of ``filters``
    (``analytics.filters.GameFilter``; a rating band on the mover is on the side to move in
    the position). Ordered by date (newest first, undated last),
    game and ply; ``offset`` skips that many rows and ``limit`` keeps the next ones (a page;
    ``occurrences`` counts them all).
    """
    return checks.iso_dates(search_table(store, position, mirror, limit, offset, one_per_game,
                                         filters=filters).to_pylist(), "date")


def search_table(store, position, mirror: bool = False, limit: Optional[int] = None,
                 offset: int = 0, one_per_game: bool = False, *,
                 filters: GameFilter = GameFilter()) -> pa.Table:
    """``search`` as an Arrow table (dates as dates), as DuckDB or the Arrow join made it
    (``unfiltered_search`` without filters): the Python API's."""
    if not filters:
        return unfiltered_search(store, position, mirror, one_per_game, offset, limit).page()
    statement = search_statement(position, limit=limit, offset=offset,
                                 one_per_game=one_per_game, filters=filters)
    return with_usi(fetch_arrow(store, statement, keys=hit_keys(position, mirror)))


def with_usi(rows: pa.Table) -> pa.Table:
    """A search's rows with ``next_move`` (a move code) as USI text and ``mirrored`` a bool."""
    codes = rows.column("next_move")
    texts = pc.take(_usi_texts(), codes.cast(pa.int32()))
    rows = rows.set_column(rows.column_names.index("next_move"), "next_move", texts)
    return rows.set_column(rows.column_names.index("mirrored"), "mirrored",
                           rows.column("mirrored").cast(pa.bool_()))


@functools.lru_cache(maxsize=1)
def _usi_texts() -> pa.Array:
    """The USI text of every move code (``core.move.move_code``), by code."""
    return pa.array([_usi(code) for code in range(MOVE_CODES)], pa.string())


class Found(NamedTuple):
    """An unfiltered search's answer: the rows of its page in ``search``'s order (``hits``'
    columns and the game's date), the counts ``occurrences`` says, and the store, of which
    the page reads the summaries of its games alone (``store.engine.game_rows``)."""

    rows: pa.Table
    occurrences: int
    games: int
    store: object

    def page(self) -> pa.Table:
        """``search_table``'s rows of the page."""
        shown = game_rows(self.store, self.rows.column("game"))
        return with_usi(pa.table({name: (self.rows if name in _FROM_HITS else shown).column(name)
                                  for name in SEARCH_HIT}))

    def counts(self) -> dict:
        return {"occurrences": self.occurrences, "games": self.games}


def unfiltered_search(store, position, mirror: bool = False, one_per_game: bool = False,
                      offset: int = 0, limit: Optional[int] = None) -> Found:
    """``search`` and ``occurrences`` for every game the store shows, without a query of the
    positions: the position's rows looked up a row group at a time
    (``store.engine.fold_shown_hits``), every one counted, and the first ``offset + limit`` in
    the order of ``search_statement`` kept as they come (``_newest``: the tests hold the two
    to the same answers), so that a search of the start position holds its page, not every
    game; the page (from ``offset``) reads its games' summaries (``Found.page``)."""
    offset = checks.at_least(offset, "offset", 0)
    keep = None if limit is None else offset + checks.at_least(limit, "limit", 1)
    rows, occurrences, games = fold_shown_hits(
        store, hit_keys(position, mirror),
        functools.partial(_newest, keep=keep, one_per_game=one_per_game))
    return Found(rows.slice(offset), occurrences, games, store)


#: the columns a search keeps of a position's rows as they come (``_newest``)
_KEPT = pa.schema([*(HITS_SCHEMA.field(name) for name in _FROM_HITS), ("date", pa.date32())])
#: ``search``'s order: newest first, undated last, then by game, ply, and not mirrored first
_ORDER = [("date", "descending", "at_end"), ("game", "ascending", "at_end"),
          ("ply", "ascending", "at_end"), ("mirrored", "ascending", "at_end")]


def _newest(chunks, keep: Optional[int], one_per_game: bool) -> tuple:
    """``(rows, occurrences, games)`` of a search's ``chunks`` (``(hits, dates)`` pairs, see
    ``store.engine.fold_shown_hits``): its first ``keep`` rows in ``_ORDER`` (all of them if
    ``keep`` is None; with ``one_per_game``, each game's first), every row counted, and the
    games (a bit a game id). Rows older than the last of ``keep`` rows held are not kept."""
    occurrences, seen, held, rows_held, floor = 0, np.zeros(0, np.uint8), [], 0, None
    for hits, dates in chunks:
        if not hits.num_rows:
            continue
        occurrences += hits.num_rows
        seen = _mark(seen, hits.column("game").to_numpy())
        rows = hits.select(list(_FROM_HITS)).append_column("date", dates)
        if floor is not None:  # nulls (undated) go after every date: dropped too
            rows = rows.filter(pc.greater_equal(rows.column("date"), floor))
        held.append(rows)
        rows_held += rows.num_rows
        if keep is not None and rows_held > 2 * keep + POSITIONS_ROW_GROUP:
            held = [_ordered(pa.concat_tables(held), one_per_game).slice(0, keep)]
            rows_held = held[0].num_rows
            last = held[0].column("date")[keep - 1] if rows_held == keep else None
            floor = last if last is not None and last.is_valid else None
    rows = _ordered(pa.concat_tables(held) if held else _KEPT.empty_table(), one_per_game)
    return (rows if keep is None else rows.slice(0, keep)), occurrences, int(
        np.bitwise_count(seen).sum())


def _ordered(rows: pa.Table, one_per_game: bool) -> pa.Table:
    """``rows`` in ``_ORDER``; with ``one_per_game``, each game's first row alone (a game's
    rows are together: they share its date)."""
    rows = rows.take(pc.sort_indices(rows, _ORDER))
    if one_per_game and rows.num_rows:
        ids = rows.column("game").to_numpy()
        rows = rows.filter(pa.array(np.r_[True, ids[1:] != ids[:-1]]))
    return rows


def _mark(seen: np.ndarray, games: np.ndarray) -> np.ndarray:
    """``seen`` (a bit a game id), grown as needed, with the bits of ``games`` set."""
    top = int(games.max()) >> 3
    if top >= len(seen):
        seen = np.concatenate([seen, np.zeros(max(top + 1, 2 * len(seen)) - len(seen),
                                              np.uint8)])
    np.bitwise_or.at(seen, games >> 3, np.left_shift(1, games & 7).astype(np.uint8))
    return seen


def search_statement(position, *, limit: Optional[int] = None, offset: int = 0,
                     one_per_game: bool = False, filters: GameFilter = GameFilter()):
    """The statement of ``search`` (over ``hits``: run with ``keys=hit_keys(position, …)``)."""
    rows = hits
    if one_per_game:
        nth = sa.func.row_number().over(partition_by=hits.c.game,
                                        order_by=(hits.c.ply, hits.c.mirrored))
        ranked = sa.select(hits, nth.label("nth")).subquery("ranked")
        rows = (sa.select(ranked.c.game, ranked.c.ply, ranked.c.next_move, ranked.c.mirrored,
                          ranked.c.black_to_move)
                .where(ranked.c.nth == sa.bindparam("first", 1)).subquery("first_hits"))
    g = game_summary.c
    statement = (sa.select(*((rows.c if name in _FROM_HITS else g)[name] for name in SEARCH_HIT))
                 .join_from(rows, game_summary, g.game == rows.c.game)
                 .where(*filters.where(_mover_rating(position)))
                 .order_by(g.date.desc().nulls_last(), rows.c.game, rows.c.ply))
    if limit is not None:
        statement = statement.limit(sa.bindparam("limit", checks.at_least(limit, "limit", 1)))
    if offset:
        statement = statement.offset(sa.bindparam("offset",
                                                  checks.at_least(offset, "offset", 0)))
    return statement


def occurrences(store, position, mirror: bool = False, *,
                filters: GameFilter = GameFilter()) -> dict:
    """``{"occurrences", "games"}``: how many rows ``search`` gives for ``position`` (with
    ``mirror``, its mirror image too) and in how many games, without fetching them (in the
    games of ``filters``, as ``search``)."""
    if not filters:
        return unfiltered_search(store, position, mirror, limit=1).counts()
    return fetch(store, occurrences_statement(position, filters=filters),
                 keys=hit_keys(position, mirror))[0]


def occurrences_statement(position, *, filters: GameFilter = GameFilter()):
    """The statement of ``occurrences`` (over ``hits``, as ``search_statement``)."""
    return (sa.select(sa.func.count().label("occurrences"),
                      sa.func.count(sa.distinct(hits.c.game)).label("games"))
            .select_from(hits.join(game_summary, game_summary.c.game == hits.c.game))
            .where(*filters.where(_mover_rating(position))))


def _mover_rating(position):
    """The rating column of the side to move in ``position`` (an SFEN or a ``Position``; None
    for a bare key): where a rating band on the mover is (``GameFilter.rating_of``)."""
    position = _given(position)
    if not isinstance(position, Position):
        return None
    g = game_summary.c
    return g.black_rating if position.sfen().split()[1] == "b" else g.white_rating


def hit_keys(position, mirror: bool = False) -> dict:
    """The keys whose positions rows a query on ``position`` reads as ``store.engine.hits``:
    ``{key: mirrored}``, with ``mirror`` also its left-right mirror image's (once, for a
    symmetric position).

    >>> hit_keys(Position()) == {Position().key(): False}
    True
    """
    position = _given(position)
    keys = {position_key(position): False}
    if mirror:
        if not isinstance(position, Position):
            raise ValueError("mirror search needs a Position or an SFEN, not a bare key")
        keys.setdefault(position.mirror().key(), True)
    return keys


# ----- the opening explorer --------------------------------------------------------------------


def explore(store, position, *, filters: GameFilter = GameFilter(), min_count: int = 1) -> list:
    """The moves played next in ``position`` (a ``Position``, an SFEN or a key), most played
    first, in the games of ``filters`` (see ``analytics.filters.GameFilter``).

    Each move is a dict: ``move`` (USI), ``kif`` and ``ki2`` (its text in the position; None
    for a bare key), ``count``, ``black_wins``, ``white_wins``, ``draws``, ``other`` (no result
    or an unknown one: an abort, a record that stops), ``latest_date`` (ISO, None if no game
    is dated) and ``average_rating`` (of the players who chose the move, over the games that
    rate them: shogi-server's rate lines; None when none does), ``black_score`` with its 95%
    interval (``ci_low``, ``ci_high``; ``analytics.results``) and ``performance`` (the
    mover's linear performance rating over the decided games against a rated opponent; None
    without one). Every move is listed (no top-N cut).

    Counts are **games**: a game that reached the position several times (a repetition) counts
    once for each distinct move it played there, as the lichess explorer counts games. Games
    that end in the position are not listed. ``min_count`` drops moves played in fewer games.
    """
    position = _given(position)
    g = game_summary.c
    # the rating of the player who chose the move: the side to move in the position
    mover_rating = sa.case((hits.c.black_to_move, g.black_rating), else_=g.white_rating)
    # for the mover's performance: the opponent's rating and the mover's points (null undecided)
    opponent_rating = sa.case((hits.c.black_to_move, g.white_rating), else_=g.black_rating)
    points = sa.case((g.winner == sa.literal("draw"), sa.literal(0.5)),
                     (g.winner == sa.case((hits.c.black_to_move, sa.literal("black")),
                                          else_=sa.literal("white")), sa.literal(1.0)),
                     (g.winner.in_(("black", "white")), sa.literal(0.0)))
    per_game = (sa.select(hits.c.next_move, hits.c.game, g.winner, g.date,
                          mover_rating.label("rating"), opponent_rating.label("opponent_rating"),
                          points.label("points"))
                .join_from(hits, game_summary, g.game == hits.c.game)
                .where(hits.c.next_move.is_not(None), *filters.where(mover_rating))
                .distinct()
                .subquery("per_game"))
    counts = count_columns(per_game.c.winner)
    statement = (sa.select(per_game.c.next_move, *counts,
                           sa.func.max(per_game.c.date).label("latest_date"),
                           sa.func.avg(per_game.c.rating).label("average_rating"),
                           *_performance_columns(per_game))
                 .group_by(per_game.c.next_move)
                 .having(counts[0] >= sa.bindparam("min_count",
                                                   checks.at_least(min_count, "min_count", 1)))
                 .order_by(sa.desc("games"), per_game.c.next_move))
    result = []
    for row in fetch(store, statement, keys=hit_keys(position)):
        move = code_move(row["next_move"])
        kif = ki2 = None
        if isinstance(position, Position) and position.illegality(move) is None:
            kif, ki2 = kif_move(position, move), ki2_move(position, move)
        played = Results.from_row(row)
        result.append({"move": move.usi(), "kif": kif, "ki2": ki2, "count": played.games,
                       "black_wins": played.black, "white_wins": played.white,
                       "draws": played.draws, "other": played.other,
                       "latest_date": checks.iso(row["latest_date"]),
                       "average_rating": (None if row["average_rating"] is None
                                          else round(row["average_rating"], 1)),
                       **{k: played.as_dict()[k] for k in ("black_score", "ci_low", "ci_high")},
                       "performance": _performance(row)})
    return result


def _performance_columns(per_game) -> list:
    """The aggregates a move's performance stands on: its decided games against a rated
    opponent (``rated_games``), their average opponent rating and the mover's points."""
    rated = sa.and_(per_game.c.opponent_rating.is_not(None), per_game.c.points.is_not(None))
    return [sa.func.count().filter(rated).label("rated_games"),
            sa.func.avg(per_game.c.opponent_rating).filter(rated).label("opponent_average"),
            sa.func.sum(per_game.c.points).filter(rated).label("rated_points")]


def _performance(row: dict):
    """The mover's linear performance rating over the move's decided games against a rated
    opponent: their average rating + 400 × (wins − losses) / games; None without such games.

    >>> _performance({"rated_games": 4, "opponent_average": 3000.0, "rated_points": 3.0})
    3200.0
    >>> _performance({"rated_games": 0, "opponent_average": None, "rated_points": None})
    """
    games = row["rated_games"]
    if not games:
        return None
    return round(row["opponent_average"] + 400 * (2 * row["rated_points"] - games) / games, 1)


# ----- one game --------------------------------------------------------------------------------


def game_info(store, game_id: int) -> Optional[dict]:
    """The ``games`` row of a game as a dict (``headers`` and ``provenance`` — which source
    gave each field — parsed from JSON, ``date`` and ``end_date`` ISO) with ``sources``
    (path, index, format, encoding of each file it was read from; a KIF, KI2 or CSA file
    first, then by path); None if the store shows no such game."""
    game_id = checks.game_id(game_id)
    found = fetch(store, sa.select(games).where(games.c.game == sa.bindparam("game", game_id)))
    if not found:
        return None
    info = checks.iso_dates(found, "date", "end_date")[0]
    if info["headers"]:
        info["headers"] = json.loads(info["headers"])
    # which source gave each field ({"date": {"path", "index"}, …}; None: stored before)
    info["provenance"] = json.loads(info["provenance"]) if info.get("provenance") else None
    info["sources"] = sorted(
        fetch(store, sa.select(sources.c.path, sources.c.index, sources.c.format,
                               sources.c.encoding)
              .where(sources.c.game == sa.bindparam("game", game_id))
              .order_by(sources.c.path, sources.c.index)),
        key=lambda source: _SHOWN_FIRST.get(source["format"], len(_SHOWN_FIRST)))
    return info


#: The record formats whose file is shown first among a game's sources: those people read
#: (a game read from KIF and JKF files is shown as its KIF file); the sort keeps the path order
#: within a format.
_SHOWN_FIRST = {"kif": 0, "kifu": 0, "ki2": 1, "csa": 2, "csa1": 3, "jkf": 4, "usi": 5}


def game_moves(store, game_id: int) -> list:
    """The main-line moves of a game, in order: dicts of ``ply``, ``usi`` (None from the first
    move that could not be replayed on), ``text`` as written, ``seconds``, ``comment`` and
    ``evaluation`` (``EVALUATION`` keys: ``score``, ``score_black``, ``mate``, ``depth``,
    ``nodes``, ``pv``, ``engine``, ``dialect``; None for a move without one)."""
    game_id = checks.game_id(game_id)
    statement = (sa.select(moves.c.ply, moves.c.usi, moves.c.text, moves.c.seconds,
                           moves.c.comment, *(moves.c[name] for name in EVALUATION))
                 .where(moves.c.game == sa.bindparam("game", game_id), moves.c.line == 0)
                 .order_by(moves.c.ply))
    rows = fetch(store, statement)
    for row in rows:
        evaluation = {name: row.pop(name) for name in EVALUATION}
        row["evaluation"] = evaluation if evaluation["dialect"] is not None else None
    return rows


def game_variations(store, game_id: int) -> list:
    """The moves of a game's variations, by variation and ply: dicts of ``line`` (the
    variation's number, from 1), ``parent`` (the line it branches from, 0 for the main line),
    ``ply``, ``usi`` (None from its first move that could not be replayed), ``text`` as
    written, ``seconds`` and ``comment``."""
    game_id = checks.game_id(game_id)
    statement = (sa.select(moves.c.line, moves.c.parent, moves.c.ply, moves.c.usi, moves.c.text,
                           moves.c.seconds, moves.c.comment)
                 .where(moves.c.game == sa.bindparam("game", game_id), moves.c.line > 0)
                 .order_by(moves.c.line, moves.c.ply))
    return fetch(store, statement)
