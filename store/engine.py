"""The store's views as SQLAlchemy tables, and the engine that queries run on: one per store,
cached and rebuilt when ``manifest.json`` changes.

Each store gets one in-memory DuckDB database holding the views (``Store.connect()``);
SQLAlchemy's pool hands out ``cursor()`` duplicates of that connection (each its own session on
the same database, so threads do not share a connection). The engine is cached per store and
rebuilt when ``manifest.json`` changes (a new inode, size or mtime), so queries see new commits.

What a result shows of a game comes from ``game_summary``, an in-memory table (one row per game of
the ``games`` view, with its first source path and its players' canonical names,
``store.player_names``) that the engine builds once per manifest:
evaluating the ``games`` view (a semi-join on ``sources``, itself filtered by ``retired``) costs
more than a key lookup, on every query. It takes about 100 bytes a game in memory (10.6 MB for
100,000 synthetic games) and 0.2 s per 100,000 games to build::

    >>> import tempfile
    >>> fetch(tempfile.mkdtemp(), sa.select(sa.func.count().label("games")).select_from(games))
    [{'games': 0}]
"""

from __future__ import annotations

import threading
from typing import NamedTuple

import duckdb
import numpy as np
import pyarrow as pa
import sqlalchemy as sa
from duckdb_engine import ConnectionWrapper
from duckdb_engine.datatypes import UBigInteger
from sqlalchemy.pool import QueuePool

from kifudb.store.folder import Store, StoreError
from kifudb.store.lookup import KeyIndex
from kifudb.store.player_names import add_player_names
from kifudb.store.schema import TABLES

__all__ = ["metadata", "games", "sources", "moves", "positions", "findings", "files", "labels",
           "placements", "analysis",
           "game_summary", "label_summary", "hits", "engine", "fetch", "fetch_each", "as_store",
           "hits_with_games", "fetch_arrow"]

# ----- the views, as SQLAlchemy tables ----------------------------------------------------------


def _sa_type(arrow_type):
    import pyarrow as pa

    if pa.types.is_list(arrow_type):
        return sa.ARRAY(_sa_type(arrow_type.value_type))
    return {pa.int8(): sa.SmallInteger, pa.int16(): sa.SmallInteger, pa.int32(): sa.Integer, pa.int64(): sa.BigInteger,
            pa.uint64(): UBigInteger, pa.float32(): sa.Float, pa.bool_(): sa.Boolean,
            pa.date32(): sa.Date, pa.string(): sa.String}[arrow_type]


metadata = sa.MetaData()
_TABLES = {name: sa.Table(name, metadata, *(sa.Column(f.name, _sa_type(f.type)) for f in schema))
           for name, schema in TABLES.items()}
games, sources, moves, positions, findings, files, labels, placements, analysis = (
    _TABLES[n] for n in ("games", "sources", "moves", "positions", "findings", "files", "labels",
                         "placements", "analysis"))

#: What search and explore show of a game, one row per game of the ``games`` view: an
#: in-memory table of the engine's database, built when the engine is (see ``engine``).
game_summary = sa.Table("game_summary", metadata, sa.Column("game", sa.Integer),
                        *(sa.Column(c.name, c.type) for c in games.c
                          if c.name in ("black", "white", "date", "event", "handicap", "winner",
                                        "reason", "moves", "valid", "black_rating",
                                        "white_rating", "time_control", "black_engine",
                                        "white_engine")),
                        sa.Column("path", sa.String),
                        # White moves first (a handicap game): who is to move at each ply
                        sa.Column("white_first", sa.Boolean),
                        # the players' canonical names (``store.player_names``)
                        sa.Column("black_player", sa.String), sa.Column("white_player", sa.String))

#: The labels of the games the store shows (the ``labels`` view), in memory like
#: ``game_summary`` but built on the first query that reads it (``fetch(..., labels=True)``):
#: the statistics read them on every query.
label_summary = sa.Table("label_summary", metadata,
                         *(sa.Column(c.name, c.type) for c in _TABLES["labels"].c
                           if c.name != "batch"))


def _summary_statement(dialect) -> str:
    first_path = (sa.select(sa.func.min(sources.c.path)).where(sources.c.game == games.c.game)
                  .scalar_subquery())
    select = (sa.select(*(games.c[c.name] for c in game_summary.c if c.name in games.c
                          and c.name != "path"),
                        first_path.label("path"),
                        (sa.func.split_part(games.c.start_sfen, sa.literal_column("' '"),
                                            sa.literal_column("2")) == sa.literal_column("'w'"))
                        .label("white_first"))
              .order_by(games.c.game))
    compiled = select.compile(dialect=dialect)
    assert not compiled.params, "the summary takes no values"
    return f"CREATE TABLE {game_summary.name} AS {compiled}"


def _label_statement(dialect) -> str:
    labels = _TABLES["labels"]
    select = sa.select(*(labels.c[c.name] for c in label_summary.c)).order_by(labels.c.game)
    return f"CREATE TABLE {label_summary.name} AS {select.compile(dialect=dialect)}"

