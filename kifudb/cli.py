"""The ``kifudb`` command: one subcommand per job. Only Click code here and in
the ``kifudb.cli_*`` modules (a module per group of commands): each
command parses its options and calls ``ingest`` (reading), ``store`` (writing) or ``analytics``
(questions), and words the answer.

    kifudb validate records/ --format html -o report.html   # read, replay and report on every game
    kifudb ingest records/ --store data/store  # read, replay, label and store every game
    kifudb search / explore / sql / game ID    # the store's questions
    kifudb classify records/                   # the castles and openings of each game
    kifudb convert records/ --to csa -o out/   # write every game in another format
    kifudb export --to kif -o out/ --player 羽生  # the store's games as records or training data
    kifudb stats … / relabel                   # what wins; label the store again
    kifudb stats accuracy --by player / puzzles / calibrate   # what the engine's analysis says
    kifudb book --output book.db               # a YaneuraOu opening book of the moves played
    kifudb dashboard --store data/store        # the Streamlit app over a store
    kifudb serve --store data/store --port 8080  # the HTTP JSON API over a store
    kifudb replay data/samples/games.usi       # replay USI game lines: moves, final position, verdict
    kifudb perft 4                             # count the legal move tree
    kifudb moves "sfen …" -n ki2               # the legal moves of a position, in any notation
    kifudb key "sfen …"                        # the 64-bit position key
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

import click

from kifudb.core import Position, SfenError, perft as count_perft
from kifudb.output import PathNames, plural, printable, progress_option, wants_progress
from kifudb.cli_paths import given_files

#: the commands defined in other modules: name -> (module, function), imported when the command
#: runs (or ``--help`` lists them), so that a command loads only what it needs
ELSEWHERE = {
    "search": ("kifudb.cli_store", "search"), "explore": ("kifudb.cli_store", "explore"),
    "pattern": ("kifudb.cli_pattern", "pattern"), "sql": ("kifudb.cli_store", "sql"),
    "stats": ("kifudb.cli_stats", "stats"), "relabel": ("kifudb.cli_stats", "relabel"),
    "classify": ("kifudb.cli_classify", "classify"), "game": ("kifudb.cli_game", "game"),
    "players": ("kifudb.cli_players", "players"), "twins": ("kifudb.cli_twins", "twins"),
    "serve": ("kifudb.cli_serve", "serve"), "book": ("kifudb.cli_book", "book"),
    "convert": ("kifudb.cli_export", "convert"), "export": ("kifudb.cli_export", "export"),
    "analyse": ("kifudb.cli_analyse", "analyse"), "analyze": ("kifudb.cli_analyse", "analyse"),
    "puzzles": ("kifudb.cli_judgement", "puzzles"),
    "calibrate": ("kifudb.cli_judgement", "calibrate"),
}


def _position(sfen: str) -> Position:
    try:
        return Position.from_sfen(sfen)
    except SfenError as error:
        raise click.BadParameter(str(error), param_hint="SFEN") from None


class _Commands(click.Group):
    """The command group, with one place that turns a damaged, foreign or read-only store, a
    full disk and a failing query into a clear message (and exit status 1) instead of a
    traceback."""

    def parse_args(self, ctx, args):
        ctx.meta["kifudb.store"] = _store_given(args)
        return super().parse_args(ctx, args)

    def list_commands(self, ctx) -> list:
        return sorted({*super().list_commands(ctx), *ELSEWHERE})

    def get_command(self, ctx, name: str):
        if name in ELSEWHERE:
            import importlib

            module, function = ELSEWHERE[name]
            return getattr(importlib.import_module(module), function)
        return super().get_command(ctx, name)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except Exception as error:
            from kifudb.cli_store import store_failure

            message = store_failure(error, ctx.meta.get("kifudb.store"), check=False)
            if message is None:
                raise
            raise click.ClickException(printable(message)) from None  # as store_cli._guard


def _store_given(args: list):
    """The store folder a command line names (``--store``), else the default one: where a
    DuckDB error that names no file is looked for (``store.diagnose.damage_message``)."""
    from kifudb.store import DEFAULT_STORE

    for i, arg in enumerate(args):
        if arg == "--store" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--store="):
            return arg[len("--store="):]
    return DEFAULT_STORE


def _show_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``kifudb --version``: the version, and whether the compiled engine is loaded
    (``core._native``)."""
    if not value or ctx.resilient_parsing:
        return
    import platform
    from importlib.metadata import version

    from kifudb.core._native import status

    click.echo(f"kifudb {version('kifudb')} (Python {platform.python_version()}); "
               f"engine {status()}")
    ctx.exit()


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_show_version,
              help="Show the version and whether the compiled engine is loaded, and exit.")
