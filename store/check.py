"""``kifudb check``: verify every file of a store against its manifest, and repair what is damaged.

``check_store`` reads the manifest, verifies every Parquet file of every committed batch against
the size and SHA-256 digest its batch was sealed with (``store.folder.seal``: a single flipped
bit anywhere, data page or footer, is seen), reads each whole (its page checksums verified; a
missing file, one of the wrong table shape), and lists batch folders the manifest does not name.
A batch written before digests is read whole only, and said to have no digest.
``repair_store`` (under the writer's lock) then:

- rebuilds a manifest that is missing or of the wrong shape from the sound batch folders on
  disk (their labels are then marked stale: ``kifudb relabel`` computes them again);
- drops the damaged batches from the manifest, moving their folders to ``STORE/damaged/`` (a
  file whose digest is wrong is damaged as a missing one is);
- retires the record files whose games were in a dropped batch (also those whose other rows
  survive elsewhere), and reads again those still on disk.

    >>> import tempfile
    >>> from kifudb.store.writer import ingest_paths
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["data/samples/games.usi"], folder)
    >>> report = check_store(folder)
    >>> report.sound, report.batches, report.files, report.unsealed
    (True, 1, 10, [])
"""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import pyarrow as pa
import pyarrow.parquet as pq

from kifudb.store import partitions
from kifudb.store.partitions import PARTITIONED
from kifudb.store.folder import MARK, Store, digest_problem, sealed_files
from kifudb.store.manifest import BATCH_NAME, StoreError, new_manifest
from kifudb.store.schema import ADDED, OPTIONAL, TABLES

#: the label version of a rebuilt manifest: not the definitions' version, so that the store
#: says its labels are stale
UNKNOWN_LABELS = "unknown (manifest rebuilt)"


@dataclass
class Damage:
    """One damaged file of a batch, and why."""

    batch: str
    file: str
    reason: str

    def __str__(self) -> str:
        return f"batch {self.batch}, file {self.file}: {self.reason}"


@dataclass
class CheckReport:
    """What ``check_store`` found (and ``repair_store`` did)."""

    root: Path
    #: why the manifest cannot be used (missing, not JSON, wrong shape), else None
    manifest_problem: Optional[str] = None
    batches: int = 0
    files: int = 0
    damaged: list = field(default_factory=list)
    #: batch folders on disk that the manifest does not name (left as they are)
    strays: list = field(default_factory=list)
    #: batches written before digests (their files read whole, not verified byte for byte)
    unsealed: list = field(default_factory=list)
    #: after a repair: the batches dropped, the record files read again, those not found
    dropped: list = field(default_factory=list)
    reread: list = field(default_factory=list)
    missing_sources: list = field(default_factory=list)
    rebuilt: bool = False

    @property
    def sound(self) -> bool:
        return self.manifest_problem is None and not self.damaged

    @property
    def damaged_batches(self) -> list:
        return sorted({d.batch for d in self.damaged})


def _store(store) -> Store:
    return store if isinstance(store, Store) else Store(store)


def check_batch(folder: Path, read: bool = True) -> list:
    """The damaged files of one batch folder: each verified against its digest (``seal``), and
    read whole, its page checksums verified and its shape checked (``read`` False: only the
    files of a batch written before digests are read)."""
    damage = []
    try:
        present = os.listdir(folder)
    except OSError:
        present = []
    try:
        sealed = sealed_files(folder)
    except ValueError as error:
        damage.append(Damage(folder.name, MARK, str(error)))
        sealed = None
    if sealed is not None:
        damage += [Damage(folder.name, n, "not one of the files the batch was written with")
                   for n in sorted(present) if n.endswith(".parquet") and n not in sealed]
    split = {}  # the files of each table keyed by position, one per key range
    for table in PARTITIONED:
        names = {n for n in present if partitions.parse(n, table) is not None}
        if sealed is not None:
            names |= {n for n in sealed if partitions.parse(n, table) is not None}
        split[table] = names = sorted(names)
        if not names and table in OPTIONAL:
            continue  # a batch of an older kifudb (``store.schema.OPTIONAL``)
        damage += [Damage(folder.name, name, "the file is missing")
                   for name in partitions.missing(names, table)]
        if partitions.mixed(names, table):
            damage.append(Damage(folder.name, names[0], f"{table} files of two splits, whose "
                                                        f"key ranges overlap: {', '.join(names)}"))
    files = [(table, schema, name) for table, schema in TABLES.items()
             for name in split.get(table, [f"{table}.parquet"])]
    for table, schema, name in files:
        path = folder / name
        if not path.is_file() and table in OPTIONAL and name not in (sealed or {}):
            continue  # a batch of an older kifudb (``store.schema.OPTIONAL``)
        if not path.is_file():
            damage.append(Damage(folder.name, path.name, "the file is missing"))
            continue
        if sealed is not None:
            wrong = digest_problem(path, sealed.get(name))
            if wrong is not None:
                damage.append(Damage(folder.name, name, wrong))
                continue
            if not read:
                continue
        try:
            found = _read_whole(path)
        except (OSError, pa.ArrowException) as error:
            damage.append(Damage(folder.name, path.name, f"not a readable Parquet file "
                                                          f"({str(error).splitlines()[0]})"))
            continue
        if found.names != schema.names:
            # a batch of an older format lacks the columns later formats added (store.schema.ADDED)
            older = [name for name in schema.names if name not in _ADDED.get(table, ())]
            if found.names != older:
                damage.append(Damage(folder.name, path.name, f"columns {found.names}, "
                                                              f"expected {schema.names}"))
                continue
        for have in found:
            want = schema.field(have.name)
            if have.type != want.type and not _older(have.type, want.type):
                damage.append(Damage(folder.name, path.name, f"column {have.name} is "
                                                              f"{have.type}, expected {want.type}"))
                break
    return damage


