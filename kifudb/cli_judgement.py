"""``kifudb stats accuracy``, ``kifudb stats mistakes``, ``kifudb puzzles`` and ``kifudb
calibrate``: what the engine's analysis in the store says (``analytics.judgement``,
``analytics.accuracy``, ``analytics.puzzles``, ``analytics.calibration``), on the command line.

    kifudb stats accuracy [filters] [--by total|player|opening|castle|year|ply-range]
    kifudb stats mistakes [filters] [--of PLAYER] [--least mistake] [--limit 20]
    kifudb puzzles [filters] [--limit 50] [--format text|json|csv]
    kifudb calibrate [--engine E] [--limit nodes=1000] [--reset]

Each takes ``--engine NAME`` and ``--engine-limit LIMIT`` (``calibrate``: ``--limit``) to
choose among the analyses of a store that holds several (by default the one with the most
analysed positions); a store without analysis, or without the one named, is said in one line
with what to do or what it holds.
"""

from __future__ import annotations

from pathlib import Path

import click

from kifudb.output import csv_text, plural, printable
from kifudb.cli_store import (_echo_json, _guard, _open_store, _store_option, _table,
                              game_filter, game_filter_options)

__all__ = ["accuracy", "mistakes", "puzzles", "calibrate"]


def _analysis_options(command):
    """``--engine`` and ``--engine-limit``: which of the store's analyses."""
    command = click.option("--engine-limit", "engine_limit", metavar="LIMIT",
                           help="The analysis' limit as stored (nodes=1000, depth=10 …): with "
                                "several, the one with the most analysed positions.")(command)
    return click.option("--engine", metavar="NAME",
                        help="The analysing engine (its name or a part of it: "
                             "fairy-stockfish); by default the analysis with the most "
                             "analysed positions.")(command)


def _format_option(command=None, *, choices=("text", "json")):
    """``--format``, of ``choices``."""
    if command is None:
        return lambda command: _format_option(command, choices=choices)
    return click.option("--format", "output", type=click.Choice(list(choices)), default="text",
                        show_default=True)(command)


def _said(answer: dict) -> str:
    """The line that says which analysis a figure comes from."""
    from kifudb.analytics.judgement import WIN_K

    k = answer["k"]
    how = ("lishogi's default" if k == WIN_K else "fitted to this store by kifudb calibrate")
    return printable(f"analysis: {answer['engine']} at {answer['limit']} (k = {k:g}, {how})")


def _number(value, places: int = 1) -> str:
    return "-" if value is None else f"{value:.{places}f}"


@click.command()
@click.option("--by", type=click.Choice(["total", "player", "opening", "castle", "year",
                                         "ply-range"]), default="total", show_default=True)
@click.option("--bucket", type=click.IntRange(min=1), default=20, show_default=True,
              help="With --by ply-range: plies per range.")
@click.option("--min-games", type=click.IntRange(min=1), default=1, show_default=True)
@_analysis_options
@_format_option
@_store_option
@game_filter_options
@_guard
def accuracy(store_dir: Path, output: str, by: str, bucket: int, min_games: int, engine,
             engine_limit, **kwargs) -> None:
    """The accuracy of the moves (lishogi's formula, 0–100), the average loss and the
    judgements, in total or by player, opening, castle, year or ply range, each with the
    games and moves behind it."""
    from kifudb.analytics.accuracy import accuracy as measured

    data = measured(_open_store(store_dir), by=by, bucket=bucket, min_games=min_games,
                    engine=engine, engine_limit=engine_limit, filters=game_filter(kwargs))
    if output == "json":
        _echo_json(data)
        return
    click.echo(_said(data))
    if not data["groups"]:
        click.echo("no analysed move in scope")
        return
    key = {"total": [], "player": ["player"], "opening": ["opening"], "castle": ["castle"],
           "year": ["year"], "ply-range": ["plies"]}[by]
    rows = []
    for g in data["groups"]:
        shown = {"player": g.get("player") or "?", "opening": g.get("opening"),
                 "castle": g.get("castle"), "year": g.get("year"),
                 "plies": f"{g['plies_from']}–{g['plies_to']}" if "plies_from" in g else None}
        rows.append([shown[k] for k in key] + [g["games"], g["moves"], _number(g["accuracy"]),
                                                _number(g["average_loss"]), g["inaccuracies"],
                                                g["mistakes"], g["blunders"]])
    headers = key + ["games", "moves", "accuracy", "avg loss", "?!", "?", "??"]
    click.echo(_table(headers, rows, limits={0: 40},
                      right=set(range(len(key), len(headers)))))
    click.echo("(accuracy: the mean of the moves' accuracies, 0–100; loss: the mover's drop in "
               "win %; ?! ? ??: inaccuracies, mistakes, blunders)")


@click.command()
@click.option("--of", "of", metavar="PLAYER",
              help="Only the moves of this player (canonical name, a spelling, or a part of "
                   "the name as written); --player keeps the games, both sides' moves.")
