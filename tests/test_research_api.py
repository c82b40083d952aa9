"""The research questions through the Python API (``kifudb.api``) and the HTTP API
(``kifudb.http``): novelties, twins, players' names and the rating band on the mover, on a
store of real records — each door's answer is the ``analytics`` answer, and bad input is a
located 4xx ``{"error": …}``."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import kifudb
from kifudb.analytics import queries
from kifudb.analytics.filters import GameFilter
from kifudb.analytics.novelty import game_novelty, novelties
from kifudb.analytics.players import spellings, suggestions
from kifudb.analytics.twins import twins
from kifudb.http import app
from kifudb.store.writer import ingest_paths

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("research") / "store"
    ingest_paths([str(FIXTURES / "records"), str(FIXTURES / "players"),
                  str(FIXTURES / "twins"), str(FIXTURES / "evaluations")], folder)
    return folder


@pytest.fixture(scope="module")
def client(store) -> TestClient:
    return TestClient(app(store))


def _error(answer, status: int, code: str) -> str:
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert error["code"] == code
    return error["message"]


def test_novelties_through_both_doors(store, client):
    expected = novelties(store, limit=30)
    assert len(expected) >= 10
    page = client.get("/stats/novelties", params={"limit": 30}).json()
    assert page == {"offset": 0, "limit": 30, "novelties": expected}
    table = kifudb.open(store).stats.novelties(limit=30)
    assert table.select("game", "ply", "move", "earlier_games").rows() == [
        (r["game"], r["ply"], r["move"], r["earlier_games"]) for r in expected]
    # each listed novelty is the game's own (``kifudb game ID``)
    for row in expected:
        assert game_novelty(store, row["game"]) == {"ply": row["ply"],
                                                    "earlier_games": row["earlier_games"]}
        assert kifudb.open(store).stats.novelty(row["game"]) == game_novelty(store, row["game"])
    # filtered, by the filters every door shares
    habu = client.get("/stats/novelties", params={"player": "羽生善治", "limit": 50}).json()
    assert habu["novelties"] == novelties(store, limit=50, filters=GameFilter(player="羽生善治"))
    assert habu["novelties"] and all("羽生" in r["black"] + r["white"]
                                     for r in habu["novelties"])
    assert kifudb.open(store).stats.novelties(limit=50, player="羽生善治").height == len(
        habu["novelties"])
    assert "since" in _error(client.get("/stats/novelties", params={"since": "someday"}),
                             400, "bad_filter")
    _error(client.get("/stats/novelties", params={"limit": 0}), 422, "bad_parameter")


def test_twins_through_both_doors(store, client):
    expected = twins(store)
    assert expected and {t["kind"] for t in expected} == {"same moves", "prefix"}
    answer = client.get("/twins").json()
    assert len(answer) == len(expected)
    for shown, found in zip(answer, expected):
        assert [g["game"] for g in shown["games"]] == [g["game"] for g in found["games"]]
        assert shown["differences"] == found["differences"]
        assert all("/" not in g["path"] for g in shown["games"])  # file names only
    table = kifudb.open(store).twins()
    assert table.height == 2 * len(expected)
    assert table.filter(twin=1)["game"].to_list() == [g["game"] for g in expected[0]["games"]]
    assert table.filter(twin=1)["differences"].to_list()[0] == expected[0]["differences"]
    assert client.get("/twins", params={"min_moves": 100_000}).json() == []
    _error(client.get("/twins", params={"min_moves": 0}), 422, "bad_parameter")


def test_player_names_through_both_doors(store, client):
    expected = suggestions(store)
    assert expected  # the real records hold surnames with a title in undated games
    assert client.get("/players/suggest").json() == expected
    table = kifudb.open(store).stats.player_suggestions()
    assert table.select("written", "candidates").rows() == [
        (s["written"], list(s["candidates"])) for s in expected]
    names = kifudb.open(store).stats.player_spellings()
    habu = names.filter(name="羽生善治").row(0, named=True)
    assert habu == next(p for p in spellings(store) if p["name"] == "羽生善治")
    assert len(habu["spellings"]) >= 3


def test_the_mover_band_through_both_doors(store, client):
    band = {"min_rating": 3000, "max_rating": 3500}
    mover = GameFilter(**band, rating_of="mover")
    expected = queries.explore(store, "startpos", filters=mover)
    assert expected != queries.explore(store, "startpos", filters=GameFilter(**band))
    answer = client.get("/explore", params={**band, "rating_of": "mover"}).json()
    assert [(m["usi"], m["games"]) for m in answer["moves"]] == [
        (m["move"], m["count"]) for m in expected]
    table = kifudb.open(store).explore(**band, rating_of="mover")
    assert table.select("usi", "games").rows() == [(m["move"], m["count"]) for m in expected]
    assert "rating_of" in _error(client.get("/explore", params={"rating_of": "mover"}),
                                 400, "bad_filter")
    _error(client.get("/explore", params={**band, "rating_of": "nobody"}), 422,
           "bad_parameter")