def _read_whole(path: Path) -> pa.Schema:
    """Read every page of the Parquet file ``path``, its checksums verified, a row group at a
    time (what a check holds is one row group, whatever the file's size); its schema."""
    with pq.ParquetFile(path, page_checksum_verification=True) as read:
        for group in range(read.num_row_groups):
            read.read_row_group(group)
        return read.schema_arrow


#: table -> the columns the formats after the oldest readable one added
_ADDED = {table: {name for tables in ADDED.values() for name in tables.get(table, ())}
          for table in TABLES}


def _older(have: pa.DataType, want: pa.DataType) -> bool:
    """A type an older store format wrote for this column (16-bit plies of format 3)."""
    return have == pa.int16() and want == pa.int32()


def check_store(store, read: bool = True) -> CheckReport:
    """Verify every file of ``store`` (a folder or a ``Store``) against its manifest and its
    batch's digests (``read``: and read each whole, see ``check_batch``)."""
    store = _store(store)
    report = CheckReport(store.root)
    if not store.manifest_path.exists():
        report.manifest_problem = (f"{store.manifest_path} is missing" if store.root.exists()
                                   else f"no store at {store.root}")
        names = []
    else:
        try:
            manifest = store.manifest()
            names = manifest["batches"]
        except StoreError as error:
            report.manifest_problem = str(error)
            names = []
    on_disk = _batch_folders(store)
    if report.manifest_problem is not None:
        names = on_disk  # what a rebuilt manifest would adopt
    for name in names:
        report.batches += 1
        report.files += len(TABLES)
        report.damaged += check_batch(store.batch_dir(name), read)
        if not _sealed(store.batch_dir(name)):
            report.unsealed.append(name)
    if report.manifest_problem is None:
        kept = set(names) | {b for s in manifest.get("superseded", []) for b in s["batches"]}
        report.strays = [n for n in on_disk if n not in kept]
    return report


def _sealed(folder: Path) -> bool:
    """True when the batch ``folder`` carries digests (a damaged mark counts: it is damage)."""
    try:
        return sealed_files(folder) is not None
    except ValueError:
        return True


def _batch_folders(store: Store) -> list:
    folder = store.root / "batches"
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and BATCH_NAME.fullmatch(p.name))


def repair_store(store, reread: bool = True) -> CheckReport:
    """Check ``store`` and repair it (see the module doc); ``reread``: read again the record
    files of the dropped batches that are still on disk."""
    store = _store(store)
    if not store.root.is_dir():
        raise StoreError(f"no store at {store.root}: nothing to repair")
    try:
        with store.locked():
            report, lost_paths = _repair(store)
    except StoreError as error:
        if not str(error).startswith("cannot write"):
            raise
        report = check_store(store)  # a store that may not be written: sound needs nothing
        if report.sound:
            return report
        raise
    present = sorted(p for p in lost_paths if os.path.isfile(p))
    report.missing_sources = sorted(lost_paths - set(present))
    if reread and present:
        from kifudb.store.writer import ingest_paths

        ingest_paths(present, store)
        report.reread = present
    return report


def _repair(store: Store) -> tuple:
    """Under the writer's lock: the report, the damaged batches dropped, and the record files
    whose rows went with them (``repair_store``)."""
    report = check_store(store)
    if report.sound:
        return report, set()
    try:
        if report.manifest_problem is not None:
            manifest = _rebuilt_manifest(store, report)
        else:
            manifest = store.manifest()
        damaged = set(report.damaged_batches)
        # what the damaged batches held, read from those of their files that are sound
        spoilt = {(d.batch, d.file) for d in report.damaged}
        lost_paths = set()
        for name in sorted(damaged):
            lost_paths |= _paths_of(store.batch_dir(name), spoilt)
        survivors = [b for b in manifest["batches"] if b not in damaged]
        lost_games = set()
        for name in sorted(damaged):
            lost_games |= _games_of(store.batch_dir(name), spoilt)
        # sources that survive in other batches but name a game whose rows were dropped
        for name in survivors:
            lost_paths |= _paths_naming(store.batch_dir(name), lost_games)
        moved = store.root / "damaged"
        for name in sorted(damaged):
            moved.mkdir(exist_ok=True)
            os.rename(store.batch_dir(name), moved / f"{name}-{uuid.uuid4().hex[:8]}")
            report.dropped.append(name)
    except OSError as error:
        raise store._disk_error(error, "dropping the damaged batches") from None
    store._write_manifest({**manifest, "batches": survivors})
    if lost_paths:  # their surviving rows no longer count; they are read afresh
        from kifudb.store.batch import Batch

        batch = Batch(store.next_batch())
        for path in sorted(lost_paths):
            batch.retire(path)
        store.commit(batch.tables(), store.manifest()["next_game"])
    return report, lost_paths


