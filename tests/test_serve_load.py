"""``kifudb serve`` as a process under hostile load, on loopback (issue 26): a flood of costly
statistics leaves the cheap lookups answering and the threads bounded; connections that never
finish their headers are closed, and connections beyond the limit refused at once, while a
normal request still answers."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time

import httpx2
import pytest

from bench.serve import _load, cheap_positions, flood, process_figures, start_server
from kifudb.http import LOOKUPS, STATISTICS

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def generated_store(tmp_path_factory):
    """A store of 100,000 positions of seeded synthetic games (``bench.corpus``): enough that
    a page of 500 novelties takes about a second."""
    from bench.corpus import write_corpus
    from kifudb.store.writer import ingest_paths

    folder = tmp_path_factory.mktemp("flood")
    write_corpus(folder / "corpus", positions=100_000, jobs=1, quiet=True)
    ingest_paths([str(folder / "corpus" / "files")], folder / "store")
    return folder / "store"


@contextlib.contextmanager
def serving(store, *options: str):
    """``kifudb serve`` on ``store`` with ``options``: ``(process, base URL, port)``."""
    server, base = start_server(store, *options)
    try:
        yield server, base, int(base.rsplit(":", 1)[1])
    finally:
        server.terminate()
        server.communicate(timeout=60)


def test_cheap_questions_answer_during_a_flood_of_costly_ones(generated_store):
    """40 clients asking pages of 500 novelties without pause, one asking searches: the
    searches' p99 stays within ten times the idle one (or 2 s), none fails, costly questions
    beyond the statistics' desk are a 503 busy with Retry-After, and the server's threads grow
    by no more than its desks' workers."""
    cheap = cheap_positions(generated_store, 400)
    with serving(generated_store, "--timeout", "5") as (server, base, _):
        alone = asyncio.run(_load(base, "/search", [{"sfen": s, "limit": 20} for s in cheap[:60]],
                                  1, 60, warm_up=False))
        idle_threads = process_figures(server.pid)["threads"]
        flooded = asyncio.run(flood(base, server.pid, cheap[60:], seconds=8, clients=40))
    statuses = flooded["statuses"]
    print(f"idle p99 {alone['p99_ms']:.1f} ms, {idle_threads} threads; flood: {flooded}")
    assert set(s for s in statuses if s.startswith("search")) == {"search 200"}, statuses
    assert flooded["search_requests"] >= 5
    assert flooded["search_p99_ms"] < max(10 * alone["p99_ms"], 2000), (alone, flooded)
    assert statuses.get("novelties 503 busy", 0) > 0, statuses
    assert not any("NO Retry-After" in s for s in statuses), statuses
    watchers = 2  # a desk's thread that interrupts the questions given up
    assert flooded["max_threads"] <= idle_threads + LOOKUPS[0] + STATISTICS[0] + watchers, \
        (idle_threads, flooded)


def _answer(connection: socket.socket, wait: float = 30) -> bytes:
    """All the server sends on ``connection`` until it closes it (at most ``wait`` seconds)."""
    connection.settimeout(wait)
    received = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := connection.recv(4096):
            received += chunk
    return received


def test_unfinished_headers_are_closed(dashboard_store):
    """200 connections that send half a request's headers, one that sends nothing and one
    that trickles its headers a byte at a time: a normal request answers while they are open,
    and each is answered 408 and closed once its headers are late."""
    with serving(dashboard_store, "--header-timeout", "2") as (_, base, port):
        half = []
        for _ in range(200):
            connection = socket.create_connection(("127.0.0.1", port))
            connection.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            half.append(connection)
        silent = socket.create_connection(("127.0.0.1", port))
        assert httpx2.get(f"{base}/health", timeout=30).status_code == 200
        trickle, sent = socket.create_connection(("127.0.0.1", port)), 0
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            for byte in b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X" * 200:
                trickle.sendall(bytes([byte]))
                sent += 1
                time.sleep(0.05)  # 12 s in all if the server waits
                if sent % 20 == 0 and _closed(trickle):
                    break
        assert sent < 240  # closed before the end
        for connection in [*half, silent, trickle]:
            assert _answer(connection).startswith(b"HTTP/1.1 408 Request Timeout\r\n")
            connection.close()
        assert httpx2.get(f"{base}/health", timeout=30).status_code == 200


def _closed(connection: socket.socket) -> bool:
    """Whether the server has answered or closed ``connection`` (without waiting)."""
    import select

    return bool(select.select([connection], [], [], 0)[0])


def test_connections_beyond_the_limit_are_refused_at_once(dashboard_store):
    """With --max-connections 20 and 20 idle connections open, the next is answered 503 with
    Retry-After and closed at once; once one closes, a request answers again."""
    with serving(dashboard_store, "--max-connections", "20", "--header-timeout", "60") \
            as (_, base, port):
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
        time.sleep(0.5)  # all accepted
        extra = socket.create_connection(("127.0.0.1", port))
        refused = _answer(extra)
        assert refused.startswith(b"HTTP/1.1 503 Service Unavailable\r\n")
        assert b"Retry-After: 2\r\n" in refused
        idle.pop().close()
        time.sleep(0.5)
        assert httpx2.get(f"{base}/health", timeout=30).status_code == 200
        for connection in idle:
            connection.close()
