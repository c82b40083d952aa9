"""The HTTP API under load: ``kifudb serve`` started as a process on a seeded store of
``bench/results`` (``bench.store.built_store``), queried by a real HTTP client (httpx2, asyncio)
at 1, 8 and 32 concurrent clients:

- ``/explore`` on **popular** positions: the start and the positions reached by the most
  played moves, two a ply, to ply 6 (the positions an explorer user opens most; each
  aggregates thousands of games at 10M);
- ``/search`` (a page of 50) on **random** positions: positions of seeded random plies of the
  corpus's games (``bench.store.pick_positions``), each asked once in the whole benchmark.

The server keeps its answers until the store's next commit (``kifudb.http.Answers``), so the
popular positions are computed once: a first run, ``/explore (first)``, asks each of them once
with one client (every answer computed), then the loaded runs ask them again and again (the
answers kept), as an explorer's users do. Every search asks a position not asked before, so
each is computed. Each loaded run sends ``requests`` requests after a warm-up of 20 (not
counted; for the searches, positions of their own); every client sends its next request when
its answer is in. Figures: requests per second, p50
and p99 latency (ms, as the client measures it: connection, server, JSON), and errors (any
answer but a 200, or a failed connection). The client runs in this process and the server in
its own, on the same machine (two cores here: the client's CPU competes with the server's).

    python -m bench --only serve [--store-scale 100k,10M]
    python -m bench.serve STORE_FOLDER [--requests 400]

The targets (issue 14): ``/explore`` at 8 clients p50 < 20 ms and p99 < 100 ms; no error under
32 clients.

The flood (issue 26), ``python -m bench.serve STORE_FOLDER --flood [--seconds 20]``: 40 clients
ask expensive questions without pause (``/stats/novelties?limit=500&offset=N``, each a new
page; told to wait by a 503 ``busy``'s ``Retry-After``, they wait) while one client asks cheap ones (``/search`` of positions of stored games, each asked
once); the cheap requests' p99 idle and during the flood, the answers by status, and the
server's threads, memory (RSS) and CPU seconds, sampled during the flood and in the 5 s after
it (work that goes on once its answer was a 503). The table is printed by ``table``:

>>> print(table([{"endpoint": "/explore", "clients": 8, "requests": 400, "errors": 0,
...               "rps": 512.3, "p50_ms": 14.2, "p99_ms": 41.0}]))
endpoint         clients  requests  errors     req/s   p50 ms   p99 ms
/explore               8       400       0     512.3     14.2     41.0
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
KIFUDB = Path(sys.executable).with_name("kifudb")
CLIENTS = (1, 8, 32)
WARM_UP = 20


def table(rows) -> str:
    """Run figures (dicts of ``endpoint``, ``clients``, ``requests``, ``errors``, ``rps``,
    ``p50_ms``, ``p99_ms``) as a text table."""
    lines = [f"{'endpoint':16s} {'clients':>7s} {'requests':>9s} {'errors':>7s} {'req/s':>9s} "
             f"{'p50 ms':>8s} {'p99 ms':>8s}"]
    lines += [f"{r['endpoint']:16s} {r['clients']:7d} {r['requests']:9d} {r['errors']:7d} "
              f"{r['rps']:9.1f} {r['p50_ms']:8.1f} {r['p99_ms']:8.1f}" for r in rows]
    return "\n".join(lines)


def _percentile(values, q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def popular_positions(store_dir, depth: int = 6, branching: int = 2) -> list:
    """SFENs of the start and of the positions the ``branching`` most played moves lead to,
    ply by ply to ``depth``."""
    from kifudb.analytics.queries import explore
    from kifudb.core.move import Move
    from kifudb.core.position import Position

    found, level = [], [Position()]
    for _ in range(depth + 1):
        found += [p.sfen() for p in level]
        following = []
        for position in level:
            for row in explore(store_dir, position)[:branching]:
                after = position.copy()
                after.push(Move.from_usi(row["move"]))
                following.append(after)
        level = following
    return found


def random_positions(store_dir, count: int = 200, seed: int = 14, games=None) -> list:
    """SFENs of ``count`` seeded random positions of ``games`` (default: the store's corpus,
    its games.usi)."""
    from bench.corpus import load_games
    from bench.store import parse_scale, pick_positions

    if games is None:
        scale = Path(store_dir).name.split("-")[1]  # store-100k-seed1: corpus-100000-seed1
        games = load_games(RESULTS / f"corpus-{parse_scale(scale)}-seed1")
    return [sfen + " 1" for sfen, _ in pick_positions(games, seed, count)]


def start_server(store_dir, *options: str) -> tuple:
    """``kifudb serve`` on ``store_dir`` (with ``options``) on a free port: ``(process, base
    URL)`` once it answers ``/health``."""
    import httpx2

    from bench.browser import free_port

    port = free_port()
    server = subprocess.Popen([str(KIFUDB), "serve", "--store", str(store_dir), "--port",
                               str(port), *options], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=ROOT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    while True:
        try:
            if httpx2.get(f"{base}/health", timeout=60).status_code == 200:
                return server, base
        except httpx2.TransportError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            raise RuntimeError(f"kifudb serve did not start: {server.communicate()[1][-2000:]}")
        time.sleep(0.2)


async def _load(base: str, path: str, params: list, clients: int, requests: int,
                warm_up: bool = True, warm=None) -> dict:
    """``requests`` GETs of ``path`` with ``params`` in turn, from ``clients`` clients, after
    a warm-up of the first ``WARM_UP`` params (or of ``warm``)."""
    import httpx2

    latencies, errors = [], 0
    queue = iter(params[i % len(params)] for i in range(requests))
    limits = httpx2.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx2.AsyncClient(base_url=base, timeout=30, limits=limits) as http:
        for query in (warm if warm is not None else params[:WARM_UP]) if warm_up else ():
            await http.get(path, params=query)

        async def client():
            nonlocal errors
            for query in queue:
                started = time.perf_counter()
                try:
                    answer = await http.get(path, params=query)
                    failed = answer.status_code != 200
                except httpx2.HTTPError:
                    failed = True
                latencies.append((time.perf_counter() - started) * 1000)
                errors += failed

        started = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(clients)))
        elapsed = time.perf_counter() - started
    return {"endpoint": path, "clients": clients, "requests": requests, "errors": errors,
            "rps": requests / elapsed, "p50_ms": statistics.median(latencies),
            "p99_ms": _percentile(latencies, 0.99)}


def run_serve(store_dir, requests: int = 400, games=None) -> dict:
    """Load ``kifudb serve`` on ``store_dir``; print the table and the targets; the figures.
    The searches ask positions of ``games`` (``(start SFEN, [usi, …])``; default: those of
    the store's corpus under ``bench/results``)."""
    from bench.store import OwnMemorySampler

    store_dir = Path(store_dir).resolve()
    popular = [{"sfen": s} for s in popular_positions(store_dir)]
    share = requests + WARM_UP
    searched = [{"sfen": s, "limit": 50}
                for s in random_positions(store_dir, share * len(CLIENTS), games=games)]
    server, base = start_server(store_dir)
    memory = OwnMemorySampler(server.pid).start()
    rows = []

    def ran(row: dict) -> None:  # the server's own memory's peak so far, after each run
        rows.append({**row, "own_peak_mb": round(memory.anon_kb / 1024)})
        print(table(rows[-1:]).splitlines()[-1], f"(own memory's peak so far "
              f"{rows[-1]['own_peak_mb']:,} MB)", flush=True)

    try:
        first = asyncio.run(_load(base, "/explore", popular, 1, len(popular), warm_up=False))
        ran({**first, "endpoint": "/explore (first)"})
        for clients in CLIENTS:
            ran(asyncio.run(_load(base, "/explore", popular, clients, requests)))
        for i, clients in enumerate(CLIENTS):
            own = searched[i * share:(i + 1) * share]
            ran(asyncio.run(_load(base, "/search", own[WARM_UP:], clients, requests,
                                  warm=own[:WARM_UP])))
        figures = {**process_figures(server.pid), **memory.stop()}
    finally:
        memory.stop()
        server.terminate()
        server.communicate(timeout=30)
    print(table(rows))
    at8 = next(r for r in rows if r["endpoint"] == "/explore" and r["clients"] == 8)
    first = rows[0]
    errors = sum(r["errors"] for r in rows if r["clients"] == 32)
    targets = {"explore p50 < 20 ms at 8 clients": [round(at8["p50_ms"], 1), 20],
               "explore p99 < 100 ms at 8 clients": [round(at8["p99_ms"], 1), 100],
               "no error at 32 clients": [errors, 0]}
    for name, (value, limit) in targets.items():
        met = value == limit if name.startswith("no error") else value < limit
        print(f"target {name}: {value} — {'met' if met else 'MISSED'}")
    print(f"(the first asks of the {first['requests']} popular positions, every answer "
          f"computed: p50 {first['p50_ms']:.1f} ms, p99 {first['p99_ms']:.1f} ms)")
    print(f"the server: peak resident memory {figures['hwm_mb']:,.0f} MB (its own at most "
          f"{figures['own_peak_mb']:,.0f} MB, mapped files' pages at most "
          f"{figures['files_peak_mb']:,.0f} MB), {figures['cpu_s']:.1f} CPU s")
    return {"positions": {"explore": len(popular), "search": len(searched)}, "runs": rows,
            "targets": targets, "server": figures}


def process_figures(pid: int) -> dict:
    """The ``threads``, resident memory (``rss_mb``, and its peak ``hwm_mb``) and CPU seconds
    (``cpu_s``) of process ``pid`` (from ``/proc``)."""
    import os

    status = Path(f"/proc/{pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return {"threads": int(fields["Threads"]), "rss_mb": int(fields["VmRSS"].split()[0]) / 1024,
            "hwm_mb": int(fields["VmHWM"].split()[0]) / 1024,
            "cpu_s": (int(stat[11]) + int(stat[12])) / ticks}


def cheap_positions(store_dir, count: int, seed: int = 26) -> list:
    """SFENs of ``count`` seeded random positions of stored games (any ply)."""
    import random

    from kifudb.analytics import stats
    from kifudb.api import stored_game

    rng = random.Random(seed)
    chosen = stats.games(store_dir, limit=10 ** 6)
    found = []
    while len(found) < count:  # 20 a game: reading a game costs more than a search
        sfens = stored_game(store_dir, rng.choice(chosen)["game"]).as_dict()["sfens"]
        found += rng.sample(sfens, min(20, len(sfens)))
    rng.shuffle(found)
    return found[:count]


def _status(what: str, answer) -> str:
    """How an answer is counted: ``novelties 200``, ``search 503 busy`` (its error code), a
    503 ``busy`` without ``Retry-After`` as ``… busy NO Retry-After``."""
    if answer.status_code == 200:
        return f"{what} 200"
    try:
        code = answer.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):
        code = "?"
    missing = " NO Retry-After" if code == "busy" and "retry-after" not in answer.headers else ""
    return f"{what} {answer.status_code} {code}{missing}"


