"""``kifudb stats …`` and ``kifudb relabel``: the statistics of ``analytics.stats`` on the
command line, as aligned text or JSON.

    kifudb stats overview
    kifudb stats results --by year --handicap 平手
    kifudb stats labels --kind castle --by-year --format json
    kifudb stats winrates --kind opening --min-games 5
    kifudb stats pairings --kind castle --against opening
    kifudb stats players --limit 20
    kifudb stats player 羽生善治 [--against 森内俊之] [--rating]
    kifudb stats findings [--code bad_date] [--severity error] [--path 2chkifu]
    kifudb stats novelties [--limit 20] [filters]
    kifudb relabel                      # after labels/labels.toml changed

Every statistics command takes the game filters of ``store_cli.game_filter_options``
(``--player``, ``--from``, ``--to``, ``--event``, ``--handicap``, ``--decided``, ``--label`` …,
listed by ``analytics.filter_options``). Every score is shown with the number of
decided games it stands on (a draw counts half; games without a result are not in it). Bad
values get a message, never a traceback.
"""

from __future__ import annotations

from pathlib import Path

import click

from kifudb.labels.classify import KINDS
from kifudb.output import PathNames, plural, printable, wants_progress
from kifudb.cli_store import (_echo_json, _guard, _open_store, _result, _store_option, _table,
                              game_filter, game_filter_options)

__all__ = ["stats", "relabel"]


def _stats():
    """``analytics.stats``, imported when a command runs (it loads DuckDB and SQLAlchemy,
    which the other kifudb commands do not need)."""
    from kifudb.analytics import stats

    return stats


def _filter_options(command):
    """The game filters, ``--format`` and ``--store``."""
    command = _store_option(command)
    command = click.option("--format", "output", type=click.Choice(["text", "json"]),
                           default="text", show_default=True)(command)
    return game_filter_options(command)


def _percent(value) -> str:
    return "-" if value is None else f"{value:.1%}"


def _interval(row: dict) -> str:
    if row.get("ci_low") is None:
        return "-"
    return f"{row['ci_low']:.1%}–{row['ci_high']:.1%}"


def _show(output: str, data, headers: list, rows: list, right=frozenset()) -> None:
    if output == "json":
        _echo_json(data)
    elif rows:
        click.echo(_table(headers, rows, limits={0: 40, 1: 40}, right=set(right)))
    else:
        click.echo("nothing in scope")


@click.group()
def stats() -> None:
    """Statistics over the store: results, labels (castles, openings, techniques, notes),
    players."""


