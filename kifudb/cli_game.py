"""``kifudb game ID``: one stored game, as the dashboard's game viewer shows it — players,
date, event, result, sources, the castles and openings of each side with their plies, every
main-line move (KI2, as written, time, an engine's score where the record gives one, comment),
the novelty (★, ``analytics.novelty``) and the variations.

    kifudb game 12 [--store DIR] [--format text|json] [--sfens]
"""

from __future__ import annotations

from pathlib import Path

import click

from kifudb.output import PathNames, plural, printable
from kifudb.cli_store import _echo_json, _guard, _open_store, _result, _store_option, _table

__all__ = ["game"]

_MARKS = {"black": "▲", "white": "△"}


def _clock(seconds) -> str:
    if seconds is None:
        return ""
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes}:{rest:02d}"


def _label_lines(labels: list) -> list:
    lines = []
    for side in ("black", "white"):
        for kind in ("castle", "opening"):
            found = [f"{'*' if r['primary'] else ''}{r['label']} ({r['ply']})" for r in labels
                     if r["side"] == side and r["kind"] == kind]
            lines.append(f"  {_MARKS[side]} {kind}s: {', '.join(found) or '-'}")
    return lines


def _novelty_line(novelty, moves: list, date) -> str:
    """Where the game left the games played before it (``analytics.novelty``)."""
    if novelty is None:
        return ("novelty: none (undated)" if date is None else
                "novelty: none (an earlier game reached every position)")
    move = next((m["ki2"] for m in moves if m["ply"] == novelty["ply"]), None) or ""
    return (f"novelty (★): ply {novelty['ply']} {move}, out of a position "
            f"{plural(novelty['earlier_games'], 'earlier game')} reached")


def _comment(move: dict, sfen_after) -> str:
    """A move's comment as shown: a shogi-server engine line (``** 24 +8877GI -3122GI``)
    becomes its PV in KI2 (``analytics.game_record.evaluation_shown``; the score has its own
    column); other comments as written."""
    from kifudb.analytics.game_record import evaluation_shown

    comment = move["comment"] or ""
    evaluation = move["evaluation"]
    if not evaluation or sfen_after is None or evaluation.get("dialect") != "shogi-server":
        return comment
    shown = evaluation_shown(evaluation, sfen_after, move["usi"])
    lines = [(("PV " + shown["pv"]) if shown["pv"] else "") if line.startswith("**") else line
             for line in comment.splitlines()]
    return "\n".join(line for line in lines if line)


@click.command()
@click.argument("game_id", metavar="ID", type=int)
@click.option("--format", "output", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.option("--sfens", is_flag=True, hidden=True,
              help="(The JSON always has the SFEN after every move: kept for older scripts.)")
@_store_option
@_guard
def game(game_id: int, output: str, sfens: bool, store_dir: Path) -> None:
    """One stored game: headers, labels, moves with times and comments, variations."""
    from kifudb.analytics import stats
    from kifudb.analytics.game_record import game_record, score_text, variation_lines
    from kifudb.analytics.novelty import game_novelty

    store = _open_store(store_dir)
    record = game_record(store, game_id)
    if record is None:
        raise click.ClickException(f"the store has no game {game_id}")
    if output == "json":  # the game as every door gives it (GET /game/ID, db.game(ID))
        from kifudb.api import stored_game

        _echo_json(stored_game(store, game_id).as_dict())
        return
    labels = stats.game_labels(store, game_id)
    novelty = game_novelty(store, game_id)
    info = {k: printable(v) if isinstance(v, str) else v  # a record's controls, escaped
            for k, v in record["info"].items()}
    click.echo(f"game {game_id}: ▲{info['black'] or '?'} vs △{info['white'] or '?'} · "
               f"{info['date'] or 'undated'} · {info['event'] or 'no event'} · "
               f"{_result(info['winner'], info['reason'])} · {plural(info['moves'], 'move')}"
               + (f" · {info['handicap']}" if info["handicap"] else ""))
    names = PathNames()  # relative to the current folder when inside it
    for source in info["sources"]:
        click.echo(f"  source: {printable(names(source['path']))} #{source['index'] + 1} "
                   f"({source['format']}, {source['encoding']})")
    click.echo("labels (* the side's main one; the ply where first reached):")
    click.echo("\n".join(_label_lines(labels)))
    click.echo(_novelty_line(novelty, record["moves"], info["date"]))
    click.echo("")
    headers = ["ply", "move", "as written", "time", "comment"]
    novel = novelty["ply"] if novelty else None  # marked in the last column
    rows = [[m["ply"], m["ki2"] or "(not replayed)", m["text"], _clock(m["seconds"]),
             ("★ novelty " if m["ply"] == novel else "")
             + _comment(m, record["sfens"][m["ply"]] if m["ply"] < len(record["sfens"])
                        else None)]
            for m in record["moves"]]
    if any(m["evaluation"] for m in record["moves"]):  # engines' scores beside the moves
        headers.insert(4, "score")
        for row, m in zip(rows, record["moves"]):
            row.insert(4, score_text(m["evaluation"]))
    click.echo(_table(headers, rows, limits={len(headers) - 1: 60}, right={0}))
    for number, rows in variation_lines(record["variations"]).items():
        parent = rows[0]["parent"]
        click.echo(f"\n変化 {number} from ply {rows[0]['ply']} "
                   f"({'off 変化 ' + str(parent) if parent else 'off the main line'}): "
                   + " ".join(printable(r["text"]) for r in rows))
