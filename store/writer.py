"""``kifudb ingest``: read and validate record files and write them into the store, in batches.

Incremental and idempotent: a file already ingested with the same content (SHA-256) is skipped; a
changed file is read again and its earlier sources are retired. A game already in the store
(same fingerprint, from any file) is stored once, with one more source. Files are read by
``ingest.pipeline``; the rows of a batch are built by ``store.batch``, and each batch is
committed atomically (``store.folder.Store.commit``), so an interrupted ingest loses at most the
batch it was writing, and the next run reads those files again; at the end, batches of the same
size are merged (``store.tiers``) so that lookups read few files. Memory stays bounded: a batch is
committed once it holds ``batch_positions`` positions (half a million by default: about 150 MB of
rows in memory)::

    >>> import tempfile
    >>> report = ingest_paths(["data/samples/games.usi"], tempfile.mkdtemp())
    >>> report.files_read, report.games_added, report.positions_added
    (1, 13, 1813)
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import time
from dataclasses import dataclass, field

from kifudb.ingest.pipeline import StoredGame, read_files
from kifudb.ingest.read import record_files
from kifudb.labels.classify import definitions_version
from kifudb.store.folder import Store
from kifudb.store.tiers import BASE


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
    batches: list = field(default_factory=list)
    #: the batches the ingest's merges made afterwards (``Store.tidy``), and their seconds
    merged: list = field(default_factory=list)
    merge_seconds: float = 0.0
    #: the definitions' version the store's older labels were computed with, when it is not
    #: the current one (``kifudb relabel`` brings them up to date); else None
    stale_labels: str = None

    def merge(self, store: Store, base: int) -> None:
        """Merge the store's batches of the same size (``Store.tidy``), timed."""
        started = time.perf_counter()
        self.merged = store.tidy(base)
        self.merge_seconds = time.perf_counter() - started

    def count_game(self, added: bool, positions: int) -> None:
        """One game read: new (with its positions) or stored already."""
        self.games_read += 1
        if added:
            self.games_added += 1
            self.positions_added += positions
        else:
            self.games_known += 1


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
                 batch_positions: int = BASE, cluster: str = None) -> IngestReport:
    """Ingest files, folders and globs into the store at ``store_dir`` (a folder or a
    ``Store``; see the module doc). ``cluster`` (``tcp://HOST:PORT``, ``local:N``) reads on a
    Dask cluster instead of ``jobs`` local processes (``store.cluster``): the same store."""
    store = store_dir if isinstance(store_dir, Store) else Store(store_dir) \
        if store_dir is not None else Store()
    if cluster is not None:
        from kifudb.store.cluster import ingest_on_cluster  # loads Dask: only a cluster ingest needs it

        return ingest_on_cluster(paths, store, cluster, progress, batch_positions)
    report = IngestReport()
    with store.writing():
        known, catalogue, labels = ingest_state(store, report)
        todo = []
        for path in record_files(paths, skip=[store.root]):  # never the store's own files
            report.files_seen += 1
            absolute = os.path.abspath(path)
            digest, size = file_digest(absolute)
            if digest is not None and known.get(absolute) == digest:
                report.files_skipped += 1
                continue
            todo.append((absolute, digest, size))
        batch = store.batch()
        reads = read_files([t[0] for t in todo], jobs, "ingest" if progress else None,
                           labels=True, lines=True)
        for (path, digest, size), read in zip(todo, reads):
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
            if batch.positions >= batch_positions:
                report.batches.append(store.commit(batch.tables(), catalogue.next_game, labels))
                batch = store.batch()
        if not batch.empty():
            report.batches.append(store.commit(batch.tables(), catalogue.next_game, labels))
        report.merge(store, batch_positions)
    return report


def ingest_state(store: Store, report: IngestReport) -> tuple:
    """What an ingest starts from (under ``store.writing()``): ``{path: sha256}`` of the files
    stored, the ``Catalogue`` of the games stored, and the manifest's labels entry to commit
    (``report.stale_labels`` says when the store's labels are of other definitions)."""
    connection = store.connect()
    known = dict(connection.execute("SELECT path, sha256 FROM files").fetchall())
    catalogue = Catalogue(store.manifest()["next_game"])
    for f, g, detail, date, black, white in connection.execute(
            f"SELECT fingerprint, game, {_DETAIL_SQL}, date, black, white FROM games_all "
            f"QUALIFY row_number() OVER (PARTITION BY game ORDER BY batch DESC) = 1").fetchall():
        catalogue.remember(f, g, detail, _identity(date, black, white))
    connection.close()
    labels = store.labels_state()
    if labels["version"] is None:
        labels = {"version": definitions_version(), "from_batch": 0}
    elif labels["version"] != definitions_version():
        report.stale_labels = labels["version"]
    return known, catalogue, labels


