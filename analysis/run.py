"""``kifudb analyse``: a USI engine's judgement of every distinct position of the chosen games,
committed to the store's ``analysis`` table, on local engines or on a Dask cluster's workers.

A position is analysed once per engine, limit and number of lines, whatever number of games
reach it: the run asks the store which positions of the chosen games have no row yet, so a
second run (or one after a kill) analyses only what is missing. Work goes by key range (the
top bits of the key, ``CHUNKS`` ranges); a run holds a lock on each range it works on
(``STORE/analysing/…``, released by the kernel when a process dies) and commits a batch every
``COMMIT_POSITIONS`` positions or ``COMMIT_SECONDS``, so a killed run loses at most its last
uncommitted batch and two runs at once never analyse the same range::

    >>> import tempfile
    >>> from kifudb.store.writer import ingest_paths
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["data/samples/games.usi"], folder)
    >>> report = analyse(folder, "fairy-stockfish", "nodes=500")
    >>> report.analysed == report.positions - report.skipped_count, report.failed
    (True, [])
    >>> analyse(folder, "fairy-stockfish", "nodes=500").analysed   # nothing missing
    0

Positions that cannot be analysed are counted, not sent: without a king on each side, or with
no legal move (a mate on the board). A position the engine fails on (it dies, hangs past the
limit's deadline, or answers a move that is not legal there) is tried once more on a
restarted engine, then reported; the others go on.
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import hashlib
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Optional

import pyarrow as pa
import sqlalchemy as sa

from kifudb.analysis.usi import Engine, EngineError, Limit, find_engine
from kifudb.analytics.filters import GameFilter
from kifudb.core import Position
from kifudb.store.engine import analysis, fetch, game_summary, games, moves, positions
from kifudb.store.folder import Store, uninterrupted
from kifudb.store.manifest import StoreError
from kifudb.store.schema import ANALYSIS

#: key ranges (by the key's top bits) that runs lock; a run reads the positions of several
#: ranges at once, about ``OPEN_POSITIONS`` (one query, not one per range)
CHUNK_BITS = 12
OPEN_POSITIONS = 256
CHUNKS = 1 << CHUNK_BITS
#: a batch is committed after this many positions, or this many seconds
COMMIT_POSITIONS = 2_000
COMMIT_SECONDS = 60.0
#: positions sent to one engine at a time (a task of the pool or the cluster)
TASK_POSITIONS = 8


@dataclass
class AnalysisReport:
    """What a run did: its engine, limit and lines, the distinct positions of the chosen games
    (``positions``), those analysed before it (``before``), by it (``analysed``), those skipped
    by reason, those that failed (their messages), the batches it committed and its time."""

    engine: str
    limit: str
    multipv: int
    positions: int = 0
    before: int = 0
    analysed: int = 0
    skipped: dict = field(default_factory=collections.Counter)
    failed: list = field(default_factory=list)
    batches: list = field(default_factory=list)
    seconds: float = 0.0
    interrupted: bool = False
    restarts: int = 0
    #: the engines' seconds from each ``go`` to its ``bestmove``, and how many engines
    searching: float = 0.0
    engines: int = 1

    @property
    def skipped_count(self) -> int:
        return sum(self.skipped.values())

    def lines(self) -> list:
        """The report as a person reads it, a line each."""
        lines = f", {self.multipv} lines" if self.multipv > 1 else ""
        if not self.positions:
            out = ["no position to analyse: the filters keep no game"]
        elif self.analysed or self.failed or self.interrupted:
            out = [f"{self.analysed:,} positions analysed by {self.engine} at {self.limit}{lines} "
                   f"in {self.seconds:.2f} s ({self.analysed / max(self.seconds, 1e-9):,.1f} "
                   f"positions/s); {self.positions:,} distinct positions in the chosen games, "
                   f"{self.before:,} analysed before"]
        else:
            out = [f"nothing left to analyse in the {self.positions:,} distinct positions of the "
                   f"chosen games ({self.engine} at {self.limit}{lines})"]
        if self.analysed and self.seconds:
            out.append(f"the engines searched {self.searching:.2f} s: "
                       f"{100 * self.searching / (self.engines * self.seconds):.0f}% of "
                       f"{self.engines} × {self.seconds:.2f} s (the rest is kifudb's: "
                       f"starting, planning, committing)")
        if self.skipped:
            out.append("skipped (not sent to the engine): " + ", ".join(
                f"{n:,} {why}" for why, n in sorted(self.skipped.items())))
        if self.restarts:
            out.append(f"the engine was restarted {self.restarts} times (it died, hung or "
                       f"answered an illegal move)")
        for message in self.failed:
            out.append(f"failed: {message}")
        if self.interrupted:
            out.append(f"interrupted: what was analysed is committed ({len(self.batches)} "
                       f"batches); run the same command again to go on")
        return out


def analyse(store_dir, engine: str, limit="nodes=20000", *, multipv: int = 1,
            options: tuple = (), filters: GameFilter = GameFilter(), jobs: int = 1,
            cluster: Optional[str] = None, deadline: Optional[float] = None,
            progress: bool = False, commit_positions: int = COMMIT_POSITIONS) -> AnalysisReport:
    """Analyse the positions of the games of ``filters`` that the store has no analysis of
    with ``engine`` (a path, or a name on PATH or in ``/usr/games``) at ``limit``
    (``nodes=N``, ``depth=N`` or ``movetime=MS``), ``multipv`` lines each, ``options``
    (``(name, value)`` pairs given to the engine), on ``jobs`` local engines or one per
    worker of the Dask cluster ``cluster`` (``analysis.run`` explains the rest)."""
    store = Store(store_dir)
    if not store.manifest_path.exists():
        raise StoreError(f"no store at {store.root} (kifudb ingest makes one)")
    limit = limit if isinstance(limit, Limit) else Limit.parse(limit)
    if jobs < 1:
        raise EngineError(f"--jobs must be at least 1, not {jobs}")
    if not 1 <= multipv <= 16:
        raise EngineError(f"--multipv must be 1 to 16, not {multipv}")
    path = find_engine(engine)
    probe = Engine(path, options, multipv)  # a bad engine, option or limit: said now
    try:
        probe.check(limit)
    except EngineError:
        probe.close()
        raise
    name = probe.name
    if cluster:
        probe.close()
    else:  # the first local job's engine
        with _ENGINES_LOCK:
            _SPARE.setdefault((path, tuple(options), multipv), []).append(probe)
    spec = EngineSpec(engine if cluster else path, tuple(options), multipv, limit.text,
                      deadline)
    report = AnalysisReport(name, limit.text, multipv)
    started = time.monotonic()
    try:
        plan = _Plan(store, name, limit.text, multipv, filters, report)
        plan.commit_positions = commit_positions
        pool = _Pool(spec, jobs, cluster)
        report.engines = pool.width
    except BaseException:
        close_engines()  # the probe, kept for the first job
        raise
    try:
        _run(plan, pool, report, progress)
    finally:
        pool.close()
        plan.release_all()
        report.seconds = time.monotonic() - started
    return report


@dataclass(frozen=True)
class EngineSpec:
    """What a worker needs to start its engine and search: ``engine`` (a path, or a name it
    finds itself), ``options``, ``multipv``, ``limit`` (text) and ``deadline``."""

    engine: str
    options: tuple
    multipv: int
    limit: str
    deadline: Optional[float]


@dataclass
class TaskResult:
    """The rows of a task's positions (``(key, Line)``) and the positions that failed."""

    rows: list
    failed: list
    restarts: int = 0
    searching: float = 0.0  # the engine's seconds from go to bestmove


