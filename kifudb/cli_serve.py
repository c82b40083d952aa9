"""``kifudb serve``: the HTTP JSON API (``kifudb.http``) on uvicorn, read-only, on one store.

    kifudb serve [--store DIR] [--host 127.0.0.1] [--port 8080] [--timeout 10]
                 [--cache-mb 64] [--header-timeout 10] [--max-connections 512] [--workers 1]

It prints its address and answers until Ctrl-C; a busy port, a missing store or a file limit
(``ulimit -n``) too low for ``--max-connections`` is said before anything is served (the soft
limit is raised to what is needed when the hard one allows it). FastAPI, uvicorn and DuckDB
load only when the command runs.

``--workers N`` answers in N processes that share the listening socket (the kernel hands each
new connection to one of them), each with its own engine, caches and desks (memory N times):
the answers of one process are limited by its interpreter's lock to about one core. Ctrl-C or
SIGTERM stops them all; a worker that dies is said and ends the server.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from kifudb.output import printable
from kifudb.cli_ports import port_problem
from kifudb.cli_store import _open_store, _store_option

__all__ = ["serve"]


@click.command()
@_store_option
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on (0.0.0.0 for every interface).")
@click.option("--port", type=click.IntRange(1, 65535), default=8080, show_default=True)
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=10.0,
              show_default=True, metavar="SECONDS",
              help="Answer 503 to a question that takes longer.")
@click.option("--cache-mb", type=click.FloatRange(min=0), default=64, show_default=True,
              metavar="MB", help="Megabytes of answers (as JSON) kept until the next commit.")
@click.option("--header-timeout", type=click.FloatRange(min=0, min_open=True), default=10.0,
              show_default=True, metavar="SECONDS",
              help="Close a connection that takes longer to send a request's headers.")
@click.option("--max-connections", type=click.IntRange(1, 100_000), default=512,
              show_default=True, help="Connections open at once (one more: 503 and closed).")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Processes that answer (each about one core, and its own memory).")
def serve(store_dir: Path, host: str, port: int, timeout: float, cache_mb: float,
          header_timeout: float, max_connections: int, workers: int) -> None:
    """Serve the store's questions as an HTTP JSON API (explorer, search, games, statistics);
    the interactive documentation is at /docs."""
    store = _open_store(store_dir)
    busy = port_problem(host, port)
    if busy is not None:
        raise click.ClickException(f"cannot serve on {host}:{port}: {busy}; choose another "
                                   f"with --port")
    _enough_files(max_connections)
    shown = f"[{host}]" if ":" in host else host
    options = dict(timeout=timeout, cache_bytes=int(cache_mb * 2 ** 20),
                   header_timeout=header_timeout, max_connections=max_connections)
    if workers == 1:
        from kifudb.http import app, server
        api = app(store.root, timeout=timeout, cache_bytes=options["cache_bytes"])
        _say_address(store.root, shown, port, "")
        server(api, host, port, header_timeout=header_timeout,
               max_connections=max_connections).run()
        return
    from kifudb.http_workers import serve_in_workers
    serve_in_workers(store.root, host, port, workers, options,
                     ready=lambda: _say_address(store.root, shown, port, f", {workers} workers"))


def _say_address(root: Path, shown: str, port: int, workers: str) -> None:
    click.echo(f"kifudb serve on {printable(root)}: http://{shown}:{port}/  (documentation "
               f"at /docs{workers}; Ctrl-C stops it)")
    sys.stdout.flush()


#: Files the server opens besides its connections (the store's files, the interpreter's).
_OTHER_FILES = 256


def _enough_files(max_connections: int) -> None:
    """Raise the soft limit of open files to ``max_connections`` and the server's other files,
    or say that the hard limit is too low."""
    try:
        import resource
    except ImportError:  # not on this system: nothing to check
        return
    needed = max_connections + _OTHER_FILES
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return
    if hard != resource.RLIM_INFINITY and hard < needed:
        raise click.ClickException(f"--max-connections {max_connections} needs {needed} open "
                                   f"files and the limit is {hard} (ulimit -Hn): choose at "
                                   f"most --max-connections {max(1, hard - _OTHER_FILES)}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
