"""The dashboard's page timings on a store: every page of ``dashboard/views/`` cold and warm, an
explorer click and a game step, driven with Streamlit's own test harness (``AppTest``, the app
run in one process, as ``tests/test_dashboard.py`` drives it; no browser, so no drawing).

Each page is timed in a child process of its own (a fresh interpreter, so fresh
``st.cache_data`` caches and a fresh ``store.engine``), as follows:

1. the entry page ``dashboard/app.py`` is run once with ``KIFUDB_STORE`` naming an empty folder
   (Streamlit and the app's modules are imported, the store is not touched; not timed);
2. ``KIFUDB_STORE`` is set to the store, and ``switch_page`` then ``run`` open the page: the
   **cold** time (the store's engine and in-memory summaries built, every answer computed; the
   page's own imports, such as the chart library, included; the OS file cache is whatever the
   machine has, warm after a build);
3. the same session runs the page again ``repeats`` times: **warm** is their median (answers
   from the cache, the page drawn again).

Two interactions are timed in the process of their page, after its warm runs: the **explorer
click** (the start position's most played move, clicked: cold is the first click, a position
not asked before; warm is the same click again after going back to the start) and the **game
step** (the game viewer's → on the newest game, ply 0 to 1: cold the first time, warm after
going back). A run time is the whole script run as ``AppTest.run`` does it: the sidebar and the
page.

Run::

    python -m bench --only dashboard [--store-scale 100k,10M]
    python -m bench.dashboard STORE_FOLDER [--repeats 3]

The first finds (or builds, as ``bench/stats.py`` does) the stores of ``bench/results``.

The table is printed by ``table``:

>>> print(table([("overview", 0.5, 0.04)]))
page                    cold s   warm s
overview                 0.500    0.040
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "dashboard" / "app.py")
PAGES = ("overview", "validation", "explorer", "search", "game", "openings", "results",
         "players")


def table(rows) -> str:
    """``(name, cold s, warm s)`` rows as a text table."""
    lines = [f"{'page':20s} {'cold s':>9s} {'warm s':>8s}"]
    lines += [f"{name:20s} {cold:9.3f} {warm:8.3f}" for name, cold, warm in rows]
    return "\n".join(lines)


def _run(at) -> float:
    """Run the app (the session ``at``, or the session of a widget just clicked); its time in
    seconds; an exception on the page fails."""
    started = time.perf_counter()
    at = at.run()
    seconds = time.perf_counter() - started
    if at.exception:
        raise RuntimeError([e.value for e in at.exception])
    return seconds


def measure_page(name: str, store_dir: Path, repeats: int = 3) -> dict:
    """Time page ``name`` in this process (which must be fresh for the cold time to mean
    anything): ``{"cold": s, "warm": s}`` and for the explorer and the game viewer also
    ``"click"`` or ``"step"``: ``[cold s, warm s]``."""
    from streamlit.testing.v1 import AppTest

    with tempfile.TemporaryDirectory() as empty:
        os.environ["KIFUDB_STORE"] = str(Path(empty) / "no-store")
        at = AppTest.from_file(APP, default_timeout=600)
        _run(at)  # imports, no store
    os.environ["KIFUDB_STORE"] = str(store_dir)
    at.switch_page(f"views/{name}.py")
    result = {"cold": _run(at)}
    if at.error:
        raise RuntimeError(f"{name}: {[e.value for e in at.error]}")
    result["warm"] = statistics.median(_run(at) for _ in range(repeats))
    if name == "explorer":
        move = next(b.key for b in at.button if b.key and b.key.startswith("play-"))
        first = _run(at.button(key=move).click())
        _run(at.button(key="crumb-0").click())
        result["click"] = [first, _run(at.button(key=move).click())]
        if at.query_params.get("moves") != move[len("play-"):]:
            raise RuntimeError(f"explorer: the click on {move} did not play it")
    elif name == "game":
        first = _run(at.button(key="forward").click())
        _run(at.button(key="back").click())
        result["step"] = [first, _run(at.button(key="forward").click())]
        if at.query_params.get("ply") != "1":
            raise RuntimeError("game: → did not step to ply 1")
    return result


def run_dashboard(store_dir: Path, repeats: int = 3) -> dict:
    """Every page in a child process of its own; print the table and return the figures."""
    store_dir = Path(store_dir).resolve()
    figures = {}
    for name in PAGES:
        child = subprocess.run([sys.executable, "-m", "bench.dashboard", str(store_dir),
                                "--page", name, "--repeats", str(repeats)], cwd=ROOT,
                               capture_output=True, text=True, check=False)
        if child.returncode:
            raise RuntimeError(f"{name}: {child.stderr[-2000:]}")
        figures[name] = json.loads(child.stdout.strip().splitlines()[-1])
    rows = [(name, f["cold"], f["warm"]) for name, f in figures.items()]
    rows.append(("explorer click", *figures["explorer"]["click"]))
    rows.append(("game step", *figures["game"]["step"]))
    print(table(rows))
    return figures


def run_scales(scales=("100k",), repeats: int = 3) -> dict:
    """The dashboard's timings on the stores of ``bench/results`` (``bench.store.built_store``):
    with AppTest, then in headless Chromium."""
    from bench.browser import run_browser
    from bench.store import stores_at

    result = {}
    for name, store_dir in stores_at(scales, "dashboard pages"):
        print(f"AppTest, each page in a fresh process; warm: the median of {repeats} runs")
        result[name] = run_dashboard(store_dir, repeats)
        print(f"\nheadless Chromium (bench/browser.py: a fresh `kifudb dashboard`; cold: the "
              f"first visit, warm: the median of {repeats} reloads; until drawn)")
        result[name + " browser"] = run_browser(store_dir, repeats)
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.dashboard",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path, help="the store folder")
    parser.add_argument("--repeats", type=int, default=3, help="warm runs (median)")
    parser.add_argument("--page", choices=PAGES, help="time one page in this process (JSON)")
    args = parser.parse_args(argv)
    if args.page:
        print(json.dumps(measure_page(args.page, args.store.resolve(), args.repeats)))
    else:
        run_dashboard(args.store, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
