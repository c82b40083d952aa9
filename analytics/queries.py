"""What the store answers: position search, the opening explorer, a game's headers and moves,
and read-only SQL for analysts.

Queries are SQLAlchemy Core statements over ``Table`` objects that describe the store's views
(``games``, ``sources``, ``moves``, ``positions``; see ``analytics.schema``); every value is a
bound parameter, and no SQL is built from user text. They run on DuckDB through duckdb-engine::

    >>> import tempfile
    >>> from ingest.store_writer import ingest_paths
    >>> from analytics.position_input import position_from_moves
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["data/samples/games.usi"], folder)
    >>> hits = search(folder, position_from_moves("7g7f 3c3d 2g2f"))
    >>> sorted({(h["game"], h["ply"]) for h in hits})[:2]
    [(1, 3), (2, 3)]
    >>> [(m["move"], m["ki2"], m["count"]) for m in explore(folder, position_from_moves(""))][:2]
    [('7g7f', '▲７六歩', 8), ('2g2f', '▲２六歩', 2)]
    >>> run_sql(folder, "SELECT count(*) AS games FROM games").rows
    [(13,)]
    >>> import shutil; shutil.rmtree(folder)

The engine: each store gets one in-memory DuckDB database holding the views
(``Store.connect()``); SQLAlchemy's pool hands out ``cursor()`` duplicates of that connection
(each its own session on the same database, so threads do not share a connection). The engine
is cached per store and rebuilt when ``manifest.json`` changes (a new inode, size or mtime), so
queries see new commits. ``run_sql`` uses a second database per store that may read only the
store's Parquet files (``allowed_paths`` plus ``enable_external_access=false``, configuration
locked) and accepts one read-only statement.

Latency: the positions Parquet is sorted by key with min/max statistics, so the key filter,
kept as the only predicate of the innermost ``SELECT`` (no join or function around the
column), is pushed into the Parquet scan and reads one row group. What a result shows of a
game comes from ``game_summary``, an in-memory table (one row per game of the ``games`` view,
with its first source path) that the engine builds once per manifest: evaluating the ``games``
view (a semi-join on ``sources``, itself filtered by ``retired``) costs more than the key
lookup, on every query. It takes about 100 bytes a game in memory (10.6 MB for 100,000
synthetic games) and 0.2 s per 100,000 games to build.
"""

from __future__ import annotations

import datetime
import functools
import json
import os
import threading
from typing import NamedTuple, Optional

import duckdb
import sqlalchemy as sa
from duckdb_engine import ConnectionWrapper
from duckdb_engine.datatypes import UBigInteger
from sqlalchemy.pool import QueuePool

from analytics.schema import TABLES, code_move, code_usi
from analytics.store import Store
from core.notation import ki2_move, kif_move
from core.position import Position

__all__ = ["search", "occurrences", "explore", "game_info", "game_moves", "game_variations",
           "run_sql", "check_sql", "SqlResult", "SqlError", "engine", "position_key", "metadata",
           "games", "sources", "moves", "positions", "findings", "files", "game_summary",
           "label_summary", "game_filters", "fetch"]

# ----- the views, as SQLAlchemy tables ----------------------------------------------------------


def _sa_type(arrow_type):
    import pyarrow as pa

    if pa.types.is_list(arrow_type):
        return sa.ARRAY(_sa_type(arrow_type.value_type))
    return {pa.int16(): sa.SmallInteger, pa.int32(): sa.Integer, pa.int64(): sa.BigInteger,
            pa.uint64(): UBigInteger, pa.float32(): sa.Float, pa.bool_(): sa.Boolean,
            pa.date32(): sa.Date, pa.string(): sa.String}[arrow_type]


metadata = sa.MetaData()
_TABLES = {name: sa.Table(name, metadata, *(sa.Column(f.name, _sa_type(f.type)) for f in schema))
           for name, schema in TABLES.items()}
