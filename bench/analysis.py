"""Engine analysis at the door users use (``kifudb analyse``): its cost over the engine's own,
its speed-up on two engines and on a Dask cluster, and how many positions a collection's
analysis sends to the engine against how many it stores.

- Overhead: the same positions (the distinct positions of the first ``--games`` games of the
  WCSC28 fixtures, then of four times as many: the difference is what a position costs,
  without what a run costs once). Per position it is the time beyond the engine's own search
  (``go`` to ``bestmove``, which ``kifudb analyse`` reports), measured in the same runs: a
  minimal driver's time varies by ±10% from run to run with the engine's own (its hash). analysed by ``kifudb analyse --jobs 1`` as a user runs it (a fresh process,
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
import re
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


def _timed_analyse(store: Path, nodes: int, *extra) -> tuple:
    """``(seconds of the whole command, seconds its engines searched)``."""
    started = time.perf_counter()
    done = subprocess.run([_kifudb(), "analyse", "--store", str(store), "--engine", ENGINE,
                           "--nodes", str(nodes), "--no-progress", *extra],
                          capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"kifudb analyse failed: {done.stderr or done.stdout}")
    searched = re.search(r"the engines searched ([\d.]+) s", done.stdout)
    return seconds, float(searched.group(1))


def _sfens(store: Path) -> list:
    """The SFEN of each analysed position, in key order (the order kifudb sends them)."""
    from kifudb.core import Position
    from kifudb.store.folder import Store

    connection = Store(store).connect()
    analysed = {k for k, in connection.execute("SELECT key FROM analysis").fetchall()}
    found = {}
    for _, start, line in connection.execute(
            "SELECT g.game, g.start_sfen, list(m.usi ORDER BY m.ply) FROM games g JOIN moves m "
            "ON m.game = g.game AND m.line = 0 AND m.usi IS NOT NULL GROUP BY ALL").fetchall():
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


def _one_size(scratch: Path, games: int, nodes: int) -> dict:
    """The four timings on the distinct positions of the first ``games`` games."""
    out: dict = {}
    first = _store(scratch / f"one-{games}", games)
    out["kifudb_jobs1_s"], out["searched_jobs1_s"] = _timed_analyse(first, nodes)
    sfens = _sfens(first)
    out["positions"] = len(sfens)
    out["driver_s"] = minimal_driver(sfens, nodes)
    for name, extra in (("jobs2", ("--jobs", "2")), ("cluster2", ("--cluster", "local:2"))):
        out[f"kifudb_{name}_s"], out[f"searched_{name}_s"] = _timed_analyse(
            _store(scratch / f"{name}-{games}", games), nodes, *extra)
    return out


def run_analysis(games: int = 3, nodes: int = 20_000, store=None) -> dict:
    """The timings on ``games`` and on four times as many games; the whole command's figures
    are of the larger, the per-position ones of the difference between the two (what a
    position costs, without what a run costs once: starting, the cluster, planning)."""
    results: dict = {"nodes": nodes, "games": games}
    with tempfile.TemporaryDirectory() as scratch:
        small = _one_size(Path(scratch), games, nodes)
        large = _one_size(Path(scratch), 4 * games, nodes)
    results["small"], results["large"] = small, large
    extra = {k: large[k] - small[k] for k in large}
    results["overhead"] = large["kifudb_jobs1_s"] / large["driver_s"] - 1
    # what a position costs beyond its engine's search, against that search, from the two runs
    # of one engine (its own time measured in the same run: the engine's variance cancels)
    results["overhead_per_position"] = ((extra["kifudb_jobs1_s"] - extra["searched_jobs1_s"])
                                        / extra["searched_jobs1_s"])
    for name in ("jobs2", "cluster2"):
        results[f"speedup_{name}"] = large["kifudb_jobs1_s"] / large[f"kifudb_{name}_s"]
        results[f"speedup_{name}_per_position"] = (extra["kifudb_jobs1_s"]
                                                   / extra[f"kifudb_{name}_s"])
    if store is not None:
        from kifudb.store.folder import Store

        stored, distinct = Store(store).connect().execute(
            "SELECT count(*), count(DISTINCT key) FROM positions").fetchone()
        results.update(store=str(store), stored=stored, distinct=distinct,
                       dedup=stored / max(distinct, 1))
    return results


def report(results: dict) -> None:
    small, large = results["small"], results["large"]
    print(f"\n== analysis: kifudb analyse vs a minimal USI driver ({ENGINE}, nodes="
          f"{results['nodes']:,}; {small['positions']} and {large['positions']} positions of "
          f"{results['games']} and {4 * results['games']} games)")
    print(f"  {'':26}{'small':>9}{'large':>9}   whole command   per position")
    print("  (overhead per position: the time beyond the engine's own search, measured in the "
          "same runs; speed-ups: of the difference between the two sizes)")
    rows = [("minimal driver", "driver_s", None), ("kifudb --jobs 1", "kifudb_jobs1_s", "overhead"),
            ("kifudb --jobs 2", "kifudb_jobs2_s", "speedup_jobs2"),
            ("kifudb --cluster local:2", "kifudb_cluster2_s", "speedup_cluster2")]
    for label, key, figure in rows:
        line = f"  {label:26}{small[key]:8.2f}s{large[key]:8.2f}s"
        if figure == "overhead":
            line += (f"   overhead {100 * results['overhead']:+.1f}%"
                     f"   {100 * results['overhead_per_position']:+.1f}%")
        elif figure:
            line += (f"   speed-up {results[figure]:.2f}x"
                     f"    {results[figure + '_per_position']:.2f}x")
        print(line)
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
