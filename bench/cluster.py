"""Ingest on a Dask cluster (``kifudb ingest --cluster local:2``) against one worker
(``--cluster local:1``), ``--jobs 2`` and ``--jobs 1`` on the same synthetic corpus
(``bench/corpus.py``), and on a ``dask scheduler`` with two ``dask worker`` processes started
as an operator starts them: positions per second, the CPU seconds of all the processes (what
the cluster's work costs whatever else runs) and of the client alone, the peak resident memory
of the whole process tree (client, nanny and worker processes) and of the largest single
process, and whether the five stores hold the same rows. (The scheduler's and its workers' CPU
and memory are not the client's children: their columns count the client only.)

    python -m bench.cluster [--positions 100k] [--folders N] [--repeat R]

``--folders N`` takes the first N folders of the 10M corpus (about 210k positions each) instead
of a corpus of ``--positions``. Each ingest runs in a fresh interpreter, into a fresh store;
with ``--repeat R`` the five ways run R times in turn (the machine's speed drifts over
minutes: one way's runs are spread over the whole bench), and the table shows each way's
median, the ratios the median of the rounds' ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.store import RESULTS, ROOT, ProcessSampler, TreeSampler, _status_kb, parse_scale

WAYS = (("--jobs 1", {"jobs": 1}), ("--jobs 2", {"jobs": 2}),
        ("--cluster local:1", {"cluster": "local:1"}),
        ("--cluster local:2", {"cluster": "local:2"}),
        ("dask scheduler + 2", {"cluster": "scheduler"}))


class Scheduler:
    """A ``dask scheduler`` and two ``dask worker`` processes (one thread each, no nanny) on
    127.0.0.1, for as long as the ``with`` lasts; ``file`` is its scheduler file."""

    def __enter__(self):
        import tempfile

        dask = Path(sys.executable).parent / "dask"
        self.folder = Path(tempfile.mkdtemp())
        self.file = self.folder / "scheduler.json"
        self.processes = [subprocess.Popen(
            [dask, "scheduler", "--scheduler-file", self.file, "--port", "0", "--no-dashboard",
             "--host", "127.0.0.1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
        while not self.file.exists() or not self.file.read_text().strip():
            time.sleep(0.1)
        for n in range(2):
            self.processes.append(subprocess.Popen(
                [dask, "worker", "--scheduler-file", self.file, "--nthreads", "1", "--no-nanny",
                 "--no-dashboard", "--host", "127.0.0.1", "--local-directory",
                 self.folder / f"w{n}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                cwd=ROOT))
        return self

    def __exit__(self, *exc):
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:  # a worker whose scheduler went first
                process.kill()
                process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


class CpuSampler(ProcessSampler):
    """The CPU seconds of this process and every descendant it had (workers of a process pool
    started by a fork server are no children to wait for, so ``RUSAGE_CHILDREN`` misses them):
    the last reading of each process's ``/proc/PID/stat``, summed."""

    def __init__(self, interval: float = 0.05):
        super().__init__(interval)
        self.ticks: dict = {}

    def sample(self, pids: list) -> None:
        for pid in pids:
            try:
                with open(f"/proc/{pid}/stat") as stream:
                    fields = stream.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            self.ticks[pid] = int(fields[11]) + int(fields[12])  # utime + stime

    def result(self) -> float:
        return sum(self.ticks.values()) / os.sysconf("SC_CLK_TCK")

    def own(self) -> float:
        """The CPU seconds of this process alone (the client, with its Dask scheduler)."""
        return self.ticks.get(os.getpid(), 0) / os.sysconf("SC_CLK_TCK")


