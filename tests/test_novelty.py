"""The novelty of every dated game (``analytics.novelty``), checked against a brute force in
Python over a store of the real records: every main line is replayed again with ``core`` from
the ``moves`` table, and each game's positions are compared with the sets of positions of the
games dated before it."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from kifudb.analytics.filters import GameFilter
from kifudb.analytics.novelty import all_novelties, game_novelty, novelties
from kifudb.core.move import Move
from kifudb.core.position import Position
from kifudb.cli import main
from kifudb.store.folder import Store
from kifudb.store.writer import ingest_paths

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("novelty") / "store"
    ingest_paths([str(ROOT / "tests" / "fixtures" / "records"),
                  str(ROOT / "tests" / "fixtures" / "players"),
                  str(ROOT / "tests" / "fixtures" / "classify")], folder)
    return folder


def brute_force(folder: Path) -> dict:
    """``{game: (ply, earlier_games)}`` by replaying every dated game and comparing sets."""
    connection = Store(folder).connect()
    dates = dict(connection.execute("SELECT game, date FROM games WHERE date IS NOT NULL"
                                    ).fetchall())
    starts = dict(connection.execute("SELECT game, start_sfen FROM games").fetchall())
    lines = defaultdict(list)
    for game, usi in connection.execute("SELECT game, usi FROM moves WHERE line = 0 AND usi "
                                        "IS NOT NULL ORDER BY game, ply").fetchall():
        lines[game].append(usi)
    keys = {}
    for game in dates:
        position = Position.from_sfen(starts[game])
        keys[game] = [position.key()]
        for usi in lines[game]:
            position.push(Move.from_usi(usi))
            keys[game].append(position.key())
    expected = {}
    for game, date in dates.items():
        earlier = [set(keys[other]) for other, day in dates.items() if day < date]
        reached = set().union(*earlier)
        for ply in range(1, len(keys[game])):
            if keys[game][ply] not in reached:
                before = keys[game][ply - 1]
                expected[game] = (ply, sum(before in seen for seen in earlier))
                break
    return expected


def test_novelties_match_the_brute_force(store):
    expected = brute_force(store)
    assert len(expected) > 80
    assert sum(ply > 1 for ply, _ in expected.values()) > 40  # most games follow others first
    assert all_novelties(store) == expected
    for game, (ply, earlier) in expected.items():
        assert game_novelty(store, game) == {"ply": ply, "earlier_games": earlier}


def test_games_without_a_novelty(store):
    connection = Store(store).connect()
    undated = connection.execute("SELECT min(game) FROM games WHERE date IS NULL").fetchone()[0]
    assert game_novelty(store, undated) is None
    assert game_novelty(store, 10 ** 6) is None
    dated = set(g for (g,) in connection.execute("SELECT game FROM games WHERE date IS NOT NULL"
                                                 ).fetchall())
    # a dated game every position of which an earlier game reached (a copy, a short line)
    covered = dated - set(all_novelties(store))
    for game in covered:
        assert game_novelty(store, game) is None


def test_latest_novelties_and_the_commands(store):
    expected = brute_force(store)
    latest = novelties(store, limit=30)
    assert [r["date"] for r in latest] == sorted((r["date"] for r in latest), reverse=True)
    for row in latest:
        assert (row["ply"], row["earlier_games"]) == expected[row["game"]]
    # the page is the 30 latest dated games that have a novelty: those without one are
    # skipped, not counted (issue 29: --limit 20 gave 14)
    dated = Store(store).connect().execute("SELECT game FROM games WHERE date IS NOT NULL "
                                           "ORDER BY date DESC, game DESC").fetchall()
    with_novelty = [g for (g,) in dated if g in expected]
    assert len(with_novelty) > 30 and len(dated) > len(with_novelty)
    assert [r["game"] for r in latest] == with_novelty[:30]
    assert [r["game"] for r in novelties(store, limit=7, offset=30)] == with_novelty[30:37]
    mine = novelties(store, limit=50, filters=GameFilter(player="羽生善治"))
    assert mine and all("羽生" in (r["black"] + r["white"]) for r in mine)
    runner = CliRunner()
    game = latest[0]["game"]
    shown = runner.invoke(main, ["game", str(game), "--store", str(store), "--format", "json"])
    assert json.loads(shown.output)["novelty"] == {"ply": expected[game][0],
                                                   "earlier_games": expected[game][1]}
    text = runner.invoke(main, ["game", str(game), "--store", str(store)])
    assert f"novelty (★): ply {expected[game][0]} " in text.output
    marked = [line for line in text.output.splitlines() if "★ novelty" in line]
    assert len(marked) == 1 and marked[0].split()[0] == str(expected[game][0])
    listed = runner.invoke(main, ["stats", "novelties", "--store", str(store), "--limit", "3",
                                  "--format", "json"])
    assert [r["game"] for r in json.loads(listed.output)["novelties"]] == [
        r["game"] for r in novelties(store, limit=3)]


def test_the_game_viewer_shows_the_novelty_and_goes_there(store, monkeypatch):
    from streamlit.testing.v1 import AppTest

    expected = brute_force(store)
    game = max(expected, key=lambda g: expected[g][0])  # a novelty deep in the game
    ply, earlier = expected[game]
    monkeypatch.setenv("KIFUDB_STORE", str(store))
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60)
    at.query_params.update({"game": str(game)})
    at.run()
    at.switch_page("views/game.py")
    at.run()
    assert not at.exception
    note = [c.value for c in at.caption if "Novelty" in str(c.value)]
    assert len(note) == 1 and f"{ply}手" in note[0] and f"({earlier} earlier" in note[0]
    at.button(key=f"novelty-{game}").click()
    at.run()
    assert not at.exception and at.query_params["ply"] == str(ply)
