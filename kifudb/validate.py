"""``kifudb validate``: read, replay and report on many files, in one or several processes.

The reading is ``ingest.pipeline``'s; each file becomes a list of plain dicts, one per game (or
one with ``index`` None for a file that is not a readable record), which the renderers turn
into text, JSON, JSON lines, CSV or HTML::

    >>> rows = validate_file("data/samples/games.usi")
    >>> len(rows), rows[-1]["illegal_code"], rows[-1]["first_illegal_ply"]
    (13, 'bad_geometry', 3)
"""

from __future__ import annotations

import html
import io
from collections import Counter
from typing import Iterable, Iterator

from ingest.pipeline import FileGames, StoredGame, read_file, read_files
from kifudb.output import csv_text, json_text, printable


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


def render_text(rows: list, summary: dict) -> str:
    """The summary, then every finding on a line; what comes from a record or a file name is
    ``printable`` (a terminal shows control characters as escapes)."""
    out = io.StringIO()
    s = summary
    out.write(f"{s['files']} files, {s['games']} games, {s['moves']} moves; "
              f"{s['valid_games']} games valid, {s['games'] - s['valid_games']} with errors\n")
    if s["findings_by_code"]:
        out.write("findings by code:\n")
        for item in s["findings_by_code"]:
            out.write(f"  {item['severity']:8s}{item['code']:26s}{item['count']:>7}\n")
    for row in rows:
        for f in row["findings"]:
            where = printable(row["path"]) + (f":{f['line']}" if f["line"] else "")
            game = "" if row["index"] is None else f" game {row['index'] + 1}"
            ply = f" ply {f['ply']}" if f["ply"] else ""
            text = f" «{printable(f['text'])}»" if f["text"] else ""
            out.write(f"{where}:{game}{ply} {f['severity']} {f['code']}{text}: "
                      f"{printable(f['message'])}\n")
    return out.getvalue()


CSV_COLUMNS = ["path", "index", "format", "encoding", "moves", "first_illegal_ply",
               "illegal_code", "winner", "reason", "declared_ending", "fingerprint", "errors",
               "warnings", "findings"]


def render_csv(rows: list) -> str:
    """One line per game (or unreadable file); ``findings`` lists ``code@ply`` items. Text
    cells a spreadsheet would run as formulas are neutralised (``kifudb.output.csv_cell``)."""
    return csv_text(CSV_COLUMNS, ({
        **row,
        "errors": sum(f["severity"] == "error" for f in row["findings"]),
        "warnings": sum(f["severity"] == "warning" for f in row["findings"]),
        "findings": "; ".join(f"{f['code']}@{f['ply']}" if f["ply"] else f["code"]
                              for f in row["findings"])} for row in rows))


_STYLE = """body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .6em;
text-align:left;vertical-align:top}th{background:#f3f0e8}.error{color:#b00020}.warning{color:#a65f00}
.info{color:#555}.ok{color:#1b7f3b}code{font-family:ui-monospace,monospace}"""


def render_html(rows: list, summary: dict) -> str:
    """A self-contained page: the summary, findings by code, then every game with its findings."""
    e = html.escape
    s = summary
    parts = [f"<!doctype html><html lang='en'><meta charset='utf-8'><title>kifudb validation "
             f"report</title><style>{_STYLE}</style><h1>Validation report</h1>",
             f"<p>{s['files']} files, {s['games']} games, {s['moves']} moves: "
             f"<span class='ok'>{s['valid_games']} valid</span>, "
             f"<span class='error'>{s['games'] - s['valid_games']} with errors</span>.</p>"]
    if s["findings_by_code"]:
        parts.append("<h2>Findings by code</h2><table><tr><th>severity</th><th>code</th>"
                     "<th>count</th></tr>")
        parts += [f"<tr><td class='{e(i['severity'])}'>{e(i['severity'])}</td>"
                  f"<td><code>{e(i['code'])}</code></td><td>{i['count']}</td></tr>"
                  for i in s["findings_by_code"]]
        parts.append("</table>")
    parts.append("<h2>Games</h2><table><tr><th>file</th><th>game</th><th>players</th>"
                 "<th>moves</th><th>result</th><th>findings</th></tr>")
    for row in rows:
        headers = row.get("headers") or {}
        players = " – ".join(filter(None, [headers.get("black"), headers.get("white")]))
        findings = "<br>".join(
            f"<span class='{e(f['severity'])}'>{e(f['code'])}</span>"
            + (f" (line {f['line']}" + (f", ply {f['ply']}" if f["ply"] else "") + ")"
               if f["line"] else (f" (ply {f['ply']})" if f["ply"] else ""))
            + (f" <code>{e(f['text'])}</code>" if f["text"] else "") + f": {e(f['message'])}"
            for f in row["findings"]) or "<span class='ok'>ok</span>"
        game = "—" if row["index"] is None else row["index"] + 1
        result = f"{row.get('winner', '')} ({row.get('reason', '')})" if row["index"] is not None else ""
        if row.get("illegal_code") and row.get("final_sfen"):
            findings += _board(row["final_sfen"], row["first_illegal_ply"])
        parts.append(f"<tr><td>{e(row['path'])}</td><td>{game}</td><td>{e(players)}</td>"
                     f"<td>{row['moves']}</td><td>{e(result)}</td><td>{findings}</td></tr>")
    parts.append("</table></html>\n")
    return "".join(parts)


def _board(sfen: str, ply: int) -> str:
    """The board where a game's replay stopped, as inline SVG (the page stays self-contained)."""
    from core.position import Position, SfenError
    try:
        picture = Position.from_sfen(sfen).svg(size=300, last_move=False)
    except SfenError:
        return ""
    return (f"<details><summary>the position before ply {ply}</summary>"
            f"<div class='board'>{picture}</div></details>")


def render(rows: list, fmt: str) -> str:
    """The whole report in ``fmt`` (text, json, jsonl, csv, html)."""
    if fmt == "jsonl":
        return "".join(json_text(r) + "\n" for r in rows)
    if fmt == "csv":
        return render_csv(rows)
    summary = summarize(rows)
    if fmt == "json":
        return json_text({"summary": summary, "games": rows}, indent=1) + "\n"
    if fmt == "html":
        return render_html(rows, summary)
    return render_text(rows, summary)
