"""``kifudb book``: an opening book in YaneuraOu's format (``analytics.book``) from the moves
played in the store's games, chosen by the same filters as ``kifudb explore`` and ``kifudb
stats``.

    kifudb book --store data/store --output book.db --min-games 2 --max-ply 40 --from 2010-01-01
"""

from __future__ import annotations

from pathlib import Path

import click

from kifudb.output import plural, printable, replaced_files
from kifudb.cli_store import _guard, _open_store, _store_option, game_filter, game_filter_options

__all__ = ["book", "DEFAULT_MAX_PLY"]

#: The moves of each game a book holds unless ``--max-ply`` says otherwise: an opening book's
#: (book makers cut records at a ply too: YaneuraOu's ``makebook`` takes ``moves N``); past
#: it, nearly every position of a collection is one game's alone. ``--max-ply 0``: every move.
DEFAULT_MAX_PLY = 32


@click.command()
@_store_option
@click.option("--output", "-o", required=True,
              type=click.Path(dir_okay=False, writable=True, path_type=Path),
              help="The book file to write (YaneuraOu's book.db format).")
@click.option("--overwrite", is_flag=True,
              help="Replace the --output file if it exists (else nothing is written).")
@click.option("--min-games", type=click.IntRange(min=1), default=1, show_default=True,
              metavar="N", help="Keep the moves played in at least N games.")
@click.option("--max-ply", type=click.IntRange(min=0), metavar="N", default=DEFAULT_MAX_PLY,
              show_default=True, help="Only each game's first N moves (0: every move).")
@game_filter_options
@_guard
def book(store_dir: Path, output: Path, overwrite: bool, min_games: int, max_ply,
         **options) -> None:
    """Write an opening book (YaneuraOu's #YANEURAOU-DB2016 format) of the moves played in
    the first --max-ply moves of each game (32 by default; 0: every move)."""
    from kifudb.analytics.book import write_book
    from kifudb.analytics.files import OutputRefused

    filters = game_filter(options)
    store = _open_store(store_dir)
    try:
        written = write_book(store, output, filters=filters, min_games=min_games,
                             max_ply=max_ply or None, overwrite=overwrite)
    except OutputRefused as refusal:  # the output's, not the store's (a full disk there)
        raise click.ClickException(printable(refusal)) from None
    click.echo(f"{printable(output)}: {plural(written['positions'], 'position')}, "
               f"{plural(written['moves'], 'move')} from {plural(written['games'], 'game')}")
    if written["replaced"]:
        click.echo(replaced_files([output]))
