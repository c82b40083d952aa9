"""``kifudb ingest``: read and validate record files and write them into the store, in batches.

Incremental and idempotent: a file already ingested with the same content (SHA-256) is skipped; a
changed file is read again and its earlier sources are retired. A game already in the store
(same fingerprint, from any file) is stored once, with one more source. Each batch is committed
atomically (``store.folder.Store.commit``), so an interrupted ingest loses at most the batch
it was writing, and the next run reads those files again. Memory stays bounded: a batch is
committed once it holds ``batch_positions`` positions (half a million by default: about 150 MB of
rows in memory)::

    >>> import tempfile
    >>> report = ingest_paths(["data/samples/games.usi"], tempfile.mkdtemp())
    >>> report.files_read, report.games_added, report.positions_added
    (1, 13, 1813)
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import stat
import sys
from array import array
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from labels.classify import classify_game, definitions_version
from store.schema import TABLES, move_code
from store.folder import Store
from ingest.read import read_path, record_files, worker_context
from ingest.validate import validate_record


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


def _finding(f, index) -> tuple:
    return (index, f.severity, f.code, f.line, f.ply, f.text, f.message)


def read_for_store(path: str) -> dict:
    """Read and validate one file (in a worker process); compact, picklable results."""
    read = read_path(path)
    games = []
    for record in read.records:
        game = validate_record(record)
        moves = _line_rows(0, None, 1, record.moves, game.game.moves if game.game else [])
        for number, variation in enumerate(record.variations, start=1):
            parent = 0 if variation.parent is None else variation.parent + 1
            moves += _line_rows(number, parent, variation.start_ply, variation.moves,
                                game.variations[number - 1] if game.game else [])
        codes = array("h", (move_code(m) for m in game.game.moves) if game.game else ())
        labels = classify_game(game.start_sfen, game.game.moves).rows() if game.game else []
        games.append({
            "index": record.index, "format": record.format, "encoding": record.encoding,
            "fingerprint": game.fingerprint, "headers": game.headers,
            "raw_headers": json.dumps(record.headers, ensure_ascii=False),
            "start_sfen": game.start_sfen, "moves": game.moves, "valid": game.valid,
            "first_illegal_ply": game.first_illegal_ply, "illegal_code": game.illegal_code,
            "winner": game.winner, "reason": game.reason,
            "declared_ending": record.ending.word if record.ending else None,
            "comments": "\n".join(record.comments) or None,
            "keys": array("Q", game.keys), "codes": codes,
            "black_first": game.start_sfen.split()[1] == "b" if game.start_sfen else True,
            "move_rows": moves, "labels": labels,
            "findings": [_finding(f, record.index) for f in game.findings],
        })
    return {"path": path, "games": games,
            "findings": [_finding(f, None) for f in read.findings] if not read.records else []}


def _line_rows(line: int, parent, first_ply: int, records: list, replayed: list) -> list:
    """The ``moves`` rows of one line: its ``MoveRecord``s, with the USI of those replayed."""
    return [(line, parent, first_ply + i, replayed[i].usi() if i < len(replayed) else None,
             r.text, r.seconds, "\n".join(r.comments) or None) for i, r in enumerate(records)]


class _Batch:
    """The rows of the batch being built, column by column."""

    def __init__(self, number: int):
        self.number = number
        self.columns = {name: {f.name: [] for f in schema} for name, schema in TABLES.items()}
        self.positions = 0
        self.game_rows = {}
        self.keys, self.position_games = array("Q"), array("i")
        self.plies, self.sides, self.next_moves = array("h"), array("b"), array("h")

    def describe(self, game_id: int, **values) -> None:
        """The games row of ``game_id`` in this batch (a later call replaces an earlier one)."""
        self.game_rows[game_id] = values

    def add(self, table: str, **values) -> None:
        for name, column in self.columns[table].items():
            column.append(values.get(name))

    def add_positions(self, game_id: int, payload: dict) -> None:
        keys, codes = payload["keys"], payload["codes"]
        n = len(keys)
        black = payload["black_first"]
        self.keys.extend(keys)
        self.position_games.extend([game_id] * n)
        self.plies.extend(range(n))
        self.sides.extend([(ply % 2 == 0) == black for ply in range(n)])
        self.next_moves.extend(codes)
        self.next_moves.append(-1)
        self.positions += n

    def tables(self) -> dict:
        for values in self.game_rows.values():
            self.add("games", **values)
        self.game_rows = {}
        out = {}
        for name, schema in TABLES.items():
            if name == "positions":
                continue
            out[name] = pa.Table.from_pydict(self.columns[name], schema=schema)
        next_moves = pa.array(self.next_moves, type=pa.int16())
        positions = pa.Table.from_arrays([
            pa.array(self.keys, type=pa.uint64()), pa.array(self.position_games, type=pa.int32()),
            pa.array(self.plies, type=pa.int16()), pa.array(self.sides, type=pa.int8()).cast(pa.bool_()),
            pc.if_else(pc.equal(next_moves, -1), pa.nulls(len(next_moves), pa.int16()), next_moves),
        ], schema=TABLES["positions"])
        out["positions"] = positions.take(pc.sort_indices(positions, [("key", "ascending"),
                                                                      ("game", "ascending"),
                                                                      ("ply", "ascending")]))
        return out

    def empty(self) -> bool:
        return not any(self.columns["files"]["path"]) and not self.columns["retired"]["path"]


def _date(text):
    return datetime.date.fromisoformat(text) if text else None


def ingest_paths(paths, store_dir=None, jobs: int = 1, progress: bool = False,
                 batch_positions: int = 500_000) -> IngestReport:
    """Ingest files, folders and globs into the store at ``store_dir`` (see the module doc)."""
    store = Store(store_dir) if store_dir is not None else Store()
    report = IngestReport()
    with store.writing():
        connection = store.connect()
        known = dict(connection.execute("SELECT path, sha256 FROM files").fetchall())
        fingerprints = {f: (g, detail) for f, g, detail in connection.execute(
            f"SELECT fingerprint, game, {_DETAIL_SQL} FROM games_all "
            f"QUALIFY row_number() OVER (PARTITION BY game ORDER BY batch DESC) = 1").fetchall()}
        connection.close()
        manifest = store.manifest()
        next_game = manifest["next_game"]
        labels = store.labels_state(manifest)
        if labels["version"] is None:
            labels = {"version": definitions_version(), "from_batch": 0}
        elif labels["version"] != definitions_version():
            report.stale_labels = labels["version"]
        todo = []
        for path in record_files(paths):
            report.files_seen += 1
            absolute = os.path.abspath(path)
            digest, size = file_digest(absolute)
            if digest is not None and known.get(absolute) == digest:
                report.files_skipped += 1
                continue
            todo.append((absolute, digest, size))
        batch_number = store.next_batch(manifest)
        batch = _Batch(batch_number)
        bar = None
        if progress:
            from tqdm import tqdm
            bar = tqdm(total=len(todo), unit="file", file=sys.stderr, desc="ingest")
        for (path, digest, size), payload in zip(todo, _read_all([t[0] for t in todo], jobs)):
            if path in known:
                batch.add("retired", path=path, batch=batch.number)
                report.files_replaced += 1
            game_ids = []
            for game in payload["games"]:
                report.games_read += 1
                known_game = fingerprints.get(game["fingerprint"])
                detail = _detail(game)
                if known_game is None:
                    game_id = next_game
                    next_game += 1
                    fingerprints[game["fingerprint"]] = (game_id, detail)
                    _add_game(batch, game_id, game)
                    report.games_added += 1
                    report.positions_added += len(game["keys"])
                else:
                    game_id, stored_detail = known_game
                    report.games_known += 1
                    if detail > stored_detail:  # this source says more: describe the game anew
                        fingerprints[game["fingerprint"]] = (game_id, detail)
                        _describe_game(batch, game_id, game)
                game_ids.append(game_id)
                batch.add("sources", game=game_id, path=path, index=game["index"],
                          format=game["format"], encoding=game["encoding"], batch=batch.number)
                for f in game["findings"]:
                    _add_finding(batch, game_id, path, f)
            for f in payload["findings"]:
                _add_finding(batch, None, path, f)
            report.findings += sum(len(g["findings"]) for g in payload["games"]) + len(payload["findings"])
            batch.add("files", path=path, sha256=digest, size=size, games=game_ids,
                      batch=batch.number)
            report.files_read += 1
            if bar is not None:
                bar.update()
            if batch.positions >= batch_positions:
                report.batches.append(store.commit(batch.tables(), next_game, labels))
                batch = _Batch(batch.number + 1)
        if not batch.empty():
            report.batches.append(store.commit(batch.tables(), next_game, labels))
        if bar is not None:
            bar.close()
    return report


def _read_all(paths, jobs: int):
    """Yield ``read_for_store`` of each path, in order; with several jobs, at most a few files per
    worker are read ahead, so results never pile up while a batch is being written."""
    if jobs <= 1 or len(paths) < 2:
        yield from map(read_for_store, paths)
        return
    window = jobs * 4
    with ProcessPoolExecutor(max_workers=jobs, mp_context=worker_context()) as pool:
        pending = deque()
        try:
            for path in paths:
                pending.append(pool.submit(read_for_store, path))
                if len(pending) >= window:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


#: the normalized fields whose presence makes one description of a game richer than another
_DETAIL_FIELDS = ("event", "start_date", "end_date", "black", "white", "time_control", "place",
                  "opening")
_DETAIL_SQL = ("(" + " + ".join(f"(CASE WHEN {c} IS NULL THEN 0 ELSE 1 END)" for c in
                                ("event", "date", "end_date", "black", "white", "time_control",
                                 "place", "opening")) +
               " + (CASE WHEN winner = 'none' THEN 0 ELSE 1 END))")


def _detail(game: dict) -> int:
    """How much a source says about a game: known header fields, plus a known result."""
    h = game["headers"]
    return sum(h[f] is not None for f in _DETAIL_FIELDS) + (game["winner"] != "none")


def _add_game(batch: _Batch, game_id: int, game: dict) -> None:
    _describe_game(batch, game_id, game)
    for line, parent, ply, usi, text, seconds, comment in game["move_rows"]:
        batch.add("moves", game=game_id, line=line, parent=parent, ply=ply, usi=usi, text=text,
                  seconds=seconds, comment=comment)
    if game["keys"]:
        batch.add_positions(game_id, game)
    for side, kind, label, ply, primary in game["labels"]:
        batch.add("labels", game=game_id, side=side, kind=kind, label=label, ply=ply,
                  primary=primary, batch=batch.number)


def _describe_game(batch: _Batch, game_id: int, game: dict) -> None:
    h = game["headers"]
    batch.describe(game_id, game=game_id, fingerprint=game["fingerprint"], event=h["event"],
              date=_date(h["start_date"]), end_date=_date(h["end_date"]), black=h["black"],
              white=h["white"], handicap=h["handicap"], time_control=h["time_control"],
              place=h["place"], opening=h["opening"], headers=game["raw_headers"],
              start_sfen=game["start_sfen"], moves=game["moves"], valid=game["valid"],
              first_illegal_ply=game["first_illegal_ply"], illegal_code=game["illegal_code"],
              winner=game["winner"], reason=game["reason"],
              declared_ending=game["declared_ending"], comments=game["comments"],
              batch=batch.number)


def _add_finding(batch: _Batch, game_id, path: str, f: tuple) -> None:
    index, severity, code, line, ply, text, message = f
    batch.add("findings", game=game_id, path=path, index=index, severity=severity, code=code,
              line=line, ply=ply, text=text, message=message, batch=batch.number)
