"""``kifudb search``, ``kifudb explore`` and ``kifudb sql``: the store's questions on the command
line (a thin layer over ``analytics.queries`` and ``analytics.position_input``).

    kifudb search --moves "7g7f 3c3d 2g2f" [--mirror] [--format json]
    kifudb search --game 12 --ply 30           # where else did this position occur?
    kifudb explore --moves "▲７六歩 △３四歩" --player 羽生 --from 2000-01-01 --min-count 2
    kifudb sql "SELECT black, count(*) FROM games GROUP BY 1 ORDER BY 2 DESC" --format csv

A position is given by exactly one of ``--sfen``, ``--moves`` (USI, KIF or KI2; ``--start`` sets
the position they start from), ``--diagram FILE`` (a KIF board diagram; ``-`` reads stdin) or
``--game ID --ply N``; ``explore`` defaults to the even start. Bad input gets a message saying
what is wrong, never a traceback: a diagram file that is not a regular file of at most 64 KB
(``/dev/zero``, a pipe) is refused before it is read, and a damaged store is named as
``kifudb check`` names it (``store_failure``).
"""

from __future__ import annotations

import datetime
import decimal
import functools
import sys
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kifudb.output import PathNames, csv_text, json_text, plural, printable
from kifudb.store import DEFAULT_STORE

if TYPE_CHECKING:
    from kifudb.analytics.filters import GameFilter
    from kifudb.store.folder import Store

__all__ = ["search", "explore", "sql"]

_FORMATS = click.Choice(["text", "json"])
_TEXT_ROWS = 100  # search rows printed as text unless --limit says otherwise


# ----- options shared by the commands ------------------------------------------------------------


def _store_option(command):
    return click.option("--store", "store_dir", type=click.Path(file_okay=False, path_type=Path),
                        default=DEFAULT_STORE, show_default="data/store",
                        help="Store folder.")(command)


def _filter_option(option):
    """The click option of an ``analytics.filters.FilterOption``."""
    settings = {"help": option.help}
    if option.kind == "date":
        settings["metavar"] = "YYYY-MM-DD"
    elif option.kind == "count":
        settings.update(type=click.IntRange(min=0), metavar="N")
    elif option.kind == "flag":
        settings.update(is_flag=True, default=None)
    elif option.kind == "choice":
        settings["type"] = click.Choice(option.choices)
    return option.flag, settings


def game_filter_options(command=None, *, taken: tuple = ()):
    """The options of ``analytics.filters.OPTIONS`` (--player, --since or --from, --until or
    --to, --event, --handicap, --decided, --min-moves, --min-rating, --max-rating, --result,
    --time-control, --played-by, --label, --label-side): the games a question looks at (the
    explorer's and the statistics' ``GameFilter``; see ``game_filter``). The flags of ``taken``
    are left out (``kifudb export`` names its format with ``--to``: its last date is only
    ``--until``)."""
    from kifudb.analytics.filter_options import OPTIONS

    if command is None:
        return lambda command: game_filter_options(command, taken=taken)
    for option in reversed(OPTIONS):
        flag, settings = _filter_option(option)
        flags = [f for f in (flag, *option.aliases) if f not in taken]
        command = click.option(*flags, option.name, **settings)(command)
    return command


class BadValue(click.UsageError):
    """A value the command cannot use, said in one line (``Error: --label: unknown …``), with
    exit status 2 as any usage error; without the usage text click puts above its own."""

    def show(self, file=None) -> None:
        click.echo(f"Error: {self.format_message()}", file=file, err=file is None)


def game_filter(options: dict) -> GameFilter:
    """The ``GameFilter`` of the ``game_filter_options``, taken out of ``options`` (a command's
    keyword arguments); a bad value (an unknown label or handicap, a date that is none …) is
    a ``BadValue`` naming the option: one line, exit status 2."""
    from kifudb.analytics.filter_options import OPTIONS
    from kifudb.analytics.filters import FilterError, from_options

    try:
        return from_options({option.name: options.pop(option.name) for option in OPTIONS})
    except FilterError as error:
        flag = next((o.flag for o in OPTIONS if o.name == error.field), error.field)
        raise BadValue(printable(f"{flag}: {error.problem}")) from None


