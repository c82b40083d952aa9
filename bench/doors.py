"""Speed at the doors (issue 30): what a user runs, timed whole, beside rsshogi and cshogi in the
same run.

* **validate**: ``kifudb validate DIR --format jsonl`` on many small files (the fixtures' CSA and
  KIF files that every library reads alike, copied until there are about 2,500 of each), as a
  fresh process, against a fresh process of rsshogi (and cshogi) reading, replaying with a
  legality test per move and hashing every position of the same files; ``kifudb ingest`` of the
  same files beside them.
* **replay**: USI text in, checked, played and keyed, from Python, per move (``Game.play_usi``),
  against rsshogi's ``apply_usi`` + ``zobrist_hash`` and
  cshogi's ``push_usi`` + ``zobrist_hash``, each in a fresh process.
* **search** (with ``--store``): ``GET /search`` of random positions of the store from 8
  clients, ``kifudb serve`` with one worker and with two.
* **frames** (with ``--store``): the Python API's ``db.games(limit=100000)`` and ``db.search``
  against the same DuckDB query run directly into polars, each in a fresh process (time and
  peak memory).

Every comparison is the median of the ratios of interleaved runs (``--runs``)::

    python -m bench.doors [--runs 5] [--store STORE]      # or: python -m bench --only doors
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KIFUDB = Path(sys.executable).with_name("kifudb")
#: about this many files of each kind are validated
FILES = 2500
#: the clients of the search load, and the requests each run makes
CLIENTS, REQUESTS = 8, 1000


# ----- validate: whole commands ---------------------------------------------------------------


def copied_files(kind: str, folder: Path) -> int:
    """Copies of the fixture files of ``kind`` that every library reads alike, about ``FILES``
    of them, in ``folder``, and their list (path, codec, format) in ``folder.json``; returns how
    many."""
    from bench.ingest import agreed, load_corpus

    items = agreed(load_corpus(kind))
    copies = max(1, FILES // len(items))
    folder.mkdir(parents=True)
    listing = []
    for copy in range(copies):
        for number, (path, data, codec, fmt) in enumerate(items):
            target = folder / f"{copy}-{number}{Path(path).suffix}"
            target.write_bytes(data)
            listing.append((str(target), codec, fmt))
    folder.with_suffix(".json").write_text(json.dumps(listing), encoding="utf-8")
    return len(listing)


def _other_library(name: str, folder: str) -> int:
    """The child's side of a library's whole command: read, replay with a legality test per
    move and hash every position of the files in ``folder``; the positions counted."""
    from bench.ingest import cshogi_games, rsshogi_games

    listing = json.loads(Path(folder).with_suffix(".json").read_text(encoding="utf-8"))
    items = [(path, Path(path).read_bytes(), codec, fmt) for path, codec, fmt in listing]
    return (rsshogi_games if name == "rsshogi" else cshogi_games)(items)


def _command(name: str, folder: Path, store: Path) -> list:
    if name == "kifudb validate":
        return [str(KIFUDB), "validate", str(folder), "--format", "jsonl", "--output",
                os.devnull]
    if name == "kifudb ingest":
        return [str(KIFUDB), "ingest", str(folder), "--store", str(store), "--no-progress"]
    return [sys.executable, "-m", "bench.doors", "library", name, str(folder)]


def _seconds(command: list) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   cwd=ROOT)
    return time.perf_counter() - started


def run_validate(runs: int) -> dict:
    """Print and return the whole commands' medians and their ratios to rsshogi's."""
    names = ("kifudb validate", "rsshogi", "cshogi", "kifudb ingest")
    figures = {}
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("csa", "kif"):
            folder = Path(tmp, kind)
            files = copied_files(kind, folder)
            times = {name: [] for name in names}
            for run in range(runs):
                for name in names:
                    store = Path(tmp, f"store-{kind}-{run}")
                    times[name].append(_seconds(_command(name, folder, store)))
                    shutil.rmtree(store, ignore_errors=True)
            print(f"\n## kifudb validate at the door: {files:,} {kind.upper()} files, fresh "
                  f"processes, median of {runs} interleaved runs")
            figures[kind] = {"files": files, **_against_rsshogi(times, "command", "median s",
                                                                 "{:9.2f}", rates=False)}
    return figures


# ----- replay: the Python API per move and per line ---------------------------------------------


def _replay_games() -> list:
    from bench.others import load_usi

    return load_usi(ROOT / "tests" / "fixtures" / "usi" / "real_games.usi")


def _replay_in_child(name: str) -> tuple:
    """The child's side: ``(positions, best seconds of five passes)`` of one way to replay."""
    games = _replay_games()
    if name.startswith("kifudb"):
        from kifudb.core.game import Game

        def once():
            for start, moves in games:
                game = Game(start)
                for usi in moves:
                    if game.play_usi(usi) is not None:
                        raise ValueError("illegal")
                    game.keys[-1]
    elif name == "rsshogi":
        from rsshogi.core import Board

        def once():
            for start, moves in games:
                board = Board(start)
                for usi in moves:
                    board.apply_usi(usi)
                    board.zobrist_hash()
    else:
        import cshogi

        def once():
            board = cshogi.Board()
            for start, moves in games:
                board.set_sfen(start)
                for usi in moves:
                    board.push_usi(usi)
                    board.zobrist_hash()
    return sum(len(moves) for _, moves in games), _best(once, 5)


