"""Castles and openings, and what wins: the cost of classifying a game, and the latency of the
statistics queries on a large store.

1. Classification: ``labels.classify.classify_game`` on every game of
   ``tests/fixtures/usi/real_games.usi`` (399 real games), median of ``runs`` runs, in
   microseconds per game, beside the cost of replaying the same games with ``core.game.Game``
   (what validation already pays), so the ratio says what labelling adds to an ingest.
   Then labelling's share of a whole ``kifudb ingest`` of the real record files (issue 32's
   target: at most 30%), ``run_labelling_share``.
2. Statistics: every function of ``analytics.stats`` (with and without filters) on the store that
   ``bench/store.py`` built for each scale (``bench/results/store-N-seed1``; built first if it is
   missing or from an older format), timed in this process: the first call (cold: the engine
   and its in-memory summaries are built) and the median of ``repeats`` warm calls. Target
   (issue 5): each under 200 ms at 10M positions.

Run::

    python -m bench --only stats [--store-scale 100k,10M]
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_MS = 200


def _median_seconds(function, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def run_classification(runs: int = 5) -> dict:
    """Classification cost per game on the real games, beside replaying them."""
    from kifudb.labels.classify import classify_game
    from bench.others import load_usi
    from kifudb.core.game import Game
    from kifudb.core.move import Move

    games = load_usi(ROOT / "tests/fixtures/usi/real_games.usi")
    parsed = [(start, [Move.from_usi(m) for m in moves]) for start, moves in games]

    def classify_all():
        for start, moves in parsed:
            classify_game(start, moves)

    def replay_all():
        for start, moves in parsed:
            game = Game(start)
            for move in moves:
                game.play(move)

    classify = _median_seconds(classify_all, runs)
    replay = _median_seconds(replay_all, runs)
    labels = sum(len(classify_game(s, m).rows()) for s, m in parsed)
    n = len(parsed)
    plies = sum(len(m) for _, m in parsed)
    print(f"\n## classification: {n} real games ({plies} moves), median of {runs} runs")
    print(f"classify_game: {classify / n * 1e6:8.0f} µs/game   ({labels / n:.1f} labels/game)")
    print(f"Game.play replay (validation, for scale): {replay / n * 1e6:8.0f} µs/game   "
          f"-> labelling adds {classify / replay:.0%} of a replay")
    return {"games": n, "classify_us": classify / n * 1e6, "replay_us": replay / n * 1e6,
            "labels_per_game": labels / n}


def _calls(store, player: str, label: str) -> list:
    from kifudb.analytics import stats
    from kifudb.analytics.filters import GameFilter

    return [
        ("overview", lambda: stats.overview(store)),
        ("results", lambda: stats.results(store)),
        ("results_by_year", lambda: stats.results_by_year(store)),
        ("results_by_reason", lambda: stats.results_by_reason(store)),
        ("game_lengths", lambda: stats.game_lengths(store)),
        ("label_frequencies castle", lambda: stats.label_frequencies(store, "castle")),
        ("label_frequencies opening by year",
         lambda: stats.label_frequencies(store, "opening", by_year=True)),
        ("win_rates opening", lambda: stats.win_rates(store, "opening")),
        ("win_rates castle, 2010-2019",
         lambda: stats.win_rates(store, "castle", filters=GameFilter(date_from="2010-01-01",
                                                                     date_to="2019-12-31"))),
        ("pairings castle vs opening", lambda: stats.pairings(store, "castle", "opening")),
        ("label_games", lambda: stats.label_games(store, label)),
        ("players", lambda: stats.players(store, limit=50)),
        ("players, event filter",
         lambda: stats.players(store, limit=50, filters=GameFilter(event="a"))),
        ("player_summary", lambda: stats.player_summary(store, player)),
        ("finding_counts", lambda: stats.finding_counts(store)),
        ("findings", lambda: stats.findings(store, limit=100)),
    ]


def run_queries(store_dir: Path, repeats: int = 20) -> dict:
    """Time every statistics query on one store."""
    from kifudb.analytics import stats
    from kifudb.store import engine

    started = time.perf_counter()
    engine.engine(store_dir)
    engine_ms = (time.perf_counter() - started) * 1000
    view = stats.overview(store_dir)
    player = stats.players(store_dir, limit=1)[0]["player"]
    frequent = stats.label_frequencies(store_dir, "opening") or stats.label_frequencies(store_dir)
    label = frequent[0]["label"] if frequent else "居飛車"
    from kifudb.store.folder import Store
    labels = Store(store_dir).connect().execute("SELECT count(*) FROM labels").fetchone()[0]
    print(f"store {store_dir.relative_to(ROOT)}: {view['games']:,} games, "
          f"{view['positions']:,} positions, {labels:,} labels; engine and summaries built in "
          f"{engine_ms:.0f} ms")
    print(f"{'query':40s} {'first ms':>9s} {'median ms':>10s}")
    timings = {}
    for name, call in _calls(store_dir, player, label):
        started = time.perf_counter()
        call()
        first = (time.perf_counter() - started) * 1000
        median = _median_seconds(call, repeats) * 1000
        timings[name] = {"first_ms": first, "median_ms": median}
        flag = "" if median < TARGET_MS else "  NOT MET"
        print(f"{name:40s} {first:9.1f} {median:10.2f}{flag}")
    worst = max(t["median_ms"] for t in timings.values())
    print(f"slowest median {worst:.1f} ms: target (< {TARGET_MS} ms each) "
          f"{'met' if worst < TARGET_MS else 'NOT MET'}")
    return {"engine_ms": engine_ms, "games": view["games"], "positions": view["positions"],
            "labels": labels, "queries": timings}


def run_labelling_share(runs: int = 3, folder=ROOT / "tests/fixtures/records") -> dict:
    """What labelling costs an ingest (issue 32: at most 30%): ``kifudb ingest`` of the real
    records of ``folder`` (``tests/fixtures/records``) into a fresh store, beside the same files read and
    replayed with and without labels (``ingest.pipeline.read_file``); medians of ``runs``
    interleaved runs. The share is the labels' time over the whole ingest's."""
    import shutil
    import tempfile

    from kifudb.core import _native
    from kifudb.ingest.pipeline import read_file
    from kifudb.ingest.read import record_files
    from kifudb.store.writer import ingest_paths

    files = list(record_files([folder]))
    times: dict = {"ingest": [], "labels": [], "none": []}
    for _ in range(runs):
        folder = tempfile.mkdtemp(prefix="kifudb-labelling-")
        try:
            started = time.perf_counter()
            ingest_paths(files, folder)
            times["ingest"].append(time.perf_counter() - started)
        finally:
            shutil.rmtree(folder)
        for name, labels in (("labels", True), ("none", False)):
            started = time.perf_counter()
            for path in files:
                read_file(path, labels=labels)
            times[name].append(time.perf_counter() - started)
    ingest, read, bare = (statistics.median(times[k]) for k in ("ingest", "labels", "none"))
    share = (read - bare) / ingest
    print(f"\n## labelling's share of an ingest: {len(files)} real record files, median of "
          f"{runs} runs (engine {_native.status()})")
    print(f"kifudb ingest: {ingest:6.2f} s; reading with labels {read:6.2f} s, without "
          f"{bare:6.2f} s -> labelling is {share:.0%} of the ingest (target: at most 30%), "
          f"{(read - bare) / read:.0%} of the reading")
    return {"files": len(files), "ingest_s": ingest, "read_labels_s": read, "read_bare_s": bare,
            "share": share}


def run_stats(scales=("100k",), runs: int = 5) -> dict:
    """Classification cost and its share of an ingest, then the statistics queries at each
    scale."""
    from bench.store import stores_at

    result = {"classification": run_classification(runs),
              "labelling_share": run_labelling_share(min(runs, 3))}
    for name, store_dir in stores_at(scales, "statistics"):
        result[name] = run_queries(store_dir)
    return result
