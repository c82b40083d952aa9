"""Issue 29, defect 9: a game known from two files takes each field from the source that has it
(``store.writer.reconcile``), says which source gave what (``provenance``), and the merge does
not depend on the order the files are read in.

Real records: two WCSC28 games as CSA files (``tests/fixtures/merge``, dated) and the same games
in the csa1 file of ``tests/fixtures/records/apery-wcsc28`` (its date field holds a file name: a
``bad_date``). Read csa1 first, the games stayed undated before the fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

import kifudb
from kifudb.cli import main
from kifudb.http import app
from kifudb.store.folder import Store
from kifudb.store.writer import ingest_paths

ROOT = Path(__file__).resolve().parent.parent
CSA1 = ROOT / "tests" / "fixtures" / "records" / "apery-wcsc28" / "kifu.csa1"
CSA = ROOT / "tests" / "fixtures" / "merge"
#: the two games: their CSA file, start date and players
GAMES = {"utf8_WCSC28_L6_DLS_HFW.csa": ("2018-05-03", "dlshogi", "Hefeweizen"),
         "utf8_WCSC28_U3_TNK_NVC.csa": ("2018-05-04",
                                        "the end of genesis T.N.K.evolution turbo type D",
                                        "Novice")}


def _merged(store: Path) -> dict:
    """``{csa file name: (date, black, white, winner, reason, provenance)}`` of the games the
    two CSA files hold, as the store shows them."""
    connection = Store(store).connect()
    rows = connection.execute(
        "SELECT s.path, g.date, g.black, g.white, g.winner, g.reason, g.provenance FROM games g "
        "JOIN sources s USING (game) WHERE s.path LIKE '%.csa'").fetchall()
    connection.close()
    return {Path(path).name: (date and date.isoformat(), black, white, winner, reason,
                              json.loads(provenance))
            for path, date, black, white, winner, reason, provenance in rows}


@pytest.mark.parametrize("runs", [
    [[CSA1, CSA]],            # one ingest, csa1 first (the files' order)
    [[CSA1], [CSA]],          # csa1 stored by an earlier ingest
    [[CSA], [CSA1]],          # the CSA files first
])
def test_each_field_from_the_source_that_has_it(tmp_path, runs):
    store = tmp_path / "store"
    for paths in runs:
        ingest_paths([str(p) for p in paths], store)
    merged = _merged(store)
    assert set(merged) == set(GAMES)
    for name, (date, black, white) in GAMES.items():
        shown_date, shown_black, shown_white, winner, reason, provenance = merged[name]
        assert (shown_date, shown_black, shown_white) == (date, black, white)
        assert Path(provenance["date"]["path"]).name == name  # the date came from the CSA file
        assert provenance["date"]["index"] == 0
        assert winner in ("black", "white") and reason == "resign"
    connection = Store(store).connect()
    assert connection.execute("SELECT count(*) FROM games").fetchone()[0] == 24
    undated = connection.execute("SELECT count(*) FROM games WHERE date IS NULL").fetchone()[0]
    assert undated == 22  # the csa1 file's other games have no date anywhere


def test_the_merge_does_not_depend_on_the_order(tmp_path):
    stores = []
    for number, runs in enumerate(([[CSA1, CSA]], [[CSA], [CSA1]], [[CSA1], [CSA]])):
        store = tmp_path / f"store{number}"
        for paths in runs:
            ingest_paths([str(p) for p in paths], store)
        stores.append(_merged(store))
    assert stores[0] == stores[1] == stores[2]


def test_provenance_in_every_door(tmp_path):
    store = tmp_path / "store"
    ingest_paths([str(CSA1), str(CSA)], store)
    connection = Store(store).connect()
    game = connection.execute("SELECT game FROM sources WHERE path LIKE '%DLS_HFW.csa'"
                              ).fetchone()[0]
    connection.close()
    shown = CliRunner().invoke(main, ["game", str(game), "--store", str(store), "--format",
                                      "json"])
    info = json.loads(shown.output)  # the game as every door gives it
    assert info["date"] == "2018-05-03"
    assert info["provenance"]["date"]["path"].endswith("utf8_WCSC28_L6_DLS_HFW.csa")
    python = kifudb.open(store).game(game)
    assert python.date.isoformat() == "2018-05-03" and python.provenance == info["provenance"]
    http = TestClient(app(store)).get(f"/game/{game}").json()
    assert http["provenance"]["date"] == {"path": "utf8_WCSC28_L6_DLS_HFW.csa", "index": 0}
    assert set(http["provenance"]) == set(info["provenance"])