_ENGINES: dict = {}  # (engine, options, multipv, thread) -> the thread's engine
_SPARE: dict = {}  # (engine, options, multipv) -> engines started, for a thread to take
_ENGINES_LOCK = threading.Lock()


def analyse_positions(spec: EngineSpec, items: list) -> TaskResult:
    """Search each ``(key, sfen)`` of ``items`` on this thread's engine (started once per
    worker thread and kept): what a local job and a Dask worker run. A position the engine
    fails on is tried once more on a restarted engine, then reported."""
    slot = (spec.engine, spec.options, spec.multipv, threading.get_ident())
    with _ENGINES_LOCK:
        engine = _ENGINES.get(slot)
        spare = _SPARE.get(slot[:3])
        if engine is None and spare:
            engine = _ENGINES[slot] = spare.pop()
    if engine is None:
        engine = Engine(find_engine(spec.engine), spec.options, spec.multipv)
        with _ENGINES_LOCK:
            _ENGINES[slot] = engine
    limit = Limit.parse(spec.limit)
    rows, failed, restarts = [], [], 0
    searched = engine.searching
    for key, sfen in items:
        for attempt in (0, 1):
            try:
                rows.extend((key, engine.name, line) for line in
                            engine.analyse(sfen, limit, spec.deadline))
                break
            except EngineError as error:
                engine.restart()  # an engine that cannot start again ends the task: raised
                restarts += 1
                if attempt:
                    failed.append(f"{error} (tried twice)")
                else:
                    warn(f"{error}; the engine is restarted and the position tried once more")
    return TaskResult(rows, failed, restarts, engine.searching - searched)


