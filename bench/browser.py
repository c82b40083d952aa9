"""The dashboard in a real browser: ``kifudb dashboard`` started as a user starts it, driven by
Debian's headless Chromium through Playwright, and the time each page takes until it is drawn.

The end-to-end test (``tests/test_dashboard_e2e.py``) uses the same three pieces:
``chromium`` (the browser's path), ``dashboard_server`` (the server on a free port) and
``settle`` (wait until a page is drawn and its script run has ended).

``run_browser(store)`` times, with one server and one browser page:

* each page **cold**: its first visit after the server started (the store's engine, the
  in-memory summaries and the page's answers made, then drawn), and **warm**: the median of
  ``repeats`` reloads (answers from the server's caches; the browser's session is new each
  time, so the page is fetched and drawn anew);
* the **explorer click** (the start position's most played move clicked: cold the first time,
  then the median of ``repeats + 2`` more, each after going back) and the **game step** (the ▶
  button of the game viewer: the first step, then the median of the next ones) until the
  board shows the next position and the URL says its ply (the board steps in the browser),
  and the **game step, page** until the rest of the page (the move list, the notes: a run of
  the page's fragment) says it too.

A time runs from the navigation (or the click) until the page's text is there, Streamlit's
running indicator is gone and no exception is shown, so it includes the browser's drawing.

    python -m bench --only dashboard [--store-scale 100k,10M]   # AppTest and the browser
    python -m bench.browser STORE_FOLDER [--repeats 3]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

#: Each page's path, and a text on it once it is drawn (the whole run is waited for).
PAGES = {"overview": ("", "Most played openings"), "validation": ("validation", "Validation"),
         "explorer": ("explorer", "moves played next"),
         "search": ("search?moves=7g7f+3c3d", "occurrences in"), "game": ("game", "対"),
         "openings": ("openings", "Example games"), "results": ("results", "Results"),
         "players": ("players", "Players")}
EXCEPTION = '[data-testid="stException"]'


def chromium() -> str:
    """Debian's chromium; ``RuntimeError`` saying how to get it when it is missing."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and os.path.exists("/usr/bin/chromium"):
        found = "/usr/bin/chromium"
    if found is None:
        raise RuntimeError("chromium is not installed: the dashboard is driven through "
                           "Playwright in Debian's chromium. Install it with `apt-get install "
                           "chromium` (`make chromium` does), then run again.")
    return found


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def dashboard_server(store: Path, folder: Path, timeout: float = 60):
    """``kifudb dashboard --store STORE`` on a free port, started from ``folder`` (outside the
    project), as a user starts it; yields its URL once it answers (``RuntimeError`` with the
    server's output if it stops or does not answer within ``timeout`` seconds). Stopped at the
    end. Its output is in ``folder/streamlit.log``."""
    port = free_port()
    log = open(Path(folder) / "streamlit.log", "w+", encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "kifudb", "dashboard", "--store", str(store),
         "--port", str(port), "--address", "127.0.0.1"],
        cwd=folder, env={**os.environ, "STREAMLIT_SERVER_FILE_WATCHER_TYPE": "none"},
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"the server stopped (status {process.returncode}):\n"
                                   f"{log.read()}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                    if answer.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server did not answer within {timeout:.0f} s")
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def settle(page, text: str, pause: int = 300) -> None:
    """Wait for ``text`` on the page and for the script run to end, then ``pause`` ms for the
    run's last elements; ``AssertionError`` when Streamlit shows an exception."""
    page.get_by_text(text, exact=False).first.wait_for(timeout=60_000)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')",
                           timeout=60_000)
    if pause:
        page.wait_for_timeout(pause)
    shown = page.locator(EXCEPTION)
    assert shown.count() == 0, shown.all_inner_texts()


def _timed(page, act, text: str, url=None) -> float:
    """Seconds from ``act()`` until the page (at a URL matching ``url``) shows ``text`` and
    its run has ended."""
    started = time.perf_counter()
    act()
    if url is not None:
        page.wait_for_url(re.compile(url), timeout=60_000)
    settle(page, text, pause=0)
    return time.perf_counter() - started


