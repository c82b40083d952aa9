"""The position store at scale: ingest, merges, size on disk, search and explorer latency, on the
layout an ingest leaves and on a fully compacted one, against a plain DuckDB table of SFEN strings
built from the same games in the same run.

For each scale (a number of positions; ``100k`` by default, ``10M,100M`` for issue 15's table):

1. the seeded synthetic corpus of ``bench/corpus.py`` (CSA and KIF files; cached under
   ``bench/results/corpus-N-seedS``);
2. ``ingest_paths(..., cluster="local:2")`` (``--cluster``; ``none`` for ``--jobs 2``) into a
   fresh store, in a child process (a fresh interpreter): its time, the part spent merging
   batches at the end (``store.tiers``), and the peak resident size of the largest process and
   of the whole process tree (client, nanny, workers; sampled every 20 ms);
3. on the merged layout the ingest leaves: bytes per position of the positions table and of the
   live store (what the manifest names: the batches a merge replaced are kept a day for running
   queries and not counted), and the latency of search (the count and the first page of
   ``PAGE`` rows, as the HTTP API and the dashboard ask), of the key lookup alone, and of the
   explorer: the first query (cold: fresh connection, the OS file cache warm), then median,
   99th percentile (of all, and of the positions of at most 100k occurrences) and max of 200
   lookups, warm. Search looks up positions that occur in the corpus (a seeded draw of games
   and plies) plus a few that do not; the explorer looks up the positions at plies 0–12 of
   seeded random games, so the start position (in every game) is included;
4. ``Store.compact()`` (``kifudb ingest --compact``) in a child process: time and memory; then
   the same sizes and lookups on the one-batch layout;
5. the baseline: a DuckDB file with one table ``sfens(sfen VARCHAR, game INTEGER, ply INTEGER,
   next_move VARCHAR)``, one row per position (the SFEN without its move number), looked up
   with ``WHERE sfen = ?`` for the same positions; its file size.

Every lookup of both layouts and of the baseline must find the same occurrences (checked).
A table puts the scales side by side, with issue 15's targets. Results go to
``bench/results/store-N.json``. Run::

    python -m bench.store [--scale 10M,100M] [--seed 1] [--lookups 200] [--cluster local:2]
                          [--keep] [--again]
    python -m bench --only store [--store-scale 10M,100M]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"

SEARCH_SQL = ("SELECT p.game, p.ply, g.black, g.white, g.date, g.event, g.winner, g.reason "
              "FROM positions p JOIN games g ON g.game = p.game WHERE p.key = ?::UBIGINT "
              "ORDER BY g.date, p.game, p.ply")
POSITIONS_SQL = "SELECT game, ply, next_move FROM positions WHERE key = ?::UBIGINT"
EXPLORE_SQL = ("SELECT p.next_move, count(*) AS games, count(*) FILTER (g.winner = 'black'), "
               "count(*) FILTER (g.winner = 'white'), count(*) FILTER (g.winner = 'draw'), "
               "max(g.date) FROM positions p JOIN games g ON g.game = p.game "
               "WHERE p.key = ?::UBIGINT AND p.next_move IS NOT NULL "
               "GROUP BY p.next_move ORDER BY games DESC, p.next_move")
BASELINE_SQL = "SELECT game, ply, next_move FROM sfens WHERE sfen = ?"
#: a search shows a page of this many rows (the HTTP API's default ``limit``) and the count
PAGE = 50
#: the p99 targets hold for positions of at most this many occurrences
BOUNDED = 100_000


def parse_scale(text: str) -> int:
    from bench.corpus import _count
    return _count(text)


def scale_name(n: int) -> str:
    for factor, suffix in ((1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")):
        if n % factor == 0:
            return f"{n // factor}{suffix}"
    return str(n)


# ----- memory ---------------------------------------------------------------------------------

def _status_kb(pid, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as stream:
            for line in stream:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _descendants(pid) -> list:
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{current}/task/{task}/children") as stream:
                    children = [int(c) for c in stream.read().split()]
            except OSError:
                continue
            found += children
            todo += children
    return found


class ProcessSampler:
    """A thread that reads this process and its descendants every ``interval`` seconds
    (``sample``, given their pids) from ``start()`` to ``stop()``."""

    def __init__(self, interval: float):
        self.interval, self._stop = interval, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        me = os.getpid()
        while not self._stop.is_set():
            self.sample([me] + _descendants(me))
            self._stop.wait(self.interval)

    def sample(self, pids: list) -> None:
        raise NotImplementedError

    def result(self):
        """What ``stop()`` returns."""
        raise NotImplementedError

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        self._thread.join()
        return self.result()


class TreeSampler(ProcessSampler):
    """The peak of the summed resident size of this process and its descendants, and of the
    largest one."""

    def __init__(self, interval: float = 0.02):
        super().__init__(interval)
        self.peak_kb = 0
        #: the peak of the largest single process
        self.process_peak_kb = 0

    def sample(self, pids: list) -> None:
        sizes = [_status_kb(p, "VmRSS:") for p in pids]
        self.peak_kb = max(self.peak_kb, sum(sizes))
        self.process_peak_kb = max(self.process_peak_kb, *sizes)

    def result(self) -> int:
        return self.peak_kb


class OwnMemorySampler(ProcessSampler):
    """The peaks of one descendant's own memory (``RssAnon``: its heap, DuckDB's buffers) and
    of the pages of files it maps (``RssFile``: the kernel takes them back when it needs
    them); a process's ``VmHWM`` counts both."""

    def __init__(self, pid: int, interval: float = 0.02):
        super().__init__(interval)
        self.pid, self.anon_kb, self.file_kb = pid, 0, 0

    def sample(self, pids: list) -> None:
        if self.pid in pids:
            self.anon_kb = max(self.anon_kb, _status_kb(self.pid, "RssAnon:"))
            self.file_kb = max(self.file_kb, _status_kb(self.pid, "RssFile:"))

    def result(self) -> dict:
        return {"own_peak_mb": self.anon_kb / 1024, "files_peak_mb": self.file_kb / 1024}


