"""``kifudb serve``: the HTTP JSON API (``kifudb.http``) on uvicorn, read-only, on one store.

    kifudb serve [--store DIR] [--host 127.0.0.1] [--port 8080] [--timeout 10]

It prints its address and answers until Ctrl-C; a busy port or a missing store is said before
anything is served. FastAPI, uvicorn and DuckDB load only when the command runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from kifudb.output import printable
from kifudb.cli.ports import port_problem
from kifudb.cli.store import _open_store, _store_option

__all__ = ["serve"]


@click.command()
@_store_option
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on (0.0.0.0 for every interface).")
@click.option("--port", type=click.IntRange(1, 65535), default=8080, show_default=True)
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=10.0,
              show_default=True, metavar="SECONDS",
              help="Answer 503 to a question that takes longer.")
def serve(store_dir: Path, host: str, port: int, timeout: float) -> None:
    """Serve the store's questions as an HTTP JSON API (explorer, search, games, statistics);
    the interactive documentation is at /docs."""
    store = _open_store(store_dir)
    busy = port_problem(host, port)
    if busy is not None:
        raise click.ClickException(f"cannot serve on {host}:{port}: {busy}; choose another "
                                   f"with --port")
    import uvicorn

    from kifudb.http import app

    api = app(store.root, timeout=timeout)
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"kifudb serve on {printable(store.root)}: http://{shown}:{port}/  (documentation "
               f"at /docs; Ctrl-C stops it)")
    sys.stdout.flush()
    uvicorn.run(api, host=host, port=port, log_level="warning", access_log=False)
