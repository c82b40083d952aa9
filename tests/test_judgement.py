"""What the engine's analysis says (``analytics.judgement``, ``analytics.accuracy``,
``analytics.calibration``) and its doors (``kifudb game``, ``kifudb stats accuracy``, ``kifudb
stats mistakes``, ``kifudb calibrate``, the Python API, HTTP), on real records with analysis
rows written by hand into the store the way the runner commits them (``Store.writing`` +
``Store.commit({"analysis": …})``), so that every expected figure is computed here by hand
from the formulas (``math``, not the module's functions). The real engine's end-to-end tests
are in ``tests/test_judgement_engine.py``.

The store: three games of ``data/samples/records`` — 羽生善治–藤井猛 2006 (Black won),
藤井聡太–豊島将之 2021 (White won) and the 香落ち game 糸谷哲郎–深浦康市 2008 (White, 上手, moves
first; Black won).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pyarrow as pa
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

import kifudb
from kifudb.analytics import accuracy as accuracy_module
from kifudb.analytics import calibration, judgement
from kifudb.analytics.filters import GameFilter
from kifudb.cli import main
from kifudb.core.move import Move
from kifudb.core.position import Position
from kifudb.http import app
from kifudb.store.folder import Store
from kifudb.store.schema import ANALYSIS
from kifudb.store.writer import ingest_paths

ROOT = Path(__file__).resolve().parent.parent
RECORDS = [str(ROOT / "data" / "samples" / "records" / name) for name in
           ("habu-fujii-2006.kif", "oui202106290101.kif", "20081220kyoochi.kif")]
ENGINE, LIMIT = "Hand-made 1.0", "nodes=1000"
HABU, FUJII, KYOOCHI = 1, 2, 3


def win(cp: float, k: float = 0.0007) -> float:
    """Black's chance in percent, by hand: 50 · (2 / (1 + e^(−k·cp)) − 1 + 1)."""
    return 50 * (2 / (1 + math.exp(-k * cp)) - 1 + 1)


def accuracy_of(loss: float) -> float:
    """lishogi's per-move accuracy, by hand."""
    return min(100.0, max(0.0, 103.1668 * math.exp(-0.04354 * loss) - 3.1669))


def main_line(store, game: int) -> tuple:
    """``(keys by ply, USI moves, sides to move by ply)`` of a stored game."""
    connection = Store(store).connect()
    try:
        rows = connection.execute("SELECT ply, key, black_to_move FROM positions WHERE game = ? "
                                  "ORDER BY ply", [game]).fetchall()
        moves = [u for (u,) in connection.execute(
            "SELECT usi FROM moves WHERE game = ? AND line = 0 ORDER BY ply", [game]).fetchall()]
    finally:
        connection.close()
    return [r[1] for r in rows], moves, [r[2] for r in rows]


def another_move(store, game: int, ply: int) -> str:
    """A legal move of the position at ``ply`` other than the one the game played."""
    _, moves, _ = main_line(store, game)
    position = Position.from_sfen(Store(store).connect().execute(
        "SELECT start_sfen FROM games WHERE game = ?", [game]).fetchone()[0])
    for usi in moves[:ply]:
        position.push(Move.from_usi(usi))
    return next(m.usi() for m in sorted(position.legal_moves(), key=lambda m: m.usi())
                if m.usi() != moves[ply])


def commit_analysis(store, lines: dict, engine: str = ENGINE, limit: str = LIMIT) -> None:
    """Commit hand-made analysis rows: ``lines`` maps ``(game, ply)`` to a dict of
    ``score_black``, ``mate_black``, ``best`` (and ``multipv``, ``pv``), as the runner
    commits its batches."""
    folder = Store(store)
    keys = {game: main_line(store, game)[0] for game, _ in lines}
    columns = {name: [] for name in ANALYSIS.names}
    batch = folder.next_batch()
    for (game, ply), line in lines.items():
        for row in line if isinstance(line, list) else [line]:
            values = {"key": keys[game][ply], "engine": engine, "limit": limit, "multipv": 1,
                      "score_black": None, "mate_black": None, "best": None, "pv": None,
                      "depth": 10, "nodes": 1000, "batch": batch, **row}
            if values["pv"] is None and values["best"] is not None:
                values["pv"] = values["best"]
            for name in ANALYSIS.names:
                columns[name].append(values[name])
    with folder.writing():
        folder.commit({"analysis": pa.table(columns, schema=ANALYSIS)},
                      folder.manifest()["next_game"])


