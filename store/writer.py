"""``kifudb ingest``: read and validate record files and write them into the store, in batches.

Incremental and idempotent: a file already ingested with the same content (SHA-256) is skipped; a
changed file is read again and its earlier sources are retired. A game already in the store
(same fingerprint, from any file) is stored once, with one more source. Files are read by
``ingest.pipeline``; the rows of a batch are built by ``store.batch``, and each batch is
committed atomically (``store.folder.Store.commit``), so an interrupted ingest loses at most the
batch it was writing, and the next run reads those files again; at the end, batches of the same
size are merged (``store.tiers``) so that lookups read few files. Memory stays bounded: a batch is
committed once it holds ``batch_positions`` positions (half a million by default: about 150 MB of
rows in memory) or ``batch_files`` files (``BATCH_FILES``: a folder of one-game downloads
commits as it goes too). The work grows with the files and games read, however many games share
their moves (``Catalogue``). A merge that fails (a full disk) leaves the batches committed:
``MergeFailed`` says what was stored::

    >>> import tempfile
    >>> report = ingest_paths(["data/samples/games.usi"], tempfile.mkdtemp())
    >>> report.files_read, report.games_added, report.positions_added
    (1, 13, 1813)
"""

from __future__ import annotations

import datetime
import hashlib
import heapq
import json
import itertools
import os
import re
import stat
import time
from dataclasses import dataclass, field

import numpy as np

from kifudb.ingest.pipeline import StoredGame, read_files
from kifudb.ingest.read import record_files
from kifudb.labels.classify import definitions_version
from kifudb.labels.players import canonical_name
from kifudb.store.diagnose import diagnose
from kifudb.store.folder import Store
from kifudb.store.manifest import StoreError
from kifudb.store.tiers import BASE

#: files a batch holds at most: a batch of ``BASE`` positions would hold 125,000 one-game
#: files of a few moves each, all read again after a kill
BATCH_FILES = 10_000


@dataclass
class IngestReport:
    """What an ingest did."""

    files_seen: int = 0
    files_read: int = 0
    files_skipped: int = 0
    files_replaced: int = 0
    games_read: int = 0
    games_added: int = 0
    games_known: int = 0
    positions_added: int = 0
    findings: int = 0
    #: games stored already whose fields a new source completed (``reconcile``)
    games_merged: int = 0
    batches: list = field(default_factory=list)
    #: the batches the ingest's merges made afterwards (``Store.tidy``), and their seconds
    merged: list = field(default_factory=list)
    merge_seconds: float = 0.0
    #: the definitions' version the store's older labels were computed with, when it is not
    #: the current one (``kifudb relabel`` brings them up to date); else None
    stale_labels: str = None

    def merge(self, store: Store, base: int) -> None:
        """Merge the store's batches of the same size (``Store.tidy``), timed; ``MergeFailed``
        if a merge fails (the batches committed stay)."""
        started = time.perf_counter()
        try:
            self.merged = self.merged + store.tidy(base)  # a second merge adds to the first
        except Exception as error:
            said = diagnose(error, store.root, check=False)
            if said is not None and said.startswith("store damaged"):
                raise  # a damaged batch stops the merge: the damage is what to say
            raise MergeFailed(self, said or f"{type(error).__name__}: {error}") from error
        finally:
            self.merge_seconds += time.perf_counter() - started

    def count_game(self, added: bool, positions: int) -> None:
        """One game read: new (with its positions) or stored already."""
        self.games_read += 1
        if added:
            self.games_added += 1
            self.positions_added += positions
        else:
            self.games_known += 1


class MergeFailed(StoreError):
    """The merge after an ingest failed, and only it: what the ingest stored stays committed
    (``report``, its ``IngestReport``), and the store is as its last commit left it. The
    message says what was stored, why the merge failed, and what to do."""

    def __init__(self, report: IngestReport, why: str):
        self.report = report
        full = why.startswith("the disk is full")
        super().__init__(
            f"{'the disk is full' if full else why.splitlines()[0]}: merging batches of the "
            f"same size after the ingest failed, and only that: {_stored(report)}, and the store "
            f"is as that commit left it. {'Free some space and run' if full else 'Run'} the "
            f"ingest again: the files stored are skipped and the merge is done then.")


