"""The store's views as SQLAlchemy tables, and the engine that queries run on: one per store,
cached and rebuilt when ``manifest.json`` changes.

Each store gets one DuckDB database holding the views (``Store.connect()``);
SQLAlchemy's pool hands out ``cursor()`` duplicates of that connection (each its own session on
the same database, so threads do not share a connection). The engine is cached per store and
rebuilt when ``manifest.json`` changes (a new inode, size or mtime), so queries see new commits.

What a result shows of a game comes from ``game_summary``, a table (one row per game of the
``games`` view, with its first source path and its players' canonical names,
``store.player_names``) that the engine builds once per manifest: evaluating the ``games`` view
(a semi-join on ``sources``, itself filtered by ``retired``) costs more than a key lookup, on
every query. It takes 0.2 s per 100,000 games to build. The handle's database lives in a file
of the process's own temporary folder (deleted as soon as it is built: DuckDB keeps it open),
so that the summary is on disk, not in memory: a query reads the pages it needs, and DuckDB
holds at most ``HANDLE_MEMORY`` of them and of its work (beyond that it spills to the same
folder). What a search shows of a game is also written, as an Arrow file mapped into memory
(``Summaries``), so that a search without filters reads the dates of the games it found and
the summaries of the page it shows without a query (``fold_shown_hits``, ``game_rows``):
the operating system reads the pages they touch. A reading process holds no row per game::

    >>> import tempfile
    >>> fetch(tempfile.mkdtemp(), sa.select(sa.func.count().label("games")).select_from(games))
    [{'games': 0}]
"""

from __future__ import annotations

import contextlib
import os
import threading
import uuid
from pathlib import Path
from typing import NamedTuple

import duckdb
import numpy as np
import pyarrow as pa
import sqlalchemy as sa
from duckdb_engine import ConnectionWrapper
from duckdb_engine.datatypes import UBigInteger
from sqlalchemy.pool import QueuePool

from kifudb.store.folder import Store, StoreError, sql_string
from kifudb.store.lookup import HITS_SCHEMA, KeyIndex
from kifudb.store.player_names import add_player_names
from kifudb.store.scratch import own_folder
from kifudb.store.schema import TABLES

__all__ = ["metadata", "games", "sources", "moves", "positions", "findings", "files", "labels",
           "placements", "analysis",
           "game_summary", "label_summary", "hits", "engine", "fetch", "fetch_each", "as_store",
           "fold_shown_hits", "game_rows", "fetch_arrow", "HANDLE_MEMORY", "Summaries"]

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

#: What search and explore show of a game, one row per game of the ``games`` view: a table of
#: the engine's database (on disk), built when the engine is (see ``engine``).
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

#: The labels of the games the store shows (the ``labels`` view), a table like
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


#: a lookup whose row groups may hold more rows than this (by their statistics: a position
#: of the openings) is not kept but streamed into its query's own table (``_hits_registered``)
STREAMED_ROWS = 200_000
#: the name its stream is registered under while that table is made
_STREAM = "hits_stream"


class _Streamed:
    """The positions rows of ``keys`` as a stream, read once; a file the lookup cannot read is
    said as the lookup says it (``StoreDamaged``), not as DuckDB's error around it."""

    def __init__(self, handle: "Handle", keys: dict) -> None:
        self.error: Exception = None
        self.reader = pa.RecordBatchReader.from_batches(HITS_SCHEMA, self._batches(handle, keys))

    def _batches(self, handle: "Handle", keys: dict):
        try:
            for table in handle.positions.chunks(keys):
                yield from table.to_batches()
        except StoreError as error:
            self.error = error
            raise


@contextlib.contextmanager
def _hits_registered(connection, keys: dict, handle: "Handle"):
    """The positions rows of ``keys`` as ``hits`` on ``connection`` (a pooled DuckDB cursor,
    outside a transaction) while the statement that reads them runs: the handle's kept lookup
    registered (``_hits_of``); or, for a position of more than ``STREAMED_ROWS``, a temporary
    table of the connection's, streamed in a row group at a time (``_Streamed``), so that a
    search of the start position holds no Arrow row per game (DuckDB holds the table in its
    bounded memory, and spills beyond), and DuckDB plans its joins knowing its size (read from
    the stream as it runs, a query of the explorer's top games took 2.7 s against 0.8 s)."""
    streamed = _Streamed(handle, keys) if handle.positions.most_rows(keys) > STREAMED_ROWS \
        else None
    try:
        if streamed is None:
            connection.register(hits.name, _hits_of(handle, keys))
        else:
            connection.register(_STREAM, streamed.reader)
            try:
                connection.execute(f"CREATE TEMPORARY TABLE {hits.name} AS FROM {_STREAM}")
            finally:
                connection.unregister(_STREAM)
        yield
    except (duckdb.Error, sa.exc.DBAPIError):
        if streamed is not None and streamed.error is not None:
            raise streamed.error from None
        raise
    finally:
        if streamed is None:
            connection.unregister(hits.name)
        else:
            connection.execute(f"DROP TABLE IF EXISTS temp.main.{hits.name}")