def main() -> None:
    """kifudb: a shogi game-record database."""
    # what is loaded by now (the interpreter, click, the command's modules) lives as long as the
    # process: the collector need not look at it again (5-10% of a `validate` of small files)
    gc.freeze()


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--quiet", "-q", is_flag=True, help="Print only the summary.")
def replay(paths, quiet: bool) -> None:
    """Replay games written as USI lines and report each: moves, final position, verdict."""
    from kifudb.cli_replay import render_report, replay_report
    from kifudb.ingest.read import MAX_BYTES
    from kifudb.ingest.usi_file import read_usi

    games = moves = illegal = 0
    started = time.perf_counter()

    for path in paths:
        try:  # as the record readers do: no device, pipe or giant file is read whole
            if not path.is_file():
                raise ValueError("not a regular file")
            if path.stat().st_size > MAX_BYTES:
                raise ValueError(f"{path.stat().st_size:,} bytes; files larger than "
                                 f"{MAX_BYTES:,} bytes are refused")
            text = path.read_text(encoding="utf-8")
        except (OSError, ValueError) as error:  # UnicodeDecodeError too
            click.echo(f"{printable(path)}: cannot read: {printable(error)}", err=True)
            illegal += 1
            continue
        for record in read_usi(text, str(path), "utf-8"):
            report = replay_report(record)
            games += 1
            moves += report.moves
            illegal += not report.legal
            if not quiet:
                click.echo(render_report(path, report))
    elapsed = time.perf_counter() - started
    click.echo(f"{plural(games, 'game')}, {plural(moves, 'move')} replayed, "
               f"{games - illegal} fully legal, {illegal} with an illegal move ({elapsed:.2f} s)")


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--store", "store_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Store folder (default: data/store).")
@click.option("--jobs", "-j", type=click.IntRange(1, 256), default=1, show_default=True,
              help="Worker processes that read and validate.")
@click.option("--cluster", metavar="ADDRESS",
              help="Read on a Dask cluster instead: tcp://HOST:PORT of a running `dask "
                   "scheduler`, its scheduler file (.json), or local:N (N worker processes "
                   "for this run). The store must be on a filesystem every worker shares.")
@click.option("--compact/--no-compact", default=False,
              help="Rewrite the whole store into one batch afterwards, dropping the rows that "
                   "no longer count (an ingest merges batches of the same size anyway).")
