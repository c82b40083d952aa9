"""Twins (``analytics.twins``, ``kifudb twins``): the same real game stored under other
metadata, or cut short, is listed — never merged — and real records that are different games
are not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kifudb.analytics.twins import twins
from kifudb.cli import main
from kifudb.store.folder import Store
from kifudb.store.writer import ingest_paths

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("twins") / "store"
    ingest_paths([str(FIXTURES / "records"), str(FIXTURES / "players"),
                  str(FIXTURES / "twins")], folder)
    return folder


def _game(folder: Path, name: str) -> int:
    return Store(folder).connect().execute(
        "SELECT game FROM sources WHERE path LIKE ?", [f"%/{name}"]).fetchone()[0]


def test_the_twins_of_a_real_game_are_listed_and_kept(store):
    original = _game(store, "players/habu-fujii-2006.kif")
    renamed = _game(store, "habu-fujii-2006-renamed.kif")
    cut = _game(store, "habu-fujii-2006-first-80.kif")
    assert len({original, renamed, cut}) == 3  # stored apart: never merged silently
    found = {(t["kind"], *(g["game"] for g in t["games"])): t for t in twins(store)}
    assert set(found) == {("same moves", original, renamed), ("prefix", original, cut),
                          ("prefix", renamed, cut)}
    assert found[("same moves", original, renamed)]["differences"] == ["black", "white", "date"]
    assert found[("prefix", original, cut)]["differences"] == ["moves", "winner"]
    assert found[("prefix", original, cut)]["same_players"] is True
    assert twins(store, min_moves=81) == [t for t in twins(store)
                                          if t["kind"] == "same moves"]


def test_different_games_are_not_twins(tmp_path):
    folder = tmp_path / "store"
    ingest_paths([str(FIXTURES / "records"), str(FIXTURES / "players")], folder)
    # the records hold thousands of games sharing openings; the real records by themselves
    # have no twin of 40 moves or more (checked: their fingerprints are distinct)
    assert twins(folder) == []
    short = twins(folder, min_moves=2)
    assert short and all(t["games"][0]["moves"] >= 2 for t in short)
    lines = dict(Store(folder).connect().execute(
        "SELECT game, list(usi ORDER BY ply) FROM moves WHERE line = 0 AND usi IS NOT NULL "
        "GROUP BY game").fetchall())
    for twin in short:  # each pair really is one line, or the beginning of the other
        longer, shorter = (lines[g["game"]] for g in twin["games"])
        assert longer[:len(shorter)] == shorter and len(shorter) >= 2


def test_twins_command(store):
    runner = CliRunner()
    listed = runner.invoke(main, ["twins", "--store", str(store), "--format", "json"])
    assert listed.exit_code == 0, listed.output
    assert len(json.loads(listed.output)) == 3
    text = runner.invoke(main, ["twins", "--store", str(store)])
    assert "3 probable twins: nothing was merged" in text.output
    none = runner.invoke(main, ["twins", "--store", str(store), "--min-moves", "500"])
    assert "no twins among the games of at least 500 moves" in none.output