def _stored(report: IngestReport) -> str:
    """What an ingest committed, in words (``MergeFailed``)."""
    if not report.batches:
        return "the ingest stored nothing new (every file was stored already)"
    names = report.batches
    which = (f"batch {names[0]} is" if len(names) == 1 else
             f"batches {', '.join(names)} are" if len(names) <= 3 else
             f"{len(names)} batches ({names[0]} to {names[-1]}) are")
    return (f"the ingest's {which} committed ({_plural(report.files_read, 'file')} read, "
            f"{_plural(report.games_added, 'new game')} and "
            f"{_plural(report.positions_added, 'position')} stored)")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"  # as kifudb.output.plural


def file_digest(path: str) -> tuple:
    """``(sha256 hex, size)`` of a file, or ``(None, None)`` if it cannot be read."""
    digest = hashlib.sha256()
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None, None
        with open(path, "rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
            return digest.hexdigest(), stream.tell()
    except OSError:
        return None, None


def ingest_paths(paths, store_dir=None, jobs: int = 1, progress: bool = False,
                 batch_positions: int = BASE, cluster: str = None,
                 batch_files: int = BATCH_FILES) -> IngestReport:
    """Ingest files, folders and globs into the store at ``store_dir`` (a folder or a
    ``Store``; see the module doc). ``cluster`` (``tcp://HOST:PORT``, ``local:N``) reads on a
    Dask cluster instead of ``jobs`` local processes (``store.cluster``): the same store."""
    store = store_dir if isinstance(store_dir, Store) else Store(store_dir) \
        if store_dir is not None else Store()
    if cluster is not None:
        from kifudb.store.cluster import ingest_on_cluster  # loads Dask: only a cluster ingest needs it

        first = store.next_batch() if store.manifest_path.exists() else 0
        report = ingest_on_cluster(paths, store, cluster, progress, batch_positions)
        with store.writing():
            if reconcile(store, first, report):
                report.merge(store, batch_positions)
        return report
    report = IngestReport()
    with store.writing():
        first = store.next_batch()
        known, catalogue, labels = ingest_state(store, report)
        todo = []
        for path in record_files(paths, skip=[store.root]):  # never the store's own files
            report.files_seen += 1
            absolute = os.path.abspath(path)
            digest, size = file_digest(absolute)
            if known.unchanged(absolute, digest):
                report.files_skipped += 1
                continue
            todo.append((absolute, digest, size))
        batch, files = store.batch(), 0
        reads = read_files([t[0] for t in todo], jobs, "ingest" if progress else None,
                           labels=True, lines=True)
        for (path, digest, size), read in _prepared(zip(todo, reads), catalogue):
            if path in known:
                batch.retire(path)
                report.files_replaced += 1
            game_ids = []
            for game in read.games:
                game_id, added, describe = catalogue.place(game.fingerprint, *source_facts(game))
                report.count_game(added, len(game.keys))
                if added:
                    batch.add_game(game_id, game)
                elif describe:  # this source says more: describe the game anew
                    batch.describe(game_id, game)
                game_ids.append(game_id)
                batch.add_source(game_id, game)
                batch.add_findings(game_id, path, game.index, game.findings)
                report.findings += len(game.findings)
            batch.add_findings(None, path, None, read.findings)  # about the whole file
            report.findings += len(read.findings)
            batch.add_file(path, digest, size, game_ids)
            report.files_read += 1
            files += 1
            if batch.positions >= batch_positions or files >= batch_files:
                report.batches.append(store.commit(batch.tables(), catalogue.next_game, labels))
                catalogue.committed(catalogue.next_game)
                batch, files = store.batch(), 0
        if not batch.empty():
            report.batches.append(store.commit(batch.tables(), catalogue.next_game, labels))
        catalogue.close()  # (a failure: the process ends, or the next ingest's state is read)
        report.merge(store, batch_positions)
        if reconcile(store, first, report):  # after the merge, as on a cluster: the same store
            report.merge(store, batch_positions)
    return report


#: files read ahead of placing their games, so that the stored games they share moves with
#: are read from the store in one query (``Catalogue.prepare``)
PREPARED_FILES = 64


def _prepared(reads, catalogue: "Catalogue"):
    """``reads`` (``(todo, FileRead)`` pairs), ``PREPARED_FILES`` at a time, each group's
    fingerprints prepared in ``catalogue`` before they are placed."""
    while group := list(itertools.islice(reads, PREPARED_FILES)):
        catalogue.prepare([game.fingerprint for _, read in group for game in read.games])
        yield from group


def reconcile(store: Store, first_batch: int, report: IngestReport = None) -> int:
    """Merge the descriptions of the games that have several sources, one of them read from
    batch ``first_batch`` on (this ingest's): each field of a ``games`` row (``store.batch.
    MERGED``) from a source that has it — a date over a source whose date was no date
    (``bad_date``), a result over a source without one (the result's fields go together) —
    and, where several have one, from the source that says most (``detail``), then the first
    by path and index, so that the merge does not depend on the order the files were read in.
    ``provenance`` says which source gave each field. The games whose values change get a new
    row in one more batch (committed, and named in ``report.batches``); returns how many. (A
    row whose values the merge would not change stays: its provenance names a source of each
    value, the one that described it first.)
    Sources stored before sources kept their description (``sources.description`` null) are
    left as their game's row says. Call under ``store.writing()``."""
    from kifudb.store.batch import MERGED, RESULT

    if report is not None and not report.games_known:
        return 0  # no game of this ingest was stored already: nothing to merge
    connection = store.connect()
    try:
        games = [g for (g,) in connection.execute(
            "SELECT game FROM sources GROUP BY game HAVING count(*) > 1 AND max(batch) >= ? "
            "AND count(description) = count(*)", [first_batch]).fetchall()]
        if not games:
            return 0
        # a semi-join on the games' list (list_contains would scan the list for every row)
        chosen = "game IN (SELECT unnest(?::INTEGER[]))"
        cursor = connection.execute(f"SELECT * FROM games WHERE {chosen}", [games])
        names = [d[0] for d in cursor.description]
        rows = {row[0]: dict(zip(names, row)) for row in cursor.fetchall()}
        said: dict = {}
        for game, path, index, text in connection.execute(
                f'SELECT game, path, "index", description FROM sources WHERE {chosen}',
                [games]).fetchall():
            said.setdefault(game, []).append((json.loads(text), path, index))
    finally:
        connection.close()
    batch = store.batch()
    for game, row in sorted(rows.items()):
        ordered = sorted(said.get(game, []), key=lambda s: (-s[0]["detail"], s[1], s[2]))
        merged, provenance = {}, {}
        decided = next((s for s in ordered if s[0]["winner"] is not None), None)
        for name in MERGED:
            if name in RESULT:
                if decided is None:  # no source has a result: the row's (an abort …) stays
                    continue
                source = decided
            else:
                source = next((s for s in ordered if s[0][name] is not None), None)
            merged[name] = None if source is None else source[0][name]
            if source is not None:
                provenance[name] = {"path": source[1], "index": source[2]}
        if merged.get("date") is not None:
            merged["date"] = datetime.date.fromisoformat(merged["date"])
        if merged.get("end_date") is not None:
            merged["end_date"] = datetime.date.fromisoformat(merged["end_date"])
        if all(_equal(row[n], v) for n, v in merged.items()):
            continue  # the row has every value already (its provenance names a source of each)
        shown = json.dumps(provenance, ensure_ascii=False, sort_keys=True)
        batch.redescribe(game, {**row, **merged, "provenance": shown})
    changed = batch.described()
    if not changed:
        return 0
    name = store.commit(batch.tables(), store.manifest()["next_game"])
    if report is not None:
        report.batches.append(name)
        report.games_merged += changed
    return changed


def _equal(stored, merged) -> bool:
    """A stored value and a merged one are the same (a rating is stored as a 32-bit float)."""
    if isinstance(stored, float) and isinstance(merged, (int, float)):
        return abs(stored - merged) < 1e-3
    return stored == merged


#: what DuckDB may hold while an ingest reads what the store holds (``ingest_state``: every
#: game's fingerprint, every file's digest; the catalogue's lookups); beyond it, it spills.
#: (Its default is most of the machine's memory, and a process keeps what DuckDB took.)
STATE_MEMORY = "64MB"


def _state_connection(store: Store, manifest=None):
    """A connection to ``store``'s views for reading its state in ``STATE_MEMORY``: on one
    thread, in no particular order (the readers sort what they read), so that one row group
    of a table is read at a time (9 MB of paths in the files table). With two threads, an
    ingest's start ran out of its 64 MB once, at 468M positions beside a test run (not again
    in six tries, idle or beside busy loops)."""
    connection = store.connect(manifest)
    connection.execute(f"SET memory_limit = '{STATE_MEMORY}'")
    connection.execute("SET threads = 1")
    connection.execute("SET preserve_insertion_order = false")
    return connection


def ingest_state(store: Store, report: IngestReport) -> tuple:
    """What an ingest starts from (under ``store.writing()``): the ``FileDigests`` of the files
    stored, the ``Catalogue`` of the games stored, and the manifest's labels entry to commit
    (``report.stale_labels`` says when the store's labels are of other definitions)."""
    connection = _state_connection(store)
    try:
        known = FileDigests(connection)
        catalogue = Catalogue(store.manifest()["next_game"], store, connection)
    finally:
        connection.close()
    labels = store.labels_state()
    if labels["version"] is None:
        labels = {"version": definitions_version(), "from_batch": 0}
    elif labels["version"] != definitions_version():
        report.stale_labels = labels["version"]
    return known, catalogue, labels


def _hash64(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogateescape"),
                                          digest_size=8).digest(), "little")


