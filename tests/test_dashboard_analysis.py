"""The engine's analysis on the dashboard (issue 27), page by page with Streamlit's own test
harness (``AppTest``), on the sample records with analysis rows made by hand
(``analysis_store``: every score known): the game viewer's graph falls back to it (both drawn
when the record has evaluations too) and its move list marks the judged moves with the
engine's better move; the player page and the openings page show accuracy and mistakes with
the games behind them; the Puzzles page lists the positions where one move wins. A store
without an analysis shows none of it. ``test_dashboard_analysis_engine.py`` does it with the
real engine."""

from __future__ import annotations

import json
import re

import pytest

from kifudb.analytics import accuracy as collection
from kifudb.analytics.judgement import game_analysis, game_judgement, win_black
from kifudb.core.move import Move
from kifudb.core.notation import ki2_move
from kifudb.core.position import Position
from kifudb.store.folder import Store
from kifudb.store.writer import ingest_paths

from analysis_store import (BLUNDER, ENGINE, LIMIT, ROOT, SECOND, commit_analysis, games_of,
                            main_line)
from dashboard_pages import page, run, table

RECORDS = ROOT / "data" / "samples" / "records"


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    """``(store, made, evaluated)``: the sample records; three games without evaluations of
    their own and one with (``evaluated``) analysed by hand (``made``: game -> ply -> row)."""
    store = tmp_path_factory.mktemp("dashboard-analysis") / "store"
    ingest_paths([str(RECORDS)], store)
    [evaluated] = games_of(store, limit=1, evaluated=True)
    made = commit_analysis(store, games_of(store) + [evaluated])
    return store, made, evaluated


@pytest.fixture(autouse=True)
def store_env(monkeypatch, analysed):
    monkeypatch.setenv("KIFUDB_STORE", str(analysed[0]))