def _rebuilt_manifest(store: Store, report: CheckReport) -> dict:
    """A manifest naming the sound batch folders on disk."""
    damaged = set(report.damaged_batches)
    sound = [n for n in _batch_folders(store) if n not in damaged]
    # a merge or compaction's inputs, kept for their grace period, hold the same rows again
    replaced = {b for n in sound for b in _mark(store.batch_dir(n)).get("replaces", ())}
    sound = [n for n in sound if n not in replaced]
    next_game = 1
    for name in sound + sorted(damaged):
        next_game = max(next_game, 1 + max(_games_of(store.batch_dir(name)), default=0))
    manifest = {**new_manifest(), "next_game": next_game, "batches": sound + sorted(damaged),
                "labels": {"version": UNKNOWN_LABELS, "from_batch": 0}}
    for name in sound:  # the adopted batches carry this store's mark from now on (and their
        # digests, if they were sealed)
        old = _mark(store.batch_dir(name))
        with open(store.batch_dir(name) / MARK, "w", encoding="utf-8") as stream:
            json.dump({**{k: old[k] for k in ("files", "digest", "replaces") if k in old},
                       "store_id": manifest["store_id"], "batch": name, "adopted": True}, stream)
    old = store.manifest_path
    if old.exists():
        os.replace(old, store.root / f"manifest.damaged-{uuid.uuid4().hex[:8]}.json")
    report.rebuilt = True
    return manifest


def _mark(folder: Path) -> dict:
    """The mark of a batch folder (``{}`` if it has none that can be read)."""
    try:
        with open(folder / MARK, encoding="utf-8") as stream:
            mark = json.load(stream)
    except (OSError, ValueError):
        return {}
    return mark if isinstance(mark, dict) else {}


def _column(folder: Path, table: str, column: str, spoilt=frozenset()) -> list:
    """A column of a table of the batch ``folder`` ([] if its file is one of ``spoilt``,
    ``(batch, file)``, or cannot be read)."""
    if (folder.name, f"{table}.parquet") in spoilt:
        return []
    try:
        return pq.read_table(folder / f"{table}.parquet", columns=[column],
                             page_checksum_verification=True).column(0).to_pylist()
    except (OSError, pa.ArrowException, KeyError):
        return []


def _paths_of(folder: Path, spoilt=frozenset()) -> set:
    """The record files a batch read (from whichever of its tables are sound)."""
    return {p for table in ("files", "sources", "findings", "retired")
            for p in _column(folder, table, "path", spoilt) if p}


def _games_of(folder: Path, spoilt=frozenset()) -> set:
    return {g for table in ("games", "sources") for g in _column(folder, table, "game", spoilt)
            if g is not None}


def _paths_naming(folder: Path, games: set) -> set:
    if not games:
        return set()
    try:
        data = pq.read_table(folder / "sources.parquet", columns=["game", "path"]).to_pylist()
    except (OSError, pa.ArrowException):
        return set()
    return {row["path"] for row in data if row["game"] in games}


def _names(names: list) -> str:
    return ", ".join(names[:5]) + (", …" if len(names) > 5 else "")


def _count(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def render(report: CheckReport) -> str:
    """The report in words, for ``kifudb check``."""
    lines = []
    if report.manifest_problem:
        lines.append(f"manifest: {report.manifest_problem}")
    lines.append(f"store {report.root}: {_count(report.batches, 'batch', 'batches')}, "
                 f"{_count(report.files, 'file')} checked")
    lines += [f"damaged: {d}" for d in report.damaged]
    lines += [f"not in the manifest (left as it is): batches/{name}" for name in report.strays]
    if report.unsealed:
        lines.append(f"no digest: {_count(len(report.unsealed), 'batch', 'batches')} written "
                     f"before digests ({_names(report.unsealed)}): their files were read whole, "
                     f"not verified byte for byte (the next compaction seals them)")
    if report.rebuilt:
        lines.append("repaired: manifest.json rebuilt from the batches on disk (the old one "
                     "kept as manifest.damaged-*.json); run `kifudb relabel` for fresh labels")
    for name in report.dropped:
        lines.append(f"repaired: batch {name} dropped (moved to damaged/)")
    if report.reread:
        lines.append(f"read again: {_count(len(report.reread), 'record file')} of the dropped "
                     f"batches")
    for path in report.missing_sources:
        lines.append(f"not found, ingest it again if you have it: {path}")
    if report.sound and not report.dropped and not report.rebuilt:
        lines.append("sound: every file matches the manifest"
                     + (" and its digest" if not report.unsealed else ""))
    elif not report.dropped and not report.rebuilt:
        lines.append(f"`kifudb check --repair --store {report.root}` drops the damaged batches "
                     f"and reads their record files again")
    return "\n".join(lines) + "\n"