games, sources, moves, positions, findings, files = (
    _TABLES[n] for n in ("games", "sources", "moves", "positions", "findings", "files"))

#: What search and explore show of a game, one row per game of the ``games`` view: an
#: in-memory table of the engine's database, built when the engine is (see ``engine``).
game_summary = sa.Table("game_summary", metadata, sa.Column("game", sa.Integer),
                        *(sa.Column(c.name, c.type) for c in games.c
                          if c.name in ("black", "white", "date", "event", "handicap", "winner",
                                        "reason", "moves", "valid")),
                        sa.Column("path", sa.String))

#: The labels of the games the store shows (the ``labels`` view), in memory like
#: ``game_summary`` but built on the first query that reads it (``fetch(..., labels=True)``):
#: the statistics read them on every query.
label_summary = sa.Table("label_summary", metadata,
                         *(sa.Column(c.name, c.type) for c in _TABLES["labels"].c
                           if c.name != "batch"))


def _summary_statement(dialect) -> str:
    first_path = (sa.select(sa.func.min(sources.c.path)).where(sources.c.game == games.c.game)
                  .scalar_subquery())
    select = (sa.select(*(games.c[c.name] for c in game_summary.c if c.name != "path"),
                        first_path.label("path"))
              .order_by(games.c.game))
    compiled = select.compile(dialect=dialect)
    assert not compiled.params, "the summary takes no values"
    return f"CREATE TABLE {game_summary.name} AS {compiled}"


def _label_statement(dialect) -> str:
    labels = _TABLES["labels"]
    select = sa.select(*(labels.c[c.name] for c in label_summary.c)).order_by(labels.c.game)
    return f"CREATE TABLE {label_summary.name} AS {select.compile(dialect=dialect)}"

# ----- the engine, per store and manifest -----------------------------------------------------


class _Handle(NamedTuple):
    stamp: object
    engine: sa.Engine
    database: duckdb.DuckDBPyConnection
    summaries: set  # the in-memory tables built on first use (``label_summary``)


_LOCK = threading.Lock()
_ENGINES: dict = {}        # store root -> _Handle, most recently built last
_SQL_DATABASES: dict = {}
_KEEP = 8                  # stores kept open per cache (a process rarely reads more)


def _remember(cache: dict, root, handle: _Handle) -> None:
    cache.pop(root, None)
    cache[root] = handle
    while len(cache) > _KEEP:
        cache.pop(next(iter(cache)))


def as_store(store) -> Store:
    """A ``Store`` from a ``Store`` or a folder path."""
    return store if isinstance(store, Store) else Store(store)


def _stamp(store: Store):
    try:
        st = os.stat(store.manifest_path)
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def engine(store) -> sa.Engine:
    """The SQLAlchemy engine over ``store``'s views (cached; rebuilt once the manifest changes)."""
    return _handle(as_store(store)).engine


def _handle(store: Store) -> _Handle:
    for attempt in range(3):
        stamp = _stamp(store)  # taken before the manifest is read: a race costs a rebuild
        with _LOCK:
            handle = _ENGINES.get(store.root)
            if handle is not None and handle.stamp == stamp:
                return handle
            try:
                built, database = _build(store)
            except duckdb.Error:
                if attempt == 2 or _stamp(store) == stamp:
                    raise
                continue  # a commit or compaction removed files while we read them
            _remember(_ENGINES, store.root, _Handle(stamp, built, database, set()))
        if handle is not None:
            handle.engine.dispose()  # connections in use finish their query first
        return _ENGINES[store.root]
    raise AssertionError("unreachable")


def _build(store: Store) -> tuple:
    """A new in-memory database with the views and ``game_summary``, and its engine."""
    database = store.connect()
    database.execute("SET parquet_metadata_cache = true")  # batch files never change
    built = sa.create_engine("duckdb://", creator=lambda: ConnectionWrapper(database.cursor()),
                             poolclass=QueuePool, pool_size=4, max_overflow=16)
    database.execute(_summary_statement(built.dialect))
    return built, database


