"""``kifudb analyse`` (or ``analyze``): a USI engine's judgement of every distinct position of
the chosen games, committed to the store (``analysis.run``), resumed where a run stopped.

    kifudb analyse --store DIR --engine ENGINE [--nodes N | --depth N | --movetime MS]
                   [--multipv K] [--option NAME=VALUE ...] [filters] [--jobs N | --cluster ADDR]
"""

from __future__ import annotations

from pathlib import Path

import click

from kifudb.cli_store import _guard, _open_store, _store_option, game_filter, game_filter_options
from kifudb.output import printable, progress_option, wants_progress

__all__ = ["analyse"]

#: the search of a run that names no limit
DEFAULT_NODES = 20_000


def _option(text: str) -> tuple:
    name, equals, value = text.partition("=")
    if not equals or not name.strip():
        raise click.BadParameter(f"{text!r}: give NAME=VALUE (an option the engine lists "
                                 f"after 'usi')", param_hint="--option")
    return name.strip(), value.strip()


@click.command()
@click.option("--engine", required=True,
              help="A USI engine: its path, or its name on PATH or in /usr/games "
                   "(fairy-stockfish, gpsusi, YaneuraOu...).")
@click.option("--nodes", type=click.IntRange(min=1),
              help=f"Search each position to N nodes (without a limit: {DEFAULT_NODES:,}).")
@click.option("--depth", type=click.IntRange(min=1), help="Search each position to depth N.")
@click.option("--movetime", type=click.IntRange(min=1), help="Search each position MS ms.")
@click.option("--multipv", type=click.IntRange(1, 16), default=1, show_default=True,
              help="Lines per position (2 finds puzzles: one move wins, the others do not).")
@click.option("--option", "engine_options", multiple=True, metavar="NAME=VALUE",
              help="An engine option (setoption), repeatable: --option Hash=256.")
@click.option("--deadline", type=click.FloatRange(min=0.1),
              help="Seconds after which a search is said to hang (its engine is restarted and "
                   "the position tried once more); by default far above the limit.")
@click.option("--commit-every", type=click.IntRange(min=1), metavar="N",
              help="Commit the analysed positions every N positions (and every minute); a "
                   "killed run loses at most the last N.  [default: 2,000]")
@game_filter_options
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Engines run at once on this machine.")
@click.option("--cluster", metavar="ADDRESS",
              help="Run an engine on each worker of a Dask cluster: tcp://HOST:PORT, a "
                   "scheduler file (.json) or local:N.")
@progress_option
@_store_option
@_guard
def analyse(engine, nodes, depth, movetime, multipv, engine_options, deadline, commit_every,
            jobs, cluster, progress, store_dir: Path, **options) -> None:
    """Analyse every distinct position of the chosen games with a USI engine, once per engine,
    limit and number of lines, and keep its score, best move and line in the store.

    Positions already analysed are not sent again: a run that was stopped goes on where it
    stopped. Positions without a king on each side or without a legal move are counted, not
    sent. An engine that dies, hangs or answers an illegal move is restarted and the position
    tried once more, then reported; the others go on."""
    from kifudb.analysis.run import COMMIT_POSITIONS, analyse as run
    from kifudb.analysis.usi import EngineError
    from kifudb.store.manifest import StoreError

    limits = [f"{name}={value}" for name, value in
              (("nodes", nodes), ("depth", depth), ("movetime", movetime)) if value is not None]
    if len(limits) > 1:
        raise click.UsageError("give one of --nodes, --depth and --movetime")
    if jobs > 1 and cluster:
        raise click.UsageError("give --jobs or --cluster, not both")
    _open_store(store_dir)
    try:
        report = run(store_dir, engine, limits[0] if limits else f"nodes={DEFAULT_NODES}",
                     multipv=multipv, options=tuple(_option(o) for o in engine_options),
                     filters=game_filter(options), jobs=jobs, cluster=cluster,
                     deadline=deadline, progress=wants_progress(progress),
                     commit_positions=commit_every or COMMIT_POSITIONS)
    except (EngineError, StoreError) as error:
        raise click.ClickException(printable(str(error))) from None
    for line in report.lines():
        click.echo(printable(line))
    if report.interrupted:
        raise SystemExit(130)
    if report.failed:
        raise SystemExit(1)
