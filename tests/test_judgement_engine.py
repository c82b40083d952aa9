"""The engine's judgements end to end: four real games (羽生善治–糸谷哲郎 2014, an amateur game
that ends in checkmate, a computer game lost on time, 藤井聡太–豊島将之 2021: 354 positions)
analysed by the real engine through the installed command line (``kifudb analyse --engine
/usr/games/fairy-stockfish --nodes 1000 --multipv 2``), then every door's answer checked
against the analysis rows the store holds (read with ``kifudb sql``) and the formulas by hand.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import kifudb
from kifudb.core.move import Move
from kifudb.core.position import Position
from kifudb.http import app

#: the real engine, through the installed command line: seconds, not milliseconds
pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parent.parent
KIFUDB = str(ROOT / ".venv" / "bin" / "kifudb")
ENGINE_PATH = "/usr/games/fairy-stockfish"
RECORDS = [str(ROOT / "data" / "samples" / "records" / name) for name in
           ("ryuou201409020101.kif", "narikei_abbrev_game1.kif", "utf8_WCSC28_L5_WDF_GIR.csa",
            "oui202106290101.kif")]


def run(*args) -> subprocess.CompletedProcess:
    return subprocess.run([KIFUDB, *map(str, args)], capture_output=True, text=True,
                          timeout=600)


def shown(*args):
    said = run(*args)
    assert said.returncode == 0, said.stderr
    return json.loads(said.stdout)


def win(cp, k):
    return 100 / (1 + math.exp(-k * cp))


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    if not Path(ENGINE_PATH).exists():
        pytest.fail(f"{ENGINE_PATH} is missing: make test installs Debian's fairy-stockfish")
    folder = tmp_path_factory.mktemp("engine") / "store"
    assert run("ingest", *RECORDS, "--store", folder).returncode == 0
    said = run("analyse", "--store", folder, "--engine", ENGINE_PATH, "--nodes", 1000,
               "--multipv", 2)
    assert said.returncode == 0, said.stderr
    return folder


@pytest.fixture(scope="module")
def rows(store) -> dict:
    """The store's analysis rows by (key, line), and each game's positions by ply."""
    lines = shown("sql", "SELECT key::VARCHAR AS key, multipv, score_black, mate_black, best, "
                         "engine, \"limit\" FROM analysis", "--format", "json", "--limit", 10000,
                  "--store", store)
    positions = shown("sql", "SELECT game, ply, key::VARCHAR AS key, black_to_move FROM "
                             "positions ORDER BY game, ply", "--format", "json",
                      "--limit", 10000, "--store", store)
    games = shown("sql", "SELECT game, winner, black, white FROM games ORDER BY game",
                  "--format", "json", "--store", store)
    by_game: dict = {}
    for p in _records(positions):
        by_game.setdefault(p["game"], {})[p["ply"]] = p
    return {"lines": {(r["key"], r["multipv"]): r for r in _records(lines)},
            "positions": by_game, "games": {g["game"]: g for g in _records(games)}}


@pytest.fixture(scope="module")
def answers(store, rows) -> dict:
    """``kifudb game ID --format json`` of each game."""
    return {game: shown("game", game, "--format", "json", "--store", store)
            for game in rows["games"]}


def _records(answer) -> list:
    """The rows of a ``kifudb sql --format json`` answer as dicts."""
    if isinstance(answer, dict) and "rows" in answer:
        return [dict(zip(answer["columns"], row)) for row in answer["rows"]]
    return answer


def _black(line, black_to_move, k):
    """Black's chance (0–100) of an analysis row, by hand."""
    if line["mate_black"] is not None:
        if line["mate_black"] == 0:
            return 0.0 if black_to_move else 100.0
        return 100.0 if line["mate_black"] > 0 else 0.0
    return win(line["score_black"], k)


def test_the_engine_analysed_the_games(rows):
    assert len(rows["lines"]) > 600  # two lines for most of the 349 distinct positions
    engines = {(r["engine"], r["limit"]) for r in rows["lines"].values()}
    assert len(engines) == 1 and next(iter(engines))[0].startswith("Fairy-Stockfish")


def test_the_game_door_gives_each_move_its_judgement(answers, rows):
    k = 0.0007
    for game, plies in rows["positions"].items():
        answer = answers[game]
        judged = 0
        for move in answer["moves"]:
            ply = move["ply"]
            before, after = plies.get(ply - 1), plies.get(ply)
            line_after = after and rows["lines"].get((after["key"], 1))
            analysis = move["analysis"]
            if line_after is None:
                assert analysis is None, (game, ply)
                continue
            assert analysis["score_black"] == line_after["score_black"]
            assert analysis["mate_black"] == line_after["mate_black"]
            black_after = _black(line_after, after["black_to_move"], k)
            assert analysis["win_black"] == pytest.approx(black_after, abs=0.006)
            line_before = rows["lines"].get((before["key"], 1))
            if line_before is None:
                assert analysis["loss"] is None
                continue
            black_before = _black(line_before, before["black_to_move"], k)
            own = 1 if before["black_to_move"] else -1
            loss = max(0.0, own * (black_before - black_after))
            if move["usi"] == line_before["best"]:
                loss = 0.0  # the engine's own move is never judged
            assert analysis["loss"] == pytest.approx(loss, abs=0.011), (game, ply)
            expected = ("blunder" if analysis["loss"] >= 15 else "mistake"
                        if analysis["loss"] >= 10 else "inaccuracy"
                        if analysis["loss"] >= 5 else None)
            assert analysis["judgement"] == expected
            assert analysis["best"] == (line_before["best"] if expected else None)
            judged += expected is not None
        # each side's counts are those of its moves
        for side, mark in (("black", True), ("white", False)):
            mine = [m["analysis"] for m in answer["moves"] if m["analysis"]
                    and m["analysis"]["loss"] is not None
                    and plies[m["ply"] - 1]["black_to_move"] == mark]
            assert answer["judgement"][side]["moves"] == len(mine)
            assert answer["judgement"][side]["blunders"] == sum(
                a["judgement"] == "blunder" for a in mine)
        assert judged == sum(answer["judgement"][s][c] for s in ("black", "white")
                             for c in ("inaccuracies", "mistakes", "blunders"))