#: The positions rows of the keys a query asks about (``fetch(..., keys=)``), with
#: ``mirrored`` (the key was a mirror image's). They are looked up first, with Arrow alone
#: (``store.lookup``), and given to the query as an Arrow table, so that DuckDB plans its joins
#: knowing how few they are. Read through the ``positions`` view, a key's rows are guessed at
#: 5% of all positions, more than there are games, so every query built its hash join on the
#: whole ``game_summary``: 15 ms at 10M positions (81,271 games), ten times that at 100M,
#: against 5 ms for the lookup and a join on the rows found.
hits = sa.table("hits", sa.column("game", sa.Integer), sa.column("ply", sa.Integer),
                sa.column("next_move", sa.SmallInteger), sa.column("black_to_move", sa.Boolean),
                sa.column("mirrored", sa.Boolean))


#: the lookups a handle keeps (a search asks for the count, then a page: one lookup), at
#: most this many and this many rows in all (about 15 bytes a row)
_KEEP_HITS, _KEEP_HITS_ROWS = 64, 1_000_000


def _hits_of(handle: "Handle", keys: dict) -> pa.Table:
    """The positions rows of ``keys`` (``{key: mirrored}``): the handle's recent lookups, or a
    new one (``store.lookup``)."""
    wanted = tuple(keys.items())
    found = handle.lookups.get(wanted)
    if found is None:
        found = handle.positions.rows(keys)
        with LOCK:  # the newest kept, the oldest dropped first
            handle.lookups[wanted] = found
            while len(handle.lookups) > _KEEP_HITS or sum(
                    t.num_rows for t in handle.lookups.values()) > _KEEP_HITS_ROWS:
                handle.lookups.pop(next(iter(handle.lookups)))
    return found


def _register_hits(connection, keys: dict, handle: "Handle") -> None:
    """Register the positions rows of ``keys`` as ``hits`` on ``connection`` (a pooled DuckDB
    cursor)."""
    connection.register(hits.name, _hits_of(handle, keys))


def fetch_arrow(store, statement, keys: dict = None) -> pa.Table:
    """The rows of ``statement`` as an Arrow table, handed on by DuckDB as it made them (no
    Python row in between: a page of 100,000 games costs what the query costs); ``keys`` as
    ``fetch``'s. Read again on a fresh engine if the store changed under it."""
    def run(handle: Handle) -> pa.Table:
        compiled = statement.compile(dialect=handle.engine.dialect)
        values = [compiled.params[name] for name in compiled.positiontup or ()]
        cursor = handle.database.cursor()
        try:
            if keys is not None:
                _register_hits(cursor, keys, handle)
            return cursor.sql(str(compiled), params=values or None).to_arrow_table()
        finally:
            cursor.close()

    return on_a_handle(store, run, (duckdb.Error, StoreError, OSError))


#: the columns of ``game_summary`` that a search shows (``hits_with_games``)
SEARCH_SUMMARY = ("game", "black", "white", "date", "event", "winner", "reason", "handicap", "path")


def hits_with_games(store, keys: dict) -> tuple:
    """``(hits, games)``: the positions rows of ``keys`` (``{key: mirrored}``, the columns of
    ``hits``) of the games the ``games`` view shows, and those games' ``SEARCH_SUMMARY`` columns
    row for row, as Arrow tables, without a query: what an unfiltered search needs, in a
    fraction of the time of two DuckDB queries (about 1 ms against 12 at 10M positions). The
    summary's columns are kept as Arrow beside ``game_summary`` (about 60 bytes a game), with
    their game ids as numpy, made on first use; a store that changed under the lookup is read
    again on a fresh handle."""
    def run(handle: Handle) -> tuple:
        found = _hits_of(handle, keys)
        summary, ids = _search_summary(handle)
        wanted = found.column("game").to_numpy()
        at = np.minimum(np.searchsorted(ids, wanted), max(len(ids) - 1, 0))
        shown = ids[at] == wanted if len(ids) else np.zeros(len(wanted), bool)
        return found.filter(pa.array(shown)), summary.take(pa.array(at[shown]))

    return on_a_handle(store, run, (StoreError, OSError))


def _search_summary(handle: "Handle") -> tuple:
    """``(summary, ids)``: the ``SEARCH_SUMMARY`` columns of ``game_summary`` as Arrow, by game,
    and their game ids as numpy, made once per handle."""
    kept = handle.arrow.get(game_summary.name)
    if kept is None:
        columns = ", ".join(SEARCH_SUMMARY)
        summary = handle.database.cursor().sql(
            f"SELECT {columns} FROM {game_summary.name} ORDER BY game").to_arrow_table()
        kept = handle.arrow[game_summary.name] = (summary, summary.column("game").to_numpy())
    return kept