def _with_labels(handle: _Handle) -> None:
    """Build ``label_summary`` in the handle's database, once: only the statistics read it, so
    a search or an explorer query does not pay for it."""
    if label_summary.name in handle.summaries:
        return
    with _LOCK:
        if label_summary.name not in handle.summaries:
            handle.database.cursor().execute(_label_statement(handle.engine.dialect))
            handle.summaries.add(label_summary.name)


def fetch(store, statement, parameters=None, labels: bool = False) -> list:
    """Run a statement (``labels``: one that reads ``label_summary``); once more on a fresh
    engine if the store changed under it (a compaction deletes the batch files that the old
    views read)."""
    store = as_store(store)
    for attempt in (0, 1):
        handle = _handle(store)
        try:
            if labels:
                _with_labels(handle)
            with handle.engine.connect() as connection:
                result = connection.execute(statement, parameters or {})
                names = list(result.keys())
                return [dict(zip(names, row)) for row in result.fetchall()]
        except sa.exc.DBAPIError:
            if attempt or _stamp(store) == handle.stamp:
                raise


_usi = functools.lru_cache(maxsize=None)(code_usi)  # move codes are few (under 14,000)


# ----- position search -----------------------------------------------------------------------


def position_key(position) -> int:
    """The unsigned 64-bit key of a ``Position``, or a key given as an int (a negative int is
    read as the signed form of the same 64 bits).

    >>> hex(position_key(Position())), hex(position_key(-1))
    ('0x5a2210b47d303402', '0xffffffffffffffff')
    """
    if isinstance(position, Position):
        return position.key()
    if isinstance(position, int) and not isinstance(position, bool):
        if 0 <= position < 1 << 64:
            return position
        if -(1 << 63) <= position < 0:
            return position + (1 << 64)
        raise ValueError(f"a position key has 64 bits: {position} is out of range")
    raise ValueError(f"expected a Position or a 64-bit key, not {type(position).__name__}")


def _key_filter(name: str, key: int):
    return positions.c.key == sa.cast(sa.bindparam(name, key), UBigInteger)


def search(store, position, mirror: bool = False, limit: Optional[int] = None,
           offset: int = 0) -> list:
    """Every game and ply where ``position`` (a ``Position`` or a key) occurred, as dicts:
    ``game``, ``ply``, ``black``, ``white``, ``date`` (ISO), ``event``, ``winner``, ``reason``,
    ``path`` (one source file, the first by name), ``next_move`` (USI, None at the end) and
    ``mirrored``. A position repeated in a game gives one row per occurrence.

    ``mirror=True`` (a ``Position`` only) adds the games that reached its left-right mirror
    image, with ``mirrored`` True (a symmetric position is its own mirror and is found once).
    Only games the ``games`` view shows count. Ordered by date (newest first, undated last),
    game and ply; ``offset`` skips that many rows and ``limit`` keeps the next ones (a page;
    ``occurrences`` counts them all).
    """
    hits = _hits(position, mirror)
    g = game_summary.c
    statement = (sa.select(hits.c.game, hits.c.ply, g.black, g.white, g.date, g.event, g.winner,
                           g.reason, g.path, hits.c.next_move, hits.c.mirrored)
                 .join_from(hits, game_summary, g.game == hits.c.game)
                 .order_by(g.date.desc().nulls_last(), hits.c.game, hits.c.ply))
    if limit is not None:
        statement = statement.limit(sa.bindparam("limit", _count(limit, "limit")))
    if offset:
        statement = statement.offset(sa.bindparam("offset", _count(offset, "offset", 0)))
    found = fetch(store, statement)
    for row in found:
        row["date"] = _iso(row["date"])
        code = row["next_move"]
        row["next_move"] = None if code is None else _usi(code)
        row["mirrored"] = bool(row["mirrored"])
    return found


