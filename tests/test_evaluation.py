"""Engine evaluations and ratings read from real records (``tests/fixtures/evaluations``, see its
SOURCES.md), per dialect: the numbers, signs and plies each file writes, the point of view each
dialect writes from, and the doors that show them (store, ``kifudb game``, explorer, filters)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from kifudb.analytics import queries
from kifudb.analytics.filters import GameFilter
from kifudb.ingest.evaluation import MATE, read_evaluation
from kifudb.ingest.pipeline import read_data, read_file
from kifudb.cli import main
from kifudb.store.check import check_store
from kifudb.store.folder import Store
from kifudb.store.manifest import FORMAT
from kifudb.store.schema import ADDED
from kifudb.store.writer import ingest_paths

EVALUATIONS = Path(__file__).resolve().parent / "fixtures" / "evaluations"


def game_of(name: str):
    """The one game of a fixture, as the store reads it (``lines=True``: with evaluations)."""
    read = read_file(EVALUATIONS / name, lines=True)
    assert len(read.games) == 1 and read.games[0].valid, read.games[0].findings
    return read.games[0]


def last_scores(game, count: int) -> list:
    return [game.evaluations[ply].score_black
            for ply in range(game.moves - count + 1, game.moves + 1)]


# ----- shogi-server logs ------------------------------------------------------------------------

def test_floodgate_scores_pv_ratings_and_engines():
    game = game_of("floodgate-2021.csa")
    first, second = game.evaluations[1], game.evaluations[2]
    assert (first.score, first.score_black, first.mate, first.dialect) == (113, 113, None,
                                                                           "shogi-server")
    # '** 113 -3334FU +2625FU -2233KA +7776FU …, from the position after +2726FU
    assert first.pv.split()[:5] == ["3c3d", "2f2e", "2b3c", "7g7f", "3a2b"]
    assert first.pv.count(" ") + 1 == 37  # every move of the written PV replays
    assert (second.score, second.pv.split()[0]) == (126, "2f2e")
    assert (game.black_rating, game.white_rating) == (3382.0, 3613.0)
    assert (game.black_engine, game.white_engine) == ("10b_n003_1060", "40b_n007_1050Ti")
    assert len(game.evaluations) == game.moves == 125


def test_shogi_server_scores_are_blacks_in_floodgate_and_wcsc():
    """Both engines' scores follow the winner's sign: Black's point of view for both."""
    floodgate = game_of("floodgate-2021.csa")  # Black won
    assert floodgate.winner == "black" and all(s > 0 for s in last_scores(floodgate, 20))
    assert floodgate.evaluations[125].score == 4370 and floodgate.evaluations[124].score == 3460
    wcsc = game_of("WCSC32_F7_NBS_DLS.csa")  # White won
    assert wcsc.winner == "white" and all(s < 0 for s in last_scores(wcsc, 8))
    assert (wcsc.evaluations[175].score_black, wcsc.evaluations[176].score_black) == (-20964,
                                                                                      -4774)
    assert wcsc.evaluations[1].pv == "4a3b"
    assert (wcsc.black_rating, wcsc.black_engine) == (None, "NBS")


def test_denryu_server_scores_are_blacks_too_and_its_mates_are_100000():
    game = game_of("denryu-aobazero-viper.csa")
    assert (game.winner, game.reason) == ("black", "declaration")
    assert all(s > 0 for s in last_scores(game, 20))  # viper (White) too, as Black wins
    last = game.evaluations[400]  # viper: '** 100000 on its last move
    assert (last.score, last.score_black, last.mate) == (100000, MATE, None)
    assert game.evaluations[398].score_black == 5944
    # aobazero's USI PV starts with the move played (7g7f): left out, the rest replays
    assert game.evaluations[1].pv == "8c8d 7i6h 3c3d"
    assert game.evaluations[2].pv.split()[:2] == ["2g2f", "8c8d"]  # viper's, in CSA


def test_floodgate_2015_mates_and_ratings():
    game = game_of("floodgate-2015-WishBlue-Apery.csa")
    assert game.winner == "white"
    assert (game.black_rating, game.white_rating) == (2769.0, 3049.0)
    assert game.evaluations[2].score == 146
    assert game.evaluations[133].score == -100000 and game.evaluations[133].score_black == -MATE


# ----- ShogiHome ----------------------------------------------------------------------------------