def on_a_handle(store, work, errors: tuple):
    """``work(handle)`` on the store's handle, and once more on a fresh one if it raised one of
    ``errors`` while the store changed under it (a commit or compaction deletes the batch files
    that the old views read)."""
    store = as_store(store)
    handle = _handle(store)
    try:
        return work(handle)
    except errors:
        if store.stamp() == handle.stamp:
            raise
    return work(_handle(store))


# ----- the engine, per store and manifest -----------------------------------------------------


class Handle(NamedTuple):
    stamp: object
    engine: sa.Engine
    database: duckdb.DuckDBPyConnection
    summaries: set  # the in-memory tables built on first use (``label_summary``)
    positions: KeyIndex  # the positions files of its batches, for key lookups
    lookups: dict  # recent lookups: tuple of (key, mirrored) -> Arrow table
    arrow: dict  # what is kept as Arrow, made on first use (``_search_summary``)


LOCK = threading.Lock()
_ENGINES: dict = {}        # store root -> Handle, most recently built last
_KEEP = 8                  # stores kept open per cache (a process rarely reads more)


def remember(cache: dict, root, handle: Handle) -> None:
    cache.pop(root, None)
    cache[root] = handle
    while len(cache) > _KEEP:
        cache.pop(next(iter(cache)))


def as_store(store) -> Store:
    """A ``Store`` from a ``Store`` or a folder path."""
    return store if isinstance(store, Store) else Store(store)


def engine(store) -> sa.Engine:
    """The SQLAlchemy engine over ``store``'s views (cached; rebuilt once the manifest changes)."""
    return _handle(as_store(store)).engine


def _handle(store: Store) -> Handle:
    for attempt in range(3):
        stamp = store.stamp()  # taken before the manifest is read: a race costs a rebuild
        with LOCK:
            handle = _ENGINES.get(store.root)
            if handle is not None and handle.stamp == stamp:
                return handle
            try:
                built, database, files = _build(store)
            except duckdb.Error:
                if attempt == 2 or store.stamp() == stamp:
                    raise
                continue  # a commit or compaction removed files while we read them
            remember(_ENGINES, store.root, Handle(stamp, built, database, set(), files, {}, {}))
        if handle is not None:
            handle.engine.dispose()  # connections in use finish their query first
        return _ENGINES[store.root]
    raise AssertionError("unreachable")


def _build(store: Store) -> tuple:
    """A new in-memory database with the views and ``game_summary``, its engine, and the
    positions files of each batch."""
    manifest = store.manifest()
    files = KeyIndex({store.batch_dir(b): store.positions_files(b) for b in manifest["batches"]},
                     store.root)
    database = store.connect(manifest)  # its cursors share the Parquet footers it caches
    built = sa.create_engine("duckdb://", creator=lambda: ConnectionWrapper(database.cursor()),
                             poolclass=QueuePool, pool_size=4, max_overflow=16)
    database.execute(_summary_statement(built.dialect))
    add_player_names(database)
    return built, database, files


def _with_labels(handle: Handle) -> None:
    """Build ``label_summary`` in the handle's database, once: only the statistics read it, so
    a search or an explorer query does not pay for it."""
    if label_summary.name in handle.summaries:
        return
    with LOCK:
        if label_summary.name not in handle.summaries:
            handle.database.cursor().execute(_label_statement(handle.engine.dialect))
            handle.summaries.add(label_summary.name)


def fetch(store, statement, parameters=None, labels: bool = False, keys: dict = None) -> list:
    """Run a statement (``labels``: one that reads ``label_summary``; ``keys``, ``{key:
    mirrored}``: one that reads ``hits``, the positions rows of these keys); once more on a
    fresh engine if the store changed under it (a compaction deletes the batch files that the
    old views read)."""
    return fetch_each(store, [statement], parameters, labels=labels, keys=keys)[0]


def fetch_each(store, statements: list, parameters=None, labels: bool = False,
               keys: dict = None) -> list:
    """The rows of each of ``statements``, run in order on one connection (as ``fetch`` runs
    one), so that a ``CREATE TEMPORARY TABLE … AS`` (``select.into(name, temporary=True)``,
    whose answer is ``[]``) is read by the statements after it and dropped at the end: a result
    that several questions share is made once."""
    made = [s.table for s in statements if isinstance(s, sa.schema.CreateTableAs)]

    def run(handle: Handle) -> list:
        if labels:
            _with_labels(handle)
        with handle.engine.connect() as connection:
            cursor = connection.connection.driver_connection
            if keys is not None:
                _register_hits(cursor, keys, handle)
            try:
                answers = []
                for statement in statements:
                    result = connection.execute(statement, parameters or {})
                    if not result.returns_rows:
                        answers.append([])
                        continue
                    names = list(result.keys())
                    answers.append([dict(zip(names, row)) for row in result.fetchall()])
                return answers
            finally:
                for table in made:
                    connection.execute(sa.schema.DropTable(table, if_exists=True))
                if keys is not None:  # registered: _register_hits raises before it does
                    cursor.unregister(hits.name)

    return on_a_handle(store, run, (sa.exc.DBAPIError, duckdb.Error))


