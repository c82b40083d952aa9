"""The store: one folder of Parquet batches, a manifest that says which batches count, and the
DuckDB views over them.

Layout::

    STORE/manifest.json          the commit point: {"format", "next_game", "batches": [...],
                                 "labels": {"version", "from_batch"}}
    STORE/batches/b000001/*.parquet   one file per table (see ``store.schema``)
    STORE/kifudb.duckdb          the same views, for analysts (read-only use; rewritten on commit)
    STORE/.lock                  held by the one process that writes

A batch becomes part of the store when the manifest naming it replaces the old one
(``os.replace``, atomic); a batch folder the manifest does not name is debris of an interrupted
ingest and is removed by the next writer. Readers never lock anything: ``Store.connect()`` opens
an in-memory DuckDB whose views read the manifest's batches, so queries go on while an ingest
runs and see its games once it commits::

    >>> import tempfile
    >>> store = Store(tempfile.mkdtemp())
    >>> store.connect().execute("SELECT count(*) FROM positions").fetchone()
    (0,)
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import uuid
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from store import DEFAULT_STORE
from store.schema import TABLES

FORMAT = 3  # 2: games rows carry their batch; 3: labels


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class Store:
    """A store folder (created on first write)."""

    def __init__(self, root=DEFAULT_STORE):
        self.root = Path(root).resolve()

    # ----- the manifest ------------------------------------------------------------------------

    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.json"

    def manifest(self) -> dict:
        """The committed state (an empty store if there is none yet)."""
        try:
            with open(self.manifest_path, encoding="utf-8") as stream:
                manifest = json.load(stream)
        except FileNotFoundError:
            return {"format": FORMAT, "next_game": 1, "batches": []}
        if manifest.get("format") != FORMAT:
            raise ValueError(f"{self.manifest_path}: store format {manifest.get('format')!r}, "
                             f"this kifudb reads format {FORMAT}: ingest the records again "
                             f"into a new store folder")
        return manifest

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
        return [str(self.batch_dir(b) / f"{table}.parquet") for b in manifest["batches"]]

    # ----- reading -------------------------------------------------------------------------------

    def connect(self, manifest=None) -> duckdb.DuckDBPyConnection:
        """An in-memory DuckDB connection with the store's views (``games``, ``sources``,
        ``moves``, ``positions``, ``findings``, ``files``, ``labels``, ``retired``; ``*_all``
        include the rows that no longer count)."""
        connection = duckdb.connect()
        connection.execute("SET parquet_metadata_cache = true")  # batch files never change
        for statement in self.view_statements(manifest):
            connection.execute(statement)
        return connection

    def view_statements(self, manifest=None) -> list:
        """The SQL that defines the views over the committed batches."""
        manifest = manifest or self.manifest()
        statements = []
        for table, schema in TABLES.items():
            files = self.table_files(table, manifest)
            if files:
                source = f"read_parquet([{', '.join(_quote(f) for f in files)}])"
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

    # ----- writing ---------------------------------------------------------------------------------

    @contextlib.contextmanager
    def writing(self):
        """Hold the writer's lock (one ingest at a time); removes the debris of interrupted ones."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                self._remove_debris()
                yield self
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _remove_debris(self) -> None:
        shutil.rmtree(self.root / "tmp", ignore_errors=True)
        committed = set(self.manifest()["batches"])
        folder = self.root / "batches"
        if folder.is_dir():
            for child in folder.iterdir():
                if child.name not in committed:
                    shutil.rmtree(child, ignore_errors=True)

    def next_batch(self, manifest=None) -> int:
        """The number the next batch will get."""
        manifest = manifest or self.manifest()
        return 1 + max((int(b[1:]) for b in manifest["batches"]), default=0)

    def batch(self, manifest=None):
        """A new, empty ``store.batch.Batch`` numbered as the next commit will be."""
        from store.batch import Batch  # loads the readers: only writers need it

        return Batch(self.next_batch(manifest))

    def commit(self, tables: dict, next_game: int, labels: dict = None) -> str:
        """Write one batch (``{table: pyarrow.Table}``) and make it part of the store;
        ``labels`` (``{"version", "from_batch"}``) replaces the manifest's labels entry.

        The batch is written to a temporary folder, renamed into ``batches/``, and committed by
        replacing the manifest; a crash at any point leaves the previous state intact."""
        manifest = self.manifest()
        number = self.next_batch(manifest)
        name = f"b{number:06d}"
        tmp = self.root / "tmp" / uuid.uuid4().hex
        tmp.mkdir(parents=True)
        for table, schema in TABLES.items():
            data = tables.get(table)
            if data is None:
                data = schema.empty_table()
            write_table(data, tmp / f"{table}.parquet", table)
        _fsync_dir(tmp)
        (self.root / "batches").mkdir(exist_ok=True)
        os.rename(tmp, self.batch_dir(name))
        _fsync_dir(self.root / "batches")
        manifest = {**manifest, "next_game": next_game, "batches": manifest["batches"] + [name]}
        if labels is not None:
            manifest["labels"] = labels
        self._write_manifest(manifest)
        return name

    def compact(self) -> str:
        """Rewrite every committed batch into one (call under ``writing()``): rows that no
        longer count are dropped and the positions of all games are sorted by key in one file,
        so that a key lookup reads one row group. Runs inside DuckDB, which spills to disk."""
        manifest = self.manifest()
        number = self.next_batch(manifest)
        name = f"b{number:06d}"
        tmp = self.root / "tmp" / uuid.uuid4().hex
        tmp.mkdir(parents=True)
        connection = self.connect(manifest)
        # bounded memory: DuckDB sorts 10M+ positions by spilling to the store's tmp folder
        connection.execute(f"SET temp_directory = {_quote(str(tmp.parent / 'spill'))}")
        connection.execute("SET memory_limit = '512MB'")
        connection.execute("SET preserve_insertion_order = false")
        queries = {
            "games": f"SELECT * REPLACE ({number} AS batch) FROM games",
            "sources": f"SELECT * REPLACE ({number} AS batch) FROM sources",
            "moves": "SELECT * FROM moves",
            "positions": "SELECT * FROM positions WHERE game IN (SELECT game FROM games) "
                         "ORDER BY key, game, ply",
            "findings": f"SELECT * REPLACE ({number} AS batch) FROM findings",
            "files": f"SELECT * REPLACE ({number} AS batch) FROM files",
            "retired": "SELECT * FROM retired_all WHERE false",
            "labels": f"SELECT * REPLACE ({number} AS batch) FROM labels",
        }
        for table, query in queries.items():
            target = _quote(str(tmp / f"{table}.parquet"))
            connection.execute(f"COPY ({query}) TO {target} (FORMAT parquet, COMPRESSION zstd, "
                               f"ROW_GROUP_SIZE 131072, PARQUET_VERSION V2)")
        connection.close()
        _fsync_dir(tmp)
        (self.root / "batches").mkdir(exist_ok=True)
        os.rename(tmp, self.batch_dir(name))
        # the old batches stay until the next writer removes them as debris, so that queries
        # already running on the previous manifest can finish
        labels = {**self.labels_state(manifest), "from_batch": number}
        self._write_manifest({**manifest, "batches": [name], "labels": labels})
        return name

    def _write_manifest(self, manifest: dict) -> None:
        tmp = self.manifest_path.with_suffix(".json.tmp")
        with open(tmp, "w", encoding="utf-8") as stream:
            json.dump(manifest, stream, indent=1)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(tmp, self.manifest_path)
        _fsync_dir(self.root)
        self.refresh_database(manifest)

    def refresh_database(self, manifest=None) -> bool:
        """Rewrite ``kifudb.duckdb`` with the current views, for analysts; False if an analyst
        holds it open (the next commit tries again)."""
        path = self.root / "kifudb.duckdb"
        tmp = self.root / f"kifudb.duckdb.{uuid.uuid4().hex}.tmp"
        try:
            connection = duckdb.connect(str(tmp))
            for statement in self.view_statements(manifest):
                connection.execute(statement)
            connection.close()
            os.replace(tmp, path)
            return True
        except (duckdb.Error, OSError):
            with contextlib.suppress(OSError):
                tmp.unlink()
            return False


def write_table(table: pa.Table, path: Path, name: str) -> None:
    """Write one table as Parquet, with the encodings that keep the positions small."""
    options = dict(compression="zstd", compression_level=6, row_group_size=128 * 1024)
    if name == "positions":
        options.update(use_dictionary=["next_move"],
                       column_encoding={"key": "DELTA_BINARY_PACKED", "game": "DELTA_BINARY_PACKED",
                                        "ply": "DELTA_BINARY_PACKED"},
                       write_statistics=["key"])
    pq.write_table(table, path, **options)
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
    return {pa.int16(): "SMALLINT", pa.int32(): "INTEGER", pa.int64(): "BIGINT",
            pa.uint64(): "UBIGINT", pa.float32(): "FLOAT", pa.bool_(): "BOOLEAN",
            pa.date32(): "DATE", pa.string(): "VARCHAR"}[arrow_type]
