"""Research depth on a large store: canonical player names, novelties, twins and the explorer
with the research filters, timed in this process on a store ``bench/store.py`` built
(``bench/results/store-10M-seed1`` by default; any store folder works).

1. The query engine's build (``game_summary`` and the players' canonical names,
   ``store.player_names``), cold.
2. ``analytics.novelty.all_novelties``: the novelty of every dated game, set-wise in DuckDB;
   a page of the latest (``novelties``) and one game's (``game_novelty``).
3. ``analytics.twins.twins`` and ``analytics.stats.players`` (by canonical name).
4. The explorer (``analytics.queries.explore``) on the start position and after 7g7f 3c3d,
   without a filter and with each research filter: the median of ``repeats`` warm calls.

Run on the stores of ``--store-scale`` (built by ``bench/store.py`` when missing)::

    python -m bench --only research [--store-scale 100k,10M] [--runs 5]

or on any store folder::

    python -m bench.research [STORE] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _timed(function, repeats: int) -> tuple:
    """The first call's seconds, the median of ``repeats`` more, and the first answer."""
    started = time.perf_counter()
    answer = function()
    first = time.perf_counter() - started
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return first, statistics.median(times) if times else first, answer


def run(store_dir: Path, repeats: int = 5) -> list:
    """Rows of (what, first seconds, warm median seconds, answer size)."""
    from kifudb.analytics import queries, stats
    from kifudb.analytics.filters import GameFilter
    from kifudb.analytics.novelty import all_novelties, game_novelty, novelties
    from kifudb.analytics.position_input import position_from_moves
    from kifudb.analytics.twins import twins
    from kifudb.store.engine import engine
    from kifudb.store.folder import Store

    store = Store(store_dir)
    rows = []
    started = time.perf_counter()
    engine(store)
    rows.append(("engine build (game summary + canonical names)",
                 time.perf_counter() - started, None, None))
    first, _, found = _timed(lambda: all_novelties(store), 0)
    rows.append(("all_novelties (every dated game)", first, None, len(found)))
    one = next(iter(found))
    for name, function in (("novelties, latest 20", lambda: novelties(store, limit=20)),
                           ("game_novelty, one game", lambda: game_novelty(store, one)),
                           ("stats.players, 50", lambda: stats.players(store, limit=50)),
                           ("twins (>= 40 moves)", lambda: twins(store))):
        first, warm, answer = _timed(function, repeats)
        rows.append((name, first, warm, len(answer) if answer is not None else 0))
    labels = stats.label_frequencies(store, "opening", primary_only=True)
    label = labels[0]["label"] if labels else "四間飛車"
    filters = {
        "no filter": GameFilter(),
        "decided, >= 40 moves": GameFilter(decided=True, moves_from=40),
        "result black": GameFilter(winner="black"),
        "rating 1500-2500": GameFilter(min_rating=1500, max_rating=2500),
        "mover rated 1500-2500": GameFilter(min_rating=1500, max_rating=2500,
                                            rating_of="mover"),
        "time control '+'": GameFilter(time_control="+"),
        "played by engine": GameFilter(engine=True),
        f"label {label} (either side)": GameFilter(label=label),
        f"label {label} by white": GameFilter(label=label, label_side="white"),
        "player 'a' (canonical or written)": GameFilter(player="a"),
    }
    for moves in ("", "7g7f 3c3d"):
        position = position_from_moves(moves)
        for name, chosen in filters.items():
            first, warm, answer = _timed(lambda: queries.explore(store, position,
                                                                 filters=chosen), repeats)
            rows.append((f"explore [{moves or 'start'}] {name}", first, warm,
                         sum(m["count"] for m in answer)))
    return rows


def report(rows: list) -> None:
    """The rows of ``run`` as a table (milliseconds)."""
    print(f"{'what':58s} {'first ms':>9s} {'warm ms':>9s} {'size':>8s}")
    for what, first, warm, size in rows:
        warm_text = f"{warm * 1000:9.1f}" if warm is not None else f"{'':9s}"
        print(f"{what:58s} {first * 1000:9.1f} {warm_text} {'' if size is None else size:>8}",
              flush=True)


def run_research(scales=("100k",), repeats: int = 5) -> dict:
    """``run`` on the store of each of ``scales`` (``python -m bench --only research``)."""
    from kifudb.analytics import stats
    from bench.store import ROOT as BENCH_ROOT, built_store, parse_scale, scale_name

    result = {}
    for scale in scales:
        n = parse_scale(scale) if isinstance(scale, str) else scale
        store_dir = built_store(n)
        rows = run(store_dir, repeats)  # the engine build first, cold
        view = stats.overview(store_dir)
        print(f"\n## research depth (names, novelties, twins, explorer filters) at "
              f"{scale_name(n)} positions ({store_dir.relative_to(BENCH_ROOT)}: "
              f"{view['games']:,} games, {view['positions']:,} positions)", flush=True)
        report(rows)
        result[scale_name(n)] = rows
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", nargs="?", default=str(ROOT / "bench/results/store-10M-seed1"))
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    from kifudb.store.folder import Store

    store = Store(options.store)
    connection = store.connect()
    games, positions = connection.execute(
        "SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM positions)").fetchone()
    connection.close()
    print(f"store {options.store}: {games:,} games, {positions:,} positions")
    report(run(Path(options.store), options.repeats))


if __name__ == "__main__":
    main()
