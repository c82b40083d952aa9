"""``kifudb players``: the store's players by canonical name with their spellings
(``labels.players``, rules in ``labels/players.toml``), and with ``--suggest`` the probable
merges the rules did not make.

    kifudb players [--limit 50] [--format json]
    kifudb players --suggest
"""

from __future__ import annotations

from pathlib import Path

import click

from kifudb.output import plural
from kifudb.cli_store import _echo_json, _guard, _open_store, _store_option, _table

__all__ = ["players"]


@click.command()
@click.option("--suggest", is_flag=True,
              help="List the probable merges not made: names left as written (a surname with "
                   "a title in an undated game …) with the players they may be.")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True,
              help="At most N players listed (most games first).")
@click.option("--format", "output", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@_store_option
@_guard
def players(suggest: bool, limit: int, output: str, store_dir: Path) -> None:
    """The players by canonical name, with every spelling found in the records."""
    from kifudb.analytics import players as names

    store = _open_store(store_dir)
    if suggest:
        found = names.suggestions(store)
        if output == "json":
            _echo_json(found)
        elif not found:
            click.echo("no probable merge left: every name was resolved")
        else:
            click.echo(_table(["as written", "games", "undated", "may be", "why"],
                              [[s["written"], s["games"], s["undated"] if s["undated"] is not None
                                else "", ", ".join(s["candidates"]) or "-", s["reason"]]
                               for s in found], limits={0: 30, 3: 40}, right={1, 2}))
            click.echo(f"{plural(len(found), 'name')} not merged: add an alias or a title "
                       f"holder to labels/players.toml, or give the games a date")
        return
    listed = names.spellings(store, limit=limit)
    if output == "json":
        _echo_json(listed)
    elif not listed:
        click.echo("no player in the store")
    else:
        click.echo(_table(["player", "games", "as written"],
                          [[p["name"], p["games"], " / ".join(p["spellings"])] for p in listed],
                          limits={0: 30, 2: 80}, right={1}))