def occurrences(store, position, mirror: bool = False) -> dict:
    """``{"occurrences", "games"}``: how many rows ``search`` gives for ``position`` (with
    ``mirror``, its mirror image too) and in how many games, without fetching them."""
    hits = _hits(position, mirror)
    statement = (sa.select(sa.func.count().label("occurrences"),
                           sa.func.count(sa.distinct(hits.c.game)).label("games"))
                 .select_from(hits.join(game_summary, game_summary.c.game == hits.c.game)))
    return fetch(store, statement)[0]


def _hits(position, mirror: bool):
    """The positions rows of ``position`` (and of its mirror image), with ``mirrored``."""
    key = position_key(position)
    keys = [(key, False)]
    if mirror:
        if not isinstance(position, Position):
            raise ValueError("mirror search needs a Position, not a bare key")
        mirrored = position.mirror().key()
        if mirrored != key:
            keys.append((mirrored, True))
    branches = [sa.select(positions.c.game, positions.c.ply, positions.c.next_move,
                          (sa.true() if flag else sa.false()).label("mirrored"))
                .where(_key_filter(f"key{i}", k)) for i, (k, flag) in enumerate(keys)]
    return (branches[0] if len(branches) == 1 else sa.union_all(*branches)).subquery("hits")


# ----- the opening explorer --------------------------------------------------------------------


def explore(store, position, player: Optional[str] = None, date_from=None, date_to=None,
            event: Optional[str] = None, handicap: Optional[str] = None,
            min_count: int = 1) -> list:
    """The moves played next in ``position`` (a ``Position`` or a key), most played first.

    Each move is a dict: ``move`` (USI), ``kif`` and ``ki2`` (its text in the position; None
    for a bare key), ``count``, ``black_wins``, ``white_wins``, ``draws``, ``other`` (no result
    or an unknown one: an abort, a record that stops) and ``latest_date`` (ISO, None if no game
    is dated).

    Counts are **games**: a game that reached the position several times (a repetition) counts
    once for each distinct move it played there, as the lichess explorer counts games. Games
    that end in the position are not listed.

    Filters (on the game): ``player`` is a case-insensitive substring of ``black`` or
    ``white``; ``date_from``/``date_to`` (``date`` or ISO text) bound the game's date,
    inclusive (undated games are left out once either is given); ``event`` is a
    case-insensitive substring of the event; ``handicap`` is the normalized handicap exactly
    (``平手``, ``香落ち`` …); ``min_count`` drops moves played in fewer games.
    """
    key = position_key(position)
    hits = (sa.select(positions.c.game, positions.c.next_move)
            .where(_key_filter("key", key)).subquery("hits"))
    g = game_summary.c
    conditions = [hits.c.next_move.is_not(None),
                  *game_filters(player, date_from, date_to, event, handicap)]
    per_game = (sa.select(hits.c.next_move, hits.c.game, g.winner, g.date)
                .join_from(hits, game_summary, g.game == hits.c.game)
                .where(*conditions).distinct().subquery("per_game"))

    def wins(result: str):
        return sa.func.count().filter(per_game.c.winner == sa.bindparam(f"w_{result}", result))

    count = sa.func.count().label("count")
    statement = (sa.select(per_game.c.next_move, count, wins("black").label("black_wins"),
                           wins("white").label("white_wins"), wins("draw").label("draws"),
                           sa.func.max(per_game.c.date).label("latest_date"))
                 .group_by(per_game.c.next_move)
                 .having(sa.func.count() >= sa.bindparam("min_count",
                                                          _count(min_count, "min_count")))
                 .order_by(sa.desc("count"), per_game.c.next_move))
    found = fetch(store, statement)
    result = []
    for row in found:
        move = code_move(row["next_move"])
        kif = ki2 = None
        if isinstance(position, Position) and position.check(move) is None:
            kif, ki2 = kif_move(position, move), ki2_move(position, move)
        result.append({"move": move.usi(), "kif": kif, "ki2": ki2, "count": row["count"],
                       "black_wins": row["black_wins"], "white_wins": row["white_wins"],
                       "draws": row["draws"],
                       "other": row["count"] - row["black_wins"] - row["white_wins"] - row["draws"],
                       "latest_date": _iso(row["latest_date"])})
    return result