@progress_option
def ingest(paths, store_dir, jobs: int, cluster, compact, progress) -> None:
    """Read, validate and store every game of PATHS (files, folders, globs)."""
    from kifudb.store import DEFAULT_STORE
    from kifudb.store.folder import Store
    from kifudb.store.writer import MergeFailed, ingest_paths

    store = Store(store_dir or DEFAULT_STORE)
    given_files(paths, skip=[store.root])  # a path that names nothing stops here
    had_games = store.manifest()["next_game"] > 1
    started = time.perf_counter()
    try:
        report = ingest_paths(paths, store, jobs=jobs, progress=wants_progress(progress),
                              cluster=cluster)
    except MergeFailed as failed:  # what was stored is said, then why the merge failed
        click.echo(ingest_summary(failed.report, time.perf_counter() - started, had_games))
        for note in store.notes:
            click.echo(f"note: {printable(note)}", err=True)
        raise click.ClickException(printable(str(failed))) from None
    elapsed = time.perf_counter() - started
    if compact:
        with store.writing():
            store.compact()
    click.echo(ingest_summary(report, elapsed, had_games))
    if report.games_merged:
        click.echo(f"{plural(report.games_merged, 'game')} stored already took fields from "
                   f"another source (a date, players, a result …; 'kifudb game ID --format "
                   f"json' says which source gave what)")
    if report.merged:
        click.echo(f"{plural(len(report.merged), 'merge')} of batches of the same size in "
                   f"{report.merge_seconds:.1f} s (included): the store has "
                   f"{plural(len(store.manifest()['batches']), 'batch')}")
    if report.findings:
        click.echo(f"{plural(report.findings, 'finding')}: 'kifudb stats findings --store "
                   f"{printable(store.root)}' lists them (or the dashboard's Validation page)")
    totals = store.connect().execute(
        "SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM positions)").fetchone()
    click.echo(f"store {printable(store.root)}: {plural(totals[0], 'game')}, "
               f"{plural(totals[1], 'position')}")
    for note in store.notes:
        click.echo(f"note: {printable(note)}", err=True)
    if report.stale_labels:
        click.echo(f"the older games' labels come from other definitions ({report.stale_labels}): "
                   f"run 'kifudb relabel --store {printable(store.root)}'", err=True)


def ingest_summary(report, elapsed: float, had_games: bool = True) -> str:
    """The line ``kifudb ingest`` ends with. A game "already stored" is one whose moves,
    players and date another source gave first — another file of this run (the same game in
    KIF and JKF, say) or, when the store held games before, an earlier ingest; it is stored
    once, with one more source."""
    why = ("read from another file of this run" if not had_games else
           "read from another file, in this run or an earlier ingest")
    known = (f"{report.games_known} already stored ({why})" if report.games_known
             else "0 already stored")
    return (f"{plural(report.files_read, 'file')} read ({report.files_skipped} unchanged, "
            f"skipped; {report.files_replaced} changed, replaced), "
            f"{plural(report.games_read, 'game')}: {report.games_added} new, {known}; "
            f"{plural(report.positions_added, 'position')} added in {elapsed:.2f} s")


@main.command()
@click.option("--store", "store_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Store folder (default: data/store).")
@click.option("--repair", is_flag=True,
              help="Drop the damaged batches (or rebuild a damaged manifest) and read their "
                   "record files again.")
def check(store_dir, repair: bool) -> None:
    """Verify every file of the store against its manifest; exit status 1 if it is damaged
    (and not repaired)."""
    from kifudb.store import DEFAULT_STORE
    from kifudb.store.check import check_store, render, repair_store

    root = Path(store_dir or DEFAULT_STORE)
    report = repair_store(root) if repair else check_store(root)
    click.echo(printable(render(report), lines=True), nl=False)  # record paths, escaped
    if not report.sound and not repair:
        sys.exit(1)


@main.command()
@click.option("--store", "store_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Store folder (default: data/store).")
@click.option("--port", type=click.IntRange(1, 65535), default=8501, show_default=True)
@click.option("--address", default="localhost", show_default=True,
              help="The address to listen on (0.0.0.0 for every interface).")
@click.option("--headless/--browser", default=True, show_default=True,
              help="Do not open a browser window.")