# ----- the ingest and the compaction, each in a child process ---------------------------------------

def child_ingest(files: str, store_dir: str, jobs: int, cluster=None) -> dict:
    """Run in a fresh interpreter: ``ingest_paths`` (its merges included; ``cluster`` as
    ``--cluster``), times and memory as a dict."""
    from kifudb.store.folder import Store
    from kifudb.store.writer import ingest_paths
    sampler = TreeSampler().start()
    out = {"jobs": jobs, "cluster": cluster, "baseline_rss_mb": _status_kb("self", "VmRSS:") / 1024}
    started = time.perf_counter()
    report = ingest_paths([files], store_dir, jobs=jobs, cluster=cluster)
    out["ingest_s"] = time.perf_counter() - started
    out["merge_s"] = report.merge_seconds
    out["ingest_hwm_mb"] = _status_kb("self", "VmHWM:") / 1024
    out["ingest_tree_peak_mb"] = sampler.peak_kb / 1024
    out["ingest_process_peak_mb"] = sampler.process_peak_kb / 1024
    out.update({k: getattr(report, k) for k in ("files_read", "games_read", "games_added",
                                                "positions_added", "findings")})
    out["batches"] = len(report.batches)
    out["merges"] = len(report.merged)
    out["live_batches"] = len(Store(store_dir).manifest()["batches"])
    sampler.stop()
    return out


def child_compact(store_dir: str) -> dict:
    """Run in a fresh interpreter: ``Store.compact()`` (all batches into one), time and memory."""
    from kifudb.store.folder import Store
    sampler = TreeSampler().start()
    store = Store(store_dir)
    started = time.perf_counter()
    with store.writing():
        store.compact()
    out = {"compact_s": time.perf_counter() - started,
           "compact_hwm_mb": _status_kb("self", "VmHWM:") / 1024,
           "compact_tree_peak_mb": sampler.peak_kb / 1024}
    sampler.stop()
    return out