def _best(call, passes: int) -> float:
    """The best seconds of ``passes`` calls, after one to warm up (imports, caches)."""
    call()
    best = float("inf")
    for _ in range(passes):
        started = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - started)
    return best


def run_replay(runs: int) -> dict:
    names = ("kifudb play_usi", "rsshogi", "cshogi")
    rates = {name: [] for name in names}
    for _ in range(runs):
        for name in names:
            done = subprocess.run([sys.executable, "-m", "bench.doors", "replay", name],
                                  check=True, capture_output=True, text=True, cwd=ROOT)
            positions, seconds = done.stdout.split()
            rates[name].append(int(positions) / float(seconds))
    print(f"\n## replaying USI text from Python (checked, played, keyed), {positions} moves of "
          f"real games, fresh processes, median of {runs} runs")
    return _against_rsshogi(rates, "way", "positions/s", "{:12,.0f}", rates=True)


def _against_rsshogi(values: dict, what: str, unit: str, shown: str, rates: bool) -> dict:
    """Print each contender's median of ``values`` (``{name: [one a run]}``: rates, or
    seconds) and the median of its runs' ratios to rsshogi's (above 1: faster); return both."""
    ratio = {}
    for name, runs in values.items():
        pairs = zip(runs, values["rsshogi"]) if rates else zip(values["rsshogi"], runs)
        ratio[name] = statistics.median(a / b for a, b in pairs)
    print(f"{what:22s} {unit:>12s} {'× rsshogi':>10s}")
    for name, runs in values.items():
        print(f"{name:22s} {shown.format(statistics.median(runs)):>12s} {ratio[name]:9.2f}x")
    return {"median": {name: statistics.median(runs) for name, runs in values.items()},
            "vs_rsshogi": ratio}


# ----- search over HTTP ------------------------------------------------------------------------


def random_sfens(store: Path, count: int, seed: int = 14) -> list:
    """SFENs of ``count`` distinct positions of random games of ``store`` (every position of
    each game drawn, shuffled): each is asked once, as a user's random position is."""
    import random

    import kifudb

    db = kifudb.open(store)
    rng = random.Random(seed)
    last = db.sql("SELECT max(game) AS last FROM games")["last"][0]
    found: dict = {}
    while len(found) < count:
        try:
            game = db.game(rng.randint(1, last))
        except LookupError:
            continue
        found.update(dict.fromkeys(game.sfens))
    sfens = list(found)[:count]
    rng.shuffle(sfens)
    return sfens


def run_search(store: Path, runs: int) -> dict:
    from bench.serve import WARM_UP, _load, start_server

    share = REQUESTS + WARM_UP
    sfens = random_sfens(store, 2 * runs * share)
    print(f"\n## GET /search of random positions (each asked once), {CLIENTS} clients, "
          f"{REQUESTS} requests a run, median of {runs} runs ({store})")
    figures = {}
    for workers in (1, 2):
        server, base = start_server(store, "--workers", str(workers))
        rows = []
        try:
            for run in range(runs):
                start = ((workers - 1) * runs + run) * share
                params = [{"sfen": s, "limit": 50} for s in sfens[start:start + share]]
                rows.append(asyncio.run(_load(base, "/search", params[WARM_UP:], CLIENTS,
                                              REQUESTS, warm=params[:WARM_UP])))
        finally:
            server.terminate()
            server.communicate(timeout=60)
        figures[workers] = {key: statistics.median(r[key] for r in rows)
                            for key in ("rps", "p50_ms", "p99_ms")}
        figures[workers]["errors"] = sum(r["errors"] for r in rows)
        f = figures[workers]
        print(f"--workers {workers}: {f['rps']:7.1f} req/s  p50 {f['p50_ms']:6.1f} ms  "
              f"p99 {f['p99_ms']:6.1f} ms  errors {f['errors']}")
    return figures