def test_shogihome_player_comments():
    game = game_of("shogihome-player.kifu")
    move = game.evaluations[12]  # usi-csa-bridge plays White
    assert (move.score, move.depth, move.nodes, move.engine, move.dialect) == (
        8, 5, 885, "usi-csa-bridge", "shogihome")
    assert move.pv == "5g5f 3b4c 6i7h 4a3b"  # ▲５六歩△４三銀▲７八金△３二金
    assert game.evaluations[14].score_black == -12
    assert all(ply % 2 == 0 for ply in game.evaluations)  # only the engine's moves
    assert (game.black_engine, game.white_engine) == (None, "usi-csa-bridge")
    # White's own engine says 詰み=先手勝ち:4手 (Black mates): the scores are Black's
    mate = game.evaluations[166]
    assert (mate.mate, mate.score_black, game.winner) == (4, MATE, "black")


def test_shogihome_research_comments():
    game = game_of("shogihome-research.kifu")
    move = game.evaluations[5]
    assert (move.score, move.score_black, move.depth, move.engine, move.dialect) == (
        -102, -102, 21, "MyEngine", "shogihome-research")
    assert move.pv.split()[:2] == ["8d8e", "8h7g"]
    assert sorted(game.evaluations) == [5, 6, 7]
    assert (game.black_engine, game.white_engine) == (None, None)  # an analysis: no player's


def test_shogihome_mates_in_jkf():
    game = game_of("shogihome-sample04.jkf")
    assert [game.evaluations[p].mate for p in (73, 75, 77, 79)] == [7, 5, 3, 1]
    white = game.evaluations[78]  # Lesserkai (White): 詰み=先手勝ち without a distance
    assert (white.mate, white.score, white.score_black) == (None, None, MATE)
    assert game.evaluations[44].score_black == -251 and game.evaluations[56].score_black == 127
    assert game.evaluations[11].pv.split()[0] == "7a6b"  # △６二銀


# ----- ShogiGUI (no real file found: the lines as ShogiHome's own tests quote them) ----------------

def test_shogigui_player_and_analysis_lines_in_a_kif_record():
    kif = ("手合割：平手\n手数----指手---------消費時間--\n"
           "   1 ７六歩(77)   ( 0:01/00:00:01)\n"
           "**対局 時間 00:00.8 深さ 22/28 ノード数 744743 評価値 88 読み筋 ▲７六歩(77) △３四歩(33) "
           "▲２六歩(27) △同　歩(23)\n"
           "   2 ３四歩(33)   ( 0:01/00:00:01)\n"
           "**解析 0 △ 評価値 -詰 3 読み筋 ▲２六歩(27)\n").encode()
    game = read_data(kif, "shogigui.kif", lines=True).games[0]
    first, second = game.evaluations[1], game.evaluations[2]
    # the player's PV starts with the move played (left out); 同　歩 stops it (no pawn on 2四)
    assert (first.score_black, first.depth, first.nodes, first.pv, first.dialect) == (
        88, 22, 744743, "3c3d 2g2f", "shogigui")
    assert (second.mate, second.score_black, second.pv, second.dialect) == (
        -3, -MATE, "2g2f", "shogigui-analysis")


# ----- what does not replay, what is not an evaluation --------------------------------------------

def test_a_pv_that_stops_replaying_keeps_its_first_moves():
    text = ("V2.2\nPI\n+\n+7776FU\n'** 50 -3334FU +2726FU -9999XX +5756FU\n-3334FU\n"
            "'** 40 +2726FU -4132KI +5958GI\n%TORYO\n").encode()
    game = read_data(text, "hand.csa", lines=True).games[0]
    assert (game.evaluations[1].score, game.evaluations[1].pv) == (50, "3c3d 2g2f")  # -9999XX
    assert game.evaluations[2].pv == "2g2f 4a3b"  # +5958GI: no silver on 5九, the stop
    assert game.valid and game.moves == 2


def test_validating_reads_no_evaluation_the_store_does():
    """``kifudb validate`` (no lines) does not pay for the evaluations; the store reads them."""
    plain = read_file(EVALUATIONS / "floodgate-2021.csa").games[0]
    assert plain.evaluations == {} and plain.black_engine is None
    assert (plain.black_rating, plain.white_rating) == (3382.0, 3613.0)
    assert len(game_of("floodgate-2021.csa").evaluations) == 125


def test_comments_that_are_no_evaluation():
    assert read_evaluation(["** 互角です", "#形勢はよい", "*3筋を突く"]) is None
    assert read_evaluation(["*評価値=abc"]) is None
    # numbers no store column holds are no score (a damaged comment), and never a crash
    assert read_evaluation(["** 99999999999 -3334FU", "*評価値=1e400", "#形勢[nan]"]) is None
    huge = read_evaluation(["*評価値=12", "*ノード数=99999999999999999999", "*深さ=1e9"])
    assert (huge.score, huge.nodes, huge.depth) == (12, None, 1_000_000_000)


