"""The position store at scale: ingest, size on disk, search and explorer latency, against a
plain DuckDB table of SFEN strings built from the same games in the same run.

For each scale (a number of positions; ``100k`` by default, ``10M`` on request):

1. the seeded synthetic corpus of ``bench/corpus.py`` (CSA and KIF files; cached under
   ``bench/results/corpus-N-seedS``);
2. ingest into a fresh store with ``ingest_paths(..., jobs=2)`` then ``Store.compact()`` under
   ``store.writing()``, in a child process (a fresh interpreter) that reports the time of each
   step and its memory: the peak resident size of the ingesting process (``VmHWM``), of its
   worker processes (``RUSAGE_CHILDREN``), and of the whole process tree (sampled every 20 ms);
   up to 1M positions also ``jobs=1`` (ingest only);
3. bytes per position of the positions table (its Parquet file after compaction, and the batch
   files before) and of the whole store folder (once the superseded batches that ``compact()``
   leaves for running queries are removed by the next writer; the size before is shown too);
4. search and explorer latency, in this process, on one connection: the first query (cold:
   fresh connection, the OS file cache warm) and then median and 99th percentile of 200
   lookups, warm. Search looks up positions that occur in the corpus (a seeded draw of games and
   plies) plus a few that do not; the explorer looks up the positions at plies 0–12 of seeded
   random games, so the popular opening positions are included. ``analytics.queries.search`` and
   ``explore`` are timed when they exist; otherwise the equivalent SQL on
   ``Store(dir).connect()`` (the output says which);
5. the baseline: a DuckDB file with one table ``sfens(sfen VARCHAR, game INTEGER, ply INTEGER,
   next_move VARCHAR)``, one row per position (the SFEN without its move number, so that the
   same position reached at different move numbers is one string, as it is one key), looked up
   with ``WHERE sfen = ?`` for the same 200 positions; its file size.

Every search and baseline lookup must find the same number of occurrences (checked).
Results go to ``bench/results/store-N.json``. Run::

    python -m bench.store [--scale 100k,10M] [--seed 1] [--lookups 200] [--keep]
    python -m bench --only store [--store-scale 100k,10M]
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

#: issue 4's targets at 10M positions: (label, limit, whether the limit itself still passes)
TARGETS = (("search median < 20 ms", 20, False), ("explorer median < 50 ms", 50, False),
           ("positions <= 12 bytes/position", 12, True), ("store <= 32 bytes/position", 32, True),
           ("ingest+compact peak < 1 GB (MB)", 1024, False))

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


class TreeSampler:
    """The peak of the summed resident size of this process and its descendants."""

    def __init__(self, interval: float = 0.02):
        self.interval, self.peak_kb, self._stop = interval, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        me = os.getpid()
        while not self._stop.is_set():
            total = sum(_status_kb(p, "VmRSS:") for p in [me] + _descendants(me))
            self.peak_kb = max(self.peak_kb, total)
            self._stop.wait(self.interval)

    def start(self):
        self._thread.start()
        return self

    def reset(self):
        self.peak_kb = 0

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak_kb


# ----- the ingest, in a child process -----------------------------------------------------------

def child_ingest(files: str, store_dir: str, jobs: int, compact: bool,
                 batch_positions=None) -> dict:
    """Run in a fresh interpreter: ingest, then compact; times and memory as a dict."""
    from store.folder import Store
    from store.writer import ingest_paths
    sampler = TreeSampler().start()
    out = {"jobs": jobs, "baseline_rss_mb": _status_kb("self", "VmRSS:") / 1024}
    options = {"batch_positions": batch_positions} if batch_positions else {}
    started = time.perf_counter()
    report = ingest_paths([files], store_dir, jobs=jobs, **options)
    out["ingest_s"] = time.perf_counter() - started
    out["ingest_hwm_mb"] = _status_kb("self", "VmHWM:") / 1024
    out["workers_maxrss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    out["ingest_tree_peak_mb"] = sampler.peak_kb / 1024
    out.update({k: getattr(report, k) for k in ("files_read", "games_read", "games_added",
                                                "positions_added", "findings")})
    out["batches"] = len(report.batches)
    store = Store(store_dir)
    out["batch_positions_bytes"] = sum(os.path.getsize(f) for f in store.table_files("positions"))
    if compact:
        sampler.reset()
        started = time.perf_counter()
        with store.writing():
            store.compact()
        out["compact_s"] = time.perf_counter() - started
        out["compact_hwm_mb"] = _status_kb("self", "VmHWM:") / 1024
        out["compact_tree_peak_mb"] = sampler.peak_kb / 1024
        # compact() leaves the superseded batches for queries still running on the old
        # manifest; the next writer removes them (as this empty write does)
        out["store_bytes_before_cleanup"] = folder_bytes(store_dir)[0]
        with store.writing():
            pass
    sampler.stop()
    return out


def run_child_ingest(files, store_dir, jobs: int, compact: bool = True) -> dict:
    shutil.rmtree(store_dir, ignore_errors=True)
    command = [sys.executable, "-m", "bench.store", "--child-ingest", str(files), str(store_dir),
               "--jobs", str(jobs)] + ([] if compact else ["--no-compact"])
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"ingest child failed ({done.returncode}):\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


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
    from core import Position
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
    from core import Position
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


def time_lookups(function, items) -> dict:
    """Cold first call, then every item once (warm): median, p99, max in ms; row counts."""
    started = time.perf_counter()
    first = function(items[0])
    cold = (time.perf_counter() - started) * 1000
    times, counts = [], []
    for item in items:
        started = time.perf_counter()
        rows = function(item)
        times.append((time.perf_counter() - started) * 1000)
        counts.append(len(rows))
    return {"cold_ms": cold, "median_ms": statistics.median(times),
            "p99_ms": _percentile(times, 0.99), "max_ms": max(times), "counts": counts,
            "first_rows": len(first)}


def store_functions(store_dir):
    """(search, explore, positions-only lookup, description). Each function takes an item
    ``(sfen without move number, key)``; search and explore start from the SFEN, as a user's
    query does (``Position.from_sfen`` is inside the timing)."""
    from store.folder import Store
    from core import Position
    store = Store(store_dir)
    connection = store.connect()
    positions = lambda item: connection.execute(POSITIONS_SQL, [item[1]]).fetchall()
    try:
        from analytics import queries
        search, explore = queries.search, queries.explore
    except (ImportError, AttributeError) as error:
        raw_search = lambda item: connection.execute(
            SEARCH_SQL, [Position.from_sfen(item[0] + " 1").key()]).fetchall()
        raw_explore = lambda item: connection.execute(
            EXPLORE_SQL, [Position.from_sfen(item[0] + " 1").key()]).fetchall()
        return raw_search, raw_explore, positions, \
            f"raw SQL on Store(dir).connect() (analytics.queries not available: {error})"

    def q_search(item):
        return search(store, Position.from_sfen(item[0] + " 1"))

    def q_explore(item):
        return explore(store, Position.from_sfen(item[0] + " 1"))
    return q_search, q_explore, positions, \
        "analytics.queries.search(store, Position) / explore(store, Position)"


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
    from store.folder import FORMAT, Store

    n = parse_scale(scale) if isinstance(scale, str) else scale
    store_dir = RESULTS / f"store-{scale_name(n)}-seed1"
    manifest = Store(store_dir).manifest_path
    if not manifest.exists() or f'"format": {FORMAT}' not in manifest.read_text():
        run_scale(n)
    return store_dir


def stores_at(scales, what: str):
    """For each of ``scales`` ("100k", "10M" or numbers of positions): its name and its store
    (``built_store``), after a heading that says ``what`` is measured on which store."""
    from analytics import stats

    for scale in scales:
        n = parse_scale(scale) if isinstance(scale, str) else scale
        store_dir = built_store(n)
        view = stats.overview(store_dir)
        print(f"\n## {what} at {scale_name(n)} positions ({store_dir.relative_to(ROOT)}: "
              f"{view['games']:,} games, {view['positions']:,} positions)", flush=True)
        yield scale_name(n), store_dir


def run_scale(positions: int, seed: int = 1, lookups: int = 200, jobs: int = 2,
              single_job: bool = False, keep: bool = False) -> dict:
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
    ingest = run_child_ingest(folder / "files", store_dir, jobs)
    result["ingest"] = ingest
    n = ingest["positions_added"]
    assert n == corpus["positions"], (n, corpus["positions"])
    print(f"ingest --jobs {jobs}: {ingest['ingest_s']:.1f} s, {n / ingest['ingest_s']:,.0f} "
          f"positions/s, {ingest['batches']} batches; compact {ingest['compact_s']:.1f} s; "
          f"peak RSS: ingest process {ingest['ingest_hwm_mb']:,.0f} MB, each worker ≤ "
          f"{ingest['workers_maxrss_mb']:,.0f} MB, whole tree {ingest['ingest_tree_peak_mb']:,.0f} MB; "
          f"compact: process {ingest['compact_hwm_mb']:,.0f} MB", flush=True)
    if single_job:
        one = run_child_ingest(folder / "files", RESULTS / f"store-{name}-seed{seed}-jobs1", 1,
                               compact=False)
        shutil.rmtree(RESULTS / f"store-{name}-seed{seed}-jobs1", ignore_errors=True)
        result["ingest_jobs1"] = one
        print(f"ingest --jobs 1: {one['ingest_s']:.1f} s, {n / one['ingest_s']:,.0f} positions/s, "
              f"peak RSS {one['ingest_hwm_mb']:,.0f} MB", flush=True)

    from store.folder import Store
    store = Store(store_dir)
    [positions_file] = store.table_files("positions")
    apparent, allocated = folder_bytes(store_dir)
    result["sizes"] = {
        "positions_bytes": os.path.getsize(positions_file),
        "positions_batch_bytes": ingest["batch_positions_bytes"],
        "store_bytes": apparent, "store_du_bytes": allocated,
        "tables": {t: os.path.getsize(f) for t in ("games", "sources", "moves", "positions",
                                                   "findings", "files", "retired", "labels")
                   for f in store.table_files(t)},
        "positions_columns": parquet_columns(positions_file),
    }
    sizes = result["sizes"]
    print(f"positions.parquet: {sizes['positions_bytes'] / n:.2f} bytes/position after compact "
          f"({sizes['positions_batch_bytes'] / n:.2f} in the ingest's batch files); store: "
          f"{apparent / n:.2f} bytes/position (du {allocated / n:.2f}; "
          f"{ingest['store_bytes_before_cleanup'] / n:.2f} right after compact, until the next "
          f"writer removes the superseded batches)", flush=True)
    print("  per table (bytes/position): " + ", ".join(
        f"{t} {b / n:.2f}" for t, b in sizes["tables"].items()))
    print("  positions columns (bytes/position): " + ", ".join(
        f"{c} {v['bytes'] / n:.2f} [{'/'.join(v['encodings'])}]"
        for c, v in sizes["positions_columns"].items() if not c.startswith("_"))
        + f"; {sizes['positions_columns']['_row_groups']} row groups")

    games = load_games(folder)
    hits = pick_positions(games, seed * 31 + 1, lookups)
    misses = pick_misses(seed, 5)
    openings = pick_positions(games, seed * 31 + 2, lookups, max_ply=12)
    started = time.perf_counter()
    search, explore, positions_only, how = store_functions(store_dir)
    connect_ms = (time.perf_counter() - started) * 1000
    print(f"queries: {how}; Store.connect() {connect_ms:.0f} ms", flush=True)
    result["queries_via"] = how
    result["connect_ms"] = connect_ms
    result["search"] = time_lookups(search, hits + misses)
    result["positions_lookup"] = time_lookups(positions_only, hits + misses)
    result["explore"] = time_lookups(explore, openings)
    found = result["positions_lookup"]["counts"]
    assert result["search"]["counts"] == found, "search and the key lookup disagree"
    assert all(c > 0 for c in found[:len(hits)]), "a position of the corpus was not found"
    assert not any(found[len(hits):]), "a position not in the corpus was found"
    result["explore_rows"] = sum(result["explore"]["counts"])

    baseline_path = RESULTS / f"baseline-{name}-seed{seed}.duckdb"
    result["baseline"] = build_baseline(games, baseline_path)
    connection = duckdb.connect(str(baseline_path), read_only=True)
    result["baseline"].update(time_lookups(
        lambda item: connection.execute(BASELINE_SQL, [item[0]]).fetchall(), hits + misses))
    connection.close()
    mismatched = sum(a != b for a, b in zip(result["baseline"]["counts"], found))
    result["baseline_mismatches"] = mismatched
    assert mismatched == 0, f"{mismatched} lookups differ between the store and the baseline"
    if not keep:
        baseline_path.unlink()
    for part in ("search", "positions_lookup", "explore", "baseline"):
        result[part].pop("counts", None)
    report(result)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"store-{name}.json").write_text(json.dumps(result, indent=1, default=str),
                                                encoding="utf-8")
    return result


def report(r: dict) -> None:
    n = r["positions"]
    s, e, p, b, i = r["search"], r["explore"], r["positions_lookup"], r["baseline"], r["ingest"]
    print(f"\n{'':40s} {'median ms':>10s} {'p99 ms':>8s} {'cold ms':>8s}")
    print(f"{'search (position -> games, players…)':40s} {s['median_ms']:10.2f} {s['p99_ms']:8.2f} "
          f"{s['cold_ms']:8.1f}")
    print(f"{'positions lookup only (key)':40s} {p['median_ms']:10.2f} {p['p99_ms']:8.2f} "
          f"{p['cold_ms']:8.1f}")
    print(f"{'explore (plies 0-12)':40s} {e['median_ms']:10.2f} {e['p99_ms']:8.2f} "
          f"{e['cold_ms']:8.1f}")
    print(f"{'baseline: SFEN table WHERE sfen = ?':40s} {b['median_ms']:10.2f} {b['p99_ms']:8.2f} "
          f"{b['cold_ms']:8.1f}")
    print(f"sizes: positions {r['sizes']['positions_bytes'] / n:.2f} B/pos, store "
          f"{r['sizes']['store_bytes'] / n:.2f} B/pos; baseline SFEN table "
          f"{b['bytes'] / n:.2f} B/pos ({b['bytes'] / 1e6:,.1f} MB, built in {b['build_s']:.1f} s)")
    peak = max(i["ingest_tree_peak_mb"], i["ingest_hwm_mb"], i.get("compact_tree_peak_mb", 0),
               i.get("compact_hwm_mb", 0))
    values = (s["median_ms"], e["median_ms"], r["sizes"]["positions_bytes"] / n,
              r["sizes"]["store_bytes"] / n, peak)
    print(f"\ntargets (issue 4, stated for 10M positions; this run: {n:,}):")
    for (label, limit, inclusive), value in zip(TARGETS, values):
        met = value <= limit if inclusive else value < limit
        print(f"  {label:36s} {value:10.2f}  {'met' if met else 'NOT MET'}")
    r["targets"] = {label: (value, limit) for (label, limit, _), value in zip(TARGETS, values)}


def run_store(scales=("100k",), seed: int = 1, lookups: int = 200, keep: bool = False) -> list:
    counts = sorted(parse_scale(s) if isinstance(s, str) else s for s in scales)
    return [run_scale(n, seed, lookups, single_job=n <= 1_000_000, keep=keep) for n in counts]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.store", description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", default="100k", help="comma-separated, e.g. 100k,10M")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lookups", type=int, default=200)
    parser.add_argument("--keep", action="store_true", help="keep the baseline DuckDB file")
    parser.add_argument("--child-ingest", nargs=2, metavar=("FILES", "STORE"), help=argparse.SUPPRESS)
    parser.add_argument("--jobs", type=int, default=2, help=argparse.SUPPRESS)
    parser.add_argument("--no-compact", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_ingest:
        print(json.dumps(child_ingest(*args.child_ingest, args.jobs, not args.no_compact)))
        return 0
    run_store(args.scale.split(","), args.seed, args.lookups, args.keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