@stats.command()
@_store_option
@click.option("--format", "output", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@_guard
def overview(store_dir: Path, output: str) -> None:
    """The size of the store and what it holds."""
    data = _stats().overview(_open_store(store_dir))
    if output == "json":
        _echo_json(data)
        return
    click.echo(f"{plural(data['games'], 'game')} ({data['valid_games']} valid), "
               f"{plural(data['positions'], 'position')}, {plural(data['players'], 'player')}, "
               f"{plural(data['events'], 'event')}, {plural(data['files'], 'file')}; dates "
               f"{data['date_from'] or '-'} to {data['date_to'] or '-'}")
    click.echo("results: " + ", ".join(f"{k} {v}" for k, v in data["results"].items()))
    click.echo("findings: " + (", ".join(f"{k} {v}" for k, v in
                                         sorted(data["findings_by_severity"].items())) or "none"))
    if not data["labels_current"]:
        click.echo("labels were computed with older definitions: run 'kifudb relabel'")


@stats.command()
@click.option("--by", type=click.Choice(["total", "year", "reason", "length"]), default="total",
              show_default=True)
@click.option("--bucket", type=click.IntRange(min=1), default=10, show_default=True,
              help="With --by length: moves per bucket.")
@_filter_options
@_guard
def results(store_dir: Path, output: str, by: str, bucket: int, **kwargs) -> None:
    """Black's score and the results: in total, by year, by reason, or game lengths."""
    store, filters = _open_store(store_dir), game_filter(kwargs)
    if by == "total":
        row = _stats().results(store, filters=filters)
        _show(output, row, ["games", "black", "white", "draw", "no result", "Black's score",
                            "of decided", "95% CI"],
              [[row["games"], row["black_wins"], row["white_wins"], row["draws"], row["other"],
                _percent(row["black_score"]), row["decided"], _interval(row)]],
              right={0, 1, 2, 3, 4, 6})
    elif by == "year":
        data = _stats().results_by_year(store, filters=filters)
        _show(output, data, ["year", "games", "black", "white", "draw", "Black's score",
                             "of decided", "95% CI"],
              [[r["year"], r["games"], r["black_wins"], r["white_wins"], r["draws"],
                _percent(r["black_score"]), r["decided"], _interval(r)] for r in data],
              right={1, 2, 3, 4, 6})
    elif by == "reason":
        data = _stats().results_by_reason(store, filters=filters)
        _show(output, data, ["reason", "games", "black", "white", "draw", "no result"],
              [[r["reason"], r["games"], r["black_wins"], r["white_wins"], r["draws"],
                r["games"] - r["black_wins"] - r["white_wins"] - r["draws"]]
               for r in data], right={1, 2, 3, 4, 5})
    else:
        data = _stats().game_lengths(store, bucket=bucket, filters=filters)
        _show(output, data, ["moves", "games"],
              [[f"{r['moves_from']}–{r['moves_to']}", r["games"]] for r in data], right={1})


def _kind_option(command):
    return click.option("--kind", type=click.Choice(KINDS), default="castle",
                        show_default=True)(command)


def _min_games_option(command):
    return click.option("--min-games", type=click.IntRange(min=1), default=1,
                        show_default=True)(command)


def _label_options(command):
    """--kind, --primary and --min-games."""
    command = _min_games_option(command)
    command = click.option("--primary", "primary_only", is_flag=True,
                           help="Count only each side's main castle or opening.")(command)
    return _kind_option(command)


@stats.command()
@_label_options
@click.option("--by-year", is_flag=True, help="Per year of the game's date.")
@_filter_options
@_guard
def labels(store_dir: Path, output: str, kind: str, by_year: bool, primary_only: bool,
           min_games: int, **kwargs) -> None:
    """How often each side reached each castle, opening, technique or note (--kind)."""
    data = _stats().label_frequencies(_open_store(store_dir), kind, by_year=by_year,
                                      min_games=min_games, primary_only=primary_only,
                                      filters=game_filter(kwargs))
    headers = ["year"] * by_year + ["side", kind, "games", "share"]
    _show(output, data, headers,
          [([r["year"]] if by_year else []) + [r["side"], r["label"], r["games"],
                                               _percent(r["share"])] for r in data],
          right={len(headers) - 2, len(headers) - 1})


@stats.command()
@_label_options
@_filter_options
@_guard
def winrates(store_dir: Path, output: str, kind: str, primary_only: bool, min_games: int,
             **kwargs) -> None:
    """How each castle, opening, technique or note scores for the side that played it."""
    data = _stats().win_rates(_open_store(store_dir), kind, min_games=min_games,
                              primary_only=primary_only, filters=game_filter(kwargs))
    _show(output, data, ["side", kind, "games", "won", "lost", "drawn", "score", "of decided",
                         "95% CI"],
          [[r["side"], r["label"], r["games"], r["wins"], r["losses"], r["draws"],
            _percent(r["score"]), r["decided"], _interval(r)] for r in data],
          right={2, 3, 4, 5, 7})


@stats.command()
@_kind_option
@click.option("--against", type=click.Choice(KINDS),
              help="White's kind of label (default: the same as --kind).")
@_min_games_option
@_filter_options
@_guard
def pairings(store_dir: Path, output: str, kind: str, against, min_games: int, **kwargs) -> None:
    """Black's main castle or opening against White's, and how Black scores."""
    data = _stats().pairings(_open_store(store_dir), kind, against, min_games=min_games,
                             filters=game_filter(kwargs))
    _show(output, data, ["▲ black", "△ white", "games", "black", "white", "draw",
                         "Black's score", "of decided", "95% CI"],
          [[r["black_label"], r["white_label"], r["games"], r["black_wins"], r["white_wins"],
            r["draws"], _percent(r["black_score"]), r["decided"], _interval(r)] for r in data],
          right={2, 3, 4, 5, 7})


@stats.command()
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True)
@_min_games_option
@_filter_options
@_guard
def players(store_dir: Path, output: str, limit: int, min_games: int, **kwargs) -> None:
    """The players with the most games, and their scores."""
    data = _stats().players(_open_store(store_dir), min_games=min_games, limit=limit,
                            filters=game_filter(kwargs))
    _show(output, data, ["player", "games", "won", "lost", "drawn", "score", "of decided",
                         "95% CI", "as written"],
          [[r["player"], r["games"], r["wins"], r["losses"], r["draws"], _percent(r["score"]),
            r["decided"], _interval(r),
            " / ".join(s for s in r["spellings"] if s != r["player"])] for r in data],
          right={1, 2, 3, 4, 6})


