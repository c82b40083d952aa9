"""``make bench``: replay the same games with kifudb and with other shogi libraries, in one run.

Every library parses each USI move, checks that it is legal with its single-move test, plays it
and computes the position's hash key. Figures are positions per second, the median of several
runs, and the ratio of each library to kifudb. Corpora: the real games of
``tests/fixtures/usi/real_games.usi`` and a seeded synthetic corpus of
random legal games (``bench/synthetic.py``). perft(5) from the start position closes the run.
When the compiled build (mypyc, ``make native``) runs, kifudb's interpreted source is measured
beside it, in a fresh process (``bench/interpreted.py``): "kifudb interpreted" rows.

    python -m bench [--runs 5] [--synthetic 2000] [--store-scale 100k[,10M]]
                    [--only engine|ingest|store|stats|training|writers|dashboard|serve|research|pattern|analysis]

The ingest part (``bench/ingest.py``) measures read + parse + validate + key on the KIF and CSA
fixture files beside rsshogi's and cshogi's readers, and ``--jobs 2`` against one job.

The store part (``bench/store.py``) ingests a seeded synthetic corpus (``bench/corpus.py``)
into a fresh store and measures ingest positions/s and peak memory, bytes per position on disk,
search and explorer latency, beside a plain DuckDB table of SFEN strings. ``--store-scale``
takes comma-separated sizes in positions; the default, 100k, keeps ``make bench`` within a few
minutes; ``--store-scale 100k,10M`` adds the 10M run of issue 4's targets (about 10 minutes
more, several GB under ``bench/results``).

The training part (``bench/training.py``) writes hcpe training data from the first
``--store-scale`` store with ``kifudb export --to hcpe``'s writer, beside cshogi's and rsshogi's.

The writers part (``bench/writers.py``) writes KIF and CSA files with ``kifudb convert``'s
writers beside rsshogi's and cshogi's on the same games, and converts the KIF fixtures to CSA
beside rsshogi.

The serve part (``bench/serve.py``) loads ``kifudb serve`` with a real HTTP client at 1, 8 and 32
concurrent clients (``/explore`` on popular positions, ``/search`` on random ones): requests
per second, p50/p99 latency, errors, on the stores of ``--store-scale``.

The stats part (``bench/stats.py``) measures the cost of classifying a game (castles and
openings) beside replaying it, and every statistics query on the stores of ``--store-scale``.

The pattern part (``bench/pattern.py``) times pattern search (the store's placements) for ten
patterns of different selectivity beside replaying every game, on the stores of
``--store-scale``, with the placements' bytes per position.

The analysis part (``bench/analysis.py``) runs ``kifudb analyse`` beside a minimal USI driver on
the same positions (its overhead), with ``--jobs 2`` and ``--cluster local:2`` (speed-ups).

The research part (``bench/research.py``) times the players' canonical names, the novelty of
every dated game, twins, and the explorer with each research filter (the rating band on both
players or the mover among them) on the stores of ``--store-scale``.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

from bench.others import available, load_usi, replay_cshogi, replay_python_shogi, replay_rsshogi
from bench.synthetic import synthetic_games
from kifudb.core import Move, Position, _native, perft
from kifudb.core.game import Game

ROOT = Path(__file__).resolve().parent.parent


def replay_kifudb(games) -> int:
    """kifudb's game replay: check every move, play it, key every position, track repetition."""
    n = 0
    for start_sfen, usi_moves in games:
        game = Game(start_sfen)
        play = game.play
        for usi in usi_moves:
            if play(Move.from_usi(usi)) is not None:
                raise ValueError(f"kifudb: illegal move {usi} in {game.position.sfen()}")
        n += game.ply
    return n


def replay_kifudb_position(games) -> int:
    """The bare engine path: Position.illegality, push (learning whether the move gives check)
    and key, without the game bookkeeping."""
    n = 0
    for start_sfen, usi_moves in games:
        position = Position.from_sfen(start_sfen)
        for usi in usi_moves:
            move = Move.from_usi(usi)
            if position.illegality(move) is not None:
                raise ValueError(f"kifudb: illegal move {usi} in {position.sfen()}")
            position.push_and_check(move)
            position.key()
            n += 1
    return n


def measure(function, games, runs: int):
    function(games)  # warm-up: caches, imports
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        n = function(games)
        times.append(time.perf_counter() - started)
    return n, statistics.median(times)


def run_corpus(title: str, games, runs: int, path: Path) -> None:
    """Every library on ``games`` (read from ``path``); kifudb interpreted too, beside its
    compiled build."""
    from bench.interpreted import compiled, timed

    moves = sum(len(m) for _, m in games)
    print(f"\n## {title}: {len(games)} games, {moves} positions (median of {runs} runs; "
          f"kifudb {_native.status()})")
    print(f"{'library':30s} {'version':>9s} {'positions/s':>13s} {'median s':>9s} "
          f"{'vs kifudb':>10s}")
    versions = available()
    contenders = [("kifudb (Game.play)", "0.1.0", replay_kifudb),
                  ("kifudb (Position.illegality)", "0.1.0", replay_kifudb_position)]
    for name, function in (("rsshogi", replay_rsshogi), ("cshogi", replay_cshogi),
                           ("python_shogi", replay_python_shogi)):
        if versions.get(name):
            contenders.append((name, versions[name], function))
        else:
            print(f"{name:30s} not installed")
    if compiled():
        contenders[2:2] = [
            ("kifudb interpreted (Game.play)", "0.1.0", lambda _: timed("game", path, runs)),
            ("kifudb interpreted (Position)", "0.1.0", lambda _: timed("position", path, runs))]
    baseline = None
    for name, version, function in contenders:
        if name.startswith("kifudb interpreted"):
            n, seconds = function(games)
        else:
            n, seconds = measure(function, games, runs)
        assert n == moves, (name, n, moves)
        rate = n / seconds
        baseline = baseline or rate
        print(f"{name:30s} {version:>9s} {rate:13,.0f} {seconds:9.3f} {rate / baseline:9.2f}x")