class FileDigests:
    """The files a store holds, by path, and each one's SHA-256: what tells an ingest that a
    file is stored unchanged (skipped) or changed (read again). Kept as two sorted arrays of
    numbers, 16 bytes a file (a dictionary of the paths and digests took 240 on the
    10M-position store), read from the store's ``files`` in slices: 2.4 million files take
    38 MB. A path is known by a 64-bit hash of it, its digest by the first 64 bits::

        >>> digests = FileDigests()
        >>> digests.get("/records/a.kif") is None, "/records/a.kif" in digests
        (True, False)
    """

    def __init__(self, connection=None):
        self.paths = np.zeros(0, np.uint64)
        self.digests = np.zeros(0, np.uint64)
        if connection is None:
            return
        paths, digests = [], []
        # streamed: a query's result is otherwise held whole (every path: 150 bytes a file)
        for rows in connection.sql("SELECT path, sha256 FROM files").to_arrow_reader(100_000):
            paths.append(np.fromiter(map(_hash64, rows.column(0).to_pylist()), np.uint64,
                                     rows.num_rows))
            digests.append(np.fromiter(map(FileDigests.prefix, rows.column(1).to_pylist()),
                                       np.uint64, rows.num_rows))
        if paths:
            order = np.argsort(paths := np.concatenate(paths), kind="stable")
            self.paths, self.digests = paths[order], np.concatenate(digests)[order]

    def __contains__(self, path: str) -> bool:
        return self.get(path) is not None

    def get(self, path: str):
        """The stored digest of ``path`` (its first 64 bits, ``prefix``), or None."""
        return self.get_many([path])[0]

    def get_many(self, paths: list) -> list:
        """``get`` of each of ``paths``, in one search."""
        if not len(self.paths):
            return [None] * len(paths)
        keys = np.fromiter((_hash64(path) for path in paths), np.uint64, len(paths))
        at = np.minimum(np.searchsorted(self.paths, keys), len(self.paths) - 1)
        found = self.paths[at] == keys
        return [int(d) if f else None for d, f in zip(self.digests[at].tolist(), found)]

    @staticmethod
    def prefix(digest) -> int:
        """The first 64 bits of a SHA-256 in hex (0 for none: a file that could not be read)."""
        return int(digest[:16], 16) if digest else 0

    def unchanged(self, path: str, digest) -> bool:
        """Whether ``path`` is stored with the content of SHA-256 ``digest`` (hex)."""
        return digest is not None and self.get(path) == self.prefix(digest)


