"""The Python API (``kifudb.open`` → ``kifudb.api.Database``) on a store of the real records
(``tests/fixtures/records`` and the sample games): its DataFrames hold what ``analytics``
answers, positions are read in every notation, bad input is refused with a message, and a
commit made meanwhile is seen."""

from __future__ import annotations

import dataclasses
import datetime
import subprocess
import sys
import warnings
from pathlib import Path

import polars as pl
import pytest

import kifudb
from kifudb.analytics import queries
from kifudb.analytics import stats as analytics_stats
from kifudb.analytics.filters import FilterError, GameFilter
from kifudb.core.position import Position
from kifudb.api import COLUMNS, Database, Game
from kifudb.store.sql import SqlError

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "tests" / "fixtures" / "records"


@pytest.fixture(scope="module")
def db(dashboard_store) -> Database:
    return kifudb.open(dashboard_store)


def _plain(rows: list) -> list:
    """Frame rows with dates as ISO text, as ``analytics`` gives them."""
    return [{k: v.isoformat() if isinstance(v, datetime.date) else v for k, v in row.items()}
            for row in rows]


def test_open_refuses_a_folder_without_a_store(tmp_path):
    with pytest.raises(ValueError, match="no store at .*: run 'kifudb ingest"):
        kifudb.open(tmp_path)