async def flood(base: str, pid: int, cheap: list, seconds: float, clients: int) -> dict:
    """``clients`` clients asking novelties pages for ``seconds`` while one asks ``/search``
    of the ``cheap`` positions in turn; the figures (the server is process ``pid``)."""
    import httpx2

    latencies, statuses, samples, stop = [], {}, [], asyncio.Event()
    limits = httpx2.Limits(max_connections=clients + 1, max_keepalive_connections=clients + 1)
    async with httpx2.AsyncClient(base_url=base, timeout=120, limits=limits) as http:

        async def expensive(number: int):
            page = 0
            while not stop.is_set():
                offset = number * 200 + page  # every page a new question
                page += 1
                try:
                    answer = await http.get("/stats/novelties", params={"limit": 500,
                                                                        "offset": offset})
                    status = _status("novelties", answer)
                except httpx2.HTTPError as error:
                    answer, status = None, f"novelties {type(error).__name__}"
                statuses[status] = statuses.get(status, 0) + 1
                wait = answer is not None and answer.headers.get("retry-after")
                if wait and wait.isdigit():  # as a client that is told to wait does
                    await asyncio.sleep(min(float(wait), max(0.0, deadline - time.monotonic())))

        async def searches():
            for sfen in cheap:
                if stop.is_set():
                    return
                started = time.perf_counter()
                try:
                    answer = await http.get("/search", params={"sfen": sfen, "limit": 20})
                    status = _status("search", answer)
                except httpx2.HTTPError as error:
                    status = f"search {type(error).__name__}"
                latencies.append((time.perf_counter() - started) * 1000)
                statuses[status] = statuses.get(status, 0) + 1

        async def sampler():
            while not stop.is_set():
                samples.append(process_figures(pid))
                await asyncio.sleep(0.1)

        async def timer():
            await asyncio.sleep(seconds)
            stop.set()

        deadline = time.monotonic() + seconds

        await asyncio.gather(timer(), sampler(), searches(),
                             *(expensive(i) for i in range(clients)))
    ended = process_figures(pid)
    await asyncio.sleep(5)
    after = process_figures(pid)
    return {"search_requests": len(latencies), "threads_at_end": ended["threads"],
            "search_p50_ms": round(statistics.median(latencies), 1),
            "search_p99_ms": round(_percentile(latencies, 0.99), 1),
            "search_max_ms": round(max(latencies), 1), "statuses": statuses,
            "max_threads": max(s["threads"] for s in samples),
            "max_rss_mb": round(max(s["rss_mb"] for s in samples)),
            "cpu_s_in_5s_after": round(after["cpu_s"] - ended["cpu_s"], 2),
            "threads_5s_after": after["threads"]}