class Catalogue:
    """The games of a store by fingerprint, and where each game read goes: a new game gets the
    next dense id; the same moves with compatible players and date (``_same_game``) are a game
    stored already — the lowest id when several are — described anew when this source says
    more. The order games are placed in decides the ids, so every ingest path places them in
    the order of its files::

        >>> catalogue = Catalogue(1)
        >>> catalogue.place("f", 3, _identity("2024-01-01", "羽生善治", None))
        (1, True, False)
        >>> catalogue.place("f", 5, _identity(None, "羽生善治竜王", "藤井聡太"))
        (1, False, True)
        >>> catalogue.place("f", 2, _identity("2024-01-02", None, None)), catalogue.next_game
        ((2, True, False), 3)

    Placing a game costs the same however many games share its moves (``_Games``).

    Memory: the games of the store are held as numbers only, a sorted array of fingerprints
    and one of game ids (``_Index``, 12 bytes a game, read from the store's ``games``); the
    identities (players, date) a placement compares are read from the store for the
    fingerprints a source shares with a stored game (``prepare``). In full (``recent``) are
    only the games met since the last commit, and those whose identity a source completed
    (the store's row says less until ``reconcile``): the others go back to the index once the
    batch that placed them is committed (``committed``), so that reading a collection again
    from another folder does not hold it all.
    """

    def __init__(self, next_game: int, store: Store = None, connection=None):
        self.next_game = next_game
        self.store = store
        #: the store's games (and this ingest's, once committed), as numbers
        self.index = _Index()
        #: fingerprint (as a number) -> the games with these moves this ingest has met: one
        #: ``(game id, detail, identity)``, or a ``_Games`` when several are
        self.recent: dict = {}
        #: the fingerprints whose games a source completed: held in full to the end
        self._changed: set = set()
        #: the fingerprints placed since the last commit (``committed`` looks at these only),
        #: and those the last ``prepare`` looked up
        self._met: set = set()
        self._prepared: set = set()
        self._texts: dict = {}  # one copy of each date and player name
        self._connection, self._batches = None, None
        if connection is not None:
            stored = connection.sql(  # sorted by DuckDB (in bounded memory), read in slices
                "SELECT ('0x' || any_value(fingerprint))::UBIGINT AS f, game FROM games_all "
                "WHERE regexp_full_match(fingerprint, '[0-9a-f]{16}') GROUP BY game "
                "ORDER BY f, game").to_arrow_reader(100_000)
            slices = [(b.column(0).to_numpy(), b.column(1).to_numpy()) for b in stored]
            if slices:
                self.index.add_sorted(np.concatenate([f for f, _ in slices]),
                                      np.concatenate([g for _, g in slices]))
            for f, g, detail, date, black, white in connection.execute(
                    f"SELECT fingerprint, game, {_DETAIL_SQL}, date, black, white FROM games_all "
                    f"WHERE NOT regexp_full_match(fingerprint, '[0-9a-f]{{16}}') QUALIFY "
                    f"row_number() OVER (PARTITION BY game ORDER BY batch DESC) = 1").fetchall():
                self._add(f, (g, detail, self._shared(_identity(date, black, white))))

    def _add(self, key, entry: tuple) -> None:
        same = self.recent.get(key)
        if same is None:
            self.recent[key] = entry
        elif isinstance(same, _Games):
            same.add(entry)
        else:
            self.recent[key] = _Games([same, entry])

    def prepare(self, fingerprints) -> None:
        """Read from the store, in one query, the stored games of those of ``fingerprints``
        that ``place`` will compare with (those in the index and not yet in ``recent``)."""
        keys = [k for k in map(_fingerprint_key, fingerprints)
                if isinstance(k, int) and k not in self.recent]
        self._prepared = set(keys)
        if not keys or not len(self.index):
            return
        ids = self.index.games(np.array(keys, np.uint64))
        if not len(ids):
            return
        for f, g, detail, date, black, white in self._stored(ids):
            self.index.forget(g)
            self._add(_fingerprint_key(f), (g, detail, self._shared(_identity(date, black,
                                                                              white))))

    def _stored(self, ids) -> list:
        """The latest ``games`` row (fingerprint, id, detail, date, players) of each of
        ``ids``, from the store's committed batches."""
        manifest = self.store.manifest()
        if self._batches != manifest["batches"]:
            if self._connection is not None:
                self._connection.close()
            self._connection = _state_connection(self.store, manifest)
            self._batches = manifest["batches"]
        return self._connection.execute(
            f"SELECT fingerprint, game, {_DETAIL_SQL}, date, black, white FROM games_all "
            f"WHERE game IN (SELECT unnest(?::INTEGER[])) QUALIFY row_number() OVER "
            f"(PARTITION BY game ORDER BY batch DESC) = 1", [list(map(int, ids))]).fetchall()

    def place(self, fingerprint: str, detail: int, identity: tuple) -> tuple:
        """``(game id, added, describe)`` of one source of a game: ``added`` for a new game,
        ``describe`` for a stored one this source says more about."""
        key = _fingerprint_key(fingerprint)
        if isinstance(key, int) and key not in self.recent and key not in self._prepared:
            self.prepare([fingerprint])
        self._met.add(key)
        identity = self._shared(identity)
        same = self.recent.get(key)
        if isinstance(same, _Games):
            known = same.find(identity)
        else:
            known = same if same is not None and _same_game(identity, same[2]) else None
        if known is None:
            game_id = self.next_game
            self.next_game += 1
            self._add(key, (game_id, detail, identity))
            return game_id, True, False
        game_id, stored_detail, stored_identity = known
        entry = (game_id, max(detail, stored_detail),
                 self._shared(_merge(stored_identity, identity)))
        if entry != known:
            self._changed.add(key)
            if isinstance(same, _Games):
                same.replace(entry)
            else:
                self.recent[key] = entry
        return game_id, False, detail > stored_detail

    def committed(self, next_game: int) -> None:
        """The games below id ``next_game`` are committed: the fingerprints all of whose games
        are, and which no source completed, are held as numbers from now on (the store says
        of them what this catalogue does)."""
        keys, games = [], []
        for key in list(self._met):
            same = self.recent[key]
            ids = list(same.games) if isinstance(same, _Games) else [same[0]]
            if max(ids) >= next_game:
                continue  # placed after that commit: looked at again at the next
            self._met.discard(key)
            if isinstance(key, int) and key not in self._changed:
                del self.recent[key]
                for game in ids:
                    if game in self.index.forgotten:  # read from the index: it is there again
                        self.index.forgotten.discard(game)
                    else:
                        keys.append(key)
                        games.append(game)
        self.index.add(np.array(keys, np.uint64), np.array(games, np.int32))
        self._prepared = set()  # what went back to the index is looked up there again
        self._texts.clear()  # sharing starts again (the names of games let go are let go)

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _shared(self, identity: tuple) -> tuple:
        """``identity`` with its texts shared with the other games' (players and dates
        repeat)."""
        return tuple(None if text is None else self._texts.setdefault(text, text)
                     for text in identity)


