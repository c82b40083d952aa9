"""The game viewer's downloads (``dashboard/views/game.py``), with Streamlit's test harness on
the store of the real records: a button per format whose file is the game written as the store
holds it (read back: the same fingerprint), the KIF text to copy, the board as a KIF diagram; a
game that cannot be written says why. The browser test (tests/test_dashboard_e2e.py) downloads
a file through Chromium.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from streamlit.testing.v1 import AppTest

from kifudb.analytics.export import record_text
from kifudb.core.notation.bod import bod_text
from kifudb.core.position import Position
from kifudb.ingest.read import read_bytes
from kifudb.ingest.validate import validate_record
from kifudb.store.engine import fetch, games

APP = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")


@pytest.fixture(autouse=True)
def store_env(monkeypatch, dashboard_store):
    monkeypatch.setenv("KIFUDB_STORE", str(dashboard_store))


def game_page(game: int, ply: int = 0) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"game": str(game), "ply": str(ply)})
    at.run()
    at.switch_page("views/game.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def stored(dashboard_store, where) -> dict:
    return fetch(dashboard_store, sa.select(games.c.game, games.c.fingerprint, games.c.valid,
                                            games.c.start_sfen).where(where).limit(1))[0]


def test_each_format_downloads_the_game_as_stored(dashboard_store):
    row = stored(dashboard_store, games.c.valid & (games.c.moves > 40)
                 & (games.c.handicap == "平手"))
    at = game_page(row["game"], 12)
    buttons = {b.label: b for b in at.get("download_button")}
    assert sorted(buttons) == ["CSA", "JKF", "KI2", "KIF", "USI"]
    for fmt in ("kif", "ki2", "csa", "jkf", "usi"):
        written = record_text(dashboard_store, row["game"], fmt)
        read = read_bytes(written["text"].encode("utf-8"), f"game.{fmt}")
        assert validate_record(read.records[0]).fingerprint == row["fingerprint"], fmt
    codes = [c.value for c in at.code]
    assert record_text(dashboard_store, row["game"], "kif")["text"].rstrip("\n") in codes
    board = next(c for c in codes if c.startswith(("後手の持駒", "上手の持駒")))
    sfen = next(c for c in codes if c.count("/") == 8)
    assert board == bod_text(Position.from_sfen(sfen))  # the position after ply 12


def test_a_game_that_cannot_be_written_says_why(dashboard_store):
    row = stored(dashboard_store, games.c.first_illegal_ply.is_not(None) & (games.c.moves > 0))
    at = game_page(row["game"])
    assert not at.get("download_button")
    disabled = [b for b in at.button if b.label in ("KIF", "KI2", "CSA", "JKF", "USI")]
    assert len(disabled) == 5 and all(b.disabled for b in disabled)
    said = [c.value.replace("\\", "") for c in at.caption]  # display.plain's escapes
    assert any(c.startswith("The game cannot be written: move ") for c in said), said


def test_the_listed_games_download_from_search_explorer_and_players(dashboard_store):
    """The search, the explorer and a player's page each offer the games they list for
    download, as a ZIP by default; what the button gives is ``games_archive`` of the page's
    games (the browser test downloads one through Chromium)."""
    import io
    import zipfile

    from kifudb.analytics.export import chosen_games, games_archive
    from kifudb.analytics.filters import GameFilter
    from kifudb.analytics.position_input import position_from_moves

    def download(at, key):
        button = next(b for b in at.get("download_button") if b.key == f"{key}-download")
        return at.selectbox(key=f"{key}-format").value, button

    sfen = position_from_moves("7g7f 3c3d").sfen()
    for name, params, key in (("search", {"moves": "7g7f 3c3d"}, "search"),
                              ("explorer", {"moves": "7g7f 3c3d"}, "explorer")):
        at = AppTest.from_file(APP, default_timeout=60)
        at.query_params.update(params)
        at.run()
        at.switch_page(f"views/{name}.py")
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        assert download(at, key)[0] == "kif", name
    chosen = chosen_games(dashboard_store, GameFilter(), position=sfen)
    archive = games_archive(dashboard_store, chosen, "kif", "kifudb-search")
    names = zipfile.ZipFile(io.BytesIO(archive.data)).namelist()
    assert archive.written == len(chosen) - len(archive.problems) > 10
    assert len([n for n in names if n.endswith(".kif")]) == archive.written

    player = fetch(dashboard_store, sa.select(games.c.black).where(games.c.black.is_not(None))
                   .group_by(games.c.black).order_by(sa.func.count().desc()).limit(1))[0]["black"]
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"name": player})
    at.run()
    at.switch_page("views/players.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert download(at, "player")[0] == "kif"