# ----- frames: the Python API against DuckDB directly --------------------------------------------


def _frame_in_child(name: str, store: str) -> tuple:
    """The child's side: ``(seconds of the best of three, peak resident MB)`` of one way to get
    a page of 100,000 games or the hits of the start position as a polars DataFrame."""
    import resource

    import kifudb
    from kifudb.analytics.queries import search_statement
    from kifudb.analytics.stats import _games
    from kifudb.analytics.filters import GameFilter
    from kifudb.store import engine

    db = kifudb.open(store)
    if name.endswith("games"):
        statement = _games(100_000, 0, GameFilter())
        api = lambda: db.games(limit=100_000)  # noqa: E731
    else:
        statement = search_statement("startpos")
        api = lambda: db.search("startpos")  # noqa: E731
    handle = engine._handle(db.store)
    sql = str(statement.compile(dialect=handle.engine.dialect,
                                compile_kwargs={"literal_binds": True}))

    def direct():
        cursor = handle.database.cursor()
        if name.endswith("games"):
            return cursor.sql(sql).pl()
        from kifudb.analytics.queries import hit_keys

        with engine._hits_registered(cursor, hit_keys("startpos"), handle):
            return cursor.sql(sql).pl()

    best = _best(api if name.startswith("api") else direct, 3)
    return best, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_frames(store: Path, runs: int) -> dict:
    figures = {}
    print(f"\n## polars frames from the Python API against DuckDB directly (fresh processes, "
          f"median of {runs} runs; {store})")
    for what in ("games", "search"):
        times = {"api": [], "duckdb": []}
        memory = {"api": [], "duckdb": []}
        for _ in range(runs):
            for way in ("api", "duckdb"):
                done = subprocess.run([sys.executable, "-m", "bench.doors", "frame",
                                       f"{way} {what}", str(store)], check=True,
                                      capture_output=True, text=True, cwd=ROOT)
                seconds, peak = map(float, done.stdout.split())
                times[way].append(seconds)
                memory[way].append(peak)
        ratio = statistics.median(a / d for a, d in zip(times["api"], times["duckdb"]))
        label = "db.games(limit=100000)" if what == "games" else "db.search('startpos')"
        print(f"{label:24s} api {statistics.median(times['api']) * 1000:8.1f} ms  duckdb "
              f"{statistics.median(times['duckdb']) * 1000:8.1f} ms  ratio {ratio:.2f}x  peak "
              f"RSS {statistics.median(memory['api']):.0f} / "
              f"{statistics.median(memory['duckdb']):.0f} MB")
        figures[what] = {"api_s": statistics.median(times["api"]),
                         "duckdb_s": statistics.median(times["duckdb"]), "ratio": ratio,
                         "api_peak_mb": statistics.median(memory["api"]),
                         "duckdb_peak_mb": statistics.median(memory["duckdb"])}
    return figures


def run_doors(runs: int = 5, store=None) -> dict:
    figures = {"validate": run_validate(runs), "replay": run_replay(runs)}
    if store is not None:
        figures["search"] = run_search(Path(store), runs)
        figures["frames"] = run_frames(Path(store), runs)
    return figures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.doors",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--store", type=Path, help="a store for the search and frame figures")
    parser.add_argument("--only", choices=("validate", "replay", "search", "frames"))
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    parts = {"validate": lambda: run_validate(args.runs), "replay": lambda: run_replay(args.runs),
             "search": lambda: run_search(args.store, args.runs),
             "frames": lambda: run_frames(args.store, args.runs)}
    if args.only in ("search", "frames") and args.store is None:
        parser.error(f"--only {args.only} needs --store")
    figures = ({args.only: parts[args.only]()} if args.only
               else run_doors(args.runs, args.store))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "library":
        print(_other_library(sys.argv[2], sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "replay":
        print(*_replay_in_child(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "frame":
        print(*_frame_in_child(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(main())