def test_the_turning_ply(answers, rows):
    for game, info in rows["games"].items():
        answer = answers[game]
        turned = answer["judgement"]["turning_ply"]
        if info["winner"] not in ("black", "white"):
            assert turned is None
            continue
        own = (lambda w: w) if info["winner"] == "black" else (lambda w: 100 - w)
        chances = [(0, answer["judgement"]["start_win_black"])] + [
            (m["ply"], m["analysis"]["win_black"]) for m in answer["moves"] if m["analysis"]]
        below = [ply for ply, w in chances if w is not None and own(w) < 50]
        if turned is None:
            assert not below or below[-1] == chances[-1][0]
        else:
            assert turned == below[-1] + 1
            assert all(own(w) >= 50 for ply, w in chances if ply >= turned)


def test_accuracy_by_player_is_the_mean_of_the_moves(store, rows, answers):
    answer = shown("stats", "accuracy", "--by", "player", "--format", "json", "--store", store)
    expected: dict = {}
    for game, info in rows["games"].items():
        moves = answers[game]["moves"]
        for m in moves:
            if m["analysis"] and m["analysis"]["loss"] is not None:
                black = rows["positions"][game][m["ply"] - 1]["black_to_move"]
                expected.setdefault((info["black"] if black else info["white"]), []).append(
                    (game, m["analysis"]["accuracy"]))
    assert len(answer["groups"]) == len(expected)
    for group in answer["groups"]:
        written = next(name for name in expected if group["player"] in name
                       or name in group["player"])
        found = expected[written]
        assert group["moves"] == len(found) and group["games"] == 1
        assert group["accuracy"] == pytest.approx(sum(a for _, a in found) / len(found),
                                                  abs=0.01)


def test_puzzles_of_the_engine_meet_the_rules(store, rows):
    answer = shown("puzzles", "--format", "json", "--store", store)
    assert answer["puzzles"], "four real games at nodes=1000 give puzzles"
    k = answer["k"]
    keys = {(g, ply): p for g, plies in rows["positions"].items() for ply, p in plies.items()}
    for puzzle in answer["puzzles"]:
        position = Position.from_sfen(puzzle["sfen"])
        here = keys[(puzzle["game"], puzzle["ply"])]
        assert str(position.key()) == here["key"]
        assert position.illegality(Move.from_usi(puzzle["move"])) is None
        assert puzzle["solution"].split()[0] == puzzle["move"]
        first, second = rows["lines"][(here["key"], 1)], rows["lines"][(here["key"], 2)]
        mover = 1 if here["black_to_move"] else -1

        def own(line, black_to_move=here["black_to_move"]):
            chance = _black(line, black_to_move, k)
            return chance if black_to_move else 100 - chance

        assert own(first) >= 75 and own(second) < 75 and own(first) - own(second) >= 21
        earlier = keys[(puzzle["game"], puzzle["ply"] - 1)]
        assert 100 - own(rows["lines"][(earlier["key"], 1)], earlier["black_to_move"]) < 75
        assert puzzle["side"] == ("black" if mover == 1 else "white")
    csv_lines = run("puzzles", "--format", "csv", "--store", store).stdout.splitlines()
    assert len(csv_lines) == len(answer["puzzles"]) + 1
    http = TestClient(app(store)).get("/puzzles").json()
    assert http == answer
    assert kifudb.open(store).puzzles()["sfen"].to_list() == [
        p["sfen"] for p in answer["puzzles"]]


def test_calibrate_on_the_engines_games(store, tmp_path):
    """The fitted k is the maximum of the likelihood of the games' results on the scores,
    computed here from the rows."""
    copy = tmp_path / "store"
    shutil.copytree(store, copy)
    said = run("calibrate", "--store", copy, "--format", "json")
    assert said.returncode == 0, said.stderr
    fitted = json.loads(said.stdout)
    samples = shown("sql", "SELECT a.score_black AS cp, CASE g.winner WHEN 'black' THEN 1.0 "
                           "WHEN 'white' THEN 0.0 ELSE 0.5 END AS points FROM positions p JOIN "
                           "games g USING (game) JOIN analysis a ON a.key = p.key AND "
                           "a.multipv = 1 WHERE g.winner IN ('black', 'white', 'draw') AND "
                           "a.score_black IS NOT NULL", "--format", "json", "--limit", 10000,
                    "--store", copy)
    samples = [(r["cp"], float(r["points"])) for r in _records(samples)]
    assert fitted["samples"] == len(samples) and fitted["games"] == 4

    def likelihood(k):
        return sum(y * math.log(1 / (1 + math.exp(-k * x)))
                   + (1 - y) * math.log(1 - 1 / (1 + math.exp(-k * x))) for x, y in samples)

    k = fitted["k"]
    assert k > 0 and likelihood(k) > likelihood(k * 1.01) and likelihood(k) > likelihood(k * 0.99)
    accuracy = shown("stats", "accuracy", "--format", "json", "--store", copy)
    assert accuracy["k"] == k
    listed = TestClient(app(copy)).get("/analyses").json()
    assert listed[0]["calibrated"] is True and listed[0]["k"] == k
