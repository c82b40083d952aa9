"""``kifudb serve --workers N``: the HTTP API (``kifudb.http``) answered by N processes that
share one listening socket.

The command binds the socket, then starts N fresh interpreters (``spawn``: nothing of the
parent's DuckDB connections or threads is inherited), each of which builds the API on the store
and serves on the socket it was handed; the kernel gives each new connection to one of them.
Each has its own engine, caches and desks, so memory grows with N while answers scale with the
cores (one process answers on about one core: its interpreter's lock). The command waits; Ctrl-C
or SIGTERM stops every worker, and a worker that dies is said (with its exit code) and stops the
others: a half-served API is not left running.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import signal
import socket
import sys
from pathlib import Path
from typing import Callable

__all__ = ["serve_in_workers"]

#: connections waiting to be accepted by a worker
BACKLOG = 2048
#: seconds the workers have to finish their answers once stopped, before they are killed
STOP_GRACE = 10.0


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` and listening, as uvicorn would bind it."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(BACKLOG)
    sock.set_inheritable(True)
    return sock


def _answer(root: str, sock: socket.socket, options: dict) -> None:
    """One worker: the API on the store at ``root``, served on ``sock`` until stopped."""
    from kifudb.http import app, server

    api = app(Path(root), timeout=options["timeout"], cache_bytes=options["cache_bytes"])
    server(api, "", 0, header_timeout=options["header_timeout"],
           max_connections=options["max_connections"]).run(sockets=[sock])


def _stop(signal_number, frame):
    raise KeyboardInterrupt


def serve_in_workers(root: Path, host: str, port: int, workers: int, options: dict,
                     ready: Callable[[], None]) -> None:
    """Serve the store at ``root`` on ``host``:``port`` from ``workers`` processes until
    Ctrl-C or SIGTERM (``options``: ``timeout``, ``cache_bytes``, ``header_timeout``,
    ``max_connections``, each worker's); ``ready()`` once the socket listens. A worker that
    dies ends the server with exit code 1."""
    try:
        sock = listening_socket(host, port)
    except OSError as error:  # taken since the command looked (port_problem), or not ours
        print(f"kifudb serve: cannot listen on {host}:{port}: {error.strerror or error}",
              file=sys.stderr)
        sys.exit(1)
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=_answer, args=(str(root), sock, options),
                                 name=f"kifudb serve worker {number}")
                 for number in range(1, workers + 1)]
    previous = signal.signal(signal.SIGTERM, _stop)
    failed = None
    try:
        for process in processes:
            process.start()
        ready()
        ended = multiprocessing.connection.wait([process.sentinel for process in processes])
        failed = next(process for process in processes if process.sentinel in ended)
        failed.join()  # its exit code
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        _stop_all(processes)
        sock.close()
    if failed is not None:
        print(f"kifudb serve: {failed.name} stopped (exit code {failed.exitcode}); the others "
              f"were stopped too", file=sys.stderr)
        sys.exit(1)


def _stop_all(processes: list) -> None:
    """SIGTERM to the workers still running (uvicorn then finishes its answers), SIGKILL to those
    still running ``STOP_GRACE`` seconds later."""
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(STOP_GRACE)
        if process.is_alive():
            process.kill()
            process.join()