@click.option("--least", type=click.Choice(["inaccuracy", "mistake", "blunder"]),
              default="inaccuracy", show_default=True, help="The mildest judgement listed.")
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--offset", type=click.IntRange(min=0), default=0, show_default=True)
@_analysis_options
@_format_option
@_store_option
@game_filter_options
@_guard
def mistakes(store_dir: Path, output: str, of, least: str, limit: int, offset: int, engine,
             engine_limit, **kwargs) -> None:
    """The most costly moves (the largest loss first) of the games in scope, with the
    engine's better move."""
    from kifudb.analytics.accuracy import mistakes as costly
    from kifudb.analytics.judgement import MARKS

    data = costly(_open_store(store_dir), limit=limit, offset=offset, of=of, least=least,
                  engine=engine, engine_limit=engine_limit, filters=game_filter(kwargs))
    if output == "json":
        _echo_json(data)
        return
    click.echo(_said(data))
    if not data["moves"]:
        click.echo("no judged move in scope")
        return
    click.echo(_table(["game", "ply", "date", "player", "move", "better", "loss", "win %"],
                      [[m["game"], m["ply"], m["date"], m["player"] or m["mover"],
                        f"{m['ki2'] or m['usi']}{MARKS[m['judgement']]}",
                        m["best_ki2"] or m["best"] or "",
                        _number(m["loss"]), f"{m['win_before']:.0f} → {m['win_after']:.0f}"]
                       for m in data["moves"]], limits={3: 20}, right={0, 1, 6}))


#: the columns of ``kifudb puzzles --format csv``
PUZZLE_COLUMNS = ["game", "ply", "date", "black", "white", "event", "side", "sfen", "move",
                  "ki2", "solution", "score_black", "mate_black", "win", "second_move",
                  "second_win", "played", "found", "occurrences"]


@click.command()
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True)
@click.option("--offset", type=click.IntRange(min=0), default=0, show_default=True)
@_analysis_options
@_format_option(choices=("text", "json", "csv"))
@_store_option
@game_filter_options
@_guard
def puzzles(store_dir: Path, output: str, limit: int, offset: int, engine, engine_limit,
            **kwargs) -> None:
    """Positions of the store's games where one move wins and the others do not (the
    engine's two best lines: kifudb analyse --multipv 2), with the SFEN, the solution, the
    game and the ply."""
    from kifudb.analytics.puzzles import puzzles as found

    data = found(_open_store(store_dir), limit=limit, offset=offset, engine=engine,
                 engine_limit=engine_limit, filters=game_filter(kwargs))
    if output == "json":
        _echo_json(data)
        return
    if output == "csv":
        click.echo(csv_text(PUZZLE_COLUMNS, data["puzzles"]), nl=False)
        return
    click.echo(_said(data))
    if not data["puzzles"]:
        click.echo("no puzzle in scope")
        return
    for p in data["puzzles"]:
        mark = "▲" if p["side"] == "black" else "△"
        click.echo(printable(f"game {p['game']} ply {p['ply']} ({p['date'] or 'undated'}, "
                             f"▲{p['black'] or '?'} vs △{p['white'] or '?'}): {mark} to "
                             f"move and win"))
        click.echo(f"  sfen {p['sfen']}")
        click.echo(printable(
            f"  solution {p['ki2'] or p['move']} ({p['solution']}); win {p['win']:.0f}% "
            f"against {p['second_win']:.0f}% for {p['second_move']}; the game "
            f"{'found it' if p['found'] else 'played ' + (p['played'] or '-')}"))
    click.echo(f"{plural(len(data['puzzles']), 'puzzle')} (from {offset + 1}; --limit, "
               f"--offset for more)")


@click.command()
@click.option("--engine", metavar="NAME",
              help="The analysing engine (its name or a part of it); by default the analysis "
                   "with the most analysed positions.")
@click.option("--limit", "--engine-limit", "engine_limit", metavar="LIMIT",
              help="The analysis' limit as stored (nodes=1000 …).")
@click.option("--reset", is_flag=True,
              help="Forget the fitted coefficient: the judgements use lishogi's default again.")
@_format_option
@_store_option
@_guard
def calibrate(store_dir: Path, output: str, engine, engine_limit, reset: bool) -> None:
    """Fit the win-rate curve win = 2/(1+e^(−k·cp))−1 of an engine and limit to the store's
    own decided games (logistic regression of the result on the score), and record k in the
    store: its judgements use it from then on."""
    from kifudb.analytics.calibration import calibrate as fitted, forget

    store = _open_store(store_dir)
    if reset:
        data = forget(store, engine, engine_limit)
        if output == "json":
            _echo_json(data)
        else:
            click.echo(printable(f"{data['engine']} at {data['limit']}: the fitted k "
                                 f"({data['previous_k']:g}) is forgotten; judgements use "
                                 f"lishogi's default again"))
        return
    data = fitted(store, engine, engine_limit)
    if output == "json":
        _echo_json(data)
        return
    click.echo(printable(data["engine"]) + f" at {data['limit']}: k = {data['k']:.6g} "
               f"(± {data['error']:.2g}) "
               f"from {plural(data['samples'], 'analysed position')} of "
               f"{plural(data['games'], 'decided game')} (lishogi's default: "
               f"{data['default_k']:g}; used until now: {data['previous_k']:g})")
    click.echo(f"recorded in {printable(store.manifest_path)}: the judgements of this engine "
               f"and limit "
               f"use it ('kifudb calibrate --reset' forgets it)")