class _Index:
    """Fingerprints (64-bit numbers) and the ids of the games that have them, as sorted arrays
    in a few runs, merged as they grow (each game is copied about log2 of the games times);
    a game read into ``Catalogue.recent`` is forgotten here (``forget``)::

        >>> index = _Index()
        >>> index.add(np.array([5, 3], np.uint64), np.array([1, 2], np.int32))
        >>> index.add(np.array([5], np.uint64), np.array([3], np.int32))
        >>> sorted(index.games(np.array([5], np.uint64)).tolist()), len(index)
        ([1, 3], 3)
        >>> index.forget(1); index.games(np.array([5, 4], np.uint64)).tolist()
        [3]
    """

    def __init__(self):
        self.runs: list = []  # (fingerprints sorted, game ids)
        self.forgotten: set = set()

    def __len__(self) -> int:
        return sum(len(fingerprints) for fingerprints, _ in self.runs)

    def add(self, fingerprints, games) -> None:
        if not len(fingerprints):
            return
        order = np.argsort(fingerprints, kind="stable")
        self.add_sorted(np.asarray(fingerprints, np.uint64)[order],
                        np.asarray(games, np.int32)[order])

    def add_sorted(self, fingerprints, games) -> None:
        """``add`` of fingerprints sorted already (no copy is made of them)."""
        self.runs.append((np.asarray(fingerprints, np.uint64), np.asarray(games, np.int32)))
        while len(self.runs) > 1 and len(self.runs[-2][0]) <= 2 * len(self.runs[-1][0]):
            (f1, g1), (f2, g2) = self.runs.pop(), self.runs.pop()
            fingerprints, games = np.concatenate([f2, f1]), np.concatenate([g2, g1])
            order = np.argsort(fingerprints, kind="stable")
            self.runs.append((fingerprints[order], games[order]))

    def games(self, keys):
        """The ids of the games with any of the fingerprints ``keys`` (sorted or not)."""
        found = []
        for fingerprints, games in self.runs:
            lo = np.searchsorted(fingerprints, keys, "left")
            hi = np.searchsorted(fingerprints, keys, "right")
            for a, b in zip(lo[hi > lo], hi[hi > lo]):
                found.append(games[a:b])
        ids = np.concatenate(found) if found else np.zeros(0, np.int32)
        if self.forgotten:
            ids = ids[~np.isin(ids, np.fromiter(self.forgotten, np.int32))]
        return ids

    def forget(self, game: int) -> None:
        """Game ``game`` is held elsewhere now (the catalogue's ``recent``)."""
        self.forgotten.add(int(game))


