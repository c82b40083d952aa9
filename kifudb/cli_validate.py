"""``kifudb validate``: read, replay and report on many files, in one or several processes.

The reading is ``ingest.pipeline``'s; each file becomes a list of plain dicts, one per game (or
one with ``index`` None for a file that is not a readable record), which the renderers turn
into text, JSON, JSON lines, CSV or HTML::

    >>> rows = validate_file("data/samples/games.usi")
    >>> len(rows), rows[-1]["illegal_code"], rows[-1]["first_illegal_ply"]
    (13, 'bad_geometry', 3)
"""

from __future__ import annotations

import contextlib
import html
import io
from collections import Counter
from typing import Iterable, Iterator

from kifudb.ingest.pipeline import FileGames, StoredGame, read_file, read_files
from kifudb.output import (CSV_BOM, PathNames, csv_text, json_text, plural, printable,
                           replaced_files)


def _finding(f) -> dict:
    return {"severity": f.severity, "code": f.code, "line": f.line, "ply": f.ply,
            "text": f.text, "message": f.message}


def game_row(read: FileGames, game: StoredGame) -> dict:
    """The report of one game as plain data (the file's own findings first)."""
    row = {
        "path": read.path, "index": game.index, "format": game.format,
        "encoding": game.encoding, "line": game.line, "headers": game.headers,
        "start_sfen": game.start_sfen, "moves": game.moves,
        "first_illegal_ply": game.first_illegal_ply, "illegal_code": game.illegal_code,
        "final_sfen": game.final_sfen, "winner": game.winner, "reason": game.reason,
        "declared_ending": game.declared_ending, "fingerprint": game.fingerprint,
        "variations": game.variations, "comments": len(game.comments) + game.move_comments,
        "findings": [_finding(f) for f in read.findings + game.findings],
    }
    if game.sfens is not None:
        row["positions"] = game.sfens
    return row


def file_row(read: FileGames) -> dict:
    """The report of a file that gave no game."""
    return {"path": read.path, "index": None, "format": read.format, "encoding": read.encoding,
            "moves": 0, "findings": [_finding(f) for f in read.findings]}


def file_rows(read: FileGames) -> list:
    """The rows of one file: one per game, or one for a file that gave none."""
    return [game_row(read, game) for game in read.games] or [file_row(read)]


def validate_file(path: str, positions: bool = False) -> list:
    """Read and replay every game of one file; never raises."""
    return file_rows(read_file(path, positions=positions))


def validate_files(paths: list, jobs: int = 1, positions: bool = False,
                   progress: bool = False) -> Iterator[list]:
    """Yield the rows of each file, in the order given, using ``jobs`` processes."""
    for read in read_files(paths, jobs, "validate" if progress else None, positions=positions):
        yield file_rows(read)


def summarize(rows: Iterable[dict]) -> dict:
    """Counts over all rows: files, games, moves, valid games, findings by code and severity."""
    files, games, moves, valid = set(), 0, 0, 0
    by_code, by_severity = Counter(), Counter()
    for row in rows:
        files.add(row["path"])
        if row["index"] is not None:
            games += 1
            moves += row["moves"]
            valid += not any(f["severity"] == "error" for f in row["findings"])
        for f in row["findings"]:
            by_code[(f["severity"], f["code"])] += 1
            by_severity[f["severity"]] += 1
    return {"files": len(files), "games": games, "moves": moves, "valid_games": valid,
            "findings_by_severity": dict(by_severity),
            "findings_by_code": [{"severity": s, "code": c, "count": n}
                                 for (s, c), n in sorted(by_code.items(),
                                                         key=lambda kv: (-kv[1], kv[0]))]}


def _summary_line(s: dict) -> str:
    return (f"{plural(s['files'], 'file')}, {plural(s['games'], 'game')}, "
            f"{plural(s['moves'], 'move')}; {s['valid_games']} "
            f"{'game' if s['valid_games'] == 1 else 'games'} valid, "
            f"{s['games'] - s['valid_games']} with errors")


def render_text(rows: list, summary: dict, names: PathNames = None) -> str:
    """The summary, then every finding on a line; what comes from a record or a file name is
    ``printable`` (a terminal shows control characters as escapes). Paths are shown by
    ``names`` (relative to the folder given)."""
    names = names or PathNames()
    out = io.StringIO()
    s = summary
    out.write(_summary_line(s) + "\n")
    if s["findings_by_code"]:
        out.write("findings by code:\n")
        for item in s["findings_by_code"]:
            out.write(f"  {item['severity']:8s}{item['code']:26s}{item['count']:>7}\n")
    folders = sorted({names.folder_of(row["path"]) for row in rows if row["findings"]} - {None})
    if folders:
        out.write(f"(paths relative to {', '.join(printable(f) for f in folders)})\n")
    for row in rows:
        for f in row["findings"]:
            where = printable(names(row["path"])) + (f":{f['line']}" if f["line"] else "")
            game = "" if row["index"] is None else f" game {row['index'] + 1}"
            ply = f" ply {f['ply']}" if f["ply"] else ""
            text = f" «{printable(f['text'])}»" if f["text"] else ""
            out.write(f"{where}:{game}{ply} {f['severity']} {f['code']}{text}: "
                      f"{printable(f['message'])}\n")
    return out.getvalue()