def warn(message: str) -> None:
    """A line on standard error (a worker's goes to its own log)."""
    print(f"kifudb analyse: {message}", file=sys.stderr, flush=True)


def close_engines() -> None:
    """Stop the engines this process started (``analyse_positions``)."""
    with _ENGINES_LOCK:
        engines = list(_ENGINES.values()) + [e for spare in _SPARE.values() for e in spare]
        _ENGINES.clear()
        _SPARE.clear()
    for engine in engines:
        engine.close()


class _Pool:
    """Where tasks run: ``jobs`` threads of this process (an engine each), or the workers of a
    Dask cluster (an engine each, kept between tasks)."""

    def __init__(self, spec: EngineSpec, jobs: int, cluster: Optional[str]):
        self.spec = spec
        self.client = self.cluster = None
        if cluster:
            from kifudb.store.cluster import connect

            self.client, self.cluster = connect(cluster)
            self.width = max(1, sum(self.client.nthreads().values()))
        else:
            self.executor = ThreadPoolExecutor(jobs, thread_name_prefix="engine")
            self.width = jobs

    def submit(self, items: list):
        if self.client is not None:
            return self.client.submit(analyse_positions, self.spec, items, pure=False)
        return self.executor.submit(analyse_positions, self.spec, items)

    def wait(self, futures: set) -> set:
        """The futures of ``futures`` that are done (waiting for one at least)."""
        if self.client is not None:
            from distributed import wait as dask_wait

            return set(dask_wait(list(futures), return_when="FIRST_COMPLETED").done)
        return wait(futures, return_when=FIRST_COMPLETED).done

    def close(self) -> None:
        if self.client is not None:
            from kifudb.store.cluster import _close

            with contextlib.suppress(Exception):
                self.client.run(close_engines)
            _close(self.client, self.cluster)
        else:
            self.executor.shutdown(wait=True, cancel_futures=True)
            close_engines()


