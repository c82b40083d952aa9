"""The store: one folder of Parquet batches, a manifest that says which batches count, and the
DuckDB views over them.

Layout::

    STORE/manifest.json          the commit point: {"format", "store_id", "next_game",
                                 "batches": [...], "labels": {"version", "from_batch"},
                                 "superseded": [{"batches": [...], "at": time}]}
    STORE/batches/b000001/*.parquet   one file per table (see ``store.schema``; a large batch's
                                 positions and analysis one file per key range,
                                 ``store.partitions``), and
    STORE/batches/b000001/batch.json  the mark of the store that wrote it, with the size and
                                 SHA-256 digest of each of the batch's files (``seal``:
                                 ``kifudb check`` verifies them, a flipped bit anywhere is seen)
    STORE/kifudb.duckdb          the same views, for analysts (read-only use; rewritten when a
                                 writer lets its lock go)
    STORE/.lock                  held by the one process that writes
    STORE/tmp/                   batches being written (each folder marked like a batch)

A batch becomes part of the store when the manifest naming it replaces the old one
(``os.replace``, atomic). Readers never lock anything: ``Store.connect()`` opens an in-memory
DuckDB whose views read the manifest's batches, so queries go on while an ingest runs and see
its games once it commits::

    >>> import tempfile
    >>> store = Store(tempfile.mkdtemp())
    >>> store.connect().execute("SELECT count(*) FROM positions").fetchone()
    (0,)

What a writer may delete (``Store.writing``): only what it can prove is its own — a folder of
``tmp/`` or ``batches/`` that the manifest does not name and that carries this store's mark
(an interrupted commit), a folder of ``tmp/`` that a writer was killed making (named by an id,
holding nothing but an unfinished mark), the superseded batches of a compaction once their
grace period is over (the manifest lists them), and the ``kifudb.duckdb.<id>.tmp`` files of an
interrupted refresh. A marked folder is removed mark last (``remove_marked``), so that a writer
killed while it removes one leaves it marked.
A folder without a manifest is a store only if it is empty: a writer refuses a folder that
holds anything else (a store whose manifest was lost, or the wrong folder), and never reuses a
batch name that exists on disk.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import threading
import time
import uuid
from pathlib import Path
from typing import Optional

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from kifudb.store import DEFAULT_STORE
from kifudb.store import diagnose
from kifudb.store.manifest import (BATCH_NAME, FORMAT, PLACEMENTS_FORMAT, StoreDamaged,
                                   StoreError, check_manifest, new_manifest)
from kifudb.store import partitions
from kifudb.store.partitions import PARTITION_ROWS, PARTITIONED
from kifudb.store.schema import ADDED, OPTIONAL, SORTED, TABLES
from kifudb.store.sorting import sorted_by_ranges
from kifudb.store.tiers import BASE, merges

__all__ = ["Store", "StoreError", "StoreDamaged", "FORMAT", "SUPERSEDED_GRACE", "write_table",
           "damage_message", "file_digest", "seal"]

#: how long the batches a merge or a compaction replaced are kept, so that connections opened
#: before it (an analyst's notebook, the dashboard) go on reading them; ``GRACE_VARIABLE`` in
#: the writer's environment says otherwise (``superseded_grace``)
SUPERSEDED_GRACE = 24 * 3600
GRACE_VARIABLE = "KIFUDB_SUPERSEDED_GRACE"


def superseded_grace() -> float:
    """Seconds the replaced batches are kept: ``SUPERSEDED_GRACE``, or what
    ``KIFUDB_SUPERSEDED_GRACE`` says (a bulk build that no reader follows keeps them minutes,
    not a day of disk); a ``StoreError`` if it is not a number of seconds."""
    text = os.environ.get(GRACE_VARIABLE)
    if text is None:
        return SUPERSEDED_GRACE
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise StoreError(f"{GRACE_VARIABLE}={text!r}: it is how many seconds the batches a "
                         f"merge replaced are kept, a number of seconds (0 or more)")
    return seconds
#: the file in every batch (and tmp) folder that says which store wrote it
MARK = "batch.json"
#: rows per row group; the positions' are smaller, as a key lookup reads one of their row groups
#: in each batch (``store.lookup``, with Arrow: a group of 8k positions takes 0.13 ms to read its
#: keys and 0.4 ms in all, one of 32k 0.3 and 0.7 ms; 3% more bytes)
ROW_GROUP = 131072
#: bytes of a row group at most, whatever its rows: a merge's games (their headers and
#: provenance, about 1 KB a game) in row groups of ``ROW_GROUP`` rows took buffers of 128 MB
ROW_GROUP_BYTES = "16MB"
#: what DuckDB may hold in memory while it merges or compacts batches (``Store._rewrite``):
#: beyond it, its sorts spill to the store's ``tmp/``. A merge of 24.6M positions peaks at
#: 431 MB resident with 256 MB (686 MB with 512 MB, before ``ROW_GROUP_BYTES``)
MERGE_MEMORY = "256MB"
#: the tables whose rows are wide (a game's headers and provenance, a source's description):
#: written on one thread, as two threads' buffers of them do not fit ``MERGE_MEMORY``
ONE_THREAD = ("games", "sources")
POSITIONS_ROW_GROUP = 8192
#: the name of a folder ``Store._new_folder`` makes in ``tmp/``
_NEW_FOLDER = re.compile(r"[0-9a-f]{32}")
_REFRESH_TMP = re.compile(r"kifudb\.duckdb\.[0-9a-f]{32}\.tmp(\.wal)?")


def sql_string(text: str) -> str:
    """``text`` as an SQL string literal (a path of the store's own files, say)."""
    return "'" + text.replace("'", "''") + "'"



@contextlib.contextmanager
def uninterrupted():
    """Hold back Ctrl-C (SIGINT) until the block is done, then deliver it: a commit and the
    refresh after it finish whole. DuckDB turns a Ctrl-C that arrives during a query into
    ``RuntimeError: Query interrupted``, and an interrupt between writing a batch and
    forgetting its rows made a caller commit them twice. Only the main thread receives
    signals; elsewhere the block simply runs::

        >>> done = []
        >>> try:
        ...     with uninterrupted():
        ...         os.kill(os.getpid(), signal.SIGINT)
        ...         done.append("the block finished")
        ... except KeyboardInterrupt:
        ...     done.append("then Ctrl-C")
        >>> done
        ['the block finished', 'then Ctrl-C']
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: arrived.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if arrived:  # to the handler it held back: Python's raises KeyboardInterrupt here, an
        signal.raise_signal(signal.SIGINT)  # enclosing uninterrupted() holds it back further

class Store:
    """A store folder (created on first write)."""

    #: merges and compactions write their batch in a child process (``store.rewrite``); the
    #: tests of their failures inside the writer's process set it false
    rewrite_in_child = True

    def __init__(self, root=DEFAULT_STORE, partition_rows: int = PARTITION_ROWS):
        self.root = Path(root).resolve()
        #: the most positions a file of a batch this writer writes holds (``store.partitions``)
        self.partition_rows = partition_rows
        self._held = False  # the writer's lock is held (``locked``)
        self._pending: Optional[dict] = None  # the manifest to refresh the database for
        #: what the last commits could not do but did not need to (the analysts' database not
        #: refreshed, say), for the command line to show
        self.notes: list = []

    # ----- the manifest ------------------------------------------------------------------------

    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.json"

    def manifest(self) -> dict:
        """The committed state (an empty store if there is none yet); ``StoreDamaged`` if the
        manifest is not one."""
        try:
            with open(self.manifest_path, "rb") as stream:
                manifest = json.loads(stream.read().decode("utf-8"))
        except FileNotFoundError:
            return {**new_manifest(), "store_id": None}
        except (ValueError, UnicodeDecodeError) as error:
            raise StoreDamaged(f"store damaged: {self.manifest_path} is not JSON ({error}); "
                               f"`kifudb check --repair --store {self.root}` rebuilds it from "
                               f"the batches on disk") from None
        except OSError as error:
            raise StoreError(f"cannot read {self.manifest_path}: "
                             f"{error.strerror or error}") from None
        return check_manifest(manifest, str(self.manifest_path))

    def stamp(self):
        """What identifies the committed state: the manifest's inode, size and modification
        time (None before the first commit). Every commit replaces the manifest, so a reader
        whose stamp changed must read the manifest again."""
        try:
            st = os.stat(self.manifest_path)
        except FileNotFoundError:
            return None
        return st.st_ino, st.st_size, st.st_mtime_ns

    def batch_dir(self, name: str) -> Path:
        return self.root / "batches" / name

    def table_files(self, table: str, manifest=None) -> list:
        """The Parquet files of ``table`` in the committed batches."""
        manifest = manifest or self.manifest()
        if table in PARTITIONED:
            return [str(self.batch_dir(b) / name) for b in manifest["batches"]
                    for name in self.partition_files(b, table)]
        files = [str(self.batch_dir(b) / f"{table}.parquet") for b in manifest["batches"]]
        if table in OPTIONAL:  # an older batch has none (a sealed one that lost it: verify_batch)
            files = [f for f in files if os.path.isfile(f)]
        return files

    def partition_files(self, batch: str, table: str = "positions") -> list:
        """The names of the files of ``table`` (positions or analysis) of ``batch``, one per key
        range (``store.partitions``), with those its split lacks (a reader then says they are
        missing); none of a table a batch of an older kifudb lacks (``OPTIONAL``)."""
        try:
            names = [n for n in os.listdir(self.batch_dir(batch))
                     if partitions.parse(n, table) is not None]
        except OSError:
            names = []
        if not names and table in OPTIONAL:
            return []
        return sorted(names + partitions.missing(names, table))

    def positions_files(self, batch: str) -> list:
        """The names of the positions files of ``batch`` (``partition_files``)."""
        return self.partition_files(batch, "positions")

    def batch_positions(self, batch: str) -> int:
        """The positions ``batch`` holds (from its files' footers)."""
        return self._rows(batch, "positions")

    def _rows(self, batch: str, table: str) -> int:
        return sum(pq.read_metadata(self.batch_dir(batch) / name).num_rows
                   for name in self.partition_files(batch, table))

    def batch_rows(self, batch: str) -> int:
        """The rows keyed by position ``batch`` holds: its positions and its analysis."""
        return self._rows(batch, "positions") + self._rows(batch, "analysis")

    # ----- reading -------------------------------------------------------------------------------

    def connect(self, manifest=None, database: str = ":memory:") -> duckdb.DuckDBPyConnection:
        """A DuckDB connection with the store's views (``games``, ``sources``, ``moves``,
        ``positions``, ``findings``, ``files``, ``labels``, ``retired``, ``placements``,
        ``analysis``; ``*_all`` include the rows that no longer count): to an in-memory
        database, or to a new one in the file ``database`` (``store.engine``'s, whose tables
        are read from disk as queries need them)."""
        statements = self.view_statements(manifest)
        connection = duckdb.connect(database)
        # batch files never change: their footers are read once, for every cursor of this
        # database (a plain SET would hold for this connection only, not for its cursors)
        connection.execute("SET GLOBAL parquet_metadata_cache = true")
        # DuckDB draws a progress bar on standard output for a query of more than 2 s: not
        # into a command's output, nor into a merge's answer to its writer (store.rewrite;
        # a setting of this connection: each cursor of it has its own)
        connection.execute("SET enable_progress_bar = false")
        try:
            for statement in statements:
                connection.execute(statement)
        except duckdb.Error as error:
            connection.close()
            raise StoreDamaged(damage_message(error, self.root) or str(error)) from None
        return connection

    def view_statements(self, manifest=None) -> list:
        """The SQL that defines the views over the committed batches (``StoreDamaged`` if a
        batch file is missing, or its bytes are not those its batch was sealed with:
        ``verify_batch``, so that no query reads a damaged file without an error)."""
        manifest = manifest or self.manifest()
        for batch in manifest["batches"]:
            found = verify_batch(self.batch_dir(batch))
            if found is not None:
                raise StoreDamaged(_damaged(self.root, self.batch_dir(batch) / found[0], found[1]))
        statements = []
        for table, schema in TABLES.items():
            files = self.table_files(table, manifest)
            missing = next((f for f in files if not os.path.isfile(f)), None)
            if missing is not None:
                raise StoreDamaged(_damaged(self.root, Path(missing), "the file is missing"))
            if files:
                source = f"read_parquet([{', '.join(sql_string(f) for f in files)}])"
                added = _added_since(manifest.get("format", FORMAT), table)
                if added:  # an older store: the columns its batches lack, as nulls
                    try:
                        present = set(pq.read_schema(files[0]).names)
                    except (OSError, pa.ArrowException) as error:
                        raise StoreDamaged(_damaged(self.root, Path(files[0]),
                                                    str(error))) from None
                    added = [name for name in added if name not in present]
                if added:
                    nulls = ", ".join(f"CAST(NULL AS {_duckdb_type(schema.field(name).type)}) "
                                      f"AS \"{name}\"" for name in added)
                    source = f"(SELECT *, {nulls} FROM {source})"
            else:  # an empty store: typed empty views
                columns = ", ".join(f"CAST(NULL AS {_duckdb_type(field.type)}) AS \"{field.name}\""
                                    for field in schema)
                source = f"(SELECT {columns} WHERE false)"
            statements.append(f"CREATE OR REPLACE VIEW {table}_all AS SELECT * FROM {source}")
        statements += [
            "CREATE OR REPLACE VIEW retired AS SELECT * FROM retired_all",
            # a row read from a path counts unless a later batch read that path again
            *(f"CREATE OR REPLACE VIEW {t} AS SELECT * FROM {t}_all x WHERE NOT EXISTS "
              f"(SELECT 1 FROM retired_all r WHERE r.path = x.path AND r.batch > x.batch)"
              for t in ("sources", "findings", "files")),
            # the latest row of each game (a richer source may have re-described it)
            "CREATE OR REPLACE VIEW games AS SELECT * FROM games_all WHERE game IN "
            "(SELECT game FROM sources) QUALIFY row_number() OVER (PARTITION BY game "
            "ORDER BY batch DESC) = 1",
            "CREATE OR REPLACE VIEW moves AS SELECT * FROM moves_all WHERE game IN "
            "(SELECT game FROM sources)",
            "CREATE OR REPLACE VIEW positions AS SELECT * FROM positions_all",
            "CREATE OR REPLACE VIEW placements AS SELECT * FROM placements_all",
            # one judgement per position, engine, limit and line: the latest
            "CREATE OR REPLACE VIEW analysis AS SELECT * FROM analysis_all QUALIFY row_number() "
            "OVER (PARTITION BY key, engine, \"limit\", multipv ORDER BY batch DESC) = 1",
            # labels count from the last relabelling on, for the games the store shows
            f"CREATE OR REPLACE VIEW labels AS SELECT * FROM labels_all WHERE batch >= "
            f"{int(self.labels_state(manifest)['from_batch'])} "
            f"AND game IN (SELECT game FROM sources)",
        ]
        return statements

    def labels_state(self, manifest=None) -> dict:
        """``{"version", "from_batch"}``: the version of the definitions the labels were computed
        with (None before the first ingest) and the first batch whose labels count."""
        manifest = manifest or self.manifest()
        return manifest.get("labels") or {"version": None, "from_batch": 0}

    def record_calibration(self, name: str, entry: Optional[dict]) -> None:
        """Record ``entry`` (a dict) as the manifest's ``calibration`` entry ``name``, or
        remove it (None): a win-rate coefficient fitted to this store's games
        (``analytics.calibration``). Call under ``writing()``."""
        manifest = self.manifest()
        fitted = {k: v for k, v in (manifest.get("calibration") or {}).items() if k != name}
        if entry is not None:
            fitted[name] = entry
        self._write_manifest({**manifest, "calibration": fitted})

    # ----- writing ---------------------------------------------------------------------------------

    @contextlib.contextmanager
    def writing(self):
        """Hold the writer's lock (one writer at a time), make sure the folder is this store
        (or a new one), migrate an older format, and remove the debris of interrupted writers
        that is provably this store's own (see the module doc)."""
        with self.locked():
            manifest = self._writable_manifest()
            self._remove_debris(manifest)
            if manifest["format"] != FORMAT:
                self.notes.append(f"store format {manifest['format']} migrated to "
                                  f"format {FORMAT}")
                self.compact()
                if manifest["format"] < PLACEMENTS_FORMAT:
                    from kifudb.store.relabel import fill_placements  # it writes through a Store

                    fill_placements(self)
            yield self

    @contextlib.contextmanager
    def locked(self):
        """Hold the writer's lock only (``store.check`` repairs a store ``writing`` refuses).
        The analysts' ``kifudb.duckdb`` is refreshed once, when the lock is let go, for the
        last manifest written under it (an ingest commits a batch every half a million
        positions: refreshed at every commit, it was rewritten 200 times in a 100M-position
        ingest)."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            lock = open(self.root / ".lock", "a")
        except OSError as error:
            raise self._disk_error(error, "opening its lock file .lock") from None
        with lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self._held = True
            try:
                yield self
            finally:
                pending, self._held, self._pending = self._pending, False, None
                try:
                    with uninterrupted():
                        if pending is not None:
                            self._refresh_now(pending)
                        elif self._database_behind():  # a writer killed before it refreshed
                            with contextlib.suppress(StoreError):  # a damaged store says so
                                self._refresh_now(self.manifest())
                finally:
                    fcntl.flock(lock, fcntl.LOCK_UN)

    def _writable_manifest(self) -> dict:
        if self.manifest_path.exists():
            manifest = self.manifest()
            if manifest.get("store_id") is None:  # written by an older kifudb: mark it now
                manifest = {**manifest, "store_id": uuid.uuid4().hex,
                            "superseded": manifest.get("superseded", [])}
                self._write_manifest(manifest)
            return manifest
        foreign = sorted(name for name in os.listdir(self.root) if name != ".lock")
        if foreign:
            raise StoreError(
                f"{self.root} is not a kifudb store (it has no manifest.json) and is not empty "
                f"({len(foreign)} entries: {', '.join(foreign[:5])}{', …' if len(foreign) > 5 else ''}"
                f"): kifudb writes a store only into a new or empty folder, and leaves this one "
                f"as it is. If it was a store whose manifest.json was lost, "
                f"`kifudb check --repair --store {self.root}` adopts its batches.")
        manifest = new_manifest()
        self._write_manifest(manifest)
        return manifest

    def _ours(self, folder: Path, manifest: dict) -> bool:
        """True when ``folder`` carries this store's mark."""
        try:
            with open(folder / MARK, encoding="utf-8") as stream:
                return json.load(stream).get("store_id") == manifest["store_id"]
        except (OSError, ValueError, AttributeError):
            return False

    def _remove_debris(self, manifest: dict) -> None:
        tmp = self.root / "tmp"
        if tmp.is_dir():
            for child in tmp.iterdir():
                if child.is_dir() and self._ours(child, manifest) or _unmarked_new(child):
                    remove_marked(child)
        now = time.time()
        grace = superseded_grace()
        kept = [s for s in manifest.get("superseded", []) if s["at"] + grace > now]
        expired = [s for s in manifest.get("superseded", []) if s not in kept]
        keep = set(manifest["batches"]) | {b for s in kept for b in s["batches"]}
        for name in (b for s in expired for b in s["batches"] if b not in keep):
            remove_marked(self.batch_dir(name))
        folder = self.root / "batches"
        if folder.is_dir():
            for child in folder.iterdir():
                if child.name not in keep and child.is_dir() and self._ours(child, manifest):
                    remove_marked(child)
        for child in self.root.iterdir():
            if _REFRESH_TMP.fullmatch(child.name) or child.name == "manifest.json.tmp":
                with contextlib.suppress(OSError):
                    child.unlink()
        if expired:
            self._write_manifest({**manifest, "superseded": kept})

    def next_batch(self, manifest=None) -> int:
        """The number the next batch will get: above every batch the manifest names and every
        batch folder on disk (a name is never reused)."""
        manifest = manifest or self.manifest()
        names = set(manifest["batches"])
        names.update(b for s in manifest.get("superseded", []) for b in s["batches"])
        with contextlib.suppress(OSError):
            names.update(p.name for p in (self.root / "batches").iterdir())
        return 1 + max((int(b[1:]) for b in names if BATCH_NAME.fullmatch(b)), default=0)

    def batch(self, manifest=None):
        """A new, empty ``store.batch.Batch`` numbered as the next commit will be."""
        from kifudb.store.batch import Batch  # loads the readers: only writers need it

        return Batch(self.next_batch(manifest))

    def _new_folder(self, manifest: dict, name: str, replaces: list = ()) -> Path:
        """A marked folder in ``tmp/`` for batch ``name`` (or a spill folder); the mark names
        the batches it ``replaces`` (a merge or compaction)."""
        folder = self.root / "tmp" / uuid.uuid4().hex
        folder.mkdir(parents=True)
        mark = {"store_id": manifest["store_id"], "batch": name,
                "written": time.strftime("%Y-%m-%dT%H:%M:%S")}
        if replaces:
            mark["replaces"] = list(replaces)
        _write_mark(folder, mark)
        return folder

    def _install(self, folder: Path, name: str) -> None:
        """Make the written ``folder`` batch ``name`` (not yet committed): its mark gets the
        digest of every file (``seal``), then it is renamed into ``batches/``."""
        seal(folder)
        _fsync_dir(folder)
        (self.root / "batches").mkdir(exist_ok=True)
        os.rename(folder, self.batch_dir(name))
        _fsync_dir(self.root / "batches")
        self._sealed(name)

    def _sealed(self, name: str) -> None:
        """Batch ``name``'s files were just sealed (by this process or its rewrite's child):
        not hashed again when the views are made."""
        for path in self.batch_dir(name).glob("*.parquet"):
            st = os.stat(path)
            with _VERIFIED_LOCK:
                _VERIFIED.add((str(path), st.st_ino, st.st_size, st.st_mtime_ns))

    def commit(self, tables: dict, next_game: int, labels: dict = None) -> str:
        """Write one batch (``{table: pyarrow.Table}``; a table not keyed by position may be an
        iterable of tables, written as they come: ``write_table``) and make it part of the
        store; ``labels`` (``{"version", "from_batch"}``) replaces the manifest's labels entry.

        The batch is written to a temporary folder, renamed into ``batches/``, and committed by
        replacing the manifest; a crash, a full disk or an error of what makes the tables at
        any point leaves the previous state intact, and no folder behind (a full disk is said:
        ``StoreError``)."""
        manifest = self.manifest()
        name = f"b{self.next_batch(manifest):06d}"
        folder = None
        try:
            folder = self._new_folder(manifest, name)
            for table, schema in TABLES.items():
                data = tables.get(table)
                if data is None:
                    data = schema.empty_table()
                if table in PARTITIONED:
                    write_partitioned(data, folder, table, self.partition_rows)
                else:
                    write_table(data, folder / f"{table}.parquet", table)
            self._install(folder, name)
        except BaseException as error:
            if folder is not None:
                remove_marked(folder)
            if isinstance(error, OSError):
                raise self._disk_error(error, f"writing batch {name}") from None
            raise
        manifest = {**manifest, "next_game": next_game, "batches": manifest["batches"] + [name]}
        if labels is not None:
            manifest["labels"] = labels
        self._write_manifest(manifest)
        return name

    def compact(self) -> str:
        """Rewrite every committed batch into one (call under ``writing()``), in the current
        format: rows that no longer count are dropped and the positions of all games are
        sorted by key in one file. It costs as much as the store: ``tidy`` is what an ingest
        does; this is ``kifudb ingest --compact`` (and the migration of an older format). The
        batches it replaces stay for ``SUPERSEDED_GRACE`` seconds."""
        manifest = self.manifest()
        number = self.next_batch(manifest)
        rows = {t: sum(self._rows(b, t) for b in manifest["batches"]) for t in PARTITIONED}
        name = self._rewrite(manifest, manifest["batches"], number,
                             _compaction_queries(number), rows, "compacting into")
        labels = {**self.labels_state(manifest), "from_batch": number}
        self._replace(manifest, manifest["batches"], name,
                      {"format": FORMAT, "labels": labels})
        return name

    def tidy(self, base: int = BASE) -> list:
        """Merge batches tier by tier (``store.tiers``; ``base``: the writer's batch size)
        until no tier is full (call under ``writing()``); the names of the merged batches.
        A batch's size is its rows keyed by position (positions and analysis: what a key
        lookup reads), so the engine's analysis batches climb the tiers too."""
        made = []
        sizes = {b: self.batch_rows(b) for b in self.manifest()["batches"]}
        while True:
            plan = merges(list(sizes.items()), base)
            if not plan:
                return made
            merged = self.merge(plan[0])  # its positions: theirs, every row kept
            sizes = {**{b: n for b, n in sizes.items() if b not in plan[0]},
                     merged: sum(sizes[b] for b in plan[0])}
            made.append(merged)

    def merge(self, names: list) -> str:
        """Rewrite the committed batches ``names`` into one new batch (call under
        ``writing()``): their rows as they are (each keeps its ``batch``, so what counts is
        unchanged), positions sorted by key. The batches it replaces stay for
        ``SUPERSEDED_GRACE`` seconds."""
        manifest = self.manifest()
        number = self.next_batch(manifest)
        chosen = {**manifest, "batches": list(names)}
        queries = {table: (f"SELECT * FROM read_parquet([{', '.join(map(sql_string, files))}])"
                           if files else f"SELECT * FROM {table}_all WHERE false")
                   for table, files in ((t, self.table_files(t, chosen)) for t in TABLES)}
        queries["positions"] += " WHERE {keys} ORDER BY key, game, ply"
        queries["placements"] += (" WHERE {places} ORDER BY "
                                  + ", ".join(map(_column, SORTED["placements"])))
        queries["analysis"] += f" WHERE {{keys}} ORDER BY {', '.join(map(_column, SORTED['analysis']))}"
        rows = {t: sum(self._rows(b, t) for b in names) for t in PARTITIONED}
        name = self._rewrite(manifest, names, number, queries, rows, "merging into")
        kept = [b for b in manifest["batches"] if b not in names]
        self._replace(manifest, names, name, {"batches": kept + [name]})
        return name

    def _rewrite(self, manifest: dict, replaced: list, number: int, queries: dict,
                 rows: dict, doing: str) -> str:
        """``rewrite_here`` in a process of its own (``store.rewrite``), unless
        ``rewrite_in_child`` is false; the new batch's name."""
        if not self.rewrite_in_child:
            return self.rewrite_here(manifest, replaced, number, queries, rows, doing)
        from kifudb.store.rewrite import in_child

        name = in_child(self, manifest, replaced, number, queries, rows, doing)
        self._sealed(name)
        return name

    def rewrite_here(self, manifest: dict, replaced: list, number: int, queries: dict,
                     rows: dict, doing: str) -> str:
        """Write batch ``number`` (not yet committed) from one query per table, inside DuckDB
        with bounded memory (it sorts by spilling to the store's ``tmp/``); the query of a
        table keyed by position (about ``rows[table]`` rows) runs once per key range
        (``store.partitions``), its ``{keys}`` the range's condition, so each sort holds one
        range. The batch's mark names the batches it replaces (``kifudb check --repair`` then
        never adopts both)."""
        name = f"b{number:06d}"
        folder = spill = None
        try:
            folder = self._new_folder(manifest, name, replaces=replaced)
            spill = self._new_folder(manifest, "spill")
            # the views of the batches it replaces, not of the store (their files verified once)
            connection = self.connect({**manifest, "batches": list(replaced)})
            connection.execute(f"SET temp_directory = {sql_string(str(spill))}")
            connection.execute(f"SET memory_limit = '{MERGE_MEMORY}'")
            connection.execute("SET preserve_insertion_order = false")
            threads = connection.execute("SELECT current_setting('threads')").fetchone()[0]
            if any("kept_games" in query for query in queries.values()):
                # a compaction's games, evaluated once: its queries run once per key range
                connection.execute("CREATE TEMPORARY TABLE kept_games AS "
                                   "SELECT DISTINCT game FROM games")
            for table, query in queries.items():
                connection.execute(f"SET threads = {1 if table in ONE_THREAD else threads}")
                if "{places}" in query:  # sorted whole, a range at a time (store.sorting)
                    write_table(sorted_by_ranges(connection, query, TABLES[table], ROW_GROUP),
                                folder / f"{table}.parquet", table)
                    continue
                if table not in PARTITIONED:
                    _copy(connection, query, folder / f"{table}.parquet", ROW_GROUP)
                    continue
                bits = partitions.partition_bits(rows[table], self.partition_rows)
                for index in range(1 << bits):
                    low, high = partitions.key_range(bits, index)
                    keys = (f"key >= {low}::UBIGINT"
                            + (f" AND key < {high}::UBIGINT" if high < 1 << 64 else ""))
                    _copy(connection, query.replace("{keys}", keys),
                          folder / partitions.file_name(bits, index, table), POSITIONS_ROW_GROUP)
            connection.close()
            self._install(folder, name)
        except (OSError, duckdb.Error) as error:
            if folder is not None:
                remove_marked(folder)
            raise self._disk_error(error, f"{doing} batch {name}") from None
        finally:
            if spill is not None:
                remove_marked(spill)
        return name

    def _replace(self, manifest: dict, replaced: list, name: str, changes: dict) -> None:
        """Commit batch ``name`` in place of ``replaced`` (kept for the grace period)."""
        batches = [b for b in manifest["batches"] if b not in replaced] + [name]
        superseded = manifest.get("superseded", []) + [{"batches": list(replaced),
                                                        "at": time.time()}]
        self._write_manifest({**manifest, "batches": batches, "superseded": superseded,
                              **changes})

    def _write_manifest(self, manifest: dict) -> None:
        tmp = self.manifest_path.with_suffix(".json.tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as stream:
                json.dump(manifest, stream, indent=1)
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(tmp, self.manifest_path)
        except OSError as error:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise self._disk_error(error, "writing manifest.json") from None
        _fsync_dir(self.root)
        if self._held:  # refreshed once, when the lock is let go
            self._pending = manifest
        else:
            self._refresh_now(manifest)

    def _database_behind(self) -> bool:
        """True when ``kifudb.duckdb`` is older than the manifest (or missing beside one)."""
        try:
            manifest = os.stat(self.manifest_path).st_mtime_ns
        except OSError:
            return False
        try:
            return os.stat(self.root / "kifudb.duckdb").st_mtime_ns < manifest
        except OSError:
            return True

    def _refresh_now(self, manifest: dict) -> None:
        note = self.refresh_database(manifest)
        if note is not None:
            self.notes.append(note)

    def _disk_error(self, error: Exception, doing: str) -> Exception:
        """A ``StoreError`` that says the disk is full or the folder may not be written (a
        read-only mount, no permission), or ``error`` itself."""
        text = str(error)
        if getattr(error, "errno", None) in (errno.EROFS, errno.EACCES, errno.EPERM):
            return StoreError(f"cannot write the store {self.root}: {error.strerror} ({doing}); "
                              f"ingest, --compact, check --repair and relabel need a store "
                              f"folder they may write in. The store is unchanged (its last "
                              f"commit stands).")
        if getattr(error, "errno", None) in (errno.ENOSPC, errno.EDQUOT) \
                or "No space left on device" in text or "Disk quota exceeded" in text:
            return StoreError(f"the disk is full: {doing} in {self.root} failed; the store is "
                              f"unchanged (its last commit stands). Free some space and run "
                              f"the command again.")
        return error

    def refresh_database(self, manifest=None):
        """Rewrite ``kifudb.duckdb`` with the current views, for analysts. It replaces the old
        one only once it is completely written and holds every view; else the old one stays
        and a note says why (an analyst holds it open, or the disk is full)."""
        path = self.root / "kifudb.duckdb"
        tmp = self.root / f"kifudb.duckdb.{uuid.uuid4().hex}.tmp"
        try:
            statements = self.view_statements(manifest)
        except StoreError as error:
            return f"{path.name} was not refreshed (the previous one stays): {error}"
        try:
            connection = duckdb.connect(str(tmp))
            try:
                for statement in statements:
                    connection.execute(statement)
                connection.execute("CHECKPOINT")
            finally:
                connection.close()
            check = duckdb.connect(str(tmp), read_only=True)
            try:
                views = check.execute("SELECT count(*) FROM duckdb_views() "
                                      "WHERE NOT internal").fetchone()[0]
            finally:
                check.close()
            if views != len(statements):
                raise OSError(errno.EIO, f"{views} of {len(statements)} views written")
            with open(tmp, "rb") as stream:
                os.fsync(stream.fileno())
            os.replace(tmp, path)
            return None
        except (duckdb.Error, OSError) as error:
            for leftover in (tmp, Path(f"{tmp}.wal")):
                with contextlib.suppress(OSError):
                    leftover.unlink()
            return f"{path.name} was not refreshed (the previous one stays): {error}"


def _copy(connection, query: str, path: Path, row_group: int) -> None:
    """Write the rows of ``query`` as the Parquet file ``path``."""
    connection.execute(f"COPY ({query}) TO {sql_string(str(path))} (FORMAT parquet, COMPRESSION "
                       f"zstd, ROW_GROUP_SIZE {row_group}, ROW_GROUP_SIZE_BYTES "
                       f"'{ROW_GROUP_BYTES}', PARQUET_VERSION V2)")


def _compaction_queries(number: int) -> dict:
    """The query that writes each table of a compacted batch, cast to the current schema."""
    sources = {"games": "games", "sources": "sources", "moves": "moves",
               "positions": "positions", "findings": "findings", "files": "files",
               "retired": "retired_all", "labels": "labels", "placements": "placements",
               "analysis": "analysis"}
    queries = {}
    for table, schema in TABLES.items():
        columns = ", ".join(
            f"CAST({number if field.name == 'batch' else _column(field.name)} AS "
            f"{_duckdb_type(field.type)}) AS {_column(field.name)}" for field in schema)
        queries[table] = f"SELECT {columns} FROM {sources[table]}"
    queries["positions"] += (" WHERE {keys} AND game IN (SELECT game FROM kept_games) "
                             "ORDER BY key, game, ply")
    queries["placements"] += (f" WHERE game IN (SELECT game FROM kept_games) AND {{places}} "
                              f"ORDER BY {', '.join(SORTED['placements'])}")
    queries["analysis"] += f" WHERE {{keys}} ORDER BY {', '.join(map(_column, SORTED['analysis']))}"
    queries["retired"] += " WHERE false"
    return queries


def _added_since(version: int, table: str) -> tuple:
    """The columns of ``table`` that the formats after ``version`` added (``store.schema.ADDED``)."""
    return tuple(name for number, tables in sorted(ADDED.items()) if number > version
                 for name in tables.get(table, ()))


def _column(name: str) -> str:
    return f'"{name}"'


def damage_message(error: Exception, root: Optional[Path] = None) -> str | None:
    """The "store damaged" message of a DuckDB or Arrow error about a batch file of the store at
    ``root`` (``store.diagnose.damage_message``), else None."""
    return diagnose.damage_message(error, root)


def _damaged(root: Path, file: Path, reason: str) -> str:
    return diagnose.damaged_file(root, file.parent.name, file.name, reason)


def file_digest(path) -> dict:
    """``{"size", "sha256"}`` of a file's bytes, read in blocks."""
    digest, size = hashlib.sha256(), 0
    with open(path, "rb") as stream:
        while block := stream.read(1 << 20):
            digest.update(block)
            size += len(block)
    return {"size": size, "sha256": digest.hexdigest()}


def files_digest(files: dict) -> str:
    """The digest of a mark's ``files`` entry itself, so that a flipped bit in the mark is seen
    as well (a mark without both is one written before digests)."""
    return hashlib.sha256(json.dumps(files, sort_keys=True).encode("utf-8")).hexdigest()


def sealed_files(folder: Path):
    """The files the batch ``folder`` was sealed with (``seal``): ``{name: {"size", "sha256"}}``;
    None for a batch written before digests (its mark has neither ``files`` nor ``digest``);
    ``ValueError`` saying why for a mark that is damaged."""
    try:
        with open(folder / MARK, "rb") as stream:
            mark = json.loads(stream.read().decode("utf-8"))
    except FileNotFoundError:
        return None
    except (ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"its mark {MARK} is not JSON ({error})") from None
    if not isinstance(mark, dict):
        raise ValueError(f"its mark {MARK} is not a JSON object")
    files, digest = mark.get("files"), mark.get("digest")
    if files is None and digest is None:
        return None
    if not isinstance(files, dict) or digest != files_digest(files) or not all(
            isinstance(entry, dict) and isinstance(entry.get("size"), int)
            and isinstance(entry.get("sha256"), str) for entry in files.values()):
        raise ValueError(f"the digests in its mark {MARK} are not those it was sealed with")
    return files


def digest_problem(path: Path, sealed) -> Optional[str]:
    """Why the bytes of ``path`` are not those its batch was sealed with (``sealed``: its
    ``{"size", "sha256"}`` from ``sealed_files``), or None."""
    if sealed is None:
        return "it has no digest in the batch's mark (not written with the batch)"
    try:
        found = file_digest(path)
    except FileNotFoundError:
        return "the file is missing"
    except OSError as error:
        return f"cannot be read ({error.strerror or error})"
    if found["size"] != sealed["size"]:
        return f"{found['size']:,} bytes, written as {sealed['size']:,}"
    if found["sha256"] != sealed["sha256"]:
        return "its bytes are not those written (its SHA-256 digest differs from the batch's mark)"
    return None


#: the batch files whose digest this process verified, as (path, inode, size, modification
#: time): each is hashed once while it is unchanged
_VERIFIED: set = set()
_VERIFIED_LOCK = threading.Lock()


def verified_in(folders: list) -> list:
    """The files of the batch ``folders`` this process has verified, as ``trust`` takes them
    (``(path, inode, size, modification time)``: a file changed since is verified again)."""
    prefixes = tuple(f"{folder}{os.sep}" for folder in folders)
    with _VERIFIED_LOCK:
        return [list(known) for known in _VERIFIED if known[0].startswith(prefixes)]


def trust(verified: list) -> None:
    """Take the files ``verified_in`` gave (another process of the same writer verified them)
    as verified in this one."""
    with _VERIFIED_LOCK:
        _VERIFIED.update(tuple(known) for known in verified)


def verify_batch(folder: Path) -> Optional[tuple]:
    """``(file name, why)`` of the first file of the batch ``folder`` whose bytes are not those
    it was sealed with (``seal``), or None: every file is, or the batch was written before
    digests. Reading the views costs this once per file and process (SHA-256 at about 500 MB/s:
    0.09 s for a store of a million positions, 4% of building the engine)."""
    try:
        sealed = sealed_files(folder)
    except ValueError as error:
        return MARK, str(error)
    if sealed is None:
        return None
    for name, entry in sorted(sealed.items()):
        path = folder / name
        try:
            st = os.stat(path)
        except OSError:
            return name, "the file is missing"
        known = (str(path), st.st_ino, st.st_size, st.st_mtime_ns)
        if known in _VERIFIED:
            continue
        problem = digest_problem(path, entry)
        if problem is not None:
            return name, problem
        with _VERIFIED_LOCK:
            if len(_VERIFIED) > 1 << 16:
                _VERIFIED.clear()
            _VERIFIED.add(known)
    return None


def seal(folder: Path) -> None:
    """Write the size and digest of every Parquet file of the batch ``folder`` into its mark
    (``files``, and ``digest`` of that), before the batch is installed: ``kifudb check`` then
    knows each file's bytes as they were written."""
    try:
        with open(folder / MARK, encoding="utf-8") as stream:
            mark = json.load(stream)
    except FileNotFoundError:
        mark = {}
    files = {path.name: file_digest(path) for path in sorted(folder.glob("*.parquet"))}
    mark.update(files=files, digest=files_digest(files))
    _write_mark(folder, mark, durable=True)


def _write_mark(folder: Path, mark: dict, durable: bool = False) -> None:
    """Write ``folder``'s mark whole or not at all (``MARK.tmp``, renamed): a writer killed
    while it marks a new folder leaves it holding nothing, or only ``MARK.tmp``
    (``_unmarked_new``)."""
    tmp = folder / f"{MARK}.tmp"
    with open(tmp, "w", encoding="utf-8") as stream:
        json.dump(mark, stream)
        if durable:
            stream.flush()
            os.fsync(stream.fileno())
    os.replace(tmp, folder / MARK)


def remove_marked(folder: Path) -> None:
    """Remove a marked folder (a batch, or a folder of ``tmp/``) and what it holds. It is first
    renamed (an id, in the same place), so that nothing writes into it by its name any more (a
    worker still writing a batch its client gave up), and its mark goes last: a writer killed
    half-way leaves a marked folder, which the next writer removes."""
    doomed = folder.with_name(uuid.uuid4().hex)
    try:
        os.rename(folder, doomed)
    except FileNotFoundError:
        return
    except OSError:
        doomed = folder  # removed where it is
    try:
        entries = list(os.scandir(doomed))
    except OSError:
        return
    for entry in sorted(entries, key=lambda entry: entry.name == MARK):
        with contextlib.suppress(OSError):
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
    with contextlib.suppress(OSError):
        os.rmdir(doomed)


def _unmarked_new(folder: Path) -> bool:
    """True for a folder of ``tmp/`` that a writer was killed making: named as
    ``Store._new_folder`` names them, holding nothing but an unfinished mark (nothing is
    written into a folder before its mark)."""
    if not _NEW_FOLDER.fullmatch(folder.name) or not folder.is_dir():
        return False
    try:
        return {entry.name for entry in os.scandir(folder)} <= {f"{MARK}.tmp"}
    except OSError:
        return False


def write_positions(table: pa.Table, folder: Path, partition_rows: int = PARTITION_ROWS) -> None:
    """Write a batch's positions (sorted by key) into ``folder``: one file per key range
    (``store.partitions``)."""
    write_partitioned(table, folder, "positions", partition_rows)


def write_partitioned(table: pa.Table, folder: Path, name: str,
                      partition_rows: int = PARTITION_ROWS) -> None:
    """Write a batch's table ``name`` keyed by position (sorted by key) into ``folder``: one
    file per key range (``store.partitions``)."""
    bits = partitions.partition_bits(table.num_rows, partition_rows)
    keys = table.column("key").to_numpy()
    for index in range(1 << bits):
        low, high = partitions.key_range(bits, index)
        start = int(np.searchsorted(keys, np.uint64(low), "left")) if index else 0
        stop = (int(np.searchsorted(keys, np.uint64(high), "left")) if high < 1 << 64
                else table.num_rows)
        write_table(table.slice(start, stop - start),
                    folder / partitions.file_name(bits, index, name), name)


def write_table(table, path: Path, name: str) -> None:
    """Write one table as Parquet, with the encodings that keep the positions small: a
    ``pyarrow.Table``, or an iterable of them written one after another (row groups of each),
    so that a table need not be held whole (``kifudb relabel``)."""
    options = dict(compression="zstd", compression_level=6, row_group_size=ROW_GROUP)
    if name == "analysis":  # a key lookup reads a row group, as in positions
        options.update(row_group_size=POSITIONS_ROW_GROUP, write_statistics=["key"])
    if name == "placements":  # sorted by place and piece: a game's ids rise within each
        # (10M rows of a merge: 2.26 bytes a row, as DuckDB writes them; 6.38 by default)
        options.update(use_dictionary=["place", "piece", "count", "from_ply", "to_ply"],
                       column_encoding={"game": "DELTA_BINARY_PACKED"})
    if name == "positions":
        options.update(row_group_size=POSITIONS_ROW_GROUP, use_dictionary=["next_move"],
                       column_encoding={"key": "DELTA_BINARY_PACKED", "game": "DELTA_BINARY_PACKED",
                                        "ply": "DELTA_BINARY_PACKED"},
                       write_statistics=["key"])
    # page checksums (CRC-32 of each page): pyarrow verifies them (``kifudb check``), DuckDB
    # does not; they cost about 7% of writing the tables (0.2 s of 3 s a million positions),
    # under 0.5% of an ingest (``seal``: the digests DuckDB's readers get instead)
    if isinstance(table, pa.Table):
        pq.write_table(table, path, write_page_checksum=True, **options)
    else:
        row_group = options.pop("row_group_size")
        with pq.ParquetWriter(path, TABLES[name], write_page_checksum=True, **options) as writer:
            for part in table:
                writer.write_table(part, row_group_size=row_group)
    with open(path, "rb") as stream:
        os.fsync(stream.fileno())


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _duckdb_type(arrow_type) -> str:
    if pa.types.is_list(arrow_type):
        return _duckdb_type(arrow_type.value_type) + "[]"
    return {pa.int8(): "TINYINT", pa.int16(): "SMALLINT", pa.int32(): "INTEGER", pa.int64(): "BIGINT",
            pa.uint64(): "UBIGINT", pa.float32(): "FLOAT", pa.bool_(): "BOOLEAN",
            pa.date32(): "DATE", pa.string(): "VARCHAR"}[arrow_type]