#: The scores of the positions of 羽生–藤井 (Black won) after each ply: ``(score_black,
#: mate_black)``; ply 10 is not analysed. Its moves, by hand (Black's chance after each):
#: 1 ▲ 51.75 (no loss), 2 △ 51.75, 3 ▲ −600 → 39.65 (a mistake, 12.10), 4 △ +200 → 53.50 (a
#: mistake for White, 13.85), 5 ▲ mate → 100, 6 △ 0 → 50 (White gains), 7 ▲ −2500 → 14.8 (a
#: blunder, 35.2), 8 △ +2500, but White played the engine's best move: no loss, 9 ▲ +2500,
#: 10/11 unknown, 12 △ +3000.
HABU_SCORES = {0: (0, None), 1: (100, None), 2: (100, None), 3: (-600, None), 4: (200, None),
               5: (None, 5), 6: (0, None), 7: (-2500, None), 8: (2500, None),
               9: (2500, None), 11: (3000, None), 12: (3000, None)}
#: 香落ち (White moves first): 1 △ −300 (no loss for White), 2 ▲ +900 (no loss), 3 △ +1500
#: (White drops from 34.9 to 25.9: an inaccuracy, 9.0)
KYOOCHI_SCORES = {0: (0, None), 1: (-300, None), 2: (900, None), 3: (1500, None)}


@pytest.fixture(scope="module")
def analysed(tmp_path_factory) -> Path:
    """The three games, with the hand-made analysis of ``HABU_SCORES`` and
    ``KYOOCHI_SCORES`` (the best move: another legal move, but the played one before ply 8)."""
    folder = tmp_path_factory.mktemp("judged") / "store"
    ingest_paths(RECORDS, folder)
    _, habu_moves, _ = main_line(folder, HABU)
    lines = {}
    for game, scores in ((HABU, HABU_SCORES), (KYOOCHI, KYOOCHI_SCORES)):
        for ply, (score, mate) in scores.items():
            best = (habu_moves[ply] if (game, ply) == (HABU, 7)  # move 8 is the engine's own
                    else another_move(folder, game, ply))
            lines[(game, ply)] = {"score_black": score, "mate_black": mate, "best": best}
    commit_analysis(folder, lines)
    return folder


def expected_habu() -> dict:
    """``{ply: (mover, loss or None)}`` of 羽生–藤井's first 12 moves, by hand."""
    chance = {ply: (100.0 if mate else win(score)) for ply, (score, mate) in HABU_SCORES.items()}
    out = {}
    for ply in range(1, 13):
        mover = "black" if ply % 2 else "white"
        if ply - 1 not in chance or ply not in chance:
            out[ply] = (mover, None)
            continue
        own = (lambda w: w) if mover == "black" else (lambda w: 100 - w)
        loss = max(0.0, own(chance[ply - 1]) - own(chance[ply]))
        out[ply] = (mover, 0.0 if ply == 8 else loss)
    return out


# ----- the formulas ----------------------------------------------------------------------------


def test_win_probability_is_lishogis_formula():
    for cp in (-3000, -600, -1, 0, 1, 150, 1000, 4000):
        assert judgement.win_chance(cp) == pytest.approx(2 / (1 + math.exp(-0.0007 * cp)) - 1)
        assert judgement.win_black(cp) == pytest.approx(win(cp), abs=0.005)
    assert judgement.win_black(1000, k=0.002) == pytest.approx(win(1000, 0.002), abs=0.005)
    # a mate is ±1 on the ±1 scale: 100 or 0; mate 0 is the side to move mated
    assert judgement.win_black(-50, mate_black=7) == 100.0
    assert judgement.win_black(None, mate_black=-1) == 0.0
    assert judgement.win_black(None, 0, black_to_move=False) == 100.0
    assert judgement.win_black(None, None) is None