class _Plan:
    """The positions still to analyse, by key range, and the locks of the ranges held."""

    def __init__(self, store: Store, engine: str, limit: str, multipv: int,
                 filters: GameFilter, report: AnalysisReport):
        self.store, self.engine, self.limit, self.multipv = store, engine, limit, multipv
        self.filters = filters
        self.report = report
        config = hashlib.sha256(f"{engine}\n{limit}\n{multipv}".encode()).hexdigest()[:16]
        self.lock_dir = store.root / "analysing" / config
        self.held: dict = {}  # chunk -> open lock file
        counts = fetch(store, self._counts())
        report.positions = sum(r["positions"] for r in counts)
        report.before = sum(r["analysed"] for r in counts)
        self.missing = {r["chunk"]: r["positions"] - r["analysed"] for r in counts
                        if r["positions"] > r["analysed"]}
        self.chunks = sorted(self.missing)

    def _chosen(self):
        return sa.select(game_summary.c.game).where(*self.filters.where())

    def _done(self):
        a = analysis.c
        return sa.select(a.key).where(a.engine == sa.bindparam("engine", self.engine),
                                      a["limit"] == sa.bindparam("limit", self.limit),
                                      a.multipv == sa.bindparam("multipv", self.multipv))

    def _chunk(self):
        return positions.c.key.op(">>")(sa.literal_column(str(64 - CHUNK_BITS))).cast(sa.Integer)

    def _counts(self):
        p = positions.c
        keys = (sa.select(p.key, self._chunk().label("chunk"))
                .where(p.game.in_(self._chosen())).distinct().subquery())
        done = self._done().subquery()
        return (sa.select(keys.c.chunk, sa.func.count().label("positions"),
                          sa.func.count(done.c.key).label("analysed"))
                .select_from(keys.outerjoin(done, done.c.key == keys.c.key))
                .group_by(keys.c.chunk))

    def items(self, group: tuple) -> list:
        """``(key, sfen)`` of the positions of the ranges ``group`` (in key order) still
        missing (read after their locks are held: another run may have done them), the others
        counted as skipped."""
        p = positions.c
        low = group[0] << (64 - CHUNK_BITS)
        high = (group[-1] + 1) << (64 - CHUNK_BITS)
        in_range = [p.key >= sa.literal(low, type_=positions.c.key.type)]
        if high < 1 << 64:
            in_range.append(p.key < sa.literal(high, type_=positions.c.key.type))
        wanted = (sa.select(p.key, sa.func.min(p.game).label("game"),
                            sa.func.arg_min(p.ply, p.game).label("ply"))
                  .where(*in_range, p.game.in_(self._chosen()), p.key.not_in(self._done()))
                  .group_by(p.key).order_by(p.key))
        held = set(group)  # the ranges between them are other runs' to take
        rows = [r for r in fetch(self.store, wanted) if _chunk_of(r["key"]) in held]
        return self._sfens(rows)

    def _sfens(self, rows: list) -> list:
        """The SFEN of each wanted position, replaying each of its games once."""
        if not rows:
            return []
        ids = sorted({r["game"] for r in rows})
        starts = {r["game"]: r["start_sfen"] for r in fetch(
            self.store, sa.select(games.c.game, games.c.start_sfen).where(games.c.game.in_(ids)))}
        lines = collections.defaultdict(list)
        for r in fetch(self.store, sa.select(moves.c.game, moves.c.usi)
                       .where(moves.c.game.in_(ids), moves.c.line == 0)
                       .order_by(moves.c.game, moves.c.ply)):
            lines[r["game"]].append(r["usi"])
        wanted = collections.defaultdict(list)
        for r in rows:
            wanted[r["game"]].append((r["ply"], r["key"]))
        items = []
        for game, plies in wanted.items():
            position = Position.from_sfen(starts[game])
            plies.sort()
            at = 0
            for ply, key in plies:
                while at < ply:
                    position.push_usi(lines[game][at])
                    at += 1
                sfen = position.sfen()
                why = unanalysable(position, sfen)
                if why:
                    self.report.skipped[why] += 1
                else:
                    items.append((key, sfen))
        return sorted(items)  # in key order, whatever game reached them first

    def take(self, chunk: int, block: bool) -> bool:
        """Hold the lock of range ``chunk`` (False if another run holds it and not ``block``)."""
        self.lock_dir.mkdir(parents=True, exist_ok=True)
        lock = open(self.lock_dir / f"{chunk:03d}.lock", "a")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (0 if block else fcntl.LOCK_NB))
        except BlockingIOError:
            lock.close()
            return False
        self.held[chunk] = lock
        return True

    def release(self, chunks) -> None:
        for chunk in chunks:
            lock = self.held.pop(chunk, None)
            if lock is not None:
                fcntl.flock(lock, fcntl.LOCK_UN)
                lock.close()

    def release_all(self) -> None:
        self.release(list(self.held))

    def commit(self, rows: list) -> Optional[str]:
        """Commit ``rows`` (``(key, engine, Line)``) as one analysis batch."""
        if not rows:
            return None
        with self.store.writing():
            manifest = self.store.manifest()
            number = self.store.next_batch(manifest)
            columns = {f.name: [] for f in ANALYSIS}
            for key, engine, line in sorted(rows, key=lambda r: (r[0], r[2].multipv)):
                columns["key"].append(key)
                columns["engine"].append(engine)
                columns["limit"].append(self.limit)
                columns["multipv"].append(line.multipv)
                columns["score_black"].append(line.score_black)
                columns["mate_black"].append(line.mate_black)
                columns["best"].append(line.best)
                columns["pv"].append(line.pv)
                columns["depth"].append(line.depth)
                columns["nodes"].append(line.nodes)
                columns["batch"].append(number)
            table = pa.Table.from_pydict(columns, schema=ANALYSIS)
            name = self.store.commit({"analysis": table}, manifest["next_game"])
            # merged tier by tier as they come (``store.tiers``), from batches of this size:
            # each row is rewritten a few times, and a lookup reads a few batches
            self.store.tidy(base=self.commit_positions)
            return name