def game_filters(player=None, date_from=None, date_to=None, event=None, handicap=None) -> list:
    """The conditions on ``game_summary`` that the explorer's and the statistics' filters
    make (see ``explore``); every value is a bound parameter."""
    g = game_summary.c
    conditions = []
    if player is not None:
        needle = sa.bindparam("player", _text(player, "player").lower())
        conditions.append(sa.or_(sa.func.contains(sa.func.lower(g.black), needle),
                                 sa.func.contains(sa.func.lower(g.white), needle)))
    if event is not None:
        conditions.append(sa.func.contains(sa.func.lower(g.event),
                                           sa.bindparam("event", _text(event, "event").lower())))
    if handicap is not None:
        conditions.append(g.handicap == sa.bindparam("handicap", _text(handicap, "handicap")))
    if date_from is not None:
        conditions.append(g.date >= sa.bindparam("date_from", _date(date_from, "date_from")))
    if date_to is not None:
        conditions.append(g.date <= sa.bindparam("date_to", _date(date_to, "date_to")))
    return conditions


# ----- one game --------------------------------------------------------------------------------


def game_info(store, game_id: int) -> Optional[dict]:
    """The ``games`` row of a game as a dict (``headers`` parsed from JSON, ``date`` and
    ``end_date`` ISO) with ``sources`` (path, index, format, encoding of each file it was read
    from); None if the store shows no such game."""
    game_id = _game_id(game_id)
    found = fetch(store, sa.select(games).where(games.c.game == sa.bindparam("game", game_id)))
    if not found:
        return None
    info = found[0]
    info["date"], info["end_date"] = _iso(info["date"]), _iso(info["end_date"])
    if info["headers"]:
        info["headers"] = json.loads(info["headers"])
    info["sources"] = fetch(store, sa.select(sources.c.path, sources.c.index, sources.c.format,
                                             sources.c.encoding)
                            .where(sources.c.game == sa.bindparam("game", game_id))
                            .order_by(sources.c.path, sources.c.index))
    return info


def game_moves(store, game_id: int) -> list:
    """The main-line moves of a game, in order: dicts of ``ply``, ``usi`` (None from the first
    move that could not be replayed on), ``text`` as written, ``seconds`` and ``comment``."""
    game_id = _game_id(game_id)
    statement = (sa.select(moves.c.ply, moves.c.usi, moves.c.text, moves.c.seconds,
                           moves.c.comment)
                 .where(moves.c.game == sa.bindparam("game", game_id), moves.c.line == 0)
                 .order_by(moves.c.ply))
    return fetch(store, statement)


def game_variations(store, game_id: int) -> list:
    """The moves of a game's variations, by variation and ply: dicts of ``line`` (the
    variation's number, from 1), ``parent`` (the line it branches from, 0 for the main line),
    ``ply``, ``usi`` (None from its first move that could not be replayed), ``text`` as
    written, ``seconds`` and ``comment``."""
    game_id = _game_id(game_id)
    statement = (sa.select(moves.c.line, moves.c.parent, moves.c.ply, moves.c.usi, moves.c.text,
                           moves.c.seconds, moves.c.comment)
                 .where(moves.c.game == sa.bindparam("game", game_id), moves.c.line > 0)
                 .order_by(moves.c.line, moves.c.ply))
    return fetch(store, statement)


# ----- read-only SQL for analysts ----------------------------------------------------------------


class SqlError(ValueError):
    """A query ``run_sql`` refuses or DuckDB cannot run, with the reason."""


class SqlResult(NamedTuple):
    """What ``run_sql`` returns: column names, rows (tuples), and whether rows were cut off."""

    columns: list
    rows: list
    truncated: bool


