"""Issue 29, the doors' defects: a ``limit`` that counts what it promises (2), unknown labels and
handicaps that are errors naming the nearest names (3), and one vocabulary of fields and
filters in the command line's JSON, the HTTP API and the Python API (7).

The store for the limits is made of CSA records written here (each a real even game's first
moves): a game from 1990, one from 2000, and five later games that repeat the 2000 game's
moves, so that the latest dated games have no novelty."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

import kifudb
from kifudb.analytics.explorer import EXPLORER_ANSWER, EXPLORER_MOVE, SEARCH_HIT
from kifudb.analytics.filter_options import OPTIONS
from kifudb.analytics.filters import FilterError, GameFilter
from kifudb.analytics.novelty import novelties
from kifudb.analytics.queries import occurrences, search
from kifudb.analytics.position_input import position_from_moves
from kifudb.cli import main
from kifudb.http import app
from kifudb.store.writer import ingest_paths

ROOT = Path(__file__).resolve().parent.parent

_CSA = """V2.2
N+{black}
N-{white}
$START_TIME:{date} 10:00:00
PI
+
{moves}
%TORYO
"""


def _csa(folder: Path, name: str, date: str, moves: list, black="A", white="B") -> None:
    lines = [("+" if i % 2 == 0 else "-") + m for i, m in enumerate(moves)]
    (folder / f"{name}.csa").write_text(_CSA.format(black=black, white=white, date=date,
                                                    moves="\n".join(lines)), encoding="utf-8")


@pytest.fixture(scope="module")
def repeated(tmp_path_factory) -> Path:
    """1990: 2g2f 8c8d; 2000: 7g7f 3c3d 2g2f; 2001–2005: the 2000 game's moves again (no
    novelty: every position reached earlier)."""
    records = tmp_path_factory.mktemp("records")
    _csa(records, "g1990", "1990/01/01", ["2726FU", "8384FU"])
    main_line = ["7776FU", "3334FU", "2726FU"]
    _csa(records, "g2000", "2000/01/01", main_line)
    for year in range(2001, 2006):
        _csa(records, f"g{year}", f"{year}/01/01", main_line, black=f"P{year}")
    store = tmp_path_factory.mktemp("repeated") / "store"
    ingest_paths([str(records)], store)
    return store


# ----- defect 2: --limit N gives N ---------------------------------------------------------------


def test_novelties_limit_counts_the_games_that_have_one(repeated):
    """The five latest games have none: a page of 2 is the two games that have one (before
    the fix: an empty page, as the page was cut before the games without one were dropped)."""
    latest = novelties(repeated, limit=2)
    assert [(r["date"], r["ply"]) for r in latest] == [("2000-01-01", 1), ("1990-01-01", 1)]
    assert [r["date"] for r in novelties(repeated, limit=1, offset=1)] == ["1990-01-01"]
    assert novelties(repeated, limit=5, offset=2) == []
    shown = CliRunner().invoke(main, ["stats", "novelties", "--store", str(repeated), "--limit",
                                      "2", "--format", "json"])
    assert shown.exit_code == 0, shown.output
    assert len(json.loads(shown.output)["novelties"]) == 2
    page = TestClient(app(repeated)).get("/stats/novelties", params={"limit": 2}).json()
    assert [r["game"] for r in page["novelties"]] == [r["game"] for r in latest]
    assert kifudb.open(repeated).stats.novelties(limit=2).height == 2


def test_search_pages_and_counts_obey_the_filters(repeated):
    """Position search takes the filters (the dashboard's lists call it with them), and its
    ``limit`` counts the hits the filters keep."""
    after = position_from_moves("7g7f 3c3d")
    assert occurrences(repeated, after)["games"] == 6
    chosen = GameFilter(date_to="2002-12-31")
    hits = search(repeated, after, limit=3, filters=chosen)
    assert [h["date"] for h in hits] == ["2002-01-01", "2001-01-01", "2000-01-01"]
    assert occurrences(repeated, after, filters=chosen) == {"occurrences": 3, "games": 3}
    assert search(repeated, after, one_per_game=True, limit=2,
                  filters=GameFilter(player="P2005")) == search(
        repeated, after, limit=2, filters=GameFilter(player="P2005"))
    http = TestClient(app(repeated)).get("/search", params={"moves": "7g7f,3c3d", "until":
                                                            "2002-12-31", "limit": 2}).json()
    assert (http["occurrences"], len(http["hits"])) == (3, 2)
    assert kifudb.open(repeated).search("7g7f 3c3d", until="2002-12-31").height == 3


def test_label_games_limit_counts_games(samples):
    """相居飛車 labels both sides of a game: ``limit`` counted rows (a game twice), so a page of
    4 held 2 games."""
    from kifudb.analytics.stats import label_games

    rows = label_games(samples, "相居飛車", limit=4)
    games = list(dict.fromkeys(r["game"] for r in rows))
    assert len(games) == 4 and len(rows) == 8
    assert {(r["game"], r["side"]) for r in rows} == {(g, s) for g in games
                                                      for s in ("black", "white")}
    every = label_games(samples, "相居飛車", limit=100)
    assert list(dict.fromkeys(r["game"] for r in every))[:4] == games


# ----- defect 3: an unknown label or handicap is an error ---------------------------------------


@pytest.fixture(scope="module")
def samples(tmp_path_factory) -> Path:
    store = tmp_path_factory.mktemp("samples") / "store"
    ingest_paths([str(ROOT / "data" / "samples")], store)
    return store


@pytest.mark.parametrize("option, value, named, suggested", [
    ("label", "四間", "'四間'", "四間飛車 (Fourth-file rook)"),
    ("label", "Fourth file rok", "'Fourth file rok'", "四間飛車"),
    ("handicap", "foo", "'foo'", "平手, 香落ち"),
    ("handicap", "香車落", "'香車落'", "香落ち"),
])
def test_an_unknown_name_is_an_error_in_every_door(samples, option, value, named, suggested):
    runner = CliRunner()
    for command in (["explore"], ["stats", "results"], ["search", "--moves", "7g7f"]):
        shown = runner.invoke(main, [*command, "--store", str(samples), f"--{option}", value])
        assert shown.exit_code == 2, shown.output
        lines = shown.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"Error: --{option}: unknown")
        assert named in lines[0] and suggested in lines[0]
    answer = TestClient(app(samples)).get("/explore", params={option: value})
    assert answer.status_code == 400
    message = answer.json()["error"]["message"]
    assert message.startswith(f"{option}: unknown") and suggested in message
    with pytest.raises(ValueError, match="unknown") as raised:
        kifudb.open(samples).explore(**{option: value})
    assert isinstance(raised.value, FilterError) and suggested in str(raised.value)


def test_english_label_names_and_handicap_spellings_are_accepted(samples):
    db = kifudb.open(samples)
    japanese = db.stats.results(label="四間飛車")
    assert japanese["games"] == 2
    for name in ("Fourth-file rook", "fourth file ROOK"):
        assert db.stats.results(label=name) == japanese
    assert TestClient(app(samples)).get("/stats/results", params={
        "label": "Fourth-file rook"}).json() == japanese
    shown = CliRunner().invoke(main, ["stats", "results", "--store", str(samples), "--label",
                                      "Fourth-file rook", "--format", "json"])
    assert json.loads(shown.output) == japanese
    assert db.stats.label_games("Fourth-file rook").height == db.stats.label_games(
        "四間飛車").height == 2
    assert db.explore(handicap="lance").height == db.explore(handicap="香落ち").height > 0


# ----- defect 7: one vocabulary ------------------------------------------------------------------


def test_the_explorer_says_the_same_fields_in_every_door(samples):
    cli = json.loads(CliRunner().invoke(main, ["explore", "--store", str(samples), "--moves",
                                               "7g7f 3c3d", "--since", "2000-01-01",
                                               "--format", "json"]).output)
    http = TestClient(app(samples)).get("/explore", params={"moves": "7g7f,3c3d",
                                                            "since": "2000-01-01"}).json()
    assert list(cli) == list(http) == list(EXPLORER_ANSWER)
    assert cli == http
    assert [list(m) for m in cli["moves"]] == [list(EXPLORER_MOVE)] * len(cli["moves"])
    table = kifudb.open(samples).explore("7g7f 3c3d", since="2000-01-01")
    assert table.columns == list(EXPLORER_MOVE)
    assert [{k: (v.isoformat() if k == "latest_date" and v else v) for k, v in row.items()}
            for row in table.to_dicts()] == cli["moves"]
    assert {"black_score", "ci_low", "ci_high", "performance", "latest_date"} <= set(
        EXPLORER_MOVE)


def test_search_says_the_same_fields_in_every_door(samples):
    cli = json.loads(CliRunner().invoke(main, ["search", "--store", str(samples), "--moves",
                                               "7g7f 3c3d", "--format", "json"]).output)
    http = TestClient(app(samples)).get("/search", params={"moves": "7g7f,3c3d"}).json()
    assert list(cli) == list(http)
    assert [list(h) for h in cli["hits"]] == [list(SEARCH_HIT)] * len(cli["hits"]) != []
    assert [h["path"] for h in http["hits"]] == [Path(h["path"]).name for h in cli["hits"]]
    assert kifudb.open(samples).search("7g7f 3c3d").columns == list(SEARCH_HIT)


def test_the_python_filters_are_the_other_doors_names(samples):
    """Every filter of the table is a keyword of the Python API (``db.explore(since=…)``
    raised TypeError); the older names still work, with a DeprecationWarning."""
    db = kifudb.open(samples)
    assert db.explore(since="2010-01-01").height > 0
    values = {"player": "羽生", "since": "2000-01-01", "until": "2030-01-01", "event": "竜",
              "handicap": "平手", "decided": True, "min_moves": 1, "max_moves": 500,
              "min_rating": 0, "max_rating": 9999, "rating_of": "mover", "result": "black",
              "reason": "resign", "time_control": "時間", "played_by": "human",
              "label": "居飛車", "label_side": "black", "label_family": True,
              "label_from_ply": 1, "label_to_ply": 300}
    assert set(values) == {o.name for o in OPTIONS}
    for name, value in values.items():
        extra = {"min_rating": 0} if name == "rating_of" else {}
        extra.update({"label": "居飛車"} if name.startswith("label_") else {})
        db.stats.results(**{name: value, **extra})  # no TypeError
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = db.explore(date_from="2010-01-01")
    assert any(issubclass(w.category, DeprecationWarning) and "since=" in str(w.message)
               for w in caught)
    assert old.equals(db.explore(since="2010-01-01"))
    with pytest.raises(TypeError, match="unknown filter 'colour'"):
        db.explore(colour="black")