def measure(url: str, page, repeats: int = 3, game: int | None = None) -> dict:
    """The figures of ``run_browser`` on the dashboard at ``url`` (a fresh server); the game
    step in ``game`` (one with moves enough; the newest game by default)."""
    figures = {}
    for name, (path, text) in PAGES.items():
        cold = _timed(page, lambda: page.goto(f"{url}/{path}"), text)
        warm = statistics.median(_timed(page, page.reload, text) for _ in range(repeats))
        figures[name] = {"cold": cold, "warm": warm}
        print(f"{name}: first {cold:.2f} s, reload {warm:.2f} s", file=sys.stderr, flush=True)
    figures["explorer click"] = _repeated(
        page, f"{url}/explorer", "moves played next",
        lambda _: page.locator(".st-key-move-row-0 button").first.click(),
        lambda _: r"moves=\w+$",
        back=True, times=repeats + 3)
    print(f"explorer click: first {figures['explorer click'][0]:.2f} s, then "
          f"{figures['explorer click'][1]:.2f} s (median)", file=sys.stderr, flush=True)
    start = f"{url}/game" + (f"?game={game}&ply=0" if game is not None else "")
    board = page.frame_locator(".st-key-game-board-box iframe").locator("#root")
    figures["game step"] = _repeated(page, start, "対",
                                     lambda i: _step(page, board, i + 1),
                                     lambda i: rf"ply={i + 1}$", back=False,
                                     times=repeats + 3, settled=False,
                                     text_after=lambda i: f"{i + 1}手")
    print(f"game step: first {figures['game step'][0]:.2f} s, then "
          f"{figures['game step'][1]:.2f} s (median)", file=sys.stderr, flush=True)
    figures["game step, page"] = _repeated(page, start, "対",
                                           lambda i: _step(page, board, i + 1),
                                           lambda i: rf"ply={i + 1}$", back=False,
                                           times=repeats + 3,
                                           text_after=lambda i: f"{i + 1}手")
    return figures


def _step(page, board, ply: int) -> None:
    """The game viewer's ▶ clicked; returns once the board shows ``ply`` (it steps in the
    browser, before the page's run that draws the rest)."""
    page.locator('.st-key-forward [data-testid^="stBaseButton"]').first.click()
    board.locator(f'xpath=self::*[@data-ply="{ply}"]').wait_for(state="attached",
                                                                timeout=60_000)


def _repeated(page, start: str, text: str, act, url, back: bool, times: int,
              settled: bool = True, text_after=None) -> list:
    """``[first s, median s of the others]`` of ``act(i)`` done ``times`` times on the page at
    ``start`` (the URL then matching ``url(i)``): the first (answers computed) and the median
    of the next ones (``back``: each after the browser's Back to ``start``, the same click
    again; else one step after the other). The time ends when the page shows ``text_after(i)``
    (else ``text``) and its run has ended; or (``settled=False``) when ``act`` has returned
    and the URL matches (each next act waits for the page to settle first)."""
    page.goto(start)
    settle(page, text)
    seconds = []
    for i in range(times):
        if settled:
            seconds.append(_timed(page, lambda: act(i), text_after(i) if text_after else text,
                                  url(i)))
        else:
            started = time.perf_counter()
            act(i)
            page.wait_for_url(re.compile(url(i)), timeout=60_000)
            seconds.append(time.perf_counter() - started)
            settle(page, text_after(i) if text_after else text)
        if back:
            page.go_back()
            page.wait_for_url(re.compile(re.escape(start) + "$"), timeout=60_000)
            settle(page, text)
            page.wait_for_function(  # the rows of the page before drawn anew (no stale ones)
                "() => document.querySelectorAll('.st-key-move-row-0 button').length === 1",
                timeout=60_000)
    return [seconds[0], statistics.median(seconds[1:])]


def _long_game(store_dir: Path, moves: int) -> int | None:
    """The newest game of at least ``moves`` moves (the game viewer's steps are timed in it)."""
    from kifudb.analytics import stats
    from kifudb.analytics.filters import GameFilter

    found = stats.games(str(store_dir), limit=1, filters=GameFilter(moves_from=moves))
    return found[0]["game"] if found else None


def run_browser(store_dir: Path, repeats: int = 3) -> dict:
    """Every page in Chromium on a fresh ``kifudb dashboard`` over ``store_dir``; print the
    table (``bench.dashboard.table``) and return the figures."""
    from playwright.sync_api import sync_playwright

    from bench.dashboard import table

    with tempfile.TemporaryDirectory() as folder, \
            dashboard_server(Path(store_dir).resolve(), Path(folder)) as url, \
            sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium(), headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            figures = measure(url, page, repeats, _long_game(store_dir, repeats + 4))
        finally:
            browser.close()
    rows = [(name, f["cold"], f["warm"]) for name, f in figures.items() if isinstance(f, dict)]
    rows += [(name, *f) for name, f in figures.items() if isinstance(f, list)]
    print(table(rows))
    return figures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.browser",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path, help="the store folder")
    parser.add_argument("--repeats", type=int, default=3, help="warm reloads (median)")
    args = parser.parse_args(argv)
    run_browser(args.store, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