_READ_ONLY = "only a single read-only query is allowed (SELECT, WITH, FROM, VALUES, DESCRIBE, " \
             "SHOW, SUMMARIZE)"


def check_sql(text: str) -> str:
    """The one read-only statement of ``text``, or ``SqlError`` saying why it is refused.
    DuckDB's own parser decides what the statement is.

    >>> check_sql("SELECT 1;")
    'SELECT 1;'
    >>> check_sql("DROP VIEW games")
    Traceback (most recent call last):
    ...
    analytics.queries.SqlError: DROP statements are not allowed: only a single read-only query is allowed (SELECT, WITH, FROM, VALUES, DESCRIBE, SHOW, SUMMARIZE)
    """
    if not isinstance(text, str) or not text.strip():
        raise SqlError(f"empty query: {_READ_ONLY}")
    try:
        statements = duckdb.extract_statements(text)
    except duckdb.Error as error:
        raise SqlError(f"cannot parse the query: {error}") from None
    if len(statements) != 1:
        raise SqlError(f"{len(statements)} statements given: {_READ_ONLY}")
    statement = statements[0]
    if statement.type != duckdb.StatementType.SELECT:
        raise SqlError(f"{statement.type.name} statements are not allowed: {_READ_ONLY}")
    return statement.query.strip()


def _sql_database(store: Store) -> duckdb.DuckDBPyConnection:
    """The analysts' database of a store: its views, readable files limited to the store's
    Parquet files, configuration locked."""
    stamp = _stamp(store)
    with _LOCK:
        handle = _SQL_DATABASES.get(store.root)
        if handle is not None and handle.stamp == stamp:
            return handle.database
        manifest = store.manifest()
        database = duckdb.connect(config={"autoinstall_known_extensions": False,
                                          "autoload_known_extensions": False})
        for statement in store.view_statements(manifest):
            database.execute(statement)
        files = [f for table in TABLES for f in store.table_files(table, manifest)]
        database.execute("SET allowed_paths = $1", [files])
        database.execute("SET enable_external_access = false")
        database.execute("SET lock_configuration = true")
        _remember(_SQL_DATABASES, store.root, _Handle(stamp, None, database, set()))
        return database


def run_sql(store, text: str, limit: Optional[int] = 1000) -> SqlResult:
    """Run one read-only query on ``store``'s views. Two guards: ``check_sql`` lets through
    only a single query (DuckDB's parser says which statement it is: no COPY, ATTACH, INSTALL,
    PRAGMA, SET, CREATE …), and the database it runs on may open no file but the store's own
    Parquet files, with its configuration locked. At most ``limit`` rows are returned (None:
    all); ``SqlError`` for a refused or failing query."""
    query = check_sql(text)
    if limit is not None:
        limit = _count(limit, "limit", minimum=0)
    store = as_store(store)
    for attempt in (0, 1):
        stamp = _stamp(store)
        try:
            with _sql_database(store).cursor() as cursor:
                cursor.execute(query)
                columns = [d[0] for d in cursor.description or ()]
                rows = cursor.fetchall() if limit is None else cursor.fetchmany(limit + 1)
            break
        except duckdb.Error as error:
            if attempt == 0 and _stamp(store) != stamp:
                continue  # the store changed under the query (a compaction): once more
            raise SqlError(str(error)) from None
    truncated = limit is not None and len(rows) > limit
    return SqlResult(columns, rows[:limit] if truncated else rows, truncated)


# ----- checking values -------------------------------------------------------------------------


def _iso(value) -> Optional[str]:
    return value.isoformat() if value is not None else None


def _date(value, name: str) -> datetime.date:
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    try:
        return datetime.date.fromisoformat(str(value).strip())
    except ValueError:
        raise ValueError(f"{name}: not a date: {value!r} (expected YYYY-MM-DD)") from None


def _text(value, name: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be text, not {type(value).__name__}")
    return value


def _count(value, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer of at least {minimum}, not {value!r}")
    return value


def _game_id(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"a game id is an integer, not {value!r}")
    return value