def test_accuracy_and_judgement_thresholds():
    for loss in (0.0, 0.5, 4.99, 5.0, 10.0, 15.0, 35.2, 99.0, 100.0):
        assert judgement.move_accuracy(loss) == pytest.approx(accuracy_of(loss), abs=0.005)
    assert judgement.move_accuracy(0.0) == 100.0 and judgement.move_accuracy(100.0) == 0.0
    # drops of 0.1, 0.2, 0.3 on the ±1 scale are 5, 10, 15 points of win percent
    assert [judgement.judgement_of(x) for x in (4.99, 5.0, 9.99, 10.0, 14.99, 15.0, 60.0)] == [
        None, "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder", "blunder"]


def test_the_sql_formulas_give_the_python_values(analysed):
    """The per-move rows come from SQL (DuckDB); every value is the Python formula's."""
    rows = judgement.game_analysis(analysed, HABU)
    for row in rows[:12]:
        score, mate = HABU_SCORES.get(row["ply"], (None, None))
        assert row["win_black"] == judgement.win_black(score, mate)
        assert row["accuracy"] == pytest.approx(judgement.move_accuracy(row["loss"]), abs=0.02)
        assert row["judgement"] == judgement.judgement_of(row["loss"])


def test_the_move_code_as_usi_in_sql_is_code_usi(analysed):
    """``usi_sql`` (what tells a move that is the engine's best) names every move code as
    ``code_usi`` does: each of the 13,689 codes."""
    import sqlalchemy as sa

    from kifudb.core.move import code_usi
    from kifudb.store.engine import fetch

    codes = sa.select(sa.func.unnest(sa.func.range(0, 13689)).label("code")).subquery()
    rows = fetch(analysed, sa.select(codes.c.code, judgement.usi_sql(codes.c.code).label("usi")))
    assert len(rows) == 13689
    wrong = []
    for row in rows:
        try:
            usi = code_usi(row["code"])
        except (ValueError, IndexError, KeyError):
            continue  # no move has this code
        if usi != row["usi"]:
            wrong.append((row["code"], usi, row["usi"]))
    assert wrong == []


# ----- one game ----------------------------------------------------------------------------------


def test_each_move_is_judged_as_computed_by_hand(analysed):
    rows = {r["ply"]: r for r in judgement.game_analysis(analysed, HABU)}
    _, moves, _ = main_line(analysed, HABU)
    for ply, (mover, loss) in expected_habu().items():
        row = rows[ply]
        assert row["mover"] == mover and row["usi"] == moves[ply - 1]
        if loss is None:
            assert row["loss"] is None and row["accuracy"] is None and row["judgement"] is None
        else:
            assert row["loss"] == pytest.approx(loss, abs=0.01), ply
            assert row["accuracy"] == pytest.approx(accuracy_of(loss), abs=0.02), ply
    assert [rows[p]["judgement"] for p in range(1, 13)] == [
        None, None, "mistake", "mistake", None, None, "blunder", None, None, None, None, None]
    # the better move is given where the move was judged, and only there
    assert rows[3]["best"] == another_move(analysed, HABU, 2)
    assert rows[7]["best"] == another_move(analysed, HABU, 6)
    assert all(rows[p]["best"] is None for p in (1, 2, 5, 6, 8, 9, 12))
    # White's move 8 lost 70 points by the scores, but it was the engine's own best move
    assert rows[8]["loss"] == 0.0 and rows[8]["judgement"] is None
    # the position after move 10 is not analysed: no engine, no score; the rest of the game none
    assert rows[10]["engine"] is None and rows[10]["win_black"] is None
    assert rows[11]["engine"] == ENGINE and rows[11]["loss"] is None
    assert rows[5]["mate_black"] == 5 and rows[5]["win_black"] == 100.0
    assert rows[13]["engine"] is None and len(rows) == 181