def cached_synthetic(count: int):
    """The seeded synthetic corpus, generated once and kept in ``bench/results``."""
    path = ROOT / "bench" / "results" / f"synthetic-2026-{count}.usi"
    if path.exists():
        return load_usi(path)
    started = time.perf_counter()
    games = synthetic_games(count)
    print(f"\n(synthetic corpus generated by kifudb in {time.perf_counter() - started:.1f} s, "
          f"kept in {path.relative_to(ROOT)})")
    path.parent.mkdir(exist_ok=True)
    path.write_text("".join(f"sfen {start} moves {' '.join(moves)}\n" for start, moves in games),
                    encoding="utf-8")
    return games


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--synthetic", type=int, default=2000, help="synthetic games (seeded)")
    parser.add_argument("--no-perft", action="store_true")
    parser.add_argument("--only", choices=("engine", "ingest", "store", "stats", "training",
                                           "writers", "dashboard", "serve", "research",
                                           "pattern", "analysis", "doors"),
                        help="run one part only (the dashboard part runs only when asked)")
    parser.add_argument("--store-scale", default="100k",
                        help="store benchmark sizes in positions, comma-separated (e.g. 100k,10M)")
    parser.add_argument("--doors-store", type=Path,
                        help="a store for the doors' search and frame figures (bench.doors)")
    args = parser.parse_args(argv)
    print(f"# kifudb benchmark — Python {platform.python_version()} on {platform.machine()}, "
          f"one core")
    if args.only in (None, "engine"):
        run_engine(args)
    if args.only in (None, "ingest"):
        from bench.ingest import run_jobs, run_readers, run_stages
        for kind in ("kif", "csa"):
            run_stages(kind, run_readers(kind, args.runs))
        run_jobs(min(args.runs, 3))
    if args.only in (None, "store"):
        from bench.store import run_store
        run_store(args.store_scale.split(","))
    if args.only in (None, "stats"):
        from bench.stats import run_stats
        run_stats(args.store_scale.split(","), args.runs)
    if args.only in (None, "training"):
        from bench.training import run_training
        run_training(args.store_scale.split(",")[0], args.runs)
    if args.only in (None, "writers"):
        from bench.writers import run_writers
        run_writers(args.runs)
    if args.only == "dashboard":
        from bench.dashboard import run_scales
        run_scales(args.store_scale.split(","))
    if args.only in (None, "serve"):
        from bench.serve import run_scales as run_serve_scales
        run_serve_scales(args.store_scale.split(","))
    if args.only in (None, "research"):
        from bench.research import run_research
        run_research(args.store_scale.split(","), args.runs)
    if args.only in (None, "pattern"):
        from bench.pattern import run_patterns
        run_patterns(args.store_scale.split(","))
    if args.only in (None, "analysis"):
        from bench.analysis import report, run_analysis
        report(run_analysis())
    if args.only in (None, "doors"):
        from bench.doors import run_doors
        run_doors(min(args.runs, 5), args.doors_store)
    return 0


def run_engine(args) -> None:
    """Replay the real and synthetic games with every engine, then perft."""
    real_path = ROOT / "tests/fixtures/usi/real_games.usi"
    run_corpus("real games", load_usi(real_path), args.runs, real_path)
    synthetic = cached_synthetic(args.synthetic)
    run_corpus("synthetic corpus (seed 2026)", synthetic, args.runs,
               ROOT / "bench" / "results" / f"synthetic-2026-{args.synthetic}.usi")
    if not args.no_perft:
        from bench.interpreted import compiled, timed

        print(f"\n## perft from the start position (kifudb {_native.status()})")
        position = Position()
        for depth, expected in ((1, 30), (2, 900), (3, 25470), (4, 719731), (5, 19861490)):
            started = time.perf_counter()
            nodes = perft(position, depth)
            seconds = time.perf_counter() - started
            _print_perft(depth, nodes, expected, seconds)
        if compiled():
            nodes, seconds = timed("perft5", real_path, 1)
            _print_perft(5, nodes, 19861490, seconds, "  (interpreted)")


def _print_perft(depth: int, nodes: int, expected: int, seconds: float, note: str = "") -> None:
    status = "ok" if nodes == expected else f"WRONG (expected {expected})"
    print(f"perft({depth}) = {nodes:>8} {status}  {seconds:7.3f} s  "
          f"{nodes / max(seconds, 1e-9):12,.0f} leaves/s{note}")


if __name__ == "__main__":
    sys.exit(main())