def fetch_arrow(store, statement, keys: dict = None) -> pa.Table:
    """The rows of ``statement`` as an Arrow table, handed on by DuckDB as it made them (no
    Python row in between: a page of 100,000 games costs what the query costs); ``keys`` as
    ``fetch``'s. Read again on a fresh engine if the store changed under it."""
    def run(handle: Handle) -> pa.Table:
        compiled = statement.compile(dialect=handle.engine.dialect)
        values = [compiled.params[name] for name in compiled.positiontup or ()]
        cursor = handle.database.cursor()
        try:
            with (_hits_registered(cursor, keys, handle) if keys is not None
                  else contextlib.nullcontext()):
                return cursor.sql(str(compiled), params=values or None).to_arrow_table()
        finally:
            cursor.close()

    return on_a_handle(store, run, (duckdb.Error, StoreError, OSError))


#: the columns of ``game_summary`` that a search shows of a game (``game_rows``)
SEARCH_SUMMARY = ("game", "black", "white", "date", "event", "winner", "reason", "handicap", "path")


def fold_shown_hits(store, keys: dict, fold):
    """``fold(chunks)``, where ``chunks`` gives the positions rows of ``keys`` (``{key:
    mirrored}``, the columns of ``hits``) of the games the ``games`` view shows, a row group's
    at a time (``KeyIndex.chunks``), as ``(hits, dates)`` Arrow pairs: the rows, and their
    games' dates row for row (``Summaries``). What an unfiltered search keeps of a position
    found in every game is its page, not every occurrence. A store that changed under the
    lookup is read again, from its first chunk, on a fresh handle."""
    def run(handle: Handle):
        def chunks():
            for found in handle.positions.chunks(keys):
                rows, shown = handle.summaries.rows(np.asarray(found.column("game")), ("date",))
                shown = pa.array(shown)
                yield found.filter(shown), rows.column("date").filter(shown)

        return fold(chunks())

    return on_a_handle(store, run, (StoreError, OSError))


def game_rows(store, ids) -> pa.Table:
    """The ``SEARCH_SUMMARY`` columns of the games ``ids`` (an Arrow or numpy array, repeats
    allowed), row for row: what a page of search results shows of its games. A game the store
    does not show (or no longer: it changed since the search) has a row of nulls but its id."""
    def run(handle: Handle) -> pa.Table:
        wanted = np.asarray(ids, np.int32)
        rows, _ = handle.summaries.rows(wanted)
        return rows.set_column(0, "game", pa.array(wanted))

    return on_a_handle(store, run, (StoreError, OSError))


class Summaries(NamedTuple):
    """The ``SEARCH_SUMMARY`` columns of ``game_summary`` by game, as Arrow record batches
    mapped from a file (``map_summaries``): the operating system reads the pages a search
    touches, and none of it is the process's own memory. ``firsts``: the first game of each
    batch, to find a game's batch."""

    batches: list
    firsts: np.ndarray
    schema: pa.Schema

    def rows(self, games: np.ndarray, columns: tuple = SEARCH_SUMMARY) -> tuple:
        """``(rows, shown)``: the ``columns`` of ``games`` (numpy) row for row, nulls where a
        game is not shown, and whether each is. Taken batch by batch: a take from the whole
        mapped table would first copy every batch of it into memory."""
        batch_of = np.searchsorted(self.firsts, games, "right") - 1
        shown = np.zeros(len(games), bool)
        pieces, where = [], []
        for number in np.unique(batch_of[batch_of >= 0]):
            mine = np.flatnonzero(batch_of == number)
            batch = self.batches[number]
            held = batch.column(0).to_numpy()  # the games, sorted
            local = np.minimum(np.searchsorted(held, games[mine]), len(held) - 1)
            found = held[local] == games[mine]
            shown[mine[found]] = True
            pieces.append(batch.select(list(columns)).take(pa.array(local[found])))
            where.append(mine[found])
        taken = pa.Table.from_batches(pieces, pa.schema([self.schema.field(c) for c in columns]))
        order = np.zeros(len(games), np.int64)
        order[np.concatenate(where) if where else []] = np.arange(taken.num_rows)
        return taken.combine_chunks().take(pa.array(order, mask=~shown)), shown