CSV_COLUMNS = ["path", "index", "format", "encoding", "black", "white", "date", "event",
               "moves", "first_illegal_ply", "illegal_code", "winner", "reason",
               "declared_ending", "fingerprint", "errors", "warnings", "findings", "messages"]


def _where(f: dict) -> str:
    """``line 11, ply 3`` of a finding (empty when it has neither)."""
    return ", ".join(part for part in (f"line {f['line']}" if f["line"] else "",
                                       f"ply {f['ply']}" if f["ply"] else "") if part)


def render_csv(rows: list) -> str:
    """One line per game (or unreadable file), after a UTF-8 byte-order mark (so that a
    spreadsheet reads the Japanese names right): its players, date and event, ``findings``
    lists ``code@ply`` items and ``messages`` says each (``severity code (line, ply):
    message``, one a line). Text cells a spreadsheet would run as formulas are neutralised
    (``kifudb.output.csv_cell``)."""
    def line(row: dict) -> dict:
        headers = row.get("headers") or {}
        findings = row["findings"]
        return {
            **row, "black": headers.get("black"), "white": headers.get("white"),
            "date": headers.get("start_date"), "event": headers.get("event"),
            "errors": sum(f["severity"] == "error" for f in findings),
            "warnings": sum(f["severity"] == "warning" for f in findings),
            "findings": "; ".join(f"{f['code']}@{f['ply']}" if f["ply"] else f["code"]
                                  for f in findings),
            "messages": "\n".join(f"{f['severity']} {f['code']}"
                                  + (f" ({_where(f)})" if _where(f) else "")
                                  + f": {f['message']}" for f in findings)}
    return CSV_BOM + csv_text(CSV_COLUMNS, map(line, rows))


_STYLE = """body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:100%}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .6em;
text-align:left;vertical-align:top;overflow-wrap:anywhere}th{background:#f3f0e8}
table.games{width:100%;table-layout:fixed}.games col.file{width:24%}.games col.game{width:5em}
.games col.players{width:16%}.games col.moves{width:5.5em}.games col.result{width:11%}
.error{color:#b00020}.warning{color:#a65f00}.info{color:#555}.ok{color:#1b7f3b}
code{font-family:ui-monospace,monospace}a.next{font-size:.85em;margin-left:.4em}
.board svg{max-width:100%;height:auto}:target{background:#fff3c4}"""


def _anchor(code: str) -> str:
    """The id prefix of a code's findings (codes are [a-z_], but a row may say anything)."""
    return "c-" + "".join(ch if ch.isalnum() or ch in "_-" else f"-{ord(ch):x}-" for ch in code)