def shown(markdown: str) -> str:
    """The text a Markdown string shows (``display.plain`` escapes punctuation)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace("&lt;", "<").replace(
        "&gt;", ">").replace("&amp;", "&")


def texts(elements) -> list:
    return [shown(str(e.value)) for e in elements]


def layers(at) -> list:
    return json.loads(at.get("vega_lite_chart")[0].proto.spec)["layer"]


def clipped(row: dict) -> int:
    if row["mate_black"] is not None:
        return 3000 if row["mate_black"] > 0 else -3000
    return max(-3000, min(3000, row["score_black"]))


def first_game(analysed) -> int:
    return next(iter(analysed[1]))


# ----- the game viewer ------------------------------------------------------------------------------


def test_the_move_list_marks_the_blunder_with_the_engines_better_move(analysed):
    store, made, _ = analysed
    game = first_game(analysed)
    start, usi, _ = main_line(store, game)
    at = page("game", game=game, ply=BLUNDER)
    moves = table(at, f"all-moves-{game}-")
    assert {"engine", "better"} <= set(moves.columns) and "written" not in moves.columns
    judged = {row["ply"]: row for row in game_analysis(store, game)}
    marks = {"inaccuracy": " ?!", "mistake": " ?", "blunder": " ??", None: ""}
    for _, row in moves.iterrows():
        assert row["move"].endswith(marks[judged[row["ply"]]["judgement"]]), row["ply"]
    # by hand: Black's chance fell from 55% (+300) to 20% (-2000): a blunder, the only one
    assert win_black(300) - win_black(-2000) >= 15
    blunder = moves[moves["ply"] == BLUNDER].iloc[0]
    assert blunder["move"].endswith(" ??") and blunder["engine"] == "-2000"
    assert list(moves["move"].str.endswith("?")).count(True) == 1
    position = Position.from_sfen(start)
    for played in usi[:BLUNDER - 1]:
        position.push(Move.from_usi(played))
    better = ki2_move(position, Move.from_usi(made[game][BLUNDER - 1]["best"]),
                      Move.from_usi(usi[BLUNDER - 2]).to_square)
    assert blunder["better"] == better
    assert set(moves[moves["ply"] != BLUNDER]["better"]) == {""}
    # every score the engine gave, Black's view, as the move list writes them
    for ply in (1, 5, BLUNDER + 1):
        assert moves[moves["ply"] == ply].iloc[0]["engine"] == f"{made[game][ply]['score_black']:+d}"
    last = max(made[game])
    mate = made[game][last]["mate_black"]
    assert moves[moves["ply"] == last].iloc[0]["engine"] == ("+M3" if mate > 0 else "-M3")
    # under the board, at the blunder: what the engine thought of it
    note = " ".join(texts(at.warning))
    assert "??: blunder" in note and f"the engine preferred {better}" in note


def test_the_game_shows_each_sides_accuracy_and_where_it_turned(analysed):
    store, made, _ = analysed
    game = first_game(analysed)
    judged = game_judgement(store, game)
    at = page("game", game=game)
    caption = next(t for t in texts(at.caption) if t.startswith("Engine analysis"))
    assert f"({ENGINE}, {LIMIT})" in caption
    for side in ("black", "white"):
        assert f"accuracy {judged[side]['accuracy']:.1f}%" in caption
    assert judged["black"]["blunders"] == 1 and "?? 1" in caption
    # White won; Black's blunder at ply 11 turned the game: a button goes there
    assert judged["turning_ply"] == BLUNDER
    run(at.button(key=f"turned-{game}").click())
    assert at.query_params["ply"] == str(BLUNDER)


def test_the_graph_falls_back_to_the_engines_analysis(analysed):
    store, made, _ = analysed
    game = first_game(analysed)
    at = page("game", game=game, ply=20)
    drawn = layers(at)
    points = {p["ply"]: p["score"] for p in drawn[0]["data"]["values"]}
    assert {p["source"] for p in drawn[0]["data"]["values"]} == {"engine"}
    # the position after each move (ply 1 … n-1; the final one is not analysed)
    assert points == {ply: clipped(row) for ply, row in made[game].items() if ply >= 1}
    marked = [layer for layer in drawn if layer.get("mark", {}).get("shape") == "triangle-down"]
    assert [(p["ply"], p["mark"]) for p in marked[0]["data"]["values"]] == [(BLUNDER, "??")]
    # a click on the graph goes to that ply
    at.session_state[f"evaluation-{game}-20"] = {"selection": {"ply": [{"ply": 40}]}}
    run(at)
    assert at.query_params["ply"] == "40"


def test_the_graph_shows_both_when_the_record_has_evaluations(analysed):
    store, made, evaluated = analysed
    connection = Store(store).connect()
    own = dict(connection.execute("SELECT ply, score_black FROM moves WHERE game = ? AND line = 0 "
                                  "AND score_black IS NOT NULL", [evaluated]).fetchall())
    connection.close()
    at = page("game", game=evaluated, ply=30)
    drawn = layers(at)
    # the record's first (filled), the engine's beside it, told apart by colour and legend
    assert {p["ply"]: p["score"] for p in drawn[0]["data"]["values"]} == {
        ply: max(-3000, min(3000, s)) for ply, s in own.items()}
    line = drawn[1]
    series = {p["source"]: p["series"] for p in line["data"]["values"]}
    assert series == {"record": "record", "engine": f"engine ({ENGINE} {LIMIT})"}
    engine = {p["ply"]: p["score"] for p in line["data"]["values"] if p["source"] == "engine"}
    assert engine == {ply: clipped(row) for ply, row in made[evaluated].items() if ply >= 1}
    assert line["encoding"]["color"]["legend"] is not None
    moves = table(at, f"all-moves-{evaluated}-")
    assert {"score", "engine"} <= set(moves.columns)
    assert moves[moves["ply"] == 30].iloc[0]["score"] == f"{own[30]:+d}"
    assert moves[moves["ply"] == 30].iloc[0]["engine"] == f"{made[evaluated][30]['score_black']:+d}"


# ----- players, openings and castles ------------------------------------------------------------------


def first_black(analysed) -> str:
    """The Black player of ``first_game``, as the record names him."""
    connection = Store(analysed[0]).connect()
    try:
        return connection.execute("SELECT black FROM games WHERE game = ?",
                                  [first_game(analysed)]).fetchone()[0]
    finally:
        connection.close()


def test_the_player_page_shows_accuracy_and_the_most_costly_moves(analysed):
    store, made, _ = analysed
    game = first_game(analysed)
    black = first_black(analysed)
    name = _canonical(black)  # 伊奈祐介六段: 伊奈祐介, as the list of players names him
    at = page("players", name=name)
    figures = collection.accuracy(store, "player", filters=_player_filter(name))
    [own] = [g for g in figures["groups"] if g["player"] == name]
    metrics = {m.label: (m.value, m.delta) for m in at.metric}
    assert metrics["Accuracy"][0] == f"{own['accuracy']:.1f}%"
    assert metrics["Accuracy"][1] == f"over {_count(own['games'], 'game')}, " \
                                     f"{_count(own['moves'], 'move')}"
    assert metrics["Blunders · mistakes · inaccuracies"][0] == \
        f"{own['blunders']} · {own['mistakes']} · {own['inaccuracies']}"
    costly = table(at, "mistakes-")
    assert (game, BLUNDER) in set(zip(costly["game"], costly["ply"]))
    row = list(zip(costly["game"], costly["ply"])).index((game, BLUNDER))
    assert costly.iloc[row]["move"].endswith(" ??")
    # a click on the move opens its game there
    found = next(d for d in at.dataframe if d.key and d.key.startswith("mistakes-"))
    at.session_state[found.key] = {"selection": {"rows": [], "columns": [],
                                                 "cells": [(row, "move")]}}
    run(at)
    assert at.query_params["game"] == str(game) and at.query_params["ply"] == str(BLUNDER)


def _player_filter(name):
    from kifudb.analytics.filters import GameFilter

    return GameFilter(player=name)


def _canonical(name):
    from kifudb.labels.players import canonical

    return canonical(name).name


def _count(n, word):
    from kifudb.dashboard.display import count

    return count(n, word)


@pytest.mark.parametrize("kind", ["opening", "castle"])
def test_openings_and_castles_show_the_accuracy_of_the_side_that_played_them(analysed, kind):
    store = analysed[0]
    figures = collection.accuracy(store, kind)
    assert figures["groups"]
    at = page("openings", kind=kind)
    frame = table(at, f"accuracy-{kind}")
    assert len(frame) == len(figures["groups"])
    for (_, row), group in zip(frame.iterrows(), figures["groups"]):
        assert (row[kind], row["games"], row["moves"]) == (group[kind], group["games"],
                                                           group["moves"])
        assert row["accuracy"] == pytest.approx(group["accuracy"])
    # beside the label studied: its accuracy and the games behind it
    studied = at.selectbox(key="study").value
    group = next((g for g in figures["groups"] if g[kind] == studied), None)
    if group is not None:
        metric = next(m for m in at.metric if m.label.startswith("Engine accuracy"))
        assert metric.value == f"{group['accuracy']:.1f}%"
        assert f"{_count(group['games'], 'game')}, {_count(group['moves'], 'move')}" in \
            metric.delta
    # a label from a link: its accuracy beside it
    last = figures["groups"][-1]
    at = page("openings", kind=kind, study=last[kind])
    metric = next(m for m in at.metric if m.label.startswith("Engine accuracy"))
    assert metric.value == f"{last['accuracy']:.1f}%"


# ----- puzzles ------------------------------------------------------------------------------------------


def test_the_puzzles_page_lists_the_positions_where_one_move_wins(analysed):
    store, made, _ = analysed
    game = first_game(analysed)
    start, usi, _ = main_line(store, game)
    at = page("puzzles")
    listed = table(at, "puzzles-")
    # every hand-made game longer than the blunder has its puzzle after the blunder
    expected = {(g, BLUNDER) for g in made if len(made[g]) > BLUNDER + 1}
    assert set(zip(listed["game"], listed["ply"])) == expected
    assert set(listed["found"]) == {True}  # the game went on with the winning move
    assert set(listed["second"]) == {win_black(SECOND)}
    # the first one on the board, White to move: the position after the blunder
    position = Position.from_sfen(start)
    for played in usi[:BLUNDER]:
        position.push(Move.from_usi(played))
    first = (int(listed.iloc[0]["game"]), int(listed.iloc[0]["ply"]))
    at = page("puzzles", game=game, ply=BLUNDER)
    board = [json.loads(c.proto.json_args)["sfen"] for c in at.get("component_instance")
             if '"sfen"' in c.proto.json_args]
    assert board == [position.sfen()]
    # a wrong move typed, then the right one
    wrong = next(m for m in position.legal_moves() if m.usi() != usi[BLUNDER])
    at.text_input[0].input(wrong.usi())
    form = next(b for b in at.button if "Try" in str(b.label))
    run(form.click())
    assert any("not the winning move" in t for t in texts(at.error))
    at.text_input[0].input(ki2_move(position, Move.from_usi(usi[BLUNDER])))
    run(next(b for b in at.button if "Try" in str(b.label)).click())
    assert any("the winning move" in t for t in texts(at.success))
    # the solution: the engine's line, and the game went on with it
    run(at.toggle(key=f"solution-{game}-{BLUNDER}").set_value(True))
    solution = " ".join(texts(at.info))
    assert "Solution: " + ki2_move(position, Move.from_usi(usi[BLUNDER])) in solution
    assert "(found)" in solution
    assert first in {(g, BLUNDER) for g in made}


def test_the_puzzles_page_says_a_puzzle_not_in_the_list(analysed):
    at = page("puzzles", game=999999, ply=3, page="x")
    said = " ".join(texts(at.warning))
    assert "Not a page: 'x'" in said and "No puzzle at game 999999, ply 3" in said
    assert table(at, "puzzles-") is not None


def test_without_a_second_line_or_an_analysis_the_puzzles_page_says_why(tmp_path, monkeypatch):
    store = tmp_path / "store"
    ingest_paths([str(RECORDS / "habu-fujii-2006.kif")], store)
    monkeypatch.setenv("KIFUDB_STORE", str(store))
    at = page("puzzles")
    assert any("no engine analysis" in t for t in texts(at.info))
    # pages without an analysis show none of it
    game = games_of(store, limit=1)[0]
    at = page("game", game=game)
    assert not any(t.startswith("Engine analysis") for t in texts(at.caption))
    assert not at.get("vega_lite_chart")
    assert "engine" not in table(at, f"all-moves-{game}-").columns
    at = page("openings")
    assert not [d for d in at.dataframe if d.key and d.key.startswith("accuracy-")]
    # an analysis of one line: puzzles need the second
    commit_analysis(store, [game], second=False)
    at = page("puzzles")
    assert any("--multipv 2" in t for t in texts(at.info))


def test_the_puzzles_page_keeps_the_sidebars_filters_in_the_url(analysed):
    store, made, _ = analysed
    game = first_game(analysed)
    black = first_black(analysed)
    at = page("puzzles", player=black)
    assert at.query_params["player"] == black
    listed = table(at, "puzzles-")
    assert set(zip(listed["game"], listed["ply"])) == {(game, BLUNDER)}
    # a click on a puzzle keeps the filters and names the puzzle in the URL
    at = page("puzzles", decided="true")
    listed = table(at, "puzzles-")
    assert len(listed) > 1
    found = next(d for d in at.dataframe if d.key and d.key.startswith("puzzles-"))
    at.session_state[found.key] = {"selection": {"rows": [], "columns": [],
                                                 "cells": [(1, "game")]}}
    run(at)
    assert at.query_params["decided"] == "true"
    assert (at.query_params["game"], at.query_params["ply"]) == (str(listed.iloc[1]["game"]),
                                                               str(listed.iloc[1]["ply"]))
    assert any(t.endswith(f"game {listed.iloc[1]['game']}, after ply {BLUNDER}")
               for t in texts(at.caption))


def test_the_game_viewers_kif_holds_the_analysis_as_shogihome_comments(analysed):
    store, made, _ = analysed
    game = first_game(analysed)
    at = page("game", game=game, ply=BLUNDER)
    kif = next(c.value for c in at.code if c.value.startswith("#KIF"))
    lines = kif.splitlines()
    at_blunder = next(i for i, line in enumerate(lines)
                      if line.lstrip().startswith(f"{BLUNDER} "))
    assert lines[at_blunder + 1] == "*#評価値=-2000"
    assert kif.count("*#エンジン=") == len(made[game]) - 1  # every move but the last