def map_summaries(database, folder: Path) -> Summaries:
    """Write the ``SEARCH_SUMMARY`` columns of ``database``'s ``game_summary`` by game to an
    Arrow file in ``folder``, a batch at a time, map it, and delete it (the mapping holds).
    The table was made in the games' order, and DuckDB reads a table in the order it was
    written: read so, sorting it again is not needed (it took 150 MB more at 335M positions);
    if the order is not that of the games after all, it is read again sorted."""
    path = folder / f"{uuid.uuid4().hex}.arrow"
    try:
        if not _write_summaries(database, path, ""):
            _write_summaries(database, path, " ORDER BY game")
        mapped = pa.ipc.open_file(pa.memory_map(str(path)))
        batches = [mapped.get_batch(i) for i in range(mapped.num_record_batches)]
    finally:
        path.unlink(missing_ok=True)
    firsts = np.array([batch.column(0)[0].as_py() for batch in batches], np.int64)
    return Summaries(batches, firsts, mapped.schema)


def _write_summaries(database, path: Path, order: str) -> bool:
    """Write the summaries into the Arrow file ``path``: True, or False as soon as a game comes
    before the one it follows (``order``: the query's ``ORDER BY``, or nothing)."""
    reader = database.cursor().sql(f"SELECT {', '.join(SEARCH_SUMMARY)} FROM "
                                   f"{game_summary.name}{order}").to_arrow_reader()
    last = -1
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, reader.schema) as out:
        for batch in reader:
            ids = batch.column(0).to_numpy()
            if not len(ids):
                continue
            if ids[0] <= last or (ids[1:] <= ids[:-1]).any():
                return False
            last = ids[-1]
            out.write_batch(batch)
    return True


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
    built: set  # the tables built on first use (``label_summary``)
    positions: KeyIndex  # the positions files of its batches, for key lookups
    lookups: dict  # recent lookups: tuple of (key, mirrored) -> Arrow table
    summaries: Summaries  # what a search shows of its games, mapped from a file


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
                built, database, files, summaries = _build(store)
            except duckdb.Error:
                if attempt == 2 or store.stamp() == stamp:
                    raise
                continue  # a commit or compaction removed files while we read them
            remember(_ENGINES, store.root,
                     Handle(stamp, built, database, set(), files, {}, summaries))
        if handle is not None:
            handle.engine.dispose()  # connections in use finish their query first
        return _ENGINES[store.root]
    raise AssertionError("unreachable")


def _build(store: Store) -> tuple:
    """A new database with the views and ``game_summary``, its engine, the positions files of
    each batch, and the ``Summaries`` of its games. The database is a file of ``own_folder()``,
    deleted once built (DuckDB keeps it open; its space is freed when the handle is
    dropped)."""
    manifest = store.manifest()
    files = KeyIndex({store.batch_dir(b): store.positions_files(b) for b in manifest["batches"]},
                     store.root)
    path = own_folder() / f"{uuid.uuid4().hex}.duckdb"
    try:
        database = store.connect(manifest, str(path))  # its cursors share the Parquet footers
        try:
            database.execute(f"SET memory_limit = '{HANDLE_MEMORY}'")
            database.execute(f"SET temp_directory = {sql_string(str(path) + '.tmp')}")
            built = sa.create_engine("duckdb://",
                                     creator=lambda: ConnectionWrapper(database.cursor()),
                                     poolclass=QueuePool, pool_size=4, max_overflow=16)
            # on one thread: each thread's share of the work takes its own buffers, and at
            # 335M positions two threads needed more than 128 MB where one needs less
            database.execute("SET threads = 1")
            database.execute(_summary_statement(built.dialect))
            add_player_names(database)
            database.execute("RESET threads")
            database.execute("CHECKPOINT")
            summaries = map_summaries(database, path.parent)
        except BaseException:
            database.close()
            raise
    finally:
        for written in (path, path.with_name(path.name + ".wal")):
            written.unlink(missing_ok=True)
    return built, database, files, summaries


#: what DuckDB holds in memory of a handle's database (its tables' pages) and of its queries'
#: work; beyond it, a query spills to disk (``own_folder()``). As a merge's (``store.folder.
#: MERGE_MEMORY``). ``kifudb serve`` on 59M positions (480k games) peaked at 493 MB resident
#: while it built its summary, against 668 MB with 512 MB
HANDLE_MEMORY = "256MB"


def _with_labels(handle: Handle) -> None:
    """Build ``label_summary`` in the handle's database, once: only the statistics read it, so
    a search or an explorer query does not pay for it."""
    if label_summary.name in handle.built:
        return
    with LOCK:
        if label_summary.name not in handle.built:
            handle.database.cursor().execute(_label_statement(handle.engine.dialect))
            handle.built.add(label_summary.name)


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
        with handle.engine.connect() as connection, (
                _hits_registered(connection.connection.driver_connection, keys, handle)
                if keys is not None else contextlib.nullcontext()):
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
                # the statements only read: their transaction ends here, so that what hits
                # made is dropped after it, not rolled back to life with it
                connection.rollback()

    return on_a_handle(store, run, (sa.exc.DBAPIError, duckdb.Error))