@stats.command()
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True)
@click.option("--offset", type=click.IntRange(min=0), default=0, show_default=True)
@_filter_options
@_guard
def games(store_dir: Path, output: str, limit: int, offset: int, **kwargs) -> None:
    """The games of the filters, newest first: "the games in which Black played 垂れ歩
    between ply 40 and 80" is --label 垂れ歩 --label-side black --label-from-ply 40
    --label-to-ply 80."""
    data = _stats().games(_open_store(store_dir), limit=limit, offset=offset,
                          filters=game_filter(kwargs))
    _show(output, data, ["game", "date", "black", "white", "result", "moves", "event"],
          [[r["game"], r["date"] or "", r["black"] or "?", r["white"] or "?",
            _result(r["winner"], r["reason"]), r["moves"], r["event"] or ""] for r in data],
          right={0, 5})


@stats.command()
@click.argument("name")
@click.option("--against", help="Only the games against this player (canonical name or a "
                                "spelling).")
@click.option("--rating", is_flag=True,
              help="With the computed rating (Elo over the decided, dated games in scope, "
                   "analytics/elo.py) and, in JSON, its history.")
@_filter_options
@_guard
def player(store_dir: Path, output: str, name: str, against, rating: bool, **kwargs) -> None:
    """One player: score as Black and White, favourite castles and openings, opponents."""
    store, filters = _open_store(store_dir), game_filter(kwargs)
    if against is not None:
        data = _stats().head_to_head(store, name, against, filters=filters)
        _show(output, data, ["game", "date", "side", "result", "reason", "moves"],
              [[g["game"], g["date"], g["side"], g["winner"], g["reason"], g["moves"]]
               for g in data["games"]])
        if output == "text":
            click.echo(f"{name} against {against}: {data['wins']} won, {data['losses']} lost, "
                       f"{data['draws']} drawn; score {_percent(data['score'])} of "
                       f"{plural(data['decided'], 'decided game')}")
        return
    data = _stats().player_summary(store, name, filters=filters)
    if data is not None and rating:
        from kifudb.analytics.elo import player_rating

        data["computed_rating"] = player_rating(store, data["player"], filters=filters)
    if data is None:
        raise click.ClickException(f"no game in scope has a player named {name!r} "
                                   f"(a canonical name or a spelling as written; see 'kifudb "
                                   f"players')")
    if output == "json":
        _echo_json(data)
        return
    spellings = [s for s in data["spellings"] if s != data["player"]]
    click.echo(f"{data['player']}: {plural(data['games'], 'game')}"
               + (f" (written {' / '.join(spellings)})" if spellings else ""))
    rated = data.get("computed_rating")
    if rated is not None:
        click.echo(f"computed rating (Elo, analytics/elo.py): {rated['rating']:.0f} after "
                   f"{plural(rated['games'], 'decided dated game')}")
    click.echo(_table(["as", "games", "won", "lost", "drawn", "score", "of decided", "95% CI"],
                      [[side, r["games"], r["wins"], r["losses"], r["draws"],
                        _percent(r["score"]), r["decided"], _interval(r)]
                       for side, r in (("black", data["as_black"]), ("white", data["as_white"]))],
                      right={1, 2, 3, 4, 6}))
    for key, title in (("openings", "opening"), ("castles", "castle"), ("opponents", "opponent")):
        rows = data[key][:10]
        if rows:
            click.echo("")
            column = "opponent" if key == "opponents" else "label"
            click.echo(_table([title, "games", "won", "lost", "drawn", "score", "of decided"],
                              [[r[column], r["games"], r["wins"], r["losses"], r["draws"],
                                _percent(r["score"]), r["decided"]] for r in rows],
                              limits={0: 40}, right={1, 2, 3, 4, 6}))