def _chunk_of(key: int) -> int:
    return key >> (64 - CHUNK_BITS)


def unanalysable(position: Position, sfen: str) -> Optional[str]:
    """Why ``position`` is not sent to an engine, or None.

    >>> unanalysable(Position.from_sfen("4k4/9/9/9/9/9/9/9/9 b G 1"), "4k4/9/9/9/9/9/9/9/9 b G 1")
    'without a king on each side'
    """
    board = sfen.split(" ", 1)[0]
    if "K" not in board or "k" not in board:
        return "without a king on each side"
    if not position.has_legal_move():
        return "without a legal move"
    return None


def _run(plan: _Plan, pool: _Pool, report: AnalysisReport, progress: bool) -> None:
    """Send the plan's positions to the pool, a group of neighbouring key ranges at a time, and
    commit as answers come; a group's locks are let go once its answers are committed."""
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=report.positions - report.before, unit="pos", desc="analysing")
    pending = collections.deque(plan.chunks)
    deferred: collections.deque = collections.deque()
    queued: collections.deque = collections.deque()  # (group, items) not yet submitted
    outstanding = collections.Counter()  # group -> its tasks not yet answered
    answered_groups: list = []  # groups all of whose tasks are answered, not yet committed
    in_flight: dict = {}
    rows: list = []
    answered = 0
    last_commit = time.monotonic()

    def next_group(block: bool) -> tuple:
        """The next ranges (in key order) whose locks this run now holds (about
        ``OPEN_POSITIONS`` positions). A range another run holds is waited for at the end,
        and only with nothing in flight and everything committed (``block``): a run waits
        holding no lock, so two runs never wait for each other."""
        while pending:
            group: list = []
            while pending and sum(plan.missing[c] for c in group) < OPEN_POSITIONS:
                if not plan.take(pending[0], block=False):
                    deferred.append(pending.popleft())
                    break
                group.append(pending.popleft())
            if group:
                return tuple(group)
        if deferred and block:
            commit()
            chunk = deferred.popleft()
            plan.take(chunk, block=True)
            return (chunk,)
        return ()

    def open_next(block: bool) -> bool:
        while True:
            group = next_group(block)
            if not group:
                return False
            items = plan.items(group)
            if not items:
                answered_groups.append(group)
                continue
            for start in range(0, len(items), TASK_POSITIONS):
                queued.append((group, items[start:start + TASK_POSITIONS]))
                outstanding[group] += 1
            return True

    def commit() -> None:
        nonlocal rows, answered, last_commit
        with uninterrupted():  # the rows are committed and forgotten together, never twice
            name = plan.commit(rows)
            if name:
                report.batches.append(name)
            report.analysed += answered
            rows, answered, last_commit = [], 0, time.monotonic()
        plan.release([c for group in answered_groups for c in group])
        answered_groups.clear()

    try:
        while True:
            while len(in_flight) < 2 * pool.width and (queued or open_next(not in_flight)):
                group, items = queued.popleft()
                in_flight[pool.submit(items)] = (group, len(items))
            if not in_flight:
                break
            for future in pool.wait(set(in_flight)):
                group, count = in_flight.pop(future)
                result = future.result()
                rows.extend(result.rows)
                report.failed.extend(result.failed)
                report.restarts += result.restarts
                report.searching += result.searching
                answered += count - len(result.failed)
                outstanding[group] -= 1
                if outstanding[group] == 0:
                    answered_groups.append(group)
                if bar is not None:
                    bar.update(count)
            if answered >= plan.commit_positions or \
                    time.monotonic() - last_commit > COMMIT_SECONDS:
                commit()
        commit()
    except KeyboardInterrupt:
        report.interrupted = True
        commit()  # what was answered before the interrupt is kept
    finally:
        if bar is not None:
            bar.close()
