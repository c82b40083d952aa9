"""Engine analysis at the door users use (``kifudb analyse``): its cost over the engine's own,
its speed-up on two engines and on a Dask cluster, and how many positions a collection's
analysis sends to the engine against how many it stores.

- Overhead: the same positions (the distinct positions of the first ``--games`` games of the
  WCSC28 fixtures) analysed by ``kifudb analyse --jobs 1`` as a user runs it (a fresh process,
  from its start to its last commit) and by a minimal driver (one engine process, ``position
  sfen`` + ``go nodes N``, reading to ``bestmove``, nothing else), in the same order, at
  ``--nodes`` (20,000 by default, the issue's figure). kifudb's overhead = its time / the
  driver's − 1.
- Parallel: the same command with ``--jobs 2`` and ``--cluster local:2`` (a scheduler and two
  worker processes, each with its engine), as speed-ups over ``--jobs 1``.
- Dedup: on a store (``--store``, e.g. one of ``../shared/corpus``), the positions stored, the
  distinct positions (what analysis sends), and their ratio.

    python -m bench.analysis [--games 3] [--nodes 20000] [--store STORE]
    python -m bench --only analysis
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted((ROOT / "tests" / "fixtures" / "records" / "apery-wcsc28" / "kifu").glob("*.csa"))
ENGINE = "fairy-stockfish"


def _kifudb() -> str:
    return str(Path(sys.executable).parent / "kifudb")


def _store(folder: Path, games: int) -> Path:
    from kifudb.store.writer import ingest_paths

    ingest_paths([str(p) for p in GAMES[:games]], folder)
    return folder


def _timed_analyse(store: Path, nodes: int, *extra) -> float:
    started = time.perf_counter()
    done = subprocess.run([_kifudb(), "analyse", "--store", str(store), "--engine", ENGINE,
                           "--nodes", str(nodes), "--no-progress", *extra],
                          capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"kifudb analyse failed: {done.stderr or done.stdout}")
    return seconds


def _sfens(store: Path) -> list:
    """The SFEN of each analysed position, in key order (the order kifudb sends them)."""
    from kifudb.analysis.run import CHUNK_BITS  # noqa: F401 (the order: by key)
    from kifudb.core import Position
    from kifudb.store.folder import Store

    connection = Store(store).connect()
    analysed = {k for k, in connection.execute("SELECT key FROM analysis").fetchall()}
    found = {}
    for start, line in connection.execute(
            "SELECT g.start_sfen, list(m.usi ORDER BY m.ply) FROM games g JOIN moves m ON "
            "m.game = g.game AND m.line = 0 AND m.usi IS NOT NULL GROUP BY ALL").fetchall():
        position = Position.from_sfen(start)
        for usi in [None, *line]:
            if usi is not None:
                position.push_usi(usi)
            if position.key() in analysed:
                found.setdefault(position.key(), position.sfen())
    return [found[k] for k in sorted(found)]


def minimal_driver(sfens: list, nodes: int) -> float:
    """Seconds for one engine process to search each SFEN to ``nodes``: the protocol and
    nothing else."""
    engine = subprocess.Popen([shutil.which(ENGINE) or f"/usr/games/{ENGINE}"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    engine.stdin.write("usi\nsetoption name Contempt value 0\nisready\nusinewgame\n")
    engine.stdin.flush()
    for line in engine.stdout:
        if line.startswith("readyok"):
            break
    started = time.perf_counter()
    for sfen in sfens:
        engine.stdin.write(f"position sfen {sfen}\ngo nodes {nodes}\n")
        engine.stdin.flush()
        for line in engine.stdout:
            if line.startswith("bestmove"):
                break
    seconds = time.perf_counter() - started
    engine.stdin.write("quit\n")
    engine.stdin.flush()
    engine.wait()
    return seconds


def run_analysis(games: int = 3, nodes: int = 20_000, store=None) -> dict:
    results: dict = {"nodes": nodes, "games": games}
    with tempfile.TemporaryDirectory() as scratch:
        first = _store(Path(scratch) / "one", games)
        results["kifudb_jobs1_s"] = _timed_analyse(first, nodes)
        sfens = _sfens(first)
        results["positions"] = len(sfens)
        results["driver_s"] = minimal_driver(sfens, nodes)
        results["overhead"] = results["kifudb_jobs1_s"] / results["driver_s"] - 1
        for name, extra in (("jobs2", ("--jobs", "2")), ("cluster2", ("--cluster", "local:2"))):
            store_n = _store(Path(scratch) / name, games)
            results[f"kifudb_{name}_s"] = _timed_analyse(store_n, nodes, *extra)
            results[f"speedup_{name}"] = results["kifudb_jobs1_s"] / results[f"kifudb_{name}_s"]
    if store is not None:
        from kifudb.store.folder import Store

        stored, distinct = Store(store).connect().execute(
            "SELECT count(*), count(DISTINCT key) FROM positions").fetchone()
        results.update(store=str(store), stored=stored, distinct=distinct,
                       dedup=stored / max(distinct, 1))
    return results


def report(results: dict) -> None:
    print(f"\n== analysis: kifudb analyse vs a minimal USI driver ({ENGINE}, nodes="
          f"{results['nodes']:,}, {results['positions']} positions of {results['games']} games)")
    print(f"  minimal driver      {results['driver_s']:8.2f} s")
    print(f"  kifudb --jobs 1     {results['kifudb_jobs1_s']:8.2f} s   overhead "
          f"{100 * results['overhead']:+.1f}% (the whole command: start, plan, commit)")
    print(f"  kifudb --jobs 2     {results['kifudb_jobs2_s']:8.2f} s   speed-up "
          f"{results['speedup_jobs2']:.2f}x")
    print(f"  kifudb --cluster local:2 {results['kifudb_cluster2_s']:8.2f} s   speed-up "
          f"{results['speedup_cluster2']:.2f}x")
    if "dedup" in results:
        print(f"  dedup on {results['store']}: {results['stored']:,} positions stored, "
              f"{results['distinct']:,} distinct (sent to the engine): "
              f"{results['dedup']:.2f} stored per analysed")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--store", help="a store whose dedup ratio to report")
    parser.add_argument("--json", help="write the figures here too")
    args = parser.parse_args(argv)
    results = run_analysis(args.games, args.nodes, args.store)
    report(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