#: games with the same moves compared one by one; above this many, they are filed (``_Games``)
_SCAN = 8
#: every set of an identity's three fields (date, black, white), as bits
_MASKS = range(8)


class _Games:
    """The games stored with the same moves (``(game id, detail, identity)`` by id), and the
    one a source may be. A few are compared one by one; above ``_SCAN``, each game is filed
    under its values of each set of the identity's fields (``_bucket``), so that finding the
    games a source may be — those that agree with it wherever both say something — is at most
    eight lookups, not a comparison with every game of these moves (20,000 one-game files of
    the same opening, each with other players, were 200 million comparisons)::

        >>> games = _Games([(n, 0, (None, f"a{n}", "b")) for n in range(1, 21)])
        >>> games.find((None, "a10", None))[0], games.find(("2024-01-01", "a1", "b"))[0]
        (10, 1)
        >>> games.find((None, "a21", "b")) is None
        True

    A bucket holds one game id, or a heap of them (the lowest first); a game whose identity
    gains a field is filed anew under the sets that field is part of, and its earlier places,
    now wrong, are dropped when they come to the top (``_first``).
    """

    __slots__ = ("games", "buckets")

    def __init__(self, entries: list):
        self.games: dict = {}
        self.buckets = None  # {bucket: game id or heap of them}, once there are more than _SCAN
        for entry in entries:
            self.add(entry)

    def add(self, entry: tuple) -> None:
        self.games[entry[0]] = entry
        if self.buckets is not None:
            self._file(entry[0], entry[2], _MASKS)
        elif len(self.games) > _SCAN:
            self.buckets = {}
            for game_id, _, identity in self.games.values():
                self._file(game_id, identity, _MASKS)

    def replace(self, entry: tuple) -> None:
        """Game ``entry[0]``, its detail and identity merged with a new source's."""
        before = self.games[entry[0]][2]
        self.games[entry[0]] = entry
        if self.buckets is not None:
            self._file(entry[0], entry[2],
                       [m for m in _MASKS if _bucket(m, before) != _bucket(m, entry[2])])

    def _file(self, game_id: int, identity: tuple, masks) -> None:
        for mask in masks:
            bucket = _bucket(mask, identity)
            filed = self.buckets.setdefault(bucket, game_id)
            if isinstance(filed, list):
                heapq.heappush(filed, game_id)
            elif filed != game_id:  # a second game: a heap (one game is a number, 28 bytes)
                self.buckets[bucket] = [min(filed, game_id), max(filed, game_id)]

    def find(self, identity: tuple):
        """The game (lowest id) ``identity`` may be (``_same_game``), or None."""
        if self.buckets is None:
            return next((e for _, e in sorted(self.games.items())
                         if _same_game(identity, e[2])), None)
        mask = sum(1 << i for i, value in enumerate(identity) if value is not None)
        said = [value for value in identity if value is not None]
        found = [self._first(mask, values)
                 for values in itertools.product(*((value, None) for value in said))]
        best = min((game_id for game_id in found if game_id is not None), default=None)
        return None if best is None else self.games[best]

    def _first(self, mask: int, values: tuple):
        """The lowest id filed (still rightly) under ``mask`` and ``values``, or None."""
        bucket = (mask, *values)
        filed = self.buckets.get(bucket)
        if isinstance(filed, int):
            if _bucket(mask, self.games[filed][2]) == bucket:
                return filed
            del self.buckets[bucket]
            return None
        while filed and _bucket(mask, self.games[filed[0]][2]) != bucket:
            heapq.heappop(filed)
        return filed[0] if filed else None