def dashboard(store_dir, port: int, address: str, headless: bool) -> None:
    """Start the dashboard (Streamlit) on a store, and print its address."""
    import os

    from kifudb.cli_ports import port_problem
    from kifudb.cli_store import _open_store
    from kifudb.store import DEFAULT_STORE

    store = _open_store(store_dir or DEFAULT_STORE)
    busy = port_problem(address, port)
    if busy is not None:
        raise click.ClickException(f"cannot serve the dashboard on {address}:{port}: {busy} "
                                   f"(another dashboard?); choose another with --port")
    from kifudb import dashboard as dashboard_package  # light: its modules load in Streamlit

    app = Path(dashboard_package.__file__).resolve().parent / "app.py"
    click.echo(f"kifudb dashboard on {printable(store.root)}: http://{address}:{port}/  "
               f"(Ctrl-C stops it)")
    sys.stdout.flush()
    # -P: the working directory is not put on sys.path (a folder there named like a module
    # must not shadow it); app.py takes its own folder off
    command = [sys.executable, "-P", "-m", "streamlit", "run", str(app), "--server.port", str(port),
               "--server.address", address, "--server.headless", str(headless).lower(),
               "--browser.gatherUsageStats", "false", "--client.toolbarMode", "minimal",
               # an unforeseen error shows its type in the browser, not the server's paths
               # (its traceback goes to this terminal)
               "--client.showErrorDetails", "type"]
    # this process becomes the server, so that Ctrl-C and signals reach Streamlit itself
    os.execve(sys.executable, command, {**os.environ, "KIFUDB_STORE": str(store.root)})


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "jsonl", "csv", "html"]),
              default="text", show_default=True, help="Report format.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the report to this file instead of standard output.")
@click.option("--overwrite", is_flag=True,
              help="Replace the --output file if it exists (else nothing is written).")
@click.option("--positions", is_flag=True, help="Add the SFEN of every main-line position (json/jsonl).")
@click.option("--jobs", "-j", type=click.IntRange(1, 256), default=1, show_default=True,
              help="Worker processes.")
@click.option("--strict", is_flag=True, help="Exit with status 1 if any game has an error.")
@click.option("--all", "all_games", is_flag=True,
              help="With --format html: list every game (by default only the games and files "
                   "with findings).")
@progress_option
def validate(paths, fmt: str, output, overwrite: bool, positions: bool, jobs: int, strict: bool,
             all_games: bool, progress) -> None:
    """Read every game of PATHS (files, folders, globs), replay it and report what is wrong."""
    from kifudb.cli_validate import render, report_output, validate_files

    files = given_files(paths)
    names = PathNames(paths)
    rows, errors = [], False
    with report_output(output, overwrite) as write:
        for file_rows in validate_files(files, jobs, positions,
                                        progress=wants_progress(progress)):
            errors = errors or any(f["severity"] == "error" for r in file_rows for f in r["findings"])
            if fmt == "jsonl":
                write(render(file_rows, "jsonl"))
            else:
                rows.extend(file_rows)
        if fmt != "jsonl":
            write(render(rows, fmt, names, all_games))
    if strict and errors:
        sys.exit(1)


@main.command()
@click.argument("depth", type=click.IntRange(0, 6))
@click.option("--sfen", default="startpos", show_default=True, help="Start position.")
def perft(depth: int, sfen: str) -> None:
    """Count the leaves of the legal move tree DEPTH plies deep."""
    started = time.perf_counter()
    nodes = count_perft(_position(sfen), depth)
    elapsed = time.perf_counter() - started
    click.echo(f"perft({depth}) = {nodes}  ({elapsed:.2f} s, {nodes / max(elapsed, 1e-9):,.0f} leaves/s)")


NOTATIONS = ("usi", "kif", "ki2", "csa", "western")


@main.command()
@click.argument("sfen", default="startpos")
@click.option("--notation", "-n", type=click.Choice(NOTATIONS), default="usi", show_default=True,
              help="Write the moves in this notation.")
def moves(sfen: str, notation: str) -> None:
    """List the legal moves of a position, one a line."""
    from kifudb.core.notation import csa_move, ki2_move, kif_move, western_move

    writers = {"usi": lambda p, m: m.usi(), "kif": kif_move, "ki2": ki2_move, "csa": csa_move,
               "western": western_move}
    position = _position(sfen)
    for move in sorted(position.legal_moves(), key=lambda m: m.usi()):
        click.echo(writers[notation](position, move))


@main.command()
@click.argument("sfen", default="startpos")
def key(sfen: str) -> None:
    """Print the 64-bit key of a position (decimal and hex)."""
    value = _position(sfen).key()
    click.echo(f"{value} 0x{value:016x}")