def test_import_kifudb_loads_nothing_heavy():
    """``import kifudb`` (the CLI's package) does not load polars, DuckDB or FastAPI."""
    code = ("import sys, kifudb, kifudb.cli; "
            "print(sorted(m for m in ('polars', 'duckdb', 'fastapi', 'kifudb.api') "
            "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    assert done.stdout.strip() == "[]"


def test_explore_is_the_analytics_answer_as_a_frame(db):
    table = db.explore()
    rows = queries.explore(db.store, Position())
    assert table.columns == COLUMNS["explore"]
    assert table.schema["games"] == pl.Int64 and table.schema["black_wins"] == pl.Int64
    assert table.schema["latest_date"] == pl.Date
    assert table["usi"].to_list() == [r["move"] for r in rows]
    assert table["games"].to_list() == [r["count"] for r in rows]
    assert table["black_wins"].to_list() == [r["black_wins"] for r in rows]
    assert table["games"].sum() > 100


def test_a_position_in_any_notation(db):
    """SFEN, Position, USI, KIF and KI2 (text or a list) name the same position."""
    after = Position.from_sfen("lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL "
                               "b - 3")
    expected = db.explore(after)
    assert expected.height > 0
    for given in ("7g7f 3c3d", "7g7f,3c3d", ["7g7f", "3c3d"], "▲７六歩 △３四歩",
                  "1 ７六歩(77)\n2 ３四歩(33)", after.sfen(), "startpos moves 7g7f 3c3d"):
        assert db.explore(given).equals(expected), given
    assert db.search(after).equals(db.search("7g7f 3c3d"))


def test_moves_from_another_start(db):
    lance = "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"
    played = db.search("3c3d", start=lance)
    assert (played["handicap"] == "香落ち").all()


def test_bad_positions_say_what_is_wrong(db):
    with pytest.raises(ValueError, match=r"move 2 \(7g7e\): illegal"):
        db.explore("7g7f 7g7e")
    with pytest.raises(ValueError, match="bad SFEN"):
        db.search("lnsgkgsnl/9/9 b - 1")
    with pytest.raises(ValueError, match="not a move"):
        db.explore("7g7f hello")
    with pytest.raises(ValueError, match="a position is an SFEN"):
        db.search(42)


def test_filters_as_keywords_or_a_game_filter(db):
    by_keywords = db.explore(player="羽生", since="2000-01-01")
    by_filter = db.explore(filters=GameFilter(player="羽生", date_from="2000-01-01"))
    assert by_keywords.equals(by_filter)
    assert 0 < by_keywords["games"].sum() < db.explore()["games"].sum()
    with pytest.raises(FilterError, match="since: not a date"):
        db.explore(since="yesterday")
    with pytest.raises(TypeError, match="unknown filter 'colour'"):
        db.games(colour="black")


def test_search_pages_and_empty_answers(db):
    everything = db.search("startpos")
    assert everything.columns == COLUMNS["search"]
    assert everything.height == db.occurrences("startpos")["occurrences"] > 100
    page = db.search("startpos", limit=10, offset=5)
    assert page.equals(everything.slice(5, 10))
    dates = everything["date"].drop_nulls().to_list()
    assert dates == sorted(dates, reverse=True)
    nowhere = db.search("7g7f 3c3d 8h2b+ 3a2b B*4e")  # a position no record reached
    assert nowhere.height == 0 and nowhere.columns == COLUMNS["search"]
    assert nowhere.schema["date"] == pl.Date and nowhere.schema["game"] == pl.Int64


def test_games_are_the_statistics_games(db):
    table = db.games(limit=50, decided=True)
    rows = analytics_stats.games(db.store, limit=50, filters=GameFilter(decided=True))
    assert _plain(table.to_dicts()) == rows
    assert set(table["winner"]) <= {"black", "white", "draw"}


def test_a_game_with_variations_and_labels(db):
    branched = db.sql("SELECT game FROM moves WHERE line > 0 GROUP BY game "
                      "ORDER BY count(DISTINCT line) DESC, game LIMIT 1")["game"][0]
    game = db.game(branched)
    assert isinstance(game, Game)
    assert {v.line for v in game.variations} >= {1, 2, 3}
    assert all(v.ply >= 1 and v.parent < v.line for v in game.variations)
    replayed = [m for m in game.moves if m.usi is not None]
    assert len(game.sfens) == len(replayed) + 1
    assert game.position(0) == Position.from_sfen(game.start_sfen)
    assert game.moves_frame()["ply"].to_list() == [m.ply for m in game.moves]
    assert [label._asdict() for label in game.labels] == \
        analytics_stats.game_labels(db.store, branched)
    with pytest.raises(dataclasses.FrozenInstanceError):
        game.black = "someone"
    shown = game.as_dict()
    assert shown["game"] == branched and len(shown["variations"]) == len(game.variations)


def test_every_game_is_a_game(db):
    """Every stored game, whatever its format or its damage, becomes a ``Game``."""
    ids = db.sql("SELECT game FROM games ORDER BY game", limit=None)["game"].to_list()
    for number in ids:
        game = db.game(number)
        assert game.id == number and len(game.sfens) >= 1


def test_unknown_games_are_refused(db):
    with pytest.raises(KeyError, match="the store has no game 123456"):
        db.game(123456)
    with pytest.raises(ValueError, match="a game id is an integer"):
        db.game("12")


@pytest.mark.parametrize("name, arguments", [
    ("results_by_year", {}), ("results_by_reason", {}), ("game_lengths", {"bucket": 20}),
    ("label_frequencies", {"kind": "opening"}), ("win_rates", {"kind": "castle"}),
    ("pairings", {"kind": "castle", "against": "opening"}),
    ("label_games", {"label": "矢倉"}), ("players", {"min_games": 2}),
    ("finding_counts", {}), ("findings", {"severity": "warning"}),
])
def test_statistics_tables_are_the_analytics_answers(db, name, arguments):
    table = getattr(db.stats, name)(**arguments)
    rows = getattr(analytics_stats, name)(db.store, **arguments)
    assert rows, "a statistic of the real records is not empty"
    assert _plain(table.to_dicts()) == rows
    key = "finding_counts_code" if name == "finding_counts" else name
    assert table.columns[:len(COLUMNS[key])] == COLUMNS[key]


def test_statistics_with_filters(db):
    everything, decided = db.stats.results(), db.stats.results(decided=True)
    assert decided["games"] == decided["decided"] == everything["decided"] < everything["games"]
    player = db.stats.players(limit=1)["player"][0]
    summary = db.stats.player(player)
    assert summary["games"] == db.stats.players(limit=1)["games"][0]
    assert db.stats.player("nobody of that name") is None
    opponent = summary["opponents"][0]["opponent"]
    assert db.stats.head_to_head(player, opponent)["games"]
    assert db.stats.overview()["games"] == db.sql("SELECT count(*) AS n FROM games")["n"][0]
    yearly = db.stats.label_frequencies("castle", by_year=True)
    assert yearly.columns[:2] == ["year", "side"] and yearly.height > 0


def test_sql_is_the_guarded_door(db):
    table = db.sql("SELECT black, count(*) AS games FROM games GROUP BY black "
                   "ORDER BY games DESC, black LIMIT 3")
    assert table.columns == ["black", "games"] and table.height == 3
    assert db.sql("SELECT 1 AS a, 2 AS a").columns == ["a", "a_1"]
    with pytest.raises(SqlError, match="not allowed"):
        db.sql("COPY games TO '/tmp/x.csv'")
    with pytest.raises(SqlError, match="current_setting is refused"):
        db.sql("SELECT current_setting('memory_limit')")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert db.sql("SELECT * FROM range(10)", limit=4).height == 4
    assert "only the first 4 rows" in str(caught[0].message)


def test_a_commit_made_meanwhile_is_seen(tmp_path):
    from kifudb.store.writer import ingest_paths

    folder = tmp_path / "store"
    ingest_paths([str(RECORDS / "python-shogi")], folder)
    db = kifudb.open(folder)
    before = db.stats.overview()["games"]
    assert before > 0
    ingest_paths([str(ROOT / "data" / "samples" / "games.usi")], folder)
    assert db.stats.overview()["games"] > before
    assert db.games(limit=200).height == db.stats.overview()["games"]


def test_ratings_and_evaluations(db):
    """The games of rated players (shogi-server's rate lines) and engine evaluations kept by
    the records (floodgate CSA comments, ShogiHome KIF comments)."""
    rated = db.games(limit=50, min_rating=3000)
    ratings = db.sql("SELECT game, black_rating, white_rating FROM games "
                     "WHERE black_rating >= 3000 AND white_rating >= 3000 ORDER BY game")
    assert sorted(rated["game"].to_list()) == ratings["game"].to_list() != []
    opening = db.explore(min_rating=3000)
    assert opening["games"].sum() == rated.height
    assert (opening["average_rating"] >= 3000).all()
    evaluated = db.sql("SELECT game, count(*) AS n FROM moves WHERE line = 0 AND dialect IS "
                       "NOT NULL GROUP BY game ORDER BY n DESC LIMIT 1").row(0)
    scores = db.game(evaluated[0]).evaluations()
    assert scores.height == evaluated[1]
    assert scores["score_black"].drop_nulls().len() > 0


def test_a_game_as_records(db):
    """``Game.record`` is ``core.writers.write`` of ``analytics.export.stored_kifu``; a game
    that stops at an illegal move says why it cannot be written."""
    from kifudb.analytics.export import stored_kifu
    from kifudb.core.writers import FORMATS, write

    number = db.games(limit=1, decided=True)["game"][0]
    game = db.game(number)
    for fmt in FORMATS:
        assert game.record(fmt) == write(stored_kifu(db.store, number), fmt)
    assert game.kif() == game.record("kif") and game.usi() == game.record("usi")
    broken = db.sql("SELECT game FROM games WHERE NOT valid ORDER BY game LIMIT 1")["game"][0]
    with pytest.raises(ValueError, match=f"game {broken} cannot be written"):
        db.game(broken).csa()
    with pytest.raises(ValueError, match="unknown record format"):
        game.record("pgn")
