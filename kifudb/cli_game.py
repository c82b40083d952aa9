"""``kifudb game ID``: one stored game, as the dashboard's game viewer shows it — players,
date, event, result, sources, the castles and openings of each side with their plies, every
main-line move (KI2, as written, time, an engine's score where the record gives one, comment),
the novelty (★, ``analytics.novelty``) and the variations.

    kifudb game 12 [--store DIR] [--format text|json] [--sfens] [--engine NAME] [--engine-limit L]

Where the store holds an engine's analysis (``kifudb analyse``), each move gets it
(``analytics.judgement``): in JSON an ``analysis`` object per move (``engine``, ``limit``,
``score_black``, ``mate_black``, ``win_black``, ``loss``, ``accuracy``, ``judgement``,
``best``; null where the position after the move was not analysed) and the game's
``judgement`` (each side's accuracy, average loss and judgements, the turning ply); in text
the engine's score (Black's view) and ``?!``, ``?``, ``??`` beside the judged moves, with the
engine's better move.
"""

from __future__ import annotations

from pathlib import Path

import click

from kifudb.labels.classify import KINDS
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
        for kind in KINDS:
            found = [f"{'*' if r['primary'] else ''}{r['label']} ({r['ply']})" for r in labels
                     if r["side"] == side and r["kind"] == kind]
            lines.append(f"  {_MARKS[side]} {kind}s: {', '.join(found) or '-'}")
    return lines


def _judged(analysis, sfen_before) -> str:
    """A move's engine analysis in the move list: Black's score after it (``+M3`` a mate)
    and, for a judged move, the engine's better move in KI2 (``-450 better ▲３一角``)."""
    from kifudb.analytics.game_record import ki2_of
    from kifudb.core.position import Position

    if analysis is None:
        return ""
    if analysis["mate_black"] is not None:
        score = ("+M" if analysis["mate_black"] > 0 else "-M") + str(abs(analysis["mate_black"]))
    else:
        score = f"{analysis['score_black']:+d}" if analysis["score_black"] else "0"
    if not analysis["best"]:
        return score
    better = ki2_of(Position.from_sfen(sfen_before), analysis["best"]) if sfen_before else None
    return f"{score} better {better or analysis['best']}"


def _judgement_line(judged: dict) -> str:
    """Each side's accuracy and judgements, and the turning ply."""
    sides = []
    for side in ("black", "white"):
        s = judged[side]
        accuracy = "-" if s["accuracy"] is None else f"{s['accuracy']:.1f}"
        sides.append(f"{_MARKS[side]} accuracy {accuracy}, {s['inaccuracies']}?! "
                     f"{s['mistakes']}? {s['blunders']}??")
    turned = (f"; turned at ply {judged['turning_ply']}" if judged["turning_ply"] else "")
    return (f"engine: {judged['engine']} at {judged['limit']} — " + "; ".join(sides) + turned
            + " (?! inaccuracy, ? mistake, ?? blunder: the mover's drop in win % of 5, 10, 15)")


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
@click.option("--engine", metavar="NAME",
              help="The engine analysis shown (a part of its name); by default the one with "
                   "the most analysed positions.")
@click.option("--engine-limit", "engine_limit", metavar="LIMIT",
              help="The analysis' limit as stored (nodes=1000 …).")
@_store_option
@_guard
def game(game_id: int, output: str, sfens: bool, engine, engine_limit, store_dir: Path) -> None:
    """One stored game: headers, labels, moves with times and comments, variations; the
    engine's judgements where the store holds an analysis."""
    from kifudb.analytics import stats
    from kifudb.analytics.game_record import (game_record, judgement_mark, score_text,
                                              variation_lines)
    from kifudb.analytics.novelty import game_novelty

    store = _open_store(store_dir)
    record = game_record(store, game_id, engine, engine_limit)
    if record is None:
        raise click.ClickException(f"the store has no game {game_id}")
    if output == "json":  # the game as every door gives it (GET /game/ID, db.game(ID))
        from kifudb.api import stored_game

        _echo_json(stored_game(store, game_id, engine, engine_limit).as_dict())
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
    if record["judgement"] is not None:  # the store's engine analysis, judged
        headers.insert(len(headers) - 1, "engine")
        for row, m in zip(rows, record["moves"]):
            before = record["sfens"][m["ply"] - 1] if m["ply"] <= len(record["sfens"]) else None
            row[1] += judgement_mark(m["analysis"])  # ?!, ?, ?? beside the move
            row.insert(len(row) - 1, _judged(m["analysis"], before))
        click.echo(printable(_judgement_line(record["judgement"])))
    click.echo(_table(headers, rows, limits={len(headers) - 1: 60}, right={0}))
    for number, rows in variation_lines(record["variations"]).items():
        parent = rows[0]["parent"]
        click.echo(f"\n変化 {number} from ply {rows[0]['ply']} "
                   f"({'off 変化 ' + str(parent) if parent else 'off the main line'}): "
                   + " ".join(printable(r["text"]) for r in rows))
