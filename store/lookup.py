"""A key lookup in the positions files, read with Arrow alone: the rows of a few position keys
without a DuckDB query.

The positions of every batch are sorted by key, split into files by key range
(``store.partitions``) and written in row groups of ``POSITIONS_ROW_GROUP`` rows with the key's
minimum and maximum in each group's statistics. ``KeyIndex`` reads those statistics once per
file (the footer, cached with the file's Parquet metadata), so that a lookup is, per batch: the
file whose range holds the key, a binary search in its row groups' maxima, the one row group that
can hold the key (rarely two) read, and a binary search in its sorted keys. DuckDB answers the
same question in a query that weighs the statistics of every row group of the files it reads
and plans a scan (10 ms for five batches of a 10M-position store against 1–2 ms here); the rows
found go on to the DuckDB query that joins them to the games (``store.engine.hits``), or to the
join in Arrow of a search without filters (``store.engine.hits_with_games``)::

    >>> import tempfile
    >>> from kifudb.core.position import Position
    >>> from kifudb.store.folder import Store
    >>> from kifudb.store.writer import ingest_paths
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["data/samples/games.usi"], folder)
    >>> store = Store(folder)
    >>> index = KeyIndex({store.batch_dir(b): store.positions_files(b)
    ...                   for b in store.manifest()["batches"]}, store.root)
    >>> found = index.rows({Position().key(): False})
    >>> found.num_rows, found.column_names
    (11, ['game', 'ply', 'next_move', 'black_to_move', 'mirrored'])
    >>> index.rows({12345: True}).num_rows
    0
    >>> import shutil; shutil.rmtree(folder)
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from kifudb.store import partitions
from kifudb.store.diagnose import damaged_file
from kifudb.store.manifest import StoreDamaged

__all__ = ["KeyIndex", "HITS_SCHEMA"]

#: the columns of a lookup's rows, in this order (``store.engine.hits``)
HITS_SCHEMA = pa.schema([("game", pa.int32()), ("ply", pa.int32()), ("next_move", pa.int16()),
                         ("black_to_move", pa.bool_()), ("mirrored", pa.bool_())])
#: the positions file's columns read: the key (first), then the others
_READ = ["key", "game", "ply", "next_move", "black_to_move"]


class _File:
    """One positions file: its path, Parquet metadata and row groups' key minima and maxima,
    and a reader per thread (threads do not share one)."""

    __slots__ = ("path", "metadata", "low", "high", "sizes", "_columns", "_readers")

    def __init__(self, path: Path) -> None:
        self.path = path
        self.metadata = pq.read_metadata(path)
        groups = [self.metadata.row_group(i) for i in range(self.metadata.num_row_groups)]
        stats = [group.column(0).statistics for group in groups]
        if any(s is None or not s.has_min_max for s in stats):  # an older writer's file:
            self.low = np.zeros(len(groups), np.uint64)  # every group may hold every key
            self.high = np.full(len(groups), np.iinfo(np.uint64).max, np.uint64)
        else:
            self.low = np.array([s.min for s in stats], np.uint64)
            self.high = np.array([s.max for s in stats], np.uint64)
        self.sizes = np.array([group.num_rows for group in groups], np.int64)
        schema = self.metadata.schema.to_arrow_schema()
        self._columns = [schema.get_field_index(name) for name in _READ]
        self._readers = threading.local()

    def _reader(self) -> pq.ParquetFile:
        reader = getattr(self._readers, "reader", None)
        if reader is None:
            reader = self._readers.reader = pq.ParquetFile(self.path, metadata=self.metadata,
                                                           memory_map=True)
        return reader

    def most_rows(self, key: int) -> int:
        """The rows of the row groups whose statistics say they may hold ``key``."""
        wanted = np.uint64(key)
        return int(self.sizes[(self.low <= wanted) & (wanted <= self.high)].sum())

    def rows(self, key: int) -> Iterator[pa.Table]:
        """The Arrow tables (``_READ``'s columns after the key) of the rows of ``key``: one per
        row group that holds it, read as they are asked for. A group's keys are read first, and
        its other columns only if it holds the key (a key is in one batch of several, most
        often)."""
        wanted = np.uint64(key)
        group = int(np.searchsorted(self.high, wanted))
        while group < len(self.low) and self.low[group] <= wanted:
            reader = self._reader().reader
            keys = reader.read_row_group(group, column_indices=self._columns[:1]).column(0).to_numpy()
            start = int(np.searchsorted(keys, wanted))
            stop = int(np.searchsorted(keys, wanted, "right"))
            if stop > start:
                rest = reader.read_row_group(group, column_indices=self._columns[1:])
                yield rest.select(_READ[1:]).slice(start, stop - start)
            group += 1


class KeyIndex:
    """The positions files of a store's batches (``{batch folder: its positions file names}``),
    ready for lookups by key; the files' footers are read on first use and kept."""

    def __init__(self, files: dict, root) -> None:
        self._names = {Path(folder): list(names) for folder, names in files.items()}
        self._root = root
        self._files: dict = {}
        self._lock = threading.Lock()

    def _file(self, path: Path) -> _File:
        known = self._files.get(path)
        if known is None:
            known = _File(path)
            with self._lock:
                self._files.setdefault(path, known)
        return known

    def most_rows(self, keys: dict) -> int:
        """At most how many rows ``rows`` gives for ``keys``, from the row groups' statistics
        alone (no row read): what says whether a lookup is kept or streamed
        (``store.engine``)."""
        total = 0
        for key in keys:
            for path in self._covering(key):
                try:
                    total += self._file(path).most_rows(key)
                except (OSError, pa.ArrowException) as error:
                    raise self._damaged(path, error) from error
        return total

    def rows(self, keys: dict) -> pa.Table:
        """The positions rows of ``keys`` (``{key: mirrored}``) as one Arrow table
        (``HITS_SCHEMA``), the keys in the given order, each batch's rows in key order."""
        parts = list(self.chunks(keys))
        return pa.concat_tables(parts) if parts else HITS_SCHEMA.empty_table()

    def chunks(self, keys: dict) -> Iterator[pa.Table]:
        """``rows``, a row group's rows at a time (at most ``POSITIONS_ROW_GROUP``): what a
        search that keeps a page alone holds of a position found in every game. Within a key
        and a batch, the rows come by game, then ply."""
        for key, mirrored in keys.items():
            for path in self._covering(key):
                try:
                    for table in self._file(path).rows(key):
                        flag = pa.array(np.full(table.num_rows, bool(mirrored)))
                        yield pa.Table.from_arrays([*table.columns, flag], schema=HITS_SCHEMA)
                except (OSError, pa.ArrowException) as error:
                    raise self._damaged(path, error) from error

    def _covering(self, key: int) -> Iterator[Path]:
        """The positions file of each batch whose key range holds ``key``."""
        for folder, names in self._names.items():
            name = partitions.covering(names, key)
            if name is not None:
                yield folder / name

    def _damaged(self, path: Path, error: Exception) -> StoreDamaged:
        """The error of a positions file that cannot be read, naming it."""
        return StoreDamaged(damaged_file(self._root, path.parent.name, path.name,
                                         (str(error).splitlines() or [type(error).__name__])[0]))
