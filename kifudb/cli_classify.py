"""``kifudb classify``: the castles, openings, techniques and notes of every game of some
record files.

Each game becomes a plain dict (``path``, ``index``, and for ``black`` and ``white`` the lists
``castles``, ``openings``, ``techniques`` (every ply one was played) and ``notes`` of
``{"name", "ply"}`` with ``primary_castle`` and ``primary_opening``; a game whose main line stops at an illegal move is labelled up to it and
says where it stopped in ``stopped``); a file that gives no game becomes one dict with
``index`` None and an ``error``::

    >>> rows = classify_file("data/samples/games.usi")
    >>> rows[0]["index"], sorted(rows[0]["black"])
    (0, ['castles', 'notes', 'openings', 'primary_castle', 'primary_opening', 'techniques'])
"""

from __future__ import annotations

import click

from kifudb.ingest.pipeline import FileGames, read_file, read_files
from kifudb.ingest.record import ERROR
from kifudb.output import (PathNames, json_text, plural, printable, progress_option,
                           wants_progress)
from kifudb.cli_paths import given_files
from kifudb.labels.classify import definitions_version

SIDE_MARKS = {"black": "▲", "white": "△"}


def classify_file(path: str) -> list:
    """The labels of every game of one file, as plain dicts; never raises."""
    return classify_read(read_file(path, labels=True))


def classify_read(read: FileGames) -> list:
    """The rows of one file read with its labels (``read_file(path, labels=True)``)."""
    if not read.games:
        message = "; ".join(f.message for f in read.findings) or "no game found"
        return [{"path": read.path, "index": None, "error": message}]
    rows = []
    for game in read.games:
        internal = next((f for f in game.findings if f.code == "internal_error"), None)
        if internal is not None:  # one broken game must not cost the others
            rows.append({"path": read.path, "index": game.index, "error": internal.message})
            continue
        row = {"path": read.path, "index": game.index, "moves": game.moves,
               "handicap": game.headers.get("handicap"), **game.labels.as_dict()}
        if game.first_illegal_ply is not None:  # labels cover the moves before it only
            row["stopped"] = _stop(game)
        rows.append(row)
    return rows


def _stop(game) -> dict:
    """Where and why the main line's replay stopped: ``ply``, ``line``, ``text``, ``code``,
    ``message`` of its error finding."""
    finding = next((f for f in game.findings
                    if f.severity == ERROR and f.ply == game.first_illegal_ply), None)
    return {"ply": game.first_illegal_ply, "line": finding.line if finding else None,
            "text": finding.text if finding else None, "code": game.illegal_code,
            "message": finding.message if finding else None}


def render_text(rows: list, names: PathNames = None) -> str:
    """A readable listing: each game, then each side's labels of each kind with their plies
    (what comes from a record or a file name is ``printable``; paths are shown by ``names``,
    relative to the folder given)."""
    names = names or PathNames()
    lines = []
    folders = sorted({names.folder_of(row["path"]) for row in rows} - {None})
    if folders:
        lines.append(f"(paths relative to {', '.join(printable(f) for f in folders)})")
    for row in rows:
        path = printable(names(row["path"]))
        if row["index"] is None:
            lines.append(f"{path}: cannot read: {printable(row['error'])}")
            continue
        head = f"{path} game {row['index'] + 1}"
        if "error" in row:
            lines.append(f"{head}: error: {printable(row['error'])}")
            continue
        stop = row.get("stopped")
        lines.append(f"{head} ({plural(row['moves'], 'move')})" if stop is None else
                     f"{head} ({plural(row['moves'], 'move')}; the replay stopped at ply {stop['ply']}"
                     f"{', line ' + str(stop['line']) if stop['line'] else ''} "
                     f"«{printable(stop['text'])}»: {stop['code']}: "
                     f"{printable(stop['message'])})")
        for side in ("black", "white"):
            labels = row[side]
            for kind, primary in (("castles", labels["primary_castle"]),
                                  ("openings", labels["primary_opening"]),
                                  ("techniques", None), ("notes", None)):
                items = ", ".join(f"{'*' if r['name'] == primary else ''}{printable(r['name'])} "
                                  f"({r['ply']})" for r in labels[kind]) or "-"
                lines.append(f"  {SIDE_MARKS[side]} {kind + ':':12s}{items}")
    if rows:
        lines.append("(* primary label; the number is the ply at which it was first reached, "
                     "for a technique each ply it was played)")
    return "\n".join(lines) + "\n"


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "jsonl"]), default="text",
              show_default=True, help="Output format.")
@progress_option
def classify(paths, fmt: str, progress) -> None:
    """Print the castles (囲い), openings (戦型), techniques (手筋) and notes (備考) of every game
    of PATHS (files, folders, globs)."""
    files = given_files(paths)
    reads = read_files(files, 1, "classify" if wants_progress(progress) else None, labels=True)
    if fmt == "jsonl":
        for read in reads:
            for row in classify_read(read):
                click.echo(json_text(row))
        return
    rows = [row for read in reads for row in classify_read(read)]
    if fmt == "json":
        click.echo(json_text({"definitions_version": definitions_version(), "games": rows},
                             indent=1))
    else:
        click.echo(render_text(rows, PathNames(paths)), nl=False)