def _position_options(command):
    options = [
        click.option("--sfen", help="The position as an SFEN ('startpos' works)."),
        click.option("--moves", help="Moves from the start: USI '7g7f 3c3d', KIF '７六歩(77)' "
                                     "or KI2 '▲７六歩 △３四歩'."),
        click.option("--start", default="startpos", show_default=True,
                     help="The SFEN that --moves start from."),
        click.option("--diagram", type=click.Path(dir_okay=False, allow_dash=True),
                     help="A file holding a KIF board diagram (局面図), at most 64 KB; '-' "
                          "for stdin."),
        click.option("--game", "game_id", type=int, help="A game id of the store (with --ply)."),
        click.option("--ply", type=click.IntRange(min=0),
                     help="With --game: the position after this many moves."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _open_store(store_dir: Path) -> Store:
    from kifudb.store.folder import Store  # DuckDB loads only for the commands that need the store
    store = Store(store_dir)
    if not store.manifest_path.exists():
        raise click.ClickException(f"no store at {printable(store.root)}: run 'kifudb ingest "
                                   f"PATH... --store {printable(store_dir)}' first")
    try:
        store.manifest()
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    return store


def _read_diagram(path: str) -> str:
    """The text of the ``--diagram`` file (``-``: standard input), read as
    ``analytics.position_input.read_diagram_file`` reads it: a regular file of at most 64 KB
    (``/dev/zero`` or a folder is refused, not swallowed)."""
    from kifudb.analytics.position_input import read_diagram_file

    source = click.open_file("-", "rb") if path == "-" else path
    try:
        return read_diagram_file(source)
    except ValueError as error:
        raise click.BadParameter(printable(error), param_hint="'--diagram'") from None


def _position(store: Store, sfen, moves, start, diagram, game_id, ply, default=None):
    """The Position the options describe (exactly one way), or ``default``."""
    from kifudb.analytics import position_input as given

    chosen = [name for name, value in (("--sfen", sfen), ("--moves", moves),
                                       ("--diagram", diagram), ("--game", game_id))
              if value is not None]
    if len(chosen) > 1:
        raise click.UsageError(f"give the position one way, not {' and '.join(chosen)}")
    if ply is not None and game_id is None:
        raise click.UsageError("--ply goes with --game")
    if start != "startpos" and moves is None:
        raise click.UsageError("--start goes with --moves")
    if not chosen:
        if default is None:
            raise click.UsageError("give a position: --sfen, --moves, --diagram or --game/--ply")
        return default
    hint = f"'{chosen[0]}'"
    try:
        if sfen is not None:
            return given.position_from_sfen(sfen)
        if moves is not None:
            try:
                start_position = given.position_from_sfen(start)
            except ValueError as error:
                raise click.BadParameter(str(error), param_hint="'--start'") from None
            return given.position_from_moves(moves, start=start_position)
        if diagram is not None:
            return given.position_from_diagram(_read_diagram(diagram))
        if ply is None:
            raise click.UsageError("--game needs --ply (0 is the game's start position)")
        return given.position_from_game(store, game_id, ply)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint=hint) from None


def _guard(function):
    """Turn the query layer's ValueErrors, and a damaged store's errors (``store_failure``:
    which batch and file, and the repair), into click errors: a message, no traceback."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except click.ClickException:
            raise
        except Exception as error:
            message = store_failure(error, kwargs.get("store_dir") or DEFAULT_STORE)
            if message is not None:
                raise click.ClickException(printable(message)) from None
            if isinstance(error, ValueError):
                raise click.ClickException(printable(error)) from None
            raise
    return wrapper


def store_failure(error: BaseException, root, check: bool | None = None) -> str | None:
    """What to tell the user of an error raised while reading the store at ``root`` (the one
    wording of ``store.diagnose``), or None if it is not the store's."""
    if "kifudb.store.folder" not in sys.modules:  # no store was opened: not a store problem
        return None
    from kifudb.store.diagnose import diagnose

    return diagnose(error, root, check)


# ----- formatting --------------------------------------------------------------------------------


def _json_default(value):
    if isinstance(value, (datetime.date, datetime.datetime, datetime.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    return str(value)


def _echo_json(data) -> None:
    click.echo(json_text(data, indent=1, default=_json_default))


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _cell(value, limit: int) -> str:
    text = "" if value is None else printable(value)  # a record's controls, escaped
    if _width(text) <= limit:
        return text
    out = ""
    for ch in text:
        if _width(out + ch) > limit - 1:
            break
        out += ch
    return out + "…"


#: the widest a path is shown in a table (its end: the file's name and folder)
_PATH_WIDTH = 48


def _tail(text, limit: int) -> str:
    """``text`` (printable), its end only, after ``…``, when it is wider than ``limit``."""
    text = printable(text or "")
    if _width(text) <= limit:
        return text
    out = ""
    for ch in reversed(text):
        if _width(ch + out) > limit - 1:
            break
        out = ch + out
    return "…" + out


def _table(headers: list, rows: list, limits: dict = None, right: set = frozenset()) -> str:
    """Rows as aligned columns (wide characters count double); ``limits`` caps a column."""
    limits = limits or {}
    headers = [printable(h) for h in headers]  # an SQL column name may hold anything
    cells = [[_cell(v, limits.get(i, 10 ** 6)) for i, v in enumerate(row)] for row in rows]
    widths = [max([_width(h)] + [_width(r[i]) for r in cells]) for i, h in enumerate(headers)]

    def line(values):
        parts = []
        for i, v in enumerate(values):
            pad = " " * (widths[i] - _width(v))
            parts.append(pad + v if i in right else v + pad)
        return "  ".join(parts).rstrip()
    return "\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in cells])


def _result(winner, reason) -> str:
    if winner in ("black", "white"):
        return f"{winner} ({reason})" if reason and reason != "unknown" else winner
    if winner == "draw":
        return f"draw ({reason})" if reason and reason != "unknown" else "draw"
    return "-" if not reason or reason == "unknown" else reason


def _describe(position) -> dict:
    return {"sfen": position.sfen(), "key": f"{position.key():#018x}"}


# ----- the commands ------------------------------------------------------------------------------


@click.command()
@_position_options
@click.option("--mirror", is_flag=True, help="Also find the left-right mirror image.")
@click.option("--offset", type=click.IntRange(min=0), default=0, show_default=True,
              help="Skip the first N occurrences (a page).")
@click.option("--limit", type=click.IntRange(min=1),
              help=f"At most N occurrences (text shows {_TEXT_ROWS} by default).")
@game_filter_options
@click.option("--format", "output", type=_FORMATS, default="text", show_default=True)
@_store_option
@_guard
def search(sfen, moves, start, diagram, game_id, ply, mirror, offset, limit, output, store_dir,
           **options):
    """Every game and ply where a position occurred (in the games of the filters), newest
    games first."""
    from kifudb.analytics import queries
    from kifudb.analytics.explorer import search_answer

    store = _open_store(store_dir)
    filters = game_filter(options)
    position = _position(store, sfen, moves, start, diagram, game_id, ply)
    if output == "json":
        _echo_json(search_answer(store, position, mirror=mirror, offset=offset, limit=limit,
                                 filters=filters))
        return
    described = _describe(position)
    click.echo(f"position: {described['sfen']}  (key {described['key']})")
    # counted in the store, so that only the rows shown are fetched (the start position of a
    # large store has tens of thousands of occurrences)
    total = queries.occurrences(store, position, mirror=mirror, filters=filters)
    mirrored = total["occurrences"] - (queries.occurrences(store, position, filters=filters)
                                       ["occurrences"] if mirror else total["occurrences"])
    click.echo(f"{plural(total['occurrences'], 'occurrence')} in {plural(total['games'], 'game')}"
               + (f" ({mirrored} of the mirror image)" if mirror else ""))
    if not total["occurrences"]:
        return
    shown = queries.search(store, position, mirror=mirror, limit=limit or _TEXT_ROWS,
                           offset=offset, filters=filters)
    headers = ["date", "game", "ply"] + (["mirror"] if mirror else []) + [
        "black", "white", "result", "next", "event", "path"]
    names = PathNames()  # a path relative to the current folder, its end when it is long
    rows = [[h["date"] or "-", h["game"], h["ply"]] + (["yes" if h["mirrored"] else ""]
                                                       if mirror else [])
            + [h["black"], h["white"], _result(h["winner"], h["reason"]), h["next_move"] or "-",
               h["event"], _tail(names(h["path"]), _PATH_WIDTH)] for h in shown]
    offset = 1 if mirror else 0
    click.echo(_table(headers, rows, limits={3 + offset: 16, 4 + offset: 16, 5 + offset: 24,
                                             7 + offset: 24},
                      right={1, 2}))
    if total["occurrences"] > offset + len(shown):
        click.echo(f"… {total['occurrences'] - offset - len(shown)} more (--limit N, --offset N, "
                   f"or --format json for all)")


@click.command()
@_position_options
@game_filter_options
@click.option("--min-count", type=click.IntRange(min=1), default=1, show_default=True,
              help="Leave out moves played in fewer games.")
@click.option("--history", is_flag=True,
              help="Also the position's games month by month, with Black's score.")
@click.option("--format", "output", type=_FORMATS, default="text", show_default=True)
@_store_option
@_guard
def explore(sfen, moves, start, diagram, game_id, ply, min_count, history, output, store_dir,
            **options):
    """The moves played next in a position (the start of the --handicap, else the even start,
    by default): games, results, latest date. Counts are games (a repetition counts once)."""
    from kifudb.analytics import queries
    from kifudb.core.position import STARTING_SFEN
    from kifudb.core.position import Position

    store = _open_store(store_dir)
    filters = game_filter(options)
    handicap = filters.start_sfen()  # the moves of a handicap game start from its position
    if moves is not None and start == "startpos" and handicap is not None:
        start = handicap
    default = Position.from_sfen(handicap or STARTING_SFEN)
    position = _position(store, sfen, moves, start, diagram, game_id, ply, default=default)
    months = None
    if history:
        from kifudb.analytics.position_history import position_history

        months = position_history(store, position, filters=filters)
    if output == "json":  # the answer of every door (analytics.explorer), as GET /explore's
        from kifudb.analytics.explorer import explorer_answer

        _echo_json({**explorer_answer(store, position, filters=filters, min_count=min_count),
                    **({"history": months} if history else {})})
        return
    from kifudb.analytics.explorer import explorer_move

    found = [explorer_move(row) for row in
             queries.explore(store, position, filters=filters, min_count=min_count)]
    if history:
        _echo_history(months)
    described = _describe(position)
    click.echo(f"position: {described['sfen']}  (key {described['key']})")
    total = sum(m["games"] for m in found)
    click.echo(f"{plural(len(found), 'move')} played next, {plural(total, 'game')}" if found
               else "no games continue from this position" + (" with these filters"
                                                              if filters else ""))
    if not found:
        return

    def share(n, m):
        return f"{100 * n / m['games']:.0f}%"
    rows = [[m["ki2"] or m["usi"], m["usi"], m["games"], share(m["black_wins"], m),
             share(m["white_wins"], m), share(m["draws"], m), share(m["other"], m),
             m["latest_date"] or "-"] for m in found]
    headers = ["move", "usi", "games", "black", "white", "draw", "no result", "latest"]
    if any(m["average_rating"] is not None for m in found):  # rated games (shogi-server)
        headers.append("rating")
        for row, m in zip(rows, found):
            row.append("-" if m["average_rating"] is None else f"{m['average_rating']:.0f}")
    if any(m.get("performance") is not None for m in found):  # the mover's, vs rated opponents
        headers.append("performance")
        for row, m in zip(rows, found):
            row.append("-" if m["performance"] is None else f"{m['performance']:.0f}")
    click.echo(_table(headers, rows, right={2, 3, 4, 5, 6, 8}))
    if any(m["other"] for m in found):
        click.echo("(no result: games without a win or a draw — aborted, fragments, records "
                   "without an ending; --decided leaves them out)")


def _echo_history(months: list) -> None:
    """``--history``: the position's dated games per month (before the moves' table)."""
    if not months:
        click.echo("history: no dated game reached this position")
        return
    click.echo(_table(["month", "games", "black", "white", "draw", "Black's score", "95% CI"],
                      [[m["month"], m["games"], m["black_wins"], m["white_wins"], m["draws"],
                        "-" if m["black_score"] is None else f"{m['black_score']:.1%}",
                        "-" if m["ci_low"] is None else f"{m['ci_low']:.1%}–{m['ci_high']:.1%}"]
                       for m in months], right={1, 2, 3, 4}))
    click.echo("")


@click.command()
@click.argument("query")
@click.option("--limit", type=click.IntRange(min=0), default=1000, show_default=True,
              help="At most N rows.")
@click.option("--format", "output", type=click.Choice(["text", "json", "csv"]), default="text",
              show_default=True)
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
              show_default="30", help="Stop the query after this many seconds.")
@click.option("--memory-limit", metavar="SIZE", show_default="1GB",
              help="The memory the query may use, e.g. 512MB or 4GB.")
@_store_option
@_guard
def sql(query, limit, output, timeout, memory_limit, store_dir):
    """Run one read-only SQL query (SELECT, WITH, DESCRIBE, SHOW, SUMMARIZE) on the store's
    views: games, sources, moves, positions, findings, files (and *_all with retired rows)."""
    from kifudb.store.sql import SqlError, run_sql

    store = _open_store(store_dir)
    limits = {k: v for k, v in (("timeout", timeout), ("memory_limit", memory_limit))
              if v is not None}  # store.sql's defaults otherwise
    try:
        result = run_sql(store, query, limit=limit, **limits)
    except SqlError as error:
        # the store's views could not be made (a user's query is never a CREATE: one that
        # fails has nothing checked)
        damaged = store_failure(error, store.root,
                                check="CREATE OR REPLACE VIEW" in str(error))
        if damaged is not None:
            raise click.ClickException(printable(damaged)) from None
        raise click.ClickException(f"query refused or failed: {printable(error, lines=True)}") \
            from None
    except ValueError as error:  # a memory size that is not one
        raise click.BadParameter(str(error), param_hint="'--memory-limit'") from None
    if output == "json":
        _echo_json({"columns": result.columns, "rows": [list(r) for r in result.rows],
                    "truncated": result.truncated})
    elif output == "csv":
        click.echo(csv_text(result.columns,  # formulas neutralised (kifudb.output.csv_cell)
                            ([v if v is None or isinstance(v, (str, int, float))
                              else _json_default(v) for v in row] for row in result.rows),
                            lineterminator="\n"), nl=False)
    else:
        numeric = {i for i, _ in enumerate(result.columns)
                   if result.rows and all(isinstance(r[i], (int, float, decimal.Decimal))
                                          or r[i] is None for r in result.rows)}
        click.echo(_table(result.columns, [["NULL" if v is None else v for v in r]
                                           for r in result.rows],
                          limits={i: 60 for i in range(len(result.columns))}, right=numeric))
        click.echo(f"({plural(len(result.rows), 'row')})")
    if result.truncated:
        click.echo(f"only the first {plural(limit, 'row')}: --limit N for more", err=True)
