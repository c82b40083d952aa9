"""The dashboard on a real engine's analysis (issue 27), end to end: the WCSC28 games of
``analysed_store`` (``tests/conftest.py``: every position analysed by Debian's
``fairy-stockfish``, two lines, through the runner), then the game viewer, the player page,
the openings page and the Puzzles page opened with Streamlit's ``AppTest``: each shows the
analysis as ``analytics`` answers it."""

from __future__ import annotations

import json

import pytest

from kifudb.analytics import accuracy as collection
from kifudb.analytics import puzzles as found_puzzles
from kifudb.analytics.judgement import game_judgement
from kifudb.store.folder import Store

from dashboard_pages import page, table


@pytest.fixture
def analysed(analysed_store):
    return analysed_store


@pytest.fixture(autouse=True)
def store_env(monkeypatch, analysed):
    monkeypatch.setenv("KIFUDB_STORE", str(analysed))


def longest_game(store) -> tuple:
    connection = Store(store).connect()
    try:
        return connection.execute("SELECT game, black FROM games ORDER BY moves DESC LIMIT 1"
                                  ).fetchone()
    finally:
        connection.close()


def test_the_game_viewer_draws_and_lists_the_engines_analysis(analysed):
    game, _ = longest_game(analysed)
    judged = game_judgement(analysed, game)
    at = page("game", game=game, ply=10)
    assert not at.exception
    drawn = json.loads(at.get("vega_lite_chart")[0].proto.spec)["layer"]
    engine = {p["ply"] for p in drawn[0]["data"]["values"] if p["source"] == "engine"}
    assert engine == {r["ply"] for r in judged["moves"] if r["engine"] is not None}
    moves = table(at, f"all-moves-{game}-")
    marks = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
    for row in judged["moves"]:
        shown = moves[moves["ply"] == row["ply"]].iloc[0]
        if row["judgement"]:
            assert shown["move"].endswith(" " + marks[row["judgement"]]) and shown["better"]
        else:
            assert not shown["move"].endswith("?") and shown["better"] == ""
    caption = " ".join(c.value for c in at.caption)
    assert "Engine analysis" in caption and "Fairy" in caption


def test_the_player_openings_and_puzzles_pages_show_it(analysed):
    game, black = longest_game(analysed)
    figures = collection.accuracy(analysed, "player")
    at = page("players", name=figures["groups"][0]["player"])
    assert not at.exception
    assert next(m for m in at.metric if m.label == "Accuracy").value == \
        f"{figures['groups'][0]['accuracy']:.1f}%"
    at = page("openings", kind="castle")
    assert not at.exception
    castles = collection.accuracy(analysed, "castle")["groups"]
    if castles:
        assert len(table(at, "accuracy-castle")) == len(castles)
    found = found_puzzles.puzzles(analysed)["puzzles"]
    at = page("puzzles")
    assert not at.exception
    if found:
        listed = table(at, "puzzles-")
        assert list(zip(listed["game"], listed["ply"])) == [(p["game"], p["ply"]) for p in found]
    else:
        assert any("No puzzle" in i.value for i in at.info)
