"""``kifudb ingest``: read and validate record files and write them into the store, in batches.

Incremental and idempotent: a file already ingested with the same content (SHA-256) is skipped; a
changed file is read again and its earlier sources are retired. A game already in the store
(same fingerprint, from any file) is stored once, with one more source. Files are read by
``ingest.pipeline``; the rows of a batch are built by ``store.batch``, and each batch is
committed atomically (``store.folder.Store.commit``), so an interrupted ingest loses at most the
batch it was writing, and the next run reads those files again. Memory stays bounded: a batch is
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
import stat
from dataclasses import dataclass, field

from ingest.pipeline import StoredGame, read_files
from ingest.read import record_files
from labels.classify import definitions_version
from store.folder import Store


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
    #: the definitions' version the store's older labels were computed with, when it is not
    #: the current one (``kifudb relabel`` brings them up to date); else None
    stale_labels: str = None


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
                 batch_positions: int = 500_000) -> IngestReport:
    """Ingest files, folders and globs into the store at ``store_dir`` (a folder or a
    ``Store``; see the module doc)."""
    store = store_dir if isinstance(store_dir, Store) else Store(store_dir) \
        if store_dir is not None else Store()
    report = IngestReport()
    with store.writing():
        connection = store.connect()
        known = dict(connection.execute("SELECT path, sha256 FROM files").fetchall())
        stored = {}  # fingerprint -> [(game id, detail, identity)] of the games stored
        for f, g, detail, date, black, white in connection.execute(
                f"SELECT fingerprint, game, {_DETAIL_SQL}, date, black, white FROM games_all "
                f"QUALIFY row_number() OVER (PARTITION BY game ORDER BY batch DESC) = 1").fetchall():
            stored.setdefault(f, []).append((g, detail, _identity(date, black, white)))
        connection.close()
        manifest = store.manifest()
        next_game = manifest["next_game"]
        labels = store.labels_state(manifest)
        if labels["version"] is None:
            labels = {"version": definitions_version(), "from_batch": 0}
        elif labels["version"] != definitions_version():
            report.stale_labels = labels["version"]
        todo = []
        for path in record_files(paths, skip=[store.root]):  # never the store's own files
            report.files_seen += 1
            absolute = os.path.abspath(path)
            digest, size = file_digest(absolute)
            if digest is not None and known.get(absolute) == digest:
                report.files_skipped += 1
                continue
            todo.append((absolute, digest, size))
        batch = store.batch(manifest)
        reads = read_files([t[0] for t in todo], jobs, "ingest" if progress else None,
                           labels=True, lines=True)
        for (path, digest, size), read in zip(todo, reads):
            if path in known:
                batch.retire(path)
                report.files_replaced += 1
            game_ids = []
            for game in read.games:
                report.games_read += 1
                detail = _detail(game)
                identity = _identity(game.headers.get("start_date"), game.headers.get("black"),
                                     game.headers.get("white"))
                same = stored.setdefault(game.fingerprint, [])
                known_game = next((i for i, (_, _, other) in enumerate(same)
                                   if _same_game(identity, other)), None)
                if known_game is None:
                    game_id = next_game
                    next_game += 1
                    same.append((game_id, detail, identity))
                    batch.add_game(game_id, game)
                    report.games_added += 1
                    report.positions_added += len(game.keys)
                else:
                    game_id, stored_detail, stored_identity = same[known_game]
                    report.games_known += 1
                    if detail > stored_detail:  # this source says more: describe the game anew
                        batch.describe(game_id, game)
                    same[known_game] = (game_id, max(detail, stored_detail),
                                        _merge(stored_identity, identity))
                game_ids.append(game_id)
                batch.add_source(game_id, game)
                batch.add_findings(game_id, path, game.index, game.findings)
                report.findings += len(game.findings)
            batch.add_findings(None, path, None, read.findings)  # about the whole file
            report.findings += len(read.findings)
            batch.add_file(path, digest, size, game_ids)
            report.files_read += 1
            if batch.positions >= batch_positions:
                report.batches.append(store.commit(batch.tables(), next_game, labels))
                batch = store.batch()
        if not batch.empty():
            report.batches.append(store.commit(batch.tables(), next_game, labels))
    return report


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