@stats.command()
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True,
              help="At most N games with a novelty (those without one are skipped).")
@click.option("--offset", type=click.IntRange(min=0), default=0, show_default=True,
              help="Skip the first N of them (a page).")
@_filter_options
@_guard
def novelties(store_dir: Path, output: str, limit: int, offset: int, **kwargs) -> None:
    """The novelty of the latest dated games: the first ply whose position no earlier game
    reached, and how many earlier games reached the position before it."""
    from kifudb.analytics.novelty import novelties as latest

    data = latest(_open_store(store_dir), limit=limit, offset=offset,
                  filters=game_filter(kwargs))
    _show(output, {"offset": offset, "limit": limit, "novelties": data},
          ["game", "date", "▲ black", "△ white", "ply", "move", "earlier games"],
          [[r["game"], r["date"], r["black"], r["white"], r["ply"], r["move"],
            r["earlier_games"]] for r in data], right={0, 4, 6})


@stats.command()
@click.option("--code", help="Only this code (bad_date, bad_geometry …).")
@click.option("--severity", type=click.Choice(["error", "warning", "info"]),
              help="Only this severity.")
@click.option("--path", "path_part", metavar="TEXT", help="Only files whose path contains this.")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True,
              help="At most N findings listed (the counts count them all).")
@click.option("--offset", type=click.IntRange(min=0), default=0, show_default=True,
              help="Skip the first N findings (the next page).")
@_store_option
@click.option("--format", "output", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@_guard
def findings(store_dir: Path, output: str, code, severity, path_part, limit: int,
             offset: int) -> None:
    """What validation found in the stored records: counts by code, then each finding."""
    from kifudb.analytics.findings import findings_answer

    store = _open_store(store_dir)
    answer = findings_answer(store, code, severity, path_part, offset, limit)
    if output == "json":  # the HTTP API's answer (analytics.findings), with the files' paths
        _echo_json(answer)
        return
    counts, rows = answer["by_code"], answer["findings"]
    if not rows:
        click.echo("no finding in scope")
        return
    total = sum(r["count"] for r in counts)
    click.echo(f"{plural(total, 'finding')} by code:" if path_part is None else "by code, in "
               "every file:")
    for r in counts:
        click.echo(f"  {r['severity']:8s}{printable(r['code']):26s}{r['count']:>7}")
    names = PathNames()
    for r in rows:
        where = printable(names(r["path"])) + (f":{r['line']}" if r["line"] else "")
        game = f" game {r['game']}" if r["game"] is not None else ""
        ply = f" ply {r['ply']}" if r["ply"] else ""
        text = f" «{printable(r['text'])}»" if r["text"] else ""
        click.echo(f"{where}:{game}{ply} {r['severity']} {printable(r['code'])}{text}: "
                   f"{printable(r['message'])}")
    if len(rows) == limit and (path_part is not None or total > limit):
        click.echo(f"(only {plural(limit, 'finding')} shown: --limit N for more; --code, "
                   f"--severity or --path narrow the list)")


@click.command()
@_store_option
@click.option("--progress/--no-progress", default=None, help="A progress bar (default: on a terminal).")
@_guard
def relabel(store_dir: Path, progress) -> None:
    """Label every stored game again with the current definitions (castles, openings,
    techniques, notes)."""
    from kifudb.store.relabel import relabel as relabel_store

    store = _open_store(store_dir)
    report = relabel_store(store, progress=wants_progress(progress))
    click.echo(f"{plural(report.games, 'game')} relabelled, {plural(report.labels, 'label')} "
               f"(definitions {report.version}) in batch {report.batch}")


def _judgement_commands() -> None:
    """``stats accuracy`` and ``stats mistakes`` (``kifudb.cli_judgement``), which read the
    engine's analysis."""
    from kifudb.cli_judgement import accuracy, mistakes

    stats.add_command(accuracy)
    stats.add_command(mistakes)


_judgement_commands()