# ----- the store and the doors ------------------------------------------------------------------

@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("evaluations") / "store"
    report = ingest_paths([str(EVALUATIONS)], folder)
    assert report.games_added == 7
    return folder


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def game_id(store, name: str) -> int:
    rows = Store(store).connect().execute(
        "SELECT game FROM sources WHERE path LIKE ?", [f"%{name}"]).fetchall()
    return rows[0][0]


def test_game_json_gives_each_move_its_evaluation(store):
    found = json.loads(run("game", game_id(store, "floodgate-2021.csa"), "--store", store,
                           "--format", "json").output)
    first = found["moves"][0]["evaluation"]
    assert first == {"score": 113, "score_black": 113, "mate": None, "depth": None,
                     "nodes": None, "pv": first["pv"], "engine": None,
                     "dialect": "shogi-server"}
    assert first["pv"].startswith("3c3d 2f2e")
    assert found["moves"][0]["comment"].startswith("** 113 -3334FU +2625FU")  # as written
    assert (found["black_rating"], found["white_rating"]) == (3382.0, 3613.0)
    research = json.loads(run("game", game_id(store, "shogihome-research.kifu"), "--store",
                              store, "--format", "json").output)
    assert [m["evaluation"] is None for m in research["moves"][:6]] == [True] * 4 + [False] * 2


def test_game_text_shows_scores_beside_the_moves(store):
    output = run("game", game_id(store, "shogihome-sample04.jkf"), "--store", store).output
    lines = output.splitlines()
    header = next(line for line in lines if line.startswith("ply"))
    assert header.split()[:6] == ["ply", "move", "as", "written", "time", "score"]
    row = {line.split()[0]: line for line in lines if line[:3].strip().isdigit()}
    assert " +159 " in row["11"] and " -251 " in row["44"] and " +M7 " in row["73"]
    assert " +M " in row["78"]


def test_min_rating_filter_and_the_explorers_average_rating(store):
    rated = queries.explore(store, "startpos", filters=GameFilter(min_rating=3000))
    assert [(m["move"], m["count"], m["average_rating"]) for m in rated] == [("2g2f", 1, 3382.0)]
    everyone = {m["move"]: m for m in queries.explore(store, "startpos")}
    # ▲７六歩 was chosen by the rated Black of floodgate 2015 (2769) and by unrated players
    assert everyone["7g7f"]["average_rating"] == 2769.0
    assert queries.explore(store, "startpos", filters=GameFilter(min_rating=3500)) == []
    output = run("explore", "--store", store, "--min-rating", "3000").output
    assert "rating" in output and "3382" in output
    stats = json.loads(run("stats", "results", "--store", store, "--min-rating", "2700",
                           "--format", "json").output)
    assert stats["games"] == 2


def test_an_older_store_shows_the_new_columns_as_nulls_then_migrates(tmp_path):
    folder = tmp_path / "old"
    ingest_paths([str(EVALUATIONS / "floodgate-2021.csa")], folder)
    store = Store(folder)
    manifest = store.manifest()
    later = {}  # a format-4 batch: without the columns of 5 and after
    for number, tables in ADDED.items():
        for table, added in tables.items():
            later.setdefault(table, []).extend(added if number > 4 else ())
    for table, added in later.items():
        path = store.batch_dir(manifest["batches"][0]) / f"{table}.parquet"
        data = pq.read_table(path)
        pq.write_table(data.drop_columns(added), path)
    mark = store.batch_dir(manifest["batches"][0]) / "batch.json"  # written before digests
    mark.write_text(json.dumps({key: value for key, value in json.loads(mark.read_text()).items()
                                if key not in ("files", "digest")}))
    (folder / "manifest.json").write_text(json.dumps({**manifest, "format": 4}))
    assert check_store(folder).sound  # an older batch is no damaged one
    connection = Store(folder).connect()
    assert connection.execute("SELECT count(*), count(score) FROM moves").fetchone() == (125, 0)
    assert connection.execute("SELECT black_rating FROM games").fetchone() == (None,)
    assert queries.game_moves(folder, 1)[0]["evaluation"] is None
    ingest_paths([str(EVALUATIONS / "WCSC32_F7_NBS_DLS.csa")], folder)  # a writer migrates
    assert Store(folder).manifest()["format"] == FORMAT
    connection = Store(folder).connect()
    assert connection.execute("SELECT count(score) FROM moves").fetchone() == (176,)