def test_the_sides_accuracy_and_the_turning_ply(analysed):
    judged = judgement.game_judgement(analysed, HABU)
    expected = expected_habu()
    for side in ("black", "white"):
        losses = [loss for mover, loss in expected.values() if mover == side and loss is not None]
        summary = judged[side]
        assert summary["moves"] == len(losses)
        assert summary["accuracy"] == pytest.approx(
            sum(accuracy_of(x) for x in losses) / len(losses), abs=0.02)
        assert summary["average_loss"] == pytest.approx(sum(losses) / len(losses), abs=0.01)
    assert (judged["black"]["mistakes"], judged["black"]["blunders"]) == (1, 1)
    assert (judged["white"]["mistakes"], judged["white"]["blunders"]) == (1, 0)
    # Black (the winner) is below even after moves 3, 4 and 7, never after move 8
    assert judged["turning_ply"] == 8
    assert judged["start_win_black"] == 50.0
    assert (judged["engine"], judged["limit"], judged["k"]) == (ENGINE, LIMIT, 0.0007)


def test_white_moves_first_in_a_handicap_game(analysed):
    rows = judgement.game_analysis(analysed, KYOOCHI)[:3]
    assert [r["mover"] for r in rows] == ["white", "black", "white"]
    assert [r["loss"] for r in rows[:2]] == [0.0, 0.0]
    assert rows[2]["loss"] == pytest.approx((100 - win(900)) - (100 - win(1500)), abs=0.01)
    assert rows[2]["judgement"] == "inaccuracy"


def test_a_game_without_analysis_and_an_unknown_game(analysed):
    rows = judgement.game_analysis(analysed, FUJII)
    assert len(rows) == 104 and all(r["engine"] is None and r["loss"] is None for r in rows)
    assert judgement.game_judgement(analysed, FUJII)["black"]["accuracy"] is None
    with pytest.raises(ValueError, match="no game 99"):
        judgement.game_analysis(analysed, 99)


def test_no_analysis_and_an_unknown_engine_are_said(analysed, tmp_path):
    bare = tmp_path / "bare"
    ingest_paths(RECORDS[:1], bare)
    with pytest.raises(judgement.NoAnalysis, match=r"no engine analysis in .*bare: run 'kifudb "
                                                   r"analyse --store .*bare --engine ENGINE"):
        judgement.game_analysis(bare, 1)
    with pytest.raises(judgement.NoAnalysis, match=r"no analysis of engine 'gpsusi' in .*: it "
                                                   r"holds Hand-made 1.0 at nodes=1000 \(16 "
                                                   r"positions\)"):
        judgement.chosen_analysis(analysed, "gpsusi")
    with pytest.raises(judgement.NoAnalysis, match="limit 'depth=3'"):
        judgement.chosen_analysis(analysed, limit="depth=3")
    # an engine is named by a part of its name, or by its path's file name
    assert judgement.chosen_analysis(analysed, "hand-made")["engine"] == ENGINE
    assert judgement.chosen_analysis(analysed, "/opt/Hand-Made", "nodes=1000")["engine"] == ENGINE


def test_the_analysis_with_the_most_positions_is_the_default(analysed, tmp_path):
    store = tmp_path / "two"
    ingest_paths(RECORDS[:1], store)
    commit_analysis(store, {(1, p): {"score_black": 10} for p in range(3)}, "Other 2", "depth=5")
    commit_analysis(store, {(1, p): {"score_black": -10} for p in range(5)})
    listed = judgement.analyses(store)
    assert [(r["engine"], r["limit"], r["positions"]) for r in listed] == [
        (ENGINE, LIMIT, 5), ("Other 2", "depth=5", 3)]
    assert judgement.game_analysis(store, 1)[0]["engine"] == ENGINE
    chosen = judgement.game_analysis(store, 1, engine="other")
    assert chosen[0]["engine"] == "Other 2" and chosen[0]["score_black"] == 10
    with pytest.raises(judgement.NoAnalysis, match="several"):
        commit_analysis(store, {(1, 0): {"score_black": 1}}, "Other 3", "depth=5")
        judgement.chosen_analysis(store, "other")


# ----- the collection --------------------------------------------------------------------------