def child(paths: list, store_dir: str, options: dict) -> dict:
    """In a fresh interpreter: one ingest, its time and memory."""
    from kifudb.store.writer import ingest_paths

    sampler, cpu_sampler = TreeSampler().start(), CpuSampler().start()
    started = time.perf_counter()
    report = ingest_paths(paths, store_dir, **options)
    seconds = time.perf_counter() - started
    cpu = cpu_sampler.stop()
    return {"seconds": seconds, "cpu_seconds": cpu, "client_cpu_seconds": cpu_sampler.own(),
            "positions": report.positions_added,
            "games": report.games_added, "tree_peak_mb": sampler.stop() / 1024,
            "client_peak_mb": _status_kb("self", "VmHWM:") / 1024,
            "children_max_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}


def fingerprint(store_dir: str) -> list:
    """What must be equal between the stores: row counts and sums over every table."""
    from kifudb.store.folder import Store

    connection = Store(store_dir).connect()
    return connection.execute(
        "SELECT (SELECT count(*) FROM games), (SELECT sum(hash(fingerprint, game)) FROM games), "
        "(SELECT count(*) FROM positions), (SELECT sum(hash(key, game, ply)) FROM positions), "
        "(SELECT count(*) FROM moves), (SELECT count(*) FROM labels), "
        "(SELECT count(*) FROM findings), (SELECT count(*) FROM sources)").fetchall()[0]


def ingest(paths: list, options: dict, prints: set):
    """One ingest in a fresh interpreter into a fresh store (its figures, or None after saying
    why it failed); what its store holds goes into ``prints``."""
    store = RESULTS / "cluster-store"
    shutil.rmtree(store, ignore_errors=True)
    done = subprocess.run([sys.executable, "-m", "bench.cluster", "--child", json.dumps(paths),
                           str(store), json.dumps(options)], cwd=ROOT, capture_output=True,
                          text=True)
    if done.returncode:
        sys.stderr.write(done.stderr)
        return None
    out = json.loads(done.stdout.strip().splitlines()[-1])
    prints.add(fingerprint(str(store)))
    shutil.rmtree(store, ignore_errors=True)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cluster", description=__doc__)
    parser.add_argument("--positions", type=parse_scale, default=100_000)
    parser.add_argument("--folders", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(json.loads(args.child[0]), args.child[1],
                               json.loads(args.child[2]))))
        return 0
    from bench.corpus import cached_corpus

    if args.folders:
        folder, _ = cached_corpus(10_000_000, 1, RESULTS)
        paths = [str(p) for p in sorted((folder / "files").iterdir())[:args.folders]]
    else:
        folder, _ = cached_corpus(args.positions, 1, RESULTS)
        paths = [str(folder / "files")]
    runs, prints = {name: [] for name, _ in WAYS}, set()
    for _ in range(args.repeat):
        for name, options in WAYS:
            if options.get("cluster") == "scheduler":
                with Scheduler() as scheduler:
                    out = ingest(paths, {"cluster": str(scheduler.file)}, prints)
            else:
                out = ingest(paths, options, prints)
            if out is None:
                return 1
            runs[name].append(out)
    rows = [(name, {k: statistics.median(o[k] for o in outs) for k in outs[0]})
            for name, outs in runs.items()]
    one = rows[0][1]["positions"] / rows[0][1]["seconds"]
    print(f"{rows[0][1]['positions']:,} positions, {rows[0][1]['games']:,} games "
          f"({', '.join(Path(p).name for p in paths[:3])}{'…' if len(paths) > 3 else ''})")
    print(f"{'ingest':<20}{'seconds':>9}{'positions/s':>13}{'× jobs 1':>10}{'CPU s':>8}"
          f"{'client CPU s':>14}{'tree peak MB':>14}{'largest process MB':>20}")
    for name, out in rows:
        rate = out["positions"] / out["seconds"]
        print(f"{name:<20}{out['seconds']:>9.1f}{rate:>13,.0f}{rate / one:>10.2f}"
              f"{out['cpu_seconds']:>8.1f}{out['client_cpu_seconds']:>14.1f}"
              f"{out['tree_peak_mb']:>14,.0f}"
              f"{max(out['client_peak_mb'], out['children_max_mb']):>20,.0f}")
    def ratio(way: str) -> str:
        each = [a["seconds"] / b["seconds"] for a, b in zip(runs[way], runs["--cluster local:2"])]
        return f"{statistics.median(each):.2f}× ({', '.join(f'{r:.2f}' for r in each)})"

    print(f"local:2 against local:1 {ratio('--cluster local:1')}, against --jobs 1 "
          f"{ratio('--jobs 1')}")
    print("stores identical" if len(prints) == 1 else f"stores DIFFER: {prints}")
    return 0 if len(prints) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