def _child(*arguments, env: dict = None) -> dict:
    """``python -m bench.store ARGUMENTS`` in a fresh interpreter (``env``: its environment, this
    process's by default); the figures it printed."""
    command = [sys.executable, "-m", "bench.store", *map(str, arguments)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"child {arguments[0]} failed ({done.returncode}):\n"
                           f"{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_child_ingest(files, store_dir, jobs: int, cluster=None) -> dict:
    shutil.rmtree(store_dir, ignore_errors=True)
    return _child("--child-ingest", files, store_dir, "--jobs", jobs, "--cluster",
                  cluster or "none")


# ----- sizes ----------------------------------------------------------------------------------

def folder_bytes(folder) -> tuple:
    """(apparent bytes, allocated bytes as du counts them) of a folder."""
    apparent = allocated = 0
    for base, _, files in os.walk(folder):
        for name in files:
            st = os.stat(os.path.join(base, name))
            apparent += st.st_size
            allocated += st.st_blocks * 512
    return apparent, allocated


def parquet_columns(path) -> dict:
    """Compressed bytes and encodings of each column of a Parquet file."""
    import pyarrow.parquet as pq
    meta = pq.ParquetFile(path).metadata
    columns = {}
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        for c in range(group.num_columns):
            column = group.column(c)
            entry = columns.setdefault(column.path_in_schema, {"bytes": 0, "encodings": set()})
            entry["bytes"] += column.total_compressed_size
            entry["encodings"].update(column.encodings)
    return {name: {"bytes": e["bytes"], "encodings": sorted(e["encodings"])}
            for name, e in columns.items()} | {"_row_groups": meta.num_row_groups}


# ----- lookups --------------------------------------------------------------------------------

def _bare(sfen: str) -> str:
    return sfen.rsplit(" ", 1)[0]


def pick_positions(games, seed: int, count: int, max_ply=None) -> list:
    """``count`` seeded ``(sfen without move number, key)`` of positions of ``games``
    (any ply, or plies 0..max_ply)."""
    import cshogi
    from kifudb.core import Position
    rng = random.Random(seed)
    picked = []
    for _ in range(count):
        start, moves = games[rng.randrange(len(games))]
        ply = rng.randint(0, len(moves) if max_ply is None else min(max_ply, len(moves)))
        board = cshogi.Board(start)
        for usi in moves[:ply]:
            board.push_usi(usi)
        sfen = _bare(board.sfen())
        picked.append((sfen, Position.from_sfen(sfen + " 1").key()))
    return picked


def pick_misses(seed: int, count: int) -> list:
    """Positions of games of another seed, deep enough not to be in the corpus."""
    from bench.corpus import generate_games
    games = [(g.start_sfen, g.usi) for g in generate_games(count, seed=seed + 7919)]
    import cshogi
    from kifudb.core import Position
    out = []
    for start, moves in games:
        board = cshogi.Board(start)
        for usi in moves[:50]:
            board.push_usi(usi)
        sfen = _bare(board.sfen())
        out.append((sfen, Position.from_sfen(sfen + " 1").key()))
    return out


def _percentile(values, q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def time_lookups(function, items, occurrences=None) -> dict:
    """Cold first call, then every item once (warm): median, p99, max in ms, and the p99 of the
    items of at most ``BOUNDED`` ``occurrences`` (one per item; default: the function's own row
    counts); each call's row count (a function may return the count itself)."""
    started = time.perf_counter()
    first = function(items[0])
    cold = (time.perf_counter() - started) * 1000
    times, counts = [], []
    for item in items:
        started = time.perf_counter()
        rows = function(item)
        times.append((time.perf_counter() - started) * 1000)
        counts.append(rows if isinstance(rows, int) else len(rows))
    occurrences = counts if occurrences is None else occurrences
    bounded = [t for t, o in zip(times, occurrences) if o <= BOUNDED] or [0.0]
    return {"cold_ms": cold, "median_ms": statistics.median(times),
            "p99_ms": _percentile(times, 0.99), "p99_bounded_ms": _percentile(bounded, 0.99),
            "max_ms": max(times), "counts": counts, "rows": sum(counts),
            "most_occurrences": max(occurrences),
            "first_rows": first if isinstance(first, int) else len(first)}


def store_functions(store_dir):
    """(search, explore, positions-only lookup, description). Each function takes an item
    ``(sfen without move number, key)``; search and explore start from the SFEN, as a user's
    query does (``Position.from_sfen`` is inside the timing)."""
    from kifudb.store.folder import Store
    from kifudb.core import Position
    store = Store(store_dir)
    connection = store.connect()
    positions = lambda item: connection.execute(POSITIONS_SQL, [item[1]]).fetchall()
    try:
        from kifudb.analytics import queries
        search, explore = queries.search, queries.explore
    except (ImportError, AttributeError) as error:
        raw_search = lambda item: connection.execute(
            SEARCH_SQL, [Position.from_sfen(item[0] + " 1").key()]).fetchall()
        raw_explore = lambda item: connection.execute(
            EXPLORE_SQL, [Position.from_sfen(item[0] + " 1").key()]).fetchall()
        return raw_search, raw_explore, positions, \
            f"raw SQL on Store(dir).connect() (analytics.queries not available: {error})"

    def q_search(item):  # as a page shows it: the count, and the first PAGE rows
        position = Position.from_sfen(item[0] + " 1")
        total = queries.occurrences(store, position)["occurrences"]
        search(store, position, limit=PAGE)
        return total

    def q_explore(item):
        return explore(store, Position.from_sfen(item[0] + " 1"))
    return q_search, q_explore, positions, \
        (f"analytics.queries.occurrences + search(store, Position, limit={PAGE}) / "
         f"explore(store, Position)")


# ----- the baseline -----------------------------------------------------------------------------

def build_baseline(games, path) -> dict:
    """A DuckDB file with one row per position: the SFEN (no move number), game, ply, next move."""
    import cshogi
    import duckdb
    import pyarrow as pa
    for suffix in ("", ".wal"):
        with_suffix = Path(str(path) + suffix)
        if with_suffix.exists():
            with_suffix.unlink()
    started = time.perf_counter()
    connection = duckdb.connect(str(path))
    connection.execute("CREATE TABLE sfens (sfen VARCHAR, game INTEGER, ply INTEGER, "
                       "next_move VARCHAR)")
    columns = ([], [], [], [])

    def flush():
        batch = pa.table({"sfen": columns[0], "game": pa.array(columns[1], pa.int32()),
                          "ply": pa.array(columns[2], pa.int32()),
                          "next_move": pa.array(columns[3], pa.string())})
        connection.register("batch", batch)
        connection.execute("INSERT INTO sfens SELECT * FROM batch")
        connection.unregister("batch")
        for column in columns:
            column.clear()

    board = cshogi.Board()
    for number, (start, moves) in enumerate(games, start=1):
        board.set_sfen(start)
        for ply in range(len(moves) + 1):
            columns[0].append(_bare(board.sfen()))
            columns[1].append(number)
            columns[2].append(ply)
            if ply < len(moves):
                columns[3].append(moves[ply])
                board.push_usi(moves[ply])
            else:
                columns[3].append(None)
        if len(columns[0]) >= 500_000:
            flush()
    if columns[0]:
        flush()
    connection.execute("CHECKPOINT")
    rows = connection.execute("SELECT count(*) FROM sfens").fetchone()[0]
    connection.close()
    return {"build_s": time.perf_counter() - started, "rows": rows,
            "bytes": os.path.getsize(path)}


# ----- one scale ------------------------------------------------------------------------------

def built_store(scale) -> "Path":
    """The folder of the seeded store of ``scale`` ("100k", "10M" or a number of positions),
    built first (``run_scale``) when it is missing or of an older store format."""
    from kifudb.store.folder import FORMAT, Store

    n = parse_scale(scale) if isinstance(scale, str) else scale
    store_dir = RESULTS / f"store-{scale_name(n)}-seed1"
    manifest = Store(store_dir).manifest_path
    if not manifest.exists() or f'"format": {FORMAT}' not in manifest.read_text():
        run_scale(n)
    return store_dir


def stores_at(scales, what: str):
    """For each of ``scales`` ("100k", "10M" or numbers of positions): its name and its store
    (``built_store``), after a heading that says ``what`` is measured on which store."""
    from kifudb.analytics import stats

    for scale in scales:
        n = parse_scale(scale) if isinstance(scale, str) else scale
        store_dir = built_store(n)
        view = stats.overview(store_dir)
        print(f"\n## {what} at {scale_name(n)} positions ({store_dir.relative_to(ROOT)}: "
              f"{view['games']:,} games, {view['positions']:,} positions)", flush=True)
        yield scale_name(n), store_dir


def live_bytes(store_dir) -> int:
    """Bytes of what the store's manifest names (its batches, the manifest, ``kifudb.duckdb``):
    the batches a merge or compaction replaced are kept a day for running queries, not counted."""
    from kifudb.store.folder import Store

    store = Store(store_dir)
    batches = store.manifest()["batches"]
    return (sum(folder_bytes(store.batch_dir(b))[0] for b in batches)
            + sum(os.path.getsize(store.root / f) for f in ("manifest.json", "kifudb.duckdb")))


def measure_layout(store_dir, hits, misses, openings) -> dict:
    """Sizes and lookups of the store as it is now."""
    from kifudb.store.folder import Store

    store = Store(store_dir)
    files = store.table_files("positions")
    out = {"batches": len(store.manifest()["batches"]), "positions_files": len(files),
           "positions_bytes": sum(os.path.getsize(f) for f in files),
           "store_bytes": live_bytes(store_dir),
           "tables": {t: sum(os.path.getsize(f) for f in store.table_files(t))
                      for t in ("games", "sources", "moves", "positions", "findings", "files",
                                "retired", "labels")},
           "positions_columns": parquet_columns(max(files, key=os.path.getsize))}
    started = time.perf_counter()
    search, explore, positions_only, how = store_functions(store_dir)
    out["connect_ms"] = (time.perf_counter() - started) * 1000
    out["queries_via"] = how
    out["positions_lookup"] = time_lookups(positions_only, hits + misses)
    found = out["positions_lookup"]["counts"]
    out["search"] = time_lookups(search, hits + misses, found)
    assert out["search"]["counts"] == found, "search and the key lookup disagree"
    assert all(c > 0 for c in found[:len(hits)]), "a position of the corpus was not found"
    assert not any(found[len(hits):]), "a position not in the corpus was found"
    out["explore"] = time_lookups(explore, openings,
                                  [len(positions_only(item)) for item in openings])
    out["explore_rows"] = out["explore"].pop("rows")
    return out


def run_scale(positions: int, seed: int = 1, lookups: int = 200, cluster: str = "local:2",
              keep: bool = False, again: bool = False) -> dict:
    """One scale (see the module doc). ``keep``: keep the compacted copy of the store and the
    baseline's DuckDB file; ``again``: measure the stores and baseline kept by an earlier run
    (same scale and seed) instead of building them, with that run's ingest and compaction
    figures."""
    from bench.corpus import cached_corpus, describe, load_games
    import duckdb
    name = scale_name(positions)
    print(f"\n## store at {name} positions (seed {seed})", flush=True)
    started = time.perf_counter()
    folder, corpus = cached_corpus(positions, seed, RESULTS)
    print(f"corpus: {describe(corpus, folder.relative_to(ROOT))} "
          f"(ready in {time.perf_counter() - started:.1f} s)", flush=True)
    result = {"scale": name, "positions": corpus["positions"], "corpus": corpus}
    store_dir = RESULTS / f"store-{name}-seed{seed}"
    compacted_dir = RESULTS / f"store-{name}-seed{seed}-compacted"
    baseline_path = RESULTS / f"baseline-{name}-seed{seed}.duckdb"
    if again:
        earlier = json.loads((RESULTS / f"store-{name}.json").read_text(encoding="utf-8"))
        result.update({k: earlier[k] for k in ("ingest", "compact")})
        print("(ingest and compaction figures of the earlier run; stores and baseline kept "
              "by it measured again)", flush=True)
    else:
        result["ingest"] = run_child_ingest(folder / "files", store_dir, 2, cluster)
    ingest = result["ingest"]
    n = ingest["positions_added"]
    assert n == corpus["positions"], (n, corpus["positions"])
    print(f"ingest --cluster {cluster}: {ingest['ingest_s']:.1f} s, "
          f"{n / ingest['ingest_s']:,.0f} positions/s, {ingest['batches']} batches committed, "
          f"{ingest['merges']} merges in {ingest['merge_s']:.1f} s (included) leave "
          f"{ingest['live_batches']}; peak RSS: largest process "
          f"{ingest['ingest_process_peak_mb']:,.0f} MB (the client {ingest['ingest_hwm_mb']:,.0f}"
          f" MB), whole tree {ingest['ingest_tree_peak_mb']:,.0f} MB", flush=True)

    games = load_games(folder)
    hits = pick_positions(games, seed * 31 + 1, lookups)
    misses = pick_misses(seed, 5)
    openings = pick_positions(games, seed * 31 + 2, lookups, max_ply=12)
    result["tiered"] = measure_layout(store_dir, hits, misses, openings)
    report_layout("after the ingest (merged batches)", result["tiered"], n)

    if not again:  # compact a copy (hard links: the batch files are never changed in place)
        shutil.rmtree(compacted_dir, ignore_errors=True)
        shutil.copytree(store_dir, compacted_dir, copy_function=os.link)
        result["compact"] = _child("--child-compact", compacted_dir)
    print(f"\nkifudb ingest --compact (all into one batch): "
          f"{result['compact']['compact_s']:.1f} s, peak RSS "
          f"{result['compact']['compact_tree_peak_mb']:,.0f} MB", flush=True)
    result["compacted"] = measure_layout(compacted_dir, hits, misses, openings)
    report_layout("compacted (one batch)", result["compacted"], n)
    if not keep:
        shutil.rmtree(compacted_dir, ignore_errors=True)

    if baseline_path.exists() and (again or keep):  # kept by an earlier run of this seed
        result["baseline"] = {"build_s": None, "rows": None, "bytes": os.path.getsize(baseline_path)}
    else:
        result["baseline"] = build_baseline(games, baseline_path)
    connection = duckdb.connect(str(baseline_path), read_only=True)
    result["baseline"].update(time_lookups(
        lambda item: connection.execute(BASELINE_SQL, [item[0]]).fetchall(), hits + misses))
    connection.close()
    found = result["tiered"]["positions_lookup"]["counts"]
    assert result["compacted"]["positions_lookup"]["counts"] == found, "compaction lost rows"
    mismatched = sum(a != b for a, b in zip(result["baseline"]["counts"], found))
    result["baseline_mismatches"] = mismatched
    assert mismatched == 0, f"{mismatched} lookups differ between the store and the baseline"
    if not keep:
        baseline_path.unlink()
    b = result["baseline"]
    print(f"baseline (a DuckDB table of SFEN strings, WHERE sfen = ?): median "
          f"{b['median_ms']:.2f} ms, p99 {b['p99_ms']:.2f} ms; {b['bytes'] / n:.2f} bytes/position "
          f"({b['bytes'] / 1e6:,.1f} MB)")
    for layout in ("tiered", "compacted"):
        for part in ("search", "positions_lookup", "explore"):
            result[layout][part].pop("counts", None)
    result["baseline"].pop("counts", None)
    result["targets"] = targets(result)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"store-{name}.json").write_text(json.dumps(result, indent=1, default=str),
                                                encoding="utf-8")
    return result


def report_layout(title: str, m: dict, n: int) -> None:
    s, e, p = m["search"], m["explore"], m["positions_lookup"]
    print(f"\n{title}: {m['batches']} batches ({m['positions_files']} positions files); "
          f"positions {m['positions_bytes'] / n:.2f} B/pos, "
          f"store {m['store_bytes'] / n:.2f} B/pos ("
          + ", ".join(f"{t} {b / n:.2f}" for t, b in m["tables"].items()) + ")")
    print(f"{'':44s} {'median ms':>10s} {'p99 ms':>8s} {'p99 ≤100k':>10s} {'max ms':>8s} "
          f"{'cold ms':>8s}")
    for label, t in ((f"search, first page of {PAGE} + count", s), ("key lookup through the positions view", p),
                     ("explore (plies 0-12)", e)):
        print(f"{label:44s} {t['median_ms']:10.2f} {t['p99_ms']:8.2f} {t['p99_bounded_ms']:10.2f} "
              f"{t['max_ms']:8.2f} {t['cold_ms']:8.1f}", flush=True)


def targets(r: dict) -> dict:
    """Issue 15's targets (stated for 100M positions), on the merged layout an ingest leaves."""
    n, m, i = r["positions"], r["tiered"], r["ingest"]
    peak = max(i["ingest_process_peak_mb"], r["compact"]["compact_hwm_mb"])
    values = {"search p50 < 20 ms": (m["search"]["median_ms"], 20),
              "explorer p50 < 50 ms": (m["explore"]["median_ms"], 50),
              "search p99 < 200 ms (≤100k occurrences)": (m["search"]["p99_bounded_ms"], 200),
              "explorer p99 < 200 ms (≤100k occurrences)": (m["explore"]["p99_bounded_ms"], 200),
              "peak memory of any process < 2048 MB": (peak, 2048),
              "store ≤ 20 bytes/position": (m["store_bytes"] / n, 20.0001)}
    return {label: {"value": value, "limit": limit, "met": value < limit}
            for label, (value, limit) in values.items()}


def summary(results: list) -> None:
    """Every scale's figures side by side."""
    rows = [("positions", lambda r: f"{r['positions']:,}"),
            ("games", lambda r: f"{r['corpus']['games']:,}"),
            ("ingest (cluster local:2), s", lambda r: f"{r['ingest']['ingest_s']:,.0f}"),
            ("  positions/s", lambda r: f"{r['positions'] / r['ingest']['ingest_s']:,.0f}"),
            ("  batches committed / merges / left", lambda r: f"{r['ingest']['batches']} / "
             f"{r['ingest']['merges']} / {r['ingest']['live_batches']}"),
            ("  positions files left", lambda r: f"{r['tiered'].get('positions_files', '?')}"),
            ("  of which merging, s", lambda r: f"{r['ingest']['merge_s']:,.1f}"),
            ("  peak RSS largest process, MB", lambda r: f"{r['ingest']['ingest_process_peak_mb']:,.0f}"),
            ("  peak RSS of the client, MB", lambda r: f"{r['ingest']['ingest_hwm_mb']:,.0f}"),
            ("  peak RSS whole tree, MB", lambda r: f"{r['ingest']['ingest_tree_peak_mb']:,.0f}"),
            ("full compaction, s", lambda r: f"{r['compact']['compact_s']:,.1f}"),
            ("  peak RSS, MB", lambda r: f"{r['compact']['compact_tree_peak_mb']:,.0f}")]
    for layout, label in (("tiered", "merged"), ("compacted", "compacted")):
        rows += [(f"{label}: store bytes/position", lambda r, l=layout: f"{r[l]['store_bytes'] / r['positions']:.2f}"),
                 (f"  positions bytes/position", lambda r, l=layout: f"{r[l]['positions_bytes'] / r['positions']:.2f}")]
        for part, what in (("search", "search"), ("explore", "explorer")):
            rows += [(f"  {what} p50 / p99 / p99 ≤100k, ms", lambda r, l=layout, p=part:
                      f"{r[l][p]['median_ms']:.1f} / {r[l][p]['p99_ms']:.0f} / "
                      f"{r[l][p]['p99_bounded_ms']:.0f}")]
    rows += [("baseline SFEN table p50, ms", lambda r: f"{r['baseline']['median_ms']:.1f}"),
             ("  bytes/position", lambda r: f"{r['baseline']['bytes'] / r['positions']:.1f}")]
    names = [r["scale"] for r in results]
    print(f"\n{'':42s}" + "".join(f"{n:>16s}" for n in names))
    for label, cell in rows:
        print(f"{label:42s}" + "".join(f"{cell(r):>16s}" for r in results))
    print("\ntargets (issue 15, stated for 100M positions; the merged layout):")
    for label in results[-1]["targets"]:
        print(f"  {label:44s}" + "".join(
            f"{r['targets'][label]['value']:12.1f} {'met' if r['targets'][label]['met'] else 'NOT MET':>7s}"
            for r in results))


def run_store(scales=("100k",), seed: int = 1, lookups: int = 200, keep: bool = False,
              cluster: str = "local:2", again: bool = False) -> list:
    counts = sorted(parse_scale(s) if isinstance(s, str) else s for s in scales)
    results = [run_scale(n, seed, lookups, cluster, keep, again) for n in counts]
    summary(results)
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.store", description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", default="100k", help="comma-separated, e.g. 10M,100M")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lookups", type=int, default=200)
    parser.add_argument("--cluster", default="local:2",
                        help="the ingest's --cluster (none: --jobs 2)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the compacted copy of the store and the baseline DuckDB file")
    parser.add_argument("--again", action="store_true",
                        help="measure again what an earlier --keep run kept (no ingest)")
    parser.add_argument("--child-ingest", nargs=2, metavar=("FILES", "STORE"), help=argparse.SUPPRESS)
    parser.add_argument("--child-compact", metavar="STORE", help=argparse.SUPPRESS)
    parser.add_argument("--jobs", type=int, default=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_ingest:
        cluster = None if args.cluster == "none" else args.cluster
        print(json.dumps(child_ingest(*args.child_ingest, args.jobs, cluster)))
        return 0
    if args.child_compact:
        print(json.dumps(child_compact(args.child_compact)))
        return 0
    run_store(args.scale.split(","), args.seed, args.lookups, args.keep, args.cluster, args.again)
    return 0


if __name__ == "__main__":
    sys.exit(main())