def _expected_groups(analysed, key) -> dict:
    """``{group: [losses]}`` by hand: the moves of the hand-made analysis, grouped by
    ``key(game, mover)``."""
    groups: dict = {}
    moves = [(HABU, mover, loss) for mover, loss in expected_habu().values()]
    kyoochi = {1: ("white", 0.0), 2: ("black", 0.0),
               3: ("white", (100 - win(900)) - (100 - win(1500)))}
    moves += [(KYOOCHI, mover, loss) for mover, loss in kyoochi.values()]
    for game, mover, loss in moves:
        if loss is not None and key(game, mover) is not None:
            groups.setdefault(key(game, mover), []).append((game, loss))
    return groups


def _check(groups: list, name: str, expected: dict) -> None:
    assert len(groups) == len(expected)
    for group in groups:
        found = expected[group[name]] if name else expected[None]
        losses = [loss for _, loss in found]
        assert group["games"] == len({game for game, _ in found}), group
        assert group["moves"] == len(losses), group
        assert group["accuracy"] == pytest.approx(
            sum(map(accuracy_of, losses)) / len(losses), abs=0.02), group
        assert group["average_loss"] == pytest.approx(sum(losses) / len(losses), abs=0.01)


PLAYERS = {(HABU, "black"): "羽生善治", (HABU, "white"): "藤井猛",
           (KYOOCHI, "black"): "糸谷哲郎", (KYOOCHI, "white"): "深浦康市"}
OPENINGS = {(HABU, "black"): "対振り持久戦", (HABU, "white"): "ノーマル四間飛車",
            (KYOOCHI, "black"): "居飛車"}
CASTLES = {(HABU, "black"): "居飛車穴熊", (HABU, "white"): "振り飛車穴熊",
           (KYOOCHI, "black"): "角道不突き左美濃"}  # ▲7六歩 never played: the child of 左美濃


@pytest.mark.parametrize("by, name, key", [
    ("total", None, lambda game, mover: None and game or "all"),
    ("player", "player", lambda game, mover: PLAYERS[(game, mover)]),
    ("opening", "opening", lambda game, mover: OPENINGS.get((game, mover))),
    ("castle", "castle", lambda game, mover: CASTLES.get((game, mover))),
])
def test_accuracy_by_each_grouping(analysed, by, name, key):
    found = accuracy_module.accuracy(analysed, by=by)
    assert (found["engine"], found["limit"], found["by"]) == (ENGINE, LIMIT, by)
    expected = _expected_groups(analysed, key)
    if by == "total":
        expected = {None: [m for ms in expected.values() for m in ms]}
    _check(found["groups"], name, expected)