def _bucket(mask: int, identity: tuple) -> tuple:
    """Where a game of ``identity`` is filed for the fields of ``mask``: the mask and their
    values (None where the game says nothing)."""
    return (mask, *(value for i, value in enumerate(identity) if mask >> i & 1))


_FINGERPRINT = re.compile("[0-9a-f]{16}")


def _fingerprint_key(fingerprint: str):
    """A game fingerprint (16 hex digits) as a number, which takes half the memory; any other
    text as it is."""
    return int(fingerprint, 16) if _FINGERPRINT.fullmatch(fingerprint) else fingerprint


def source_facts(game: StoredGame) -> tuple:
    """``(detail, identity)`` of one source of a game, for ``Catalogue.place``."""
    return _detail(game), _identity(game.headers.get("start_date"), game.headers.get("black"),
                                    game.headers.get("white"))


#: the normalized fields whose presence makes one description of a game richer than another
_DETAIL_FIELDS = ("event", "start_date", "end_date", "black", "white", "time_control", "place",
                  "opening")
_DETAIL_SQL = ("(" + " + ".join(f"(CASE WHEN {c} IS NULL THEN 0 ELSE 1 END)" for c in
                                ("event", "date", "end_date", "black", "white", "time_control",
                                 "place", "opening")) +
               " + (CASE WHEN winner = 'none' THEN 0 ELSE 1 END))")


