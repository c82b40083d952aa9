"""Puzzles (``analytics.puzzles``, ``kifudb puzzles``, ``GET /puzzles``, ``db.puzzles``): the
positions where one move wins and the others do not, on a real game (羽生善治–藤井猛 2006) with
two-line analysis rows written by hand (``tests/test_judgement.py``'s ``commit_analysis``), each
case a rule of the module: a winning move and a second that does not win, by a margin, in a
position the mover was not winning before the opponent's move. The real engine's puzzles are
checked in ``tests/test_judgement_engine.py``.
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

import kifudb
from kifudb.analytics.filters import GameFilter
from kifudb.analytics.judgement import NoAnalysis
from kifudb.analytics.puzzles import puzzles
from kifudb.cli import main
from kifudb.core.move import Move
from kifudb.core.position import Position
from kifudb.http import app
from kifudb.store.writer import ingest_paths
from test_judgement import (ENGINE, HABU, LIMIT, RECORDS, another_move, commit_analysis,
                                  main_line, win)


def two_lines(best: tuple, second) -> list:
    """The rows of a position's two lines: ``(score_black, mate_black, best move)`` each
    (``second`` None: one line only)."""
    rows = [{"multipv": 1, "score_black": best[0], "mate_black": best[1], "best": best[2],
             "pv": f"{best[2]} 9a9b 9c9d"}]
    if second is not None:
        rows.append({"multipv": 2, "score_black": second[0], "mate_black": second[1],
                     "best": second[2]})
    return rows


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("puzzles") / "store"
    ingest_paths(RECORDS, folder)
    _, moves, _ = main_line(folder, HABU)

    def other(ply):
        return another_move(folder, HABU, ply)

    lines = {
        # A: White (to move at ply 21) wins with the move the game played, the second is even
        (HABU, 20): two_lines((100, None, other(20)), (50, None, other(20))),
        (HABU, 21): two_lines((-2000, None, moves[21]), (0, None, other(21))),
        # B: a mate for White, the second move is only a good position
        (HABU, 30): two_lines((0, None, other(30)), None),
        (HABU, 31): two_lines((None, -3, other(31)), (-1000, None, moves[31])),
        # C: the second move wins too
        (HABU, 40): two_lines((0, None, other(40)), None),
        (HABU, 41): two_lines((-2000, None, other(41)), (-1800, None, moves[41])),
        # D: White was winning already before Black's move
        (HABU, 50): two_lines((-2000, None, other(50)), None),
        (HABU, 51): two_lines((-2500, None, other(51)), (0, None, moves[51])),
        # E: the best wins, the second does not, but by too little
        (HABU, 60): two_lines((0, None, other(60)), None),
        (HABU, 61): two_lines((-1600, None, other(61)), (-1000, None, moves[61])),
        # F: the position before is not analysed
        (HABU, 71): two_lines((-2000, None, other(71)), (0, None, moves[71])),
        # G: one line only
        (HABU, 80): two_lines((0, None, other(80)), None),
        (HABU, 81): two_lines((-2000, None, other(81)), None),
        # H: Black to move and win
        (HABU, 89): two_lines((-100, None, other(89)), None),
        (HABU, 90): two_lines((2000, None, other(90)), (300, None, moves[90])),
    }
    commit_analysis(folder, lines)
    return folder


def test_the_puzzles_are_the_positions_that_meet_every_rule(store):
    found = puzzles(store)
    assert (found["engine"], found["limit"], found["k"]) == (ENGINE, LIMIT, 0.0007)
    # the clearest first: B (100 against 66.8), A (80.2 against 50), H (80.2 against 55.2)
    assert [(p["game"], p["ply"]) for p in found["puzzles"]] == [(HABU, 31), (HABU, 21),
                                                                  (HABU, 90)]
    b, a, h = found["puzzles"]
    assert (a["side"], b["side"], h["side"]) == ("white", "white", "black")
    assert a["win"] == pytest.approx(100 - win(-2000), abs=0.01) and a["second_win"] == 50.0
    assert b["win"] == 100.0 and b["mate_black"] == -3 and b["score_black"] is None
    assert b["second_win"] == pytest.approx(100 - win(-1000), abs=0.01)
    assert h["win"] == pytest.approx(win(2000), abs=0.01)
    assert h["second_win"] == pytest.approx(win(300), abs=0.01)
    # the game played the winning move in A, not in B
    assert (a["found"], b["found"]) == (True, False) and a["played"] == a["move"]
    assert b["played"] == b["second_move"]
    # the position, the solution and the game
    keys, moves, _ = main_line(store, HABU)
    for puzzle in found["puzzles"]:
        position = Position.from_sfen(puzzle["sfen"])
        assert position.key() == keys[puzzle["ply"]]
        assert position.illegality(Move.from_usi(puzzle["move"])) is None
        assert puzzle["solution"].split()[0] == puzzle["move"] and puzzle["ki2"]
        assert puzzle["black"] == "羽生善治" and puzzle["date"] == "2006-12-15"
        assert puzzle["occurrences"] == 1


def test_pages_and_filters(store):
    assert [p["ply"] for p in puzzles(store, limit=1, offset=1)["puzzles"]] == [21]
    assert puzzles(store, filters=GameFilter(player="nobody at all"))["puzzles"] == []
    assert puzzles(store, filters=GameFilter(handicap="香落ち"))["puzzles"] == []
    assert len(puzzles(store, filters=GameFilter(player="羽生"))["puzzles"]) == 3


def test_puzzles_need_two_lines(store, tmp_path):
    one = tmp_path / "one"
    ingest_paths(RECORDS[:1], one)
    commit_analysis(one, {(HABU, p): {"score_black": 0} for p in range(4)})
    with pytest.raises(NoAnalysis, match="second-best line: .* run 'kifudb analyse --store .* "
                                         "--multipv 2"):
        puzzles(one)
    said = CliRunner().invoke(main, ["puzzles", "--store", str(one)])
    assert said.exit_code == 1 and "--multipv 2" in said.output
    # a store with more one-line positions still finds its puzzles in the two-line analysis
    commit_analysis(one, {(HABU, p): {"score_black": 0} for p in range(40)}, "Other 1",
                    "nodes=5")
    commit_analysis(one, {(HABU, 20): two_lines((100, None, "7g7f"), None),
                          (HABU, 21): two_lines((-2000, None, "7g7f"), (0, None, "6g6f"))})
    assert [p["ply"] for p in puzzles(one)["puzzles"]] == [21]


def test_kifudb_puzzles_in_each_format(store):
    runner = CliRunner()
    text = runner.invoke(main, ["puzzles", "--store", str(store), "--limit", "2"])
    assert text.exit_code == 0, text.output
    assert text.output.splitlines()[0].startswith(f"analysis: {ENGINE} at {LIMIT}")
    assert "△ to move and win" in text.output and "2 puzzles (from 1" in text.output
    shown = json.loads(runner.invoke(main, ["puzzles", "--store", str(store), "--format",
                                            "json"]).output)
    assert shown == puzzles(store)
    table = list(csv.DictReader(io.StringIO(runner.invoke(
        main, ["puzzles", "--store", str(store), "--format", "csv"]).output)))
    assert [(int(r["game"]), int(r["ply"]), r["sfen"], r["solution"]) for r in table] == [
        (p["game"], p["ply"], p["sfen"], p["solution"]) for p in shown["puzzles"]]
    none = runner.invoke(main, ["puzzles", "--store", str(store), "--player", "nobody"])
    assert none.exit_code == 0 and "no puzzle in scope" in none.output


def test_http_and_python_puzzles(store):
    answer = TestClient(app(store)).get("/puzzles", params={"limit": 2, "player": "羽生"})
    assert answer.status_code == 200
    assert answer.json() == puzzles(store, limit=2, filters=GameFilter(player="羽生"))
    frame = kifudb.open(store).puzzles()
    assert frame["ply"].to_list() == [31, 21, 90] and frame["found"].to_list()[:2] == [False, True]
    assert frame.columns[:8] == ["game", "ply", "date", "black", "white", "event", "side", "sfen"]
