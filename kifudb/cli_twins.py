"""``kifudb twins``: the games that are probably one game stored twice (the same moves under
other metadata, or one record the beginning of another: ``analytics.twins``), listed for the
user to merge or keep — nothing is changed.

    kifudb twins [--min-moves 40] [--format json]
"""

from __future__ import annotations

from pathlib import Path

import click

from kifudb.output import PathNames, plural
from kifudb.cli_store import _echo_json, _guard, _open_store, _store_option, _table

__all__ = ["twins"]


@click.command()
@click.option("--min-moves", type=click.IntRange(min=1), default=40, show_default=True,
              help="Only games of at least N moves (short fragments of one opening are not "
                   "the same game).")
@click.option("--format", "output", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@_store_option
@_guard
def twins(min_moves: int, output: str, store_dir: Path) -> None:
    """List the probable twins: the same game under different metadata, or a prefix of
    another game. Nothing is merged."""
    from kifudb.analytics.twins import twins as find

    found = find(_open_store(store_dir), min_moves=min_moves)
    if output == "json":
        _echo_json(found)
        return
    if not found:
        click.echo(f"no twins among the games of at least {plural(min_moves, 'move')}")
        return
    names = PathNames()
    rows = []
    for number, twin in enumerate(found, 1):
        for game in twin["games"]:
            rows.append([number, twin["kind"], game["game"], game["date"] or "-",
                         game["black"], game["white"], game["moves"], game["winner"],
                         names(game["path"]) if game["path"] else "-"])
    click.echo(_table(["#", "kind", "game", "date", "▲ black", "△ white", "moves", "result",
                       "file"], rows, limits={4: 24, 5: 24, 8: 60}, right={0, 2, 6}))
    click.echo(f"{plural(len(found), 'probable twin')}: nothing was merged; keep both, or "
               f"delete the record you do not want and ingest again")
