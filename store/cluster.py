"""``kifudb ingest --cluster ADDRESS``: the ingest of ``store.writer`` with Dask workers reading,
replaying, labelling and writing Parquet, and the client committing: the same store as
``--jobs 1`` (same game ids, positions, keys, findings, labels, batches).

ADDRESS is ``tcp://HOST:PORT`` (a running ``dask scheduler`` with its ``dask worker``s), the
scheduler file of one (``dask scheduler --scheduler-file F``: a path ending ``.json``), or
``local:N`` (a ``LocalCluster`` of N worker processes for this run). The store folder must be
on a filesystem every worker shares and may write: each worker proves it before any file is
read (it reads a token the client wrote into the store's ``tmp/`` and writes beside it).

How the work is split, and why the store comes out identical:

1. Workers (``read_piece``, one task per chunk of files in the order of the files) hash each
   file (an unchanged file is skipped there), read it, and build a *piece*: the rows of every
   game of the chunk in the store's schema (``store.batch.Batch``) with *provisional* game ids
   (0, 1, … within the piece), as Arrow tables kept in the worker's memory (the task's
   result). Only the small facts of each game go to the client (``piece_facts``):
   fingerprint, detail, identity, counts.
2. The client takes the pieces **in the order of the files** and places every game in the
   store's ``store.writer.Catalogue`` exactly as a single-process ingest does. Game ids are
   dense and depend on that order (a game found in two files on two workers is the one placed
   first; a richer source re-describes it), so they can only be decided by one sequential
   pass; it reads nothing but these facts. Batch boundaries fall where ``--jobs 1`` puts them
   (after the file that brings the batch to ``batch_positions`` new positions).
3. Each batch is written once, by a worker (``write_batch``), to which Dask brings the rows of
   the batch's pieces from the workers that hold them: the rows filtered to the batch's files,
   the duplicates' moves, positions and labels dropped, games rows kept from the source that
   describes each game last, provisional ids replaced by the final ones, positions sorted by
   key — one Arrow pass, no replay, nothing written before. The client then renames the batch
   into ``batches/`` and replaces the manifest (``Store.commit``'s atomic step): a crash loses
   at most that batch, as with ``--jobs``.

Workers returning whole ``StoredGame`` values would be simpler, but then the client would build
every row itself and be the bottleneck of a large cluster; here it handles a few numbers per
game. A worker that dies has its tasks run again elsewhere, and the pieces it held read again
(Dask recomputes a lost result the client still holds). A worker that holds a piece
or a batch past its deadline (stopped with SIGSTOP, hung: ``piece_deadline``, a minute plus a
second per 50 KB, or Dask's ``kifudb.cluster.piece-timeout``) is named on stderr and taken off
the cluster, and the scheduler gives its work to the others. A scheduler that goes away mid-run
is one line ("the Dask scheduler at ADDRESS went away: …; the store keeps its last commit"),
Dask's own tracebacks silenced. ``local:N`` starts at most ``MAX_LOCAL_WORKERS`` (4 per CPU,
8 to 256). A malformed or unreachable scheduler is said before anything is written::

    >>> connect("scheduler.example:8786")
    Traceback (most recent call last):
    ...
    kifudb.store.cluster.ClusterError: --cluster scheduler.example:8786: give tcp://HOST:PORT (a running dask scheduler), its scheduler file (.json) or local:N (an IPv6 host goes in brackets: tcp://[::1]:8786)
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import shutil
import socket
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kifudb.ingest.pipeline import read_file
from kifudb.ingest.read import record_files
from kifudb.store.batch import Batch
from kifudb.store.folder import Store, remove_marked, write_positions, write_table
from kifudb.store.manifest import StoreError
from kifudb.store.schema import SORTED, TABLES
from kifudb.store.tiers import BASE
from kifudb.store.writer import (BATCH_FILES, FileDigests, IngestReport, file_digest,
                                 ingest_state, source_facts)

#: the tables a piece holds (``files`` and ``retired`` are the client's: it knows the final ids)
PIECE_TABLES = ("games", "sources", "moves", "positions", "findings", "labels", "placements")


class ClusterError(StoreError):
    """The cluster cannot do the ingest (unreachable, no workers, a worker that cannot write the
    store, a task that failed): the message says which and what to do. Found before any work,
    nothing is written; later, the batches committed before stay, as after a kill."""


def ingest_on_cluster(paths, store: Store, address: str, progress: bool = False,
                      batch_positions: int = BASE) -> IngestReport:
    """``store.writer.ingest_paths`` on the Dask cluster at ``address`` (see the module doc)."""
    client, cluster = connect(address)  # before anything is written: an unreachable scheduler
    quiet = _Quiet()  # Dask's own tracebacks (a scheduler gone) would bury the one line
    try:
        existed = store.manifest_path.exists()
        try:
            with quiet, store.writing():
                report = _ingest(paths, store, client, progress, batch_positions)
                report.merge(store, batch_positions)
                return report
        except ClusterError:
            if not existed and not store.manifest()["batches"]:
                _forget_new_store(store)
            raise
        except Exception as error:
            if not _scheduler_gone(client, error):
                raise
            raise ClusterError(f"the Dask scheduler at {address} went away: {_line(error)}; "
                               f"the store keeps its last commit") from None
    finally:
        with quiet:
            _close(client, cluster)


class _Quiet:
    """Dask's loggers silenced (the client's, whose reconnection attempts print tracebacks when
    the scheduler goes away), and restored after."""

    NAMES = ("distributed", "tornado", "asyncio")

    def __enter__(self):
        names = [name for name in [*self.NAMES, *logging.root.manager.loggerDict]
                 if name.split(".")[0] in self.NAMES]  # with their own levels (Dask's config)
        self.levels = {name: logging.getLogger(name).level for name in names}
        for name in names:
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)
        return self

    def __exit__(self, *exc):
        for name, level in self.levels.items():
            logging.getLogger(name).setLevel(level)
        return False


def _scheduler_gone(client, error: BaseException) -> bool:
    """Whether ``error`` comes from losing the scheduler (the client no longer runs, or Dask's
    own cancellation and closed-connection errors)."""
    from distributed.comm.core import CommClosedError

    names = {type(e).__name__ for e in (error, error.__cause__, error.__context__) if e}
    return client.status != "running" or isinstance(error, CommClosedError) or bool(
        names & {"FutureCancelledError", "CancelledError", "CommClosedError"})


def _close(client, cluster) -> None:
    """Close the client (and the local cluster), within seconds even with the scheduler gone."""
    try:
        client.close(timeout=5)
    except Exception:  # the scheduler is gone: nothing to close there
        pass
    if cluster is not None:
        try:
            cluster.close(timeout=10)
        except Exception:
            pass


#: the most workers ``local:N`` starts (a larger cluster is one started by its operator)
MAX_LOCAL_WORKERS = min(256, max(8, 4 * (os.cpu_count() or 1)))
_FORMS = ("give tcp://HOST:PORT (a running dask scheduler), its scheduler file (.json) or "
          "local:N (an IPv6 host goes in brackets: tcp://[::1]:8786)")
_ADDRESS = re.compile(r"(?:tcp|tls|ws|wss|ucx)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})")


def check_address(address: str) -> None:
    """``ClusterError`` (one line naming it and the accepted forms) unless ``address`` is
    ``local:N`` (1 ≤ N ≤ ``MAX_LOCAL_WORKERS``), a scheduler file or ``tcp://HOST:PORT``.

    >>> check_address("tcp://127.0.0.1:")
    Traceback (most recent call last):
    ...
    kifudb.store.cluster.ClusterError: --cluster tcp://127.0.0.1:: not an address: give tcp://HOST:PORT (a running dask scheduler), its scheduler file (.json) or local:N (an IPv6 host goes in brackets: tcp://[::1]:8786)
    """
    if address.startswith("local:"):
        count = address[len("local:"):]
        if not count.isdigit() or int(count) < 1:
            raise ClusterError(f"--cluster {address}: local:N needs a number of workers, "
                               f"like local:2")
        if int(count) > MAX_LOCAL_WORKERS:
            raise ClusterError(f"--cluster {address}: at most local:{MAX_LOCAL_WORKERS} here "
                               f"(4 worker processes per CPU); for more, start a dask scheduler "
                               f"and workers and give tcp://HOST:PORT")
        return
    if address.endswith(".json"):
        return
    match = _ADDRESS.fullmatch(address)
    if "://" in address and (match is None or not 0 < int(match[2]) < 65536):
        raise ClusterError(f"--cluster {address}: not an address: {_FORMS}")
    if match is None:
        raise ClusterError(f"--cluster {address}: {_FORMS}")


def connect(address: str) -> tuple:
    """``(client, cluster or None)`` for ``tcp://HOST:PORT``, a scheduler file or ``local:N``;
    ``ClusterError`` when there is no scheduler to reach or no worker comes."""
    check_address(address)
    from distributed import Client, LocalCluster

    logging.getLogger("distributed").setLevel(logging.ERROR)
    if address.startswith("local:"):
        import dask

        # no dashboard (bokeh is not installed), so no use for the workers' profiler (it
        # samples every 10 ms); the scheduler's HTTP server on a free port (given None, it
        # takes 8787 and warns on standard error when another cluster holds it)
        with dask.config.set({"distributed.worker.profile.enabled": False}):
            cluster = LocalCluster(n_workers=int(address[len("local:"):]), threads_per_worker=1,
                                   processes=True, dashboard_address=":0",
                                   silence_logs=logging.ERROR)
        return Client(cluster), cluster
    try:
        if address.endswith(".json"):
            if not os.path.isfile(address):
                raise ClusterError(f"--cluster {address}: no such scheduler file (dask "
                                   f"scheduler --scheduler-file writes it); nothing was written")
            client = Client(scheduler_file=address)
        else:
            client = Client(address)
    except (OSError, TimeoutError) as error:
        raise ClusterError(f"cannot reach the Dask scheduler at {address} ({_line(error)}); is "
                           f"`dask scheduler` running there? (Dask's distributed.comm.timeouts."
                           f"connect sets how long to try.) Nothing was written.") from None
    except ValueError as error:  # an address Dask cannot read after all
        raise ClusterError(f"--cluster {address}: not an address ({_line(error)}): "
                           f"{_FORMS}") from None
    try:
        client.wait_for_workers(1, timeout=30)
    except (OSError, TimeoutError):
        client.close()
        raise ClusterError(f"the Dask scheduler at {address} has no worker (start some with "
                           f"`dask worker {address}`); nothing was written") from None
    return client, None


def _line(error: BaseException) -> str:
    """An error's text on one line (Dask's hold newlines)."""
    text = re.sub(r"^in <[^>]*>: ", "", " ".join(str(error).split()))  # Dask's comm object
    return text or type(error).__name__


def _ingest(paths, store: Store, client, progress: bool, batch_positions: int) -> IngestReport:
    report = IngestReport()
    known, catalogue, labels = ingest_state(store, report)
    run = store._new_folder(store.manifest(), "cluster")  # marked: debris if we are killed
    writing = None
    try:
        check_workers(client, store, run)
        workers = max(1, sum(client.nthreads().values()))
        chunks = _chunks(record_files(paths, skip=[store.root]), known, workers, report)
        plan = _Plan(store.next_batch())
        total = sum(1 for _ in record_files(paths, skip=[store.root])) if progress else None
        for index, piece in _pieces(client, chunks, workers, total):
            local = 0  # the provisional id of the piece's next game
            catalogue.prepare([game[0] for file in piece["files"] for game in file[4]])
            for path, digest, size_, skipped, games, file_findings, stored in piece["files"]:
                if skipped:
                    report.files_skipped += 1
                    continue
                if stored:  # a file stored before, changed
                    plan.retired.append(path)
                    report.files_replaced += 1
                game_ids = []
                for fingerprint, detail, identity, positions, findings in games:
                    game_id, added, describe = catalogue.place(fingerprint, detail, identity)
                    report.count_game(added, positions)
                    plan.place(index, piece, local, game_id, added, describe, positions)
                    local += 1
                    game_ids.append(game_id)
                    report.findings += findings
                report.findings += file_findings
                plan.add_file(index, piece, path, digest, size_, game_ids)
                report.files_read += 1
                if plan.positions >= batch_positions or len(plan.files) >= BATCH_FILES:
                    if writing is not None:
                        report.batches.append(_finish(writing, catalogue))
                    writing = _Commit(client, store, plan, catalogue.next_game, labels)
                    plan = _Plan(plan.number + 1)
        if plan.files:
            if writing is not None:
                report.batches.append(_finish(writing, catalogue))
            writing = _Commit(client, store, plan, catalogue.next_game, labels)
        if writing is not None:
            report.batches.append(_finish(writing, catalogue))
            writing = None
    finally:
        catalogue.close()
        if writing is not None:  # an error: the batch being written is not committed
            writing.abandon()
        remove_marked(run)
    return report


#: files a piece of work holds at most
CHUNK_FILES = 64


def _chunks(files, known, workers: int, report: IngestReport):
    """The chunks of ``files`` (``[(absolute path, stored digest or None)]``), in order, taken
    from the walk as they are needed (the client never holds the list of a million files):
    ``CHUNK_FILES`` each, fewer when there are few files, so that every worker has some."""
    files = map(os.path.abspath, files)
    head = list(itertools.islice(files, workers * 8 * CHUNK_FILES))
    size = max(1, min(CHUNK_FILES, len(head) // (workers * 8)))
    files = itertools.chain(head, files)
    del head
    while chunk := list(itertools.islice(files, size)):
        report.files_seen += len(chunk)
        yield list(zip(chunk, known.get_many(chunk)))


def _finish(writing: "_Commit", catalogue) -> str:
    """Commit a batch, and tell the catalogue its games are in the store."""
    name = writing.finish()
    catalogue.committed(writing.next_game)
    return name


def check_workers(client, store: Store, run: Path) -> None:
    """``ClusterError`` unless every worker sees the folder ``run`` of this store (a token the
    client wrote there) and can write in it."""
    token = uuid.uuid4().hex
    (run / "token").write_text(token, encoding="utf-8")
    answers = client.run(_probe, str(run), token)
    wrong = {worker: answer for worker, answer in answers.items() if answer is not None}
    if wrong:
        said = "; ".join(f"worker {worker} ({answer})" for worker, answer in sorted(wrong.items()))
        raise ClusterError(
            f"the store {store.root} must be on a filesystem every Dask worker shares and may "
            f"write (the same path on every machine): {said}. Nothing was read or written.")


def _probe(run: str, token: str) -> Optional[str]:
    """On a worker: None if it sees the client's token in ``run`` and can write there, else
    what is wrong."""
    host = socket.gethostname()
    try:
        with open(os.path.join(run, "token"), encoding="utf-8") as stream:
            seen = stream.read()
    except FileNotFoundError:
        return f"on {host} the store folder does not exist: it is not shared with this worker"
    except OSError as error:
        return f"on {host} it cannot read {run}: {error.strerror or error}"
    if seen != token:
        return f"on {host} {run} is another folder than the client's"
    probe = os.path.join(run, f"probe-{uuid.uuid4().hex}")
    try:
        with open(probe, "w", encoding="utf-8") as stream:
            stream.write(token)
        os.remove(probe)
    except OSError as error:
        return f"on {host} it cannot write in {run}: {error.strerror or error}"
    return None


#: how often (seconds) the client looks at what the workers are doing while it waits
_POLL = 1.0


def piece_deadline(chunk: list) -> float:
    """Seconds a worker may spend on one piece of work before it is taken for stopped: Dask's
    ``kifudb.cluster.piece-timeout`` (``DASK_KIFUDB__CLUSTER__PIECE_TIMEOUT=90s``), else a
    minute plus a second per 50 KB of its files (a 1 MB record with thousands of variations
    takes tens of seconds to read)."""
    import dask
    from dask.utils import parse_timedelta

    configured = dask.config.get("kifudb.cluster.piece-timeout", None)
    if configured is not None:
        return float(parse_timedelta(configured, default="s"))
    size = 0
    for path, _ in chunk:
        try:
            size += os.path.getsize(path)
        except OSError:
            pass
    return 60.0 + size / 50_000


def _result(client, future, deadline: float, what: str, fetch: bool = True):
    """``future.result()`` (with ``fetch`` False: only once it is done, the result left on its
    worker); a worker that holds it for more than ``deadline`` seconds (stopped, or hung) is
    said on stderr and taken off the cluster, so that the scheduler gives its work to the
    others; ``ClusterError`` if no other worker is left."""
    watched = None  # (worker, since when it holds the future)
    done = threading.Event()
    # (not ``future.result(timeout=…)``: its timeout can leave Dask's ``sync`` without a result,
    # an UnboundLocalError, on a busy machine)
    future.add_done_callback(lambda _: done.set())
    while True:
        if done.wait(_POLL):
            if fetch or future.status != "finished":  # an error is raised here
                return future.result()
            return None
        holder = next((worker for worker, keys in client.processing().items()
                       if future.key in keys), None)
        now = time.monotonic()
        if holder is None or watched is None or watched[0] != holder:
            watched = (holder, now)
        elif now - watched[1] > deadline:
            _take_off(client, holder, what, deadline)
            watched = None


def _take_off(client, worker: str, what: str, deadline: float) -> None:
    others = [w for w in client.nthreads() if w != worker]
    if not others:
        raise ClusterError(f"Dask worker {worker} has not finished {what} in {deadline:.0f} s "
                           f"and no other worker is left; nothing of that batch was committed "
                           f"(kifudb.cluster.piece-timeout sets the deadline)")
    print(f"kifudb: Dask worker {worker} has not finished {what} in {deadline:.0f} s (stopped "
          f"or hung): it is taken off the cluster and its work goes to the "
          f"{len(others)} other{'s' if len(others) > 1 else ''}", file=sys.stderr)
    client.run_on_scheduler(_remover(worker))


def _remover(worker: str):
    """What the scheduler runs to forget ``worker`` (a closure: pickled by value, so the
    scheduler needs no kifudb); its tasks are given to the other workers."""
    async def remove(dask_scheduler=None):
        await dask_scheduler.remove_worker(address=worker, stimulus_id="kifudb-stopped-worker",
                                           close=False)
    return remove


def _pieces(client, chunks, workers: int, total=None):
    """Yield ``(index, piece)`` of every chunk of the iterator ``chunks`` in order, a few
    chunks per worker in flight: the piece's facts (``read_piece``) with ``"rows"``, the future
    of its rows, which stay on the worker that read them until a batch takes them. With
    ``total`` (the number of files), a progress bar counts the files as they are yielded. A
    worker that holds a piece past its deadline (``piece_deadline``) is taken off the
    cluster."""
    bar = None
    if total is not None:
        from tqdm import tqdm

        bar = tqdm(total=total, unit="file", file=sys.stderr, desc="ingest", leave=False,
                   miniters=1)
    window = max(2, workers * 4)
    futures: dict = {}  # chunk index -> (chunk, future)
    games = 0
    chunks = enumerate(chunks)
    try:
        for index in itertools.count():
            for submitted, chunk in itertools.islice(chunks, window - len(futures)):
                futures[submitted] = chunk, client.submit(read_piece, chunk, pure=False)
            if index not in futures:
                break
            chunk, future = futures.pop(index)
            try:
                _result(client, future, piece_deadline(chunk),
                        f"piece {index + 1} of the ingest ({len(chunk)} files)", fetch=False)
                piece = {**_facts(client, future), "rows": future}
            except ClusterError:
                raise
            except Exception as error:  # a worker that cannot write, or died too often
                if _scheduler_gone(client, error):
                    raise
                raise ClusterError(f"a task of the ingest failed on the cluster: "
                                   f"{type(error).__name__}: {_line(error)}; the batch it "
                                   f"belonged to was not committed") from None
            if bar is not None:
                games += sum(len(f[4]) for f in piece["files"])
                bar.set_postfix_str(f"games {games:,}", refresh=False)
                bar.update(len(piece["files"]))
            yield index, piece
    finally:
        if bar is not None:
            bar.close()
        if client.status == "running":
            for _, future in futures.values():
                future.cancel()


def read_piece(chunk: list) -> dict:
    """On a worker: read the files of ``chunk`` (``[(path, stored digest or None)]``, the digest
    as ``FileDigests.get`` gives it) and build their games' rows, with provisional ids (0, 1, …
    in the order read), as Arrow tables: the piece's ``"tables"``, kept in the worker's memory
    (a Dask result) until the batch that takes them is written. With them, the facts the
    client places the games by (``piece_facts``)."""
    batch = Batch(0)
    files, local = [], 0
    for path, stored in chunk:
        digest, size = file_digest(path)
        if digest is not None and FileDigests.prefix(digest) == stored:
            files.append((path, digest, size, True, [], 0, True))
            continue
        read = read_file(path, labels=True, lines=True)
        games = []
        for game in read.games:
            batch.add_game(local, game)
            batch.add_source(local, game)
            batch.add_findings(local, path, game.index, game.findings)
            games.append((game.fingerprint, *source_facts(game), len(game.keys),
                          len(game.findings)))
            local += 1
        batch.add_findings(None, path, None, read.findings)
        files.append((path, digest, size, False, games, len(read.findings), stored is not None))
    tables = batch.tables()
    return {"tables": {name: tables[name] for name in PIECE_TABLES}, "games": local,
            "files": files}


def _facts(client, future) -> dict:
    """The facts of the piece ``future`` holds (``piece_facts``), asked of the worker that
    holds it directly (``Client.run``: a task would wait behind the reads queued there); if
    that worker has just gone, once Dask has read the piece again elsewhere."""
    for _ in range(3):
        holders = client.who_has([future]).get(future.key) or []
        if holders:
            try:
                return next(iter(client.run(piece_facts, future.key, workers=holders[:1])
                                 .values()))
            except Exception as error:  # that worker has just gone
                if _scheduler_gone(client, error):
                    raise
        _result(client, future, 600, "a piece read again", fetch=False)
    piece = future.result()  # at last, the whole piece, rows and all
    return {"games": piece["games"], "files": piece["files"]}


def piece_facts(key, dask_worker=None) -> dict:
    """On the worker that holds piece ``key`` (run by ``Client.run``, beside the tasks): its
    number of games and, per file, ``(path, sha256, size, skipped, games, file findings,
    stored)`` where each game is ``(fingerprint, detail, identity, positions, findings)`` and
    ``stored`` says the store held the file before — what the client needs, without the
    rows."""
    piece = dask_worker.data[key]
    return {"games": piece["games"], "files": piece["files"]}


class _Plan:
    """The batch being planned by the client: which rows of which pieces it takes, with which
    final game ids."""

    def __init__(self, number: int):
        self.number = number
        self.positions = 0
        self.files: list = []  # (path, sha256, size, game ids)
        self.retired: list = []
        #: piece index -> {"folder", "final": array of final ids (-1: not in this batch),
        #: "content": the new games, "paths": the files of this batch}
        self.pieces: dict = {}
        self._describer: dict = {}  # game id -> (piece index, local id) of its games row

    def _piece(self, index: int, piece: dict) -> dict:
        if index not in self.pieces:
            n = piece["games"] + 1  # one more: the findings about a file (no game) point there
            self.pieces[index] = {"rows": piece["rows"], "final": np.full(n, -1, np.int32),
                                  "content": np.zeros(n, bool), "describe": np.zeros(n, bool),
                                  "paths": []}
        return self.pieces[index]

    def place(self, index: int, piece: dict, local: int, game_id: int, added: bool,
              describe: bool, positions: int) -> None:
        """Game ``local`` of piece ``index`` is game ``game_id`` (``Catalogue.place``)."""
        entry = self._piece(index, piece)
        entry["final"][local] = game_id
        if added:
            entry["content"][local] = True
            self.positions += positions
        if added or describe:  # the last source to describe a game in a batch gives its row
            self._describer[game_id] = (index, local)

    def add_file(self, index: int, piece: dict, path: str, digest, size, game_ids: list) -> None:
        self._piece(index, piece)["paths"].append(path)
        self.files.append((path, digest, size, game_ids))

    def spec(self) -> tuple:
        """What ``write_batch`` needs, per piece in order: what to take of its rows, and the
        futures of the rows."""
        for entry in self.pieces.values():
            entry["describe"][:] = False
        for index, local in self._describer.values():
            self.pieces[index]["describe"][local] = True
        entries = [self.pieces[i] for i in sorted(self.pieces)]
        return ([{k: v for k, v in entry.items() if k != "rows"} for entry in entries],
                [entry["rows"] for entry in entries])


class _Commit:
    """One planned batch being written by a worker, committed by ``finish`` (the commits stay
    in order; the client plans the next batch meanwhile)."""

    def __init__(self, client, store: Store, plan: _Plan, next_game: int, labels: dict):
        self.store, self.plan, self.next_game, self.labels = store, plan, next_game, labels
        self.client = client
        # as for a piece: the batch's rows are read and written again by one worker
        self.deadline = piece_deadline([(path, None) for path, *_ in plan.files])
        self.name = f"b{plan.number:06d}"
        self.folder = store._new_folder(store.manifest(), self.name)
        files = pa.Table.from_pydict(
            {"path": [f[0] for f in plan.files], "sha256": [f[1] for f in plan.files],
             "size": [f[2] for f in plan.files], "games": [f[3] for f in plan.files],
             "batch": [plan.number] * len(plan.files)}, schema=TABLES["files"])
        retired = pa.Table.from_pydict({"path": plan.retired,
                                        "batch": [plan.number] * len(plan.retired)},
                                       schema=TABLES["retired"])
        # ahead of the reads queued on the workers; Dask brings it the pieces' rows
        spec, rows = plan.spec()
        self.future = client.submit(write_batch, spec, rows, str(self.folder), plan.number,
                                    {"files": files, "retired": retired}, pure=False,
                                    priority=100)

    def finish(self) -> str:
        """Wait for the batch, then commit it as ``Store.commit`` does: rename it into
        ``batches/``, replace the manifest."""
        store = self.store
        try:
            _result(self.client, self.future, self.deadline, f"writing batch {self.name}")
            store._install(self.folder, self.name)
        except BaseException as error:
            self.abandon()
            if isinstance(error, OSError) and not _scheduler_gone(self.client, error):
                raise store._disk_error(error, f"writing batch {self.name}") from None
            raise
        manifest = store.manifest()
        store._write_manifest({**manifest, "next_game": self.next_game,
                               "batches": manifest["batches"] + [self.name],
                               "labels": self.labels})
        self.plan.pieces.clear()  # their rows are let go (the last piece's, once its next batch
        self.future = None  # is written, if it goes on there)
        return self.name

    def abandon(self) -> None:
        if self.client.status == "running":
            self.future.cancel()
        remove_marked(self.folder)


def write_batch(pieces: list, rows: list, folder: str, number: int, client_tables: dict) -> int:
    """On a worker: write batch ``number`` into ``folder`` from the rows of ``pieces`` (see
    ``_Plan.spec``; ``rows``: each piece's ``read_piece``, brought here by Dask) with the final
    game ids, positions sorted by key; returns its positions."""
    parts = {name: [] for name in PIECE_TABLES}
    for entry, piece in zip(pieces, rows):
        final, content, describe = entry["final"], entry["content"], entry["describe"]
        paths = pa.array(entry["paths"], pa.string())
        for name in PIECE_TABLES:
            table = piece["tables"][name]
            local = pc.fill_null(table.column("game"), -1).to_numpy(zero_copy_only=False)
            about_file = local < 0
            local = np.where(about_file, len(final) - 1, local)
            if name == "games":
                keep = describe[local]
            elif name in ("moves", "positions", "labels", "placements"):
                keep = content[local]
            else:  # sources, findings: every game of the batch's files, and the files' findings
                keep = np.where(about_file, pc.is_in(table.column("path"), value_set=paths)
                                .to_numpy(zero_copy_only=False), final[local] >= 0)
            table = table.filter(pa.array(keep))
            ids = pa.array(final[local][keep], pa.int32(), mask=about_file[keep])
            table = table.set_column(table.schema.get_field_index("game"), "game", ids)
            if "batch" in table.schema.names:
                table = table.set_column(table.schema.get_field_index("batch"), "batch",
                                         pa.array(np.full(table.num_rows, number, np.int32)))
            parts[name].append(table)
    tables = {name: pa.concat_tables(parts[name]) if parts[name]
              else TABLES[name].empty_table() for name in PIECE_TABLES}
    tables["games"] = tables["games"].sort_by("game")
    for name in SORTED.keys() & tables.keys():
        tables[name] = tables[name].sort_by([(c, "ascending") for c in SORTED[name]])
    tables.update(client_tables)
    for name in TABLES:
        if name not in tables:  # what an ingest never writes (analysis)
            write_table(TABLES[name].empty_table(), Path(folder) / f"{name}.parquet", name)
        elif name == "positions":
            write_positions(tables[name].cast(TABLES[name]), Path(folder))
        else:
            write_table(tables[name].cast(TABLES[name]), Path(folder) / f"{name}.parquet", name)
    return tables["positions"].num_rows


def _forget_new_store(store: Store) -> None:
    """Remove what the writer's lock and an empty first manifest left in a folder that was not
    a store before this run (the ingest stopped before any work)."""
    for name in ("manifest.json", "kifudb.duckdb", ".lock"):
        try:
            (store.root / name).unlink()
        except OSError:
            pass
    shutil.rmtree(store.root / "tmp", ignore_errors=True)
    try:
        store.root.rmdir()
    except OSError:
        pass