def test_accuracy_by_year_and_by_ply_range(analysed):
    years = accuracy_module.accuracy(analysed, by="year")["groups"]
    by_year = _expected_groups(analysed, lambda game, mover: {HABU: 2006, KYOOCHI: 2008}[game])
    _check(years, "year", by_year)
    assert [g["year"] for g in years] == [2006, 2008]
    ranges = accuracy_module.accuracy(analysed, by="ply-range", bucket=4)["groups"]
    plies: dict = {}
    for ply, (mover, loss) in expected_habu().items():
        if loss is not None:
            plies.setdefault((ply - 1) // 4 * 4 + 1, []).append((HABU, loss))
    for ply, loss in ((1, 0.0), (2, 0.0), (3, (100 - win(900)) - (100 - win(1500)))):
        plies[1].append((KYOOCHI, loss))
    _check(ranges, "plies_from", plies)
    assert [(g["plies_from"], g["plies_to"]) for g in ranges] == [(1, 4), (5, 8), (9, 12)]


def test_accuracy_obeys_the_filters(analysed):
    only = accuracy_module.accuracy(analysed, by="player", filters=GameFilter(handicap="香落ち"))
    assert {g["player"] for g in only["groups"]} == {"糸谷哲郎", "深浦康市"}
    none = accuracy_module.accuracy(analysed, filters=GameFilter(player="nobody at all"))
    assert none["groups"] == []
    assert accuracy_module.accuracy(analysed, by="player", min_games=2)["groups"] == []


def test_the_most_costly_mistakes(analysed):
    found = accuracy_module.mistakes(analysed)["moves"]
    assert [(m["game"], m["ply"], m["judgement"]) for m in found] == [
        (HABU, 7, "blunder"), (HABU, 4, "mistake"), (HABU, 3, "mistake"),
        (KYOOCHI, 3, "inaccuracy")]
    first = found[0]
    assert first["player"] == "羽生善治" and first["mover"] == "black"
    assert first["loss"] == pytest.approx(50 - win(-2500), abs=0.01)
    assert (first["win_before"], first["win_after"]) == (50.0, pytest.approx(win(-2500), abs=0.01))
    position = Position.from_sfen(first["sfen"])
    assert first["ki2"] and first["best_ki2"] and position.illegality(
        Move.from_usi(first["best"])) is None
    of_fujii = accuracy_module.mistakes(analysed, of="藤井")["moves"]
    assert [(m["ply"], m["player"]) for m in of_fujii] == [(4, "藤井猛")]
    blunders = accuracy_module.mistakes(analysed, least="blunder")["moves"]
    assert [m["ply"] for m in blunders] == [7]
    page = accuracy_module.mistakes(analysed, limit=2, offset=1)["moves"]
    assert [m["ply"] for m in page] == [4, 3]


# ----- calibration -----------------------------------------------------------------------------


def test_the_fit_of_k_by_hand():
    # p = 3/4 at +200 and 1/4 at −200: the likelihood is highest at e^(200·k) = 3
    fitted = calibration.fit([(200, 1.0, 3), (200, 0.0, 1), (-200, 0.0, 3), (-200, 1.0, 1)])
    assert fitted["k"] == pytest.approx(math.log(3) / 200, rel=1e-5)
    assert fitted["samples"] == 8 and fitted["error"] > 0
    # draws count half a point: all draws at any score fit k = 0, which no curve is
    with pytest.raises(calibration.CannotFit, match="do not rise"):
        calibration.fit([(300, 0.5, 10), (-300, 0.5, 10)])
    with pytest.raises(calibration.CannotFit, match="converge"):
        calibration.fit([(300, 1.0, 10), (-300, 0.0, 10)])  # a step: every score won
    with pytest.raises(calibration.CannotFit, match="other than 0"):
        calibration.fit([(0, 1.0, 3)])


@pytest.fixture
def to_calibrate(tmp_path) -> Path:
    """羽生–藤井 (Black won) and 藤井–豊島 (White won), scored so that a score of +200 won 3
    times in 4 and −200 lost 3 times in 4 (distinct positions: plies 10 to 13)."""
    store = tmp_path / "store"
    ingest_paths(RECORDS[:2], store)
    lines = {}
    for game, signs in ((HABU, (1, 1, 1, -1)), (FUJII, (-1, -1, -1, 1))):
        for ply, sign in zip(range(10, 14), signs):
            lines[(game, ply)] = {"score_black": 200 * sign}
    commit_analysis(store, lines)
    return store


def test_calibrate_records_k_and_the_judgements_use_it(to_calibrate):
    before = judgement.game_analysis(to_calibrate, HABU)[9]  # the move to ply 10
    assert before["win_black"] == pytest.approx(win(200), abs=0.005)
    fitted = calibration.calibrate(to_calibrate)
    k = math.log(3) / 200
    assert fitted["k"] == pytest.approx(k, rel=1e-5)
    assert (fitted["samples"], fitted["games"], fitted["previous_k"]) == (8, 2, 0.0007)
    entry = Store(to_calibrate).manifest()["calibration"][f"{ENGINE}|{LIMIT}"]
    assert entry["k"] == fitted["k"] and entry["samples"] == 8 and entry["games"] == 2
    listed = judgement.analyses(to_calibrate)[0]
    assert listed["calibrated"] is True and listed["k"] == fitted["k"]
    after = judgement.game_analysis(to_calibrate, HABU)[9]
    assert after["win_black"] == pytest.approx(win(200, fitted["k"]), abs=0.005) == 75.0
    # and back to lishogi's coefficient
    calibration.forget(to_calibrate)
    assert judgement.analyses(to_calibrate)[0]["k"] == 0.0007
    assert "calibration" in Store(to_calibrate).manifest()


def test_kifudb_calibrate(to_calibrate):
    runner = CliRunner()
    said = runner.invoke(main, ["calibrate", "--store", str(to_calibrate)])
    assert said.exit_code == 0, said.output
    assert f"{ENGINE} at {LIMIT}: k = 0.00549306" in said.output
    assert "from 8 analysed positions of 2 decided games" in said.output
    assert "lishogi's default: 0.0007" in said.output
    shown = runner.invoke(main, ["stats", "accuracy", "--store", str(to_calibrate)])
    assert "k = 0.00549306, fitted to this store by kifudb calibrate" in shown.output
    reset = runner.invoke(main, ["calibrate", "--reset", "--store", str(to_calibrate)])
    assert reset.exit_code == 0 and "forgotten" in reset.output
    wrong = runner.invoke(main, ["calibrate", "--engine", "gpsusi", "--store",
                                 str(to_calibrate)])
    assert wrong.exit_code == 1
    assert "no analysis of engine 'gpsusi'" in wrong.output and "Hand-made 1.0" in wrong.output


def test_calibrate_without_decided_games_says_so(tmp_path):
    store = tmp_path / "store"
    ingest_paths([str(ROOT / "data" / "samples" / "records" / "illegal_move.kif")], store)
    commit_analysis(store, {(1, 1): {"score_black": 30}})
    said = CliRunner().invoke(main, ["calibrate", "--store", str(store)])
    assert said.exit_code == 1 and "no decided game" in said.output
    assert "calibration" not in Store(store).manifest()


# ----- the doors -------------------------------------------------------------------------------


def test_kifudb_game_json_gives_each_move_its_analysis(analysed):
    said = CliRunner().invoke(main, ["game", str(HABU), "--format", "json", "--store",
                                     str(analysed)])
    assert said.exit_code == 0, said.output
    shown = json.loads(said.output)
    moves = {m["ply"]: m for m in shown["moves"]}
    assert set(moves[7]["analysis"]) == {"engine", "limit", "score_black", "mate_black",
                                         "win_black", "loss", "accuracy", "judgement", "best"}
    assert moves[7]["analysis"]["judgement"] == "blunder"
    assert moves[7]["analysis"]["score_black"] == -2500
    assert moves[10]["analysis"] is None and moves[13]["analysis"] is None
    assert shown["judgement"]["turning_ply"] == 8
    assert shown["judgement"]["black"]["blunders"] == 1
    plain = json.loads(CliRunner().invoke(main, ["game", str(FUJII), "--format", "json",
                                                 "--store", str(analysed)]).output)
    assert all(m["analysis"] is None for m in plain["moves"])


def test_kifudb_game_text_marks_the_judged_moves(analysed):
    said = CliRunner().invoke(main, ["game", str(HABU), "--store", str(analysed)])
    assert said.exit_code == 0, said.output
    lines = said.output.splitlines()
    row = {int(line.split()[0]): line for line in lines if line.strip()[:3].strip().isdigit()}
    assert "??" in row[7].split()[1] and row[3].split()[1].endswith("?")
    assert "?" not in row[8].split()[1] and "-2500 better ▲" in row[7]
    assert any(line.startswith(f"engine: {ENGINE} at {LIMIT}") and "turned at ply 8" in line
               for line in lines)
    wrong = CliRunner().invoke(main, ["game", str(HABU), "--engine", "nope", "--store",
                                      str(analysed)])
    assert wrong.exit_code == 1 and "no analysis of engine 'nope'" in wrong.output


def test_kifudb_stats_accuracy_and_mistakes(analysed):
    runner = CliRunner()
    said = runner.invoke(main, ["stats", "accuracy", "--by", "player", "--store",
                                str(analysed)])
    assert said.exit_code == 0, said.output
    assert said.output.splitlines()[0] == (f"analysis: {ENGINE} at {LIMIT} (k = 0.0007, "
                                           f"lishogi's default)")
    assert "羽生善治" in said.output and "games" in said.output.splitlines()[1]
    data = json.loads(runner.invoke(main, ["stats", "accuracy", "--by", "castle", "--format",
                                           "json", "--store", str(analysed)]).output)
    assert data == accuracy_module.accuracy(analysed, by="castle")
    costly = runner.invoke(main, ["stats", "mistakes", "--of", "羽生", "--store",
                                  str(analysed)])
    assert costly.exit_code == 0 and "??" in costly.output and "better" in costly.output
    bare = runner.invoke(main, ["stats", "accuracy", "--player", "nobody", "--store",
                                str(analysed)])
    assert "no analysed move in scope" in bare.output


def test_the_doors_say_when_the_store_has_no_analysis(tmp_path):
    store = tmp_path / "bare"
    ingest_paths(RECORDS[:1], store)
    said = CliRunner().invoke(main, ["stats", "accuracy", "--store", str(store)])
    assert said.exit_code == 1
    assert f"no engine analysis in {store.resolve()}: run 'kifudb analyse" in said.output
    game = CliRunner().invoke(main, ["game", "1", "--format", "json", "--store", str(store)])
    assert game.exit_code == 0 and json.loads(game.output)["judgement"] is None
    answer = TestClient(app(store)).get("/accuracy")
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "no_analysis"
    assert str(store.resolve()) not in answer.text  # not the server's paths
    with pytest.raises(judgement.NoAnalysis):
        kifudb.open(store).accuracy()


def test_http_accuracy_mistakes_and_the_game(analysed):
    client = TestClient(app(analysed))
    by_player = client.get("/accuracy", params={"by": "player", "handicap": "香落ち"}).json()
    assert by_player == accuracy_module.accuracy(analysed, by="player",
                                                 filters=GameFilter(handicap="香落ち"))
    assert client.get("/accuracy", params={"by": "colour"}).status_code == 422
    costly = client.get("/mistakes", params={"least": "mistake", "limit": 2}).json()
    assert [m["ply"] for m in costly["moves"]] == [7, 4]
    game = client.get(f"/game/{HABU}").json()
    assert game["moves"][6]["analysis"]["judgement"] == "blunder"
    assert game["judgement"]["turning_ply"] == 8
    assert client.get("/analyses").json()[0]["positions"] == 16
    other = client.get(f"/game/{HABU}", params={"engine": "nope"})
    assert other.status_code == 404 and other.json()["error"]["code"] == "no_analysis"


def test_python_api(analysed):
    db = kifudb.open(analysed)
    frame = db.game_analysis(HABU)
    assert frame.height == 181 and frame["judgement"].to_list()[:8] == [
        None, None, "mistake", "mistake", None, None, "blunder", None]
    assert frame.schema["loss"].is_float() and frame.schema["score_black"].is_integer()
    game = db.game(HABU)
    assert game.moves[6].analysis["judgement"] == "blunder" and game.judgement["turning_ply"] == 8
    assert game.analysis()["judgement"].to_list()[:8] == frame["judgement"].to_list()[:8]
    by = db.accuracy(by="player")
    assert by.columns[:3] == ["player", "games", "moves"]
    assert sorted(by["player"].to_list()) == sorted(PLAYERS.values())
    assert db.accuracy(by="ply-range", bucket=100).columns[:2] == ["plies_from", "plies_to"]
    assert db.mistakes(of="深浦")["ply"].to_list() == [3]
    assert db.analyses().row(0, named=True)["engine"] == ENGINE
    assert db.game(FUJII).analysis()["loss"].null_count() == 104


def test_an_engine_name_with_controls_is_shown_escaped(tmp_path):
    """The engine names itself (``id name``): its controls never reach the terminal."""
    store = tmp_path / "store"
    ingest_paths(RECORDS[:1], store)
    commit_analysis(store, {(HABU, p): {"score_black": 10 * p} for p in range(4)},
                    "Evil\x1b[2J 1.0", LIMIT)
    runner = CliRunner()
    for args in (["stats", "accuracy"], ["stats", "mistakes"], ["game", str(HABU)]):
        said = runner.invoke(main, [*args, "--store", str(store)])
        assert said.exit_code == 0, said.output
        assert "\x1b" not in said.output and "Evil" in said.output, args
