"""``kifudb pattern``: the games whose main line reached a position of a pattern (pieces on
squares, empty squares, pieces in hand, material: ``core.pattern`` has the grammar), the first
ply where it held, and what was played next (``analytics.pattern``).

    kifudb pattern CONDITION... [--turn black|white] [--min-ply N] [--max-ply N] [--mirror]
                   [--either-side] [filters] [--limit N] [--offset N] [--format text|json|csv]
"""

from __future__ import annotations

from pathlib import Path

import click

from kifudb.cli_store import (_echo_json, _guard, _open_store, _store_option, _table, game_filter,
                              game_filter_options)
from kifudb.output import PathNames, csv_text, plural

__all__ = ["pattern"]

_TEXT_ROWS = 20  # rows the text form shows without --limit


@click.command()
@click.argument("conditions", nargs=-1, required=True)
@click.option("--turn", type=click.Choice(["black", "white"]),
              help="Only positions with this side to move.")
@click.option("--min-ply", type=click.IntRange(min=0), help="From this ply on (0: the start).")
@click.option("--max-ply", type=click.IntRange(min=0), help="Up to this ply (included).")
@click.option("--mirror", is_flag=True, help="Also the pattern reflected left-right.")
@click.option("--either-side", is_flag=True,
              help="Also the pattern given to the other side (colours exchanged, the board "
                   "turned half a turn, and --turn with it).")
@game_filter_options
@click.option("--limit", type=click.IntRange(min=1), help="At most N games (the text form: 20).")
@click.option("--offset", type=click.IntRange(min=0), default=0, help="Skip the first N games.")
@click.option("--format", "output", type=click.Choice(["text", "json", "csv"]), default="text",
              show_default=True)
@_store_option
@_guard
def pattern(conditions, turn, min_ply, max_ply, mirror, either_side, limit, offset, output,
            store_dir: Path, **options) -> None:
    """The games whose main line reached a position where every CONDITION holds, newest first,
    with the first ply where it held and what was played next.

    \b
    ▲金58      Black has a gold on 5h      △飛2*    a White rook on file 2
    ▲玉28/39   on 2h or 3i                 ▲金/銀67 a gold or a silver
    ▲*77       any Black piece on 7g       ・55     5e is empty
    !▲銀77     no Black silver on 7g       ▲持角    Black holds a bishop
    ▲持歩3     at least three pawns        △持なし  White's hand is empty
    ▲飛=2      Black has both rooks (on the board and in hand; >= <= > < too)
    """
    from kifudb.analytics.pattern import PatternSearch, find_pattern

    store = _open_store(store_dir)
    search = PatternSearch.of(conditions, turn=turn, min_ply=min_ply, max_ply=max_ply,
                              mirror=mirror, either_side=either_side)
    filters = game_filter(options)
    shown = limit if limit is not None or output != "text" else _TEXT_ROWS
    found = find_pattern(store, search, filters=filters, limit=shown, offset=offset)
    if output == "json":
        _echo_json(found)
        return
    columns = ["game", "ply", "plies", "date", "black", "white", "winner", "reason", "event",
               "handicap", "path"]
    if output == "csv":
        click.echo(csv_text(columns, [[m[c] for c in columns] for m in found["matches"]]),
                   nl=False)
        return
    click.echo(f"pattern: {found['pattern']}")
    if not found["games"]:
        click.echo("no game reached it" + (" (in the games of the filters)" if filters else ""))
        return
    click.echo(f"{plural(found['games'], 'game')} reached it")
    names = PathNames()
    rows = [[m["date"] or "-", m["game"], m["ply"], m["plies"], m["black"], m["white"],
             m["winner"], m["event"] or "-", names(m["path"]) if m["path"] else "-"]
            for m in found["matches"]]
    click.echo(_table(["date", "game", "ply", "plies", "▲ black", "△ white", "result", "event",
                       "file"], rows, limits={4: 20, 5: 20, 7: 24, 8: 50}, right={1, 2, 3}))
    rest = found["games"] - offset - len(found["matches"])
    if rest > 0:
        click.echo(f"… {plural(rest, 'more game')} (--limit N, --offset N)")
    if found["next_moves"]:
        played = ", ".join(f"{m['usi']} {m['games']}" for m in found["next_moves"][:8])
        click.echo(f"played next (games): {played}")