class Catalogue:
    """The games of a store by fingerprint, and where each game read goes: a new game gets the
    next dense id; the same moves with compatible players and date (``_same_game``) are a game
    stored already, described anew when this source says more. The order games are placed in
    decides the ids, so every ingest path places them in the order of its files::

        >>> catalogue = Catalogue(1)
        >>> catalogue.place("f", 3, ("2024-01-01", "羽生善治", None))
        (1, True, False)
        >>> catalogue.place("f", 5, (None, "羽生善治竜王", "藤井聡太"))
        (1, False, True)
        >>> catalogue.place("f", 2, ("2024-01-02", None, None)), catalogue.next_game
        ((2, True, False), 3)
    """

    def __init__(self, next_game: int):
        self.next_game = next_game
        #: fingerprint (as a number) -> the games stored with these moves: one
        #: ``(game id, detail, identity)``, or a list of them when several are (kept small: the
        #: client of a cluster ingest holds one entry per game of the store, about 250 bytes)
        self.stored: dict = {}
        self._texts: dict = {}  # one copy of each date and player name

    def remember(self, fingerprint: str, game_id: int, detail: int, identity: tuple) -> None:
        """A game already stored (``ingest_state``)."""
        self._add(_fingerprint_key(fingerprint), game_id, detail, identity)

    def _add(self, key, game_id: int, detail: int, identity: tuple) -> None:
        entry = (game_id, detail, self._shared(identity))
        same = self.stored.get(key)
        self.stored[key] = entry if same is None else (
            [*same, entry] if isinstance(same, list) else [same, entry])

    def place(self, fingerprint: str, detail: int, identity: tuple) -> tuple:
        """``(game id, added, describe)`` of one source of a game: ``added`` for a new game,
        ``describe`` for a stored one this source says more about."""
        key = _fingerprint_key(fingerprint)
        same = self.stored.get(key)
        games = [] if same is None else same if isinstance(same, list) else [same]
        known = next((i for i, (_, _, other) in enumerate(games) if _same_game(identity, other)),
                     None)
        if known is None:
            game_id = self.next_game
            self.next_game += 1
            self._add(key, game_id, detail, identity)
            return game_id, True, False
        game_id, stored_detail, stored_identity = games[known]
        games[known] = (game_id, max(detail, stored_detail),
                        self._shared(_merge(stored_identity, identity)))
        self.stored[key] = games if len(games) > 1 else games[0]
        return game_id, False, detail > stored_detail

    def _shared(self, identity: tuple) -> tuple:
        """``identity`` with its texts shared with the other games' (players and dates
        repeat)."""
        return tuple(None if text is None else self._texts.setdefault(text, text)
                     for text in identity)


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
    """What tells two games with the same moves apart: the date and the players (names
    without spaces, so that ``羽生 善治`` is ``羽生善治``)."""
    date = date.isoformat() if hasattr(date, "isoformat") else date
    return (date or None, *(("".join(name.split()) or None) if name else None
                            for name in (black, white)))


def _same_game(a: tuple, b: tuple) -> bool:
    """True unless two sources of the same moves name a different date or a different player
    (a name that contains the other, ``羽生善治`` and ``羽生善治竜王``, is the same player)::

        >>> _same_game(("2024-01-01", "羽生善治", None), (None, "羽生善治竜王", "藤井聡太"))
        True
        >>> _same_game(("2024-01-01", "羽生善治", None), ("2024-01-02", None, None))
        False
    """
    return all(x is None or y is None or x in y or y in x for x, y in zip(a, b))


def _merge(a: tuple, b: tuple) -> tuple:
    return tuple(x if x is not None else y for x, y in zip(a, b))


def _detail(game: StoredGame) -> int:
    """How much a source says about a game: known header fields, plus a known result."""
    h = game.headers
    return sum(h.get(f) is not None for f in _DETAIL_FIELDS) + (game.winner != "none")