def render_html(rows: list, summary: dict, names: PathNames = None,
                all_games: bool = False) -> str:
    """A self-contained page: the summary on top, the findings by code (each code links to
    its first finding, and each finding to the next one of its code), then the games with
    findings (``all_games``: every game), paths shown by ``names`` (relative to the folder
    given). The table fits the page: long paths and messages wrap."""
    e = html.escape
    names = names or PathNames()
    s = summary
    with_findings = sum(1 for row in rows if row["findings"])
    shown = rows if all_games else [row for row in rows if row["findings"]]
    severities = ", ".join(f"<span class='{e(k)}'>{e(plural(v, k, _PLURALS.get(k)))}</span>"
                           for k, v in sorted(s["findings_by_severity"].items(),
                                              key=lambda kv: _SEVERITY_ORDER.get(kv[0], 9)))
    parts = [f"<!doctype html><html lang='en'><meta charset='utf-8'><meta name='viewport' "
             f"content='width=device-width'><title>kifudb validation report</title>"
             f"<style>{_STYLE}</style><h1>Validation report</h1>",
             f"<p>{e(_summary_line(s).split(';')[0])}: "
             f"<span class='ok'>{s['valid_games']} valid</span>, "
             f"<span class='error'>{s['games'] - s['valid_games']} with errors</span>; "
             f"{severities or 'no finding'}.</p>"]
    folders = sorted({names.folder_of(row["path"]) for row in shown} - {None})
    if folders:
        parts.append(f"<p>Paths are relative to <code>{e(', '.join(folders))}</code>.</p>")
    parts.append(f"<p>{with_findings} of {plural(len(rows), 'row')} (games, and files that "
                 f"gave none) have findings; "
                 + ("every game is listed below." if all_games else
                    "only those are listed below (<code>kifudb validate --format html "
                    "--all</code> lists every game).") + "</p>")
    occurrences: dict = {}
    for row in shown:
        for f in row["findings"]:
            occurrences[f["code"]] = occurrences.get(f["code"], 0) + 1
    if s["findings_by_code"]:
        parts.append("<h2 id='codes'>Findings by code</h2><table><tr><th>severity</th>"
                     "<th>code</th><th>count</th></tr>")
        for i in s["findings_by_code"]:
            code = e(i["code"])
            link = (f"<a href='#{e(_anchor(i['code']))}-1'><code>{code}</code></a>"
                    if occurrences.get(i["code"]) else f"<code>{code}</code>")
            parts.append(f"<tr><td class='{e(i['severity'])}'>{e(i['severity'])}</td>"
                         f"<td>{link}</td><td>{i['count']}</td></tr>")
        parts.append("</table>")
    parts.append(f"<h2>Games</h2><table class='games'><colgroup><col class='file'>"
                 f"<col class='game'><col class='players'><col class='moves'>"
                 f"<col class='result'><col></colgroup><tr><th>file</th><th>game</th>"
                 f"<th>players</th><th>moves</th><th>result</th><th>findings</th></tr>")
    seen: dict = {}
    for row in shown:
        headers = row.get("headers") or {}
        players = " – ".join(filter(None, [headers.get("black"), headers.get("white")]))
        items = []
        for f in row["findings"]:
            number = seen[f["code"]] = seen.get(f["code"], 0) + 1
            anchor = _anchor(f["code"])
            following = (f"<a class='next' href='#{e(anchor)}-{number + 1}'>next "
                         f"{e(f['code'])} ›</a>" if number < occurrences[f["code"]] else "")
            where = f" ({_where(f)})" if _where(f) else ""
            items.append(f"<span id='{e(anchor)}-{number}' class='{e(f['severity'])}'>"
                         f"{e(f['code'])}</span>{e(where)}"
                         + (f" <code>{e(f['text'])}</code>" if f["text"] else "")
                         + f": {e(f['message'])}{following}")
        findings = "<br>".join(items) or "<span class='ok'>ok</span>"
        game = "—" if row["index"] is None else row["index"] + 1
        result = f"{row.get('winner', '')} ({row.get('reason', '')})" if row["index"] is not None else ""
        if row.get("illegal_code") and row.get("final_sfen"):
            findings += _board(row["final_sfen"], row["first_illegal_ply"])
        parts.append(f"<tr><td>{e(names(row['path']))}</td><td>{game}</td><td>{e(players)}</td>"
                     f"<td>{row['moves']}</td><td>{e(result)}</td><td>{findings}</td></tr>")
    parts.append("</table></html>\n")
    return "".join(parts)


_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
_PLURALS = {"info": "info"}


def _board(sfen: str, ply: int) -> str:
    """The board where a game's replay stopped, as inline SVG (the page stays self-contained)."""
    from kifudb.core.position import Position, SfenError
    try:
        picture = Position.from_sfen(sfen).svg(size=300, last_move=False)
    except SfenError:
        return ""
    return (f"<details><summary>the position before ply {ply}</summary>"
            f"<div class='board'>{picture}</div></details>")


@contextlib.contextmanager
def report_output(output, overwrite: bool = False):
    """The ``write`` of a report: to standard output (``output`` None), or to the file
    ``output`` made whole (``analytics.files.OutputFile``: a file there is refused before the
    work unless ``overwrite``, and a link there is replaced, not followed), said on standard
    error once written. A refusal is a ``click.ClickException``."""
    import click

    from kifudb.analytics.files import OutputFile, OutputRefused

    if output is None:
        yield lambda text: click.echo(text, nl=False)
        return
    out = OutputFile(output, overwrite=overwrite)
    try:
        out.check()
        with out.stream("w", encoding="utf-8", newline="") as stream:
            yield stream.write
    except OutputRefused as refusal:
        raise click.ClickException(printable(refusal)) from None
    click.echo(f"report written to {printable(output)}", err=True)
    if out.replaced:
        click.echo(replaced_files(out.replaced), err=True)


def render(rows: list, fmt: str, names: PathNames = None, all_games: bool = False) -> str:
    """The whole report in ``fmt`` (text, json, jsonl, csv, html); ``names`` shows the paths
    of text and HTML (JSON and CSV keep them as read), ``all_games`` lists every game in HTML
    (else only those with findings)."""
    if fmt == "jsonl":
        return "".join(json_text(r) + "\n" for r in rows)
    if fmt == "csv":
        return render_csv(rows)
    summary = summarize(rows)
    if fmt == "json":
        return json_text({"summary": summary, "games": rows}, indent=1) + "\n"
    if fmt == "html":
        return render_html(rows, summary, names, all_games)
    return render_text(rows, summary, names)