def run_flood(store_dir, seconds: float = 20.0, clients: int = 40, idle: int = 100) -> dict:
    """``kifudb serve`` on ``store_dir``: the p99 of ``idle`` cheap searches alone, then of
    cheap searches during a flood of ``clients`` expensive clients (``flood``)."""
    store_dir = Path(store_dir).resolve()
    cheap = cheap_positions(store_dir, idle + 2000)
    server, base = start_server(store_dir)
    try:
        started = process_figures(server.pid)
        alone = asyncio.run(_load(base, "/search", [{"sfen": s, "limit": 20}
                                                    for s in cheap[:idle]], 1, idle,
                                  warm_up=False))
        flooded = asyncio.run(flood(base, server.pid, cheap[idle:], seconds, clients))
    finally:
        server.terminate()
        server.communicate(timeout=60)
    return {"idle": {"search_p50_ms": round(alone["p50_ms"], 1),
                     "search_p99_ms": round(alone["p99_ms"], 1),
                     "threads": started["threads"], "rss_mb": round(started["rss_mb"])},
            "flood": {"clients": clients, "seconds": seconds, **flooded}}


def run_scales(scales=("100k",), requests: int = 400) -> dict:
    """The load benchmark on the stores of ``bench/results`` (built when missing)."""
    from bench.store import stores_at

    result = {}
    for name, store_dir in stores_at(scales, "kifudb serve"):
        print(f"httpx2, {requests} requests a run", flush=True)
        result[name] = run_serve(store_dir, requests)
        (RESULTS / f"serve-{name}.json").write_text(json.dumps(result[name], indent=1),
                                                    encoding="utf-8")
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.serve",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path, help="the store folder")
    parser.add_argument("--requests", type=int, default=400, help="requests a run")
    parser.add_argument("--flood", action="store_true",
                        help="cheap requests during a flood of expensive ones instead")
    parser.add_argument("--seconds", type=float, default=20.0, help="the flood's length")
    parser.add_argument("--clients", type=int, default=40, help="the flood's clients")
    args = parser.parse_args(argv)
    if args.flood:
        print(json.dumps(run_flood(args.store, args.seconds, args.clients), indent=1))
    else:
        run_serve(args.store, args.requests)
    return 0


if __name__ == "__main__":
    sys.exit(main())