def _identity(date, black, white) -> tuple:
    """What tells two games with the same moves apart: the date and the players, by their
    canonical names (``labels.players``: ``羽生 善治竜王`` is ``羽生善治``, ``a1`` is not
    ``a10``)::

        >>> _identity("2024-01-01", "羽生 善治竜王", "a1")
        ('2024-01-01', '羽生善治', 'a1')
    """
    date = (date.isoformat() if hasattr(date, "isoformat") else date) or None
    return (date, *((canonical_name(name, date) or None) if name else None
                    for name in (black, white)))


def _same_game(a: tuple, b: tuple) -> bool:
    """True unless two identities (``_identity``) of the same moves name a different date or
    a different player::

        >>> _same_game(_identity("2024-01-01", "羽生善治", None),
        ...            _identity(None, "羽生善治竜王", "藤井聡太"))
        True
        >>> _same_game(_identity(None, "a1", "b"), _identity(None, "a10", "b"))
        False
        >>> _same_game(("2024-01-01", "羽生善治", None), ("2024-01-02", None, None))
        False
    """
    return all(x is None or y is None or x == y for x, y in zip(a, b))


def _merge(a: tuple, b: tuple) -> tuple:
    return tuple(x if x is not None else y for x, y in zip(a, b))


def _detail(game: StoredGame) -> int:
    """How much a source says about a game: known header fields, plus a known result."""
    h = game.headers
    return sum(h.get(f) is not None for f in _DETAIL_FIELDS) + (game.winner != "none")
