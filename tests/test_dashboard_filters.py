"""The sidebar's filters hold everywhere (issue 29, defects 1 and 5), with Streamlit's test
harness on the store of the real records: every list, count and link of the explorer, the
position search and the game viewer gives the games of the page's filters (checked against
plain DuckDB over the store's views), and the filters are in the URL — a link or a reload
opens a page with them, a change is written there, a page switch keeps them, and a bad value
in the URL is said. (Back and Forward in a real browser: ``test_dashboard_e2e``.)
"""

from __future__ import annotations

import datetime
import re

import pytest
from streamlit.testing.v1 import AppTest

from kifudb.analytics.position_input import position_from_moves
from kifudb.core.position import Position
from kifudb.dashboard.display import count as counted

from dashboard_pages import db, page, run, store_env, table  # noqa: F401 (fixtures)

START = Position()


def click(at: AppTest, label: str) -> AppTest:
    return run(next(b for b in at.button if b.label == label).click())


@pytest.fixture(scope="module")
def chosen(db) -> dict:
    """Filters that leave out the newest games through the start position: a player who is
    not in the newest game, their decided games since the middle of their dates."""
    newest = db.execute("SELECT black, white FROM games WHERE date IS NOT NULL ORDER BY date "
                        "DESC, game LIMIT 1").fetchone()
    player, dates = db.execute(
        "SELECT p, list(date ORDER BY date) FROM (SELECT black p, date FROM games WHERE "
        "winner <> 'none' AND date IS NOT NULL UNION ALL SELECT white, date FROM games WHERE "
        "winner <> 'none' AND date IS NOT NULL) WHERE p IS NOT NULL AND p NOT IN (?, ?) "
        "GROUP BY p HAVING count(DISTINCT date) > 2 ORDER BY count(*) DESC, p LIMIT 1",
        list(newest)).fetchone()
    return {"player": player, "since": dates[len(dates) // 2].isoformat(), "decided": "true"}


def fitting(db, chosen: dict, position: Position = START) -> list:
    """The games through ``position`` that fit ``chosen``, newest first (then by game)."""
    return [row[0] for row in db.execute(
        "SELECT g.game FROM games g WHERE g.game IN (SELECT game FROM positions WHERE key = ?) "
        "AND (lower(g.black) LIKE ? OR lower(g.white) LIKE ?) AND g.winner <> 'none' AND "
        "g.date >= ? ORDER BY g.date DESC, g.game",
        [position.key(), f"%{chosen['player'].lower()}%", f"%{chosen['player'].lower()}%",
         datetime.date.fromisoformat(chosen["since"])]).fetchall()]


# ----- defect 1: every list, count and link obeys the filters ------------------------------------


def test_explorer_latest_games_obey_the_filters(db, chosen):
    """The explorer's "Latest games through this position" used to list the newest games of
    the store whatever the filters (the search behind it was called without them)."""
    expected = fitting(db, chosen)
    everything = fitting(db, {"player": "", "since": "1600-01-01"})
    assert 0 < len(expected) and expected[0] != everything[0]
    at = page("explorer", **chosen)
    assert list(table(at, "explorer-games")["game"]) == expected[:8]
    unfiltered = page("explorer")
    assert list(table(unfiltered, "explorer-games")["game"]) != expected[:8]


def test_every_game_through_the_position_opens_the_search_with_the_filters(db, chosen):
    """"Every game through this position" opens the position search with the same filters:
    its count, its list and its download are of the games that fit them."""
    at = page("explorer", moves="", **chosen)
    at = click(at, "Every game through this position")
    assert at.query_params["sfen"].split()[:3] == START.sfen().split()[:3]
    assert {k: at.query_params[k] for k in chosen} == chosen
    expected = fitting(db, chosen)
    heading = [str(h.value) for h in at.subheader]
    assert any(h.startswith(f"{counted(len(expected), 'occurrence')} in "
                            f"{counted(len(expected), 'game')}")
               for h in heading), heading
    assert sorted(table(at, "search-hits")["game"]) == sorted(expected)


def test_position_search_counts_lists_and_downloads_obey_the_filters(db, chosen,
                                                                   dashboard_store):
    from kifudb.analytics.export import chosen_games
    from kifudb.analytics.filters import GameFilter
    from kifudb.dashboard.downloads import MOST

    position = position_from_moves("7g7f")
    all_games = db.execute("SELECT count(DISTINCT game) FROM positions WHERE key = ? AND game "
                           "IN (SELECT game FROM games)", [position.key()]).fetchone()[0]
    expected = fitting(db, chosen, position)
    assert 0 < len(expected) < all_games
    at = page("search", moves="7g7f", **chosen)
    assert any(str(h.value).startswith(f"{counted(len(expected), 'occurrence')} in "
                                       f"{counted(len(expected), 'game')}")
               for h in at.subheader)
    assert list(table(at, "search-hits")["game"]) == expected
    # the download is of the same games
    picked = chosen_games(dashboard_store, GameFilter(player=chosen["player"],
                                                      date_from=chosen["since"], decided=True),
                          position=position.sfen())[:MOST]
    assert sorted(g["game"] if isinstance(g, dict) else g[0] for g in picked) == sorted(expected)
    button = next(b for b in at.get("download_button") if b.key == "search-download")
    assert "fit the filters" in button.proto.help


def test_game_viewer_lists_and_other_games_here_obey_the_filters(db, chosen):
    """The game viewer's latest games are those of the filters, and "Other games here" opens
    the search with them."""
    expected = [row[0] for row in db.execute(
        "SELECT game FROM games WHERE (lower(black) LIKE ? OR lower(white) LIKE ?) AND "
        "winner <> 'none' AND date >= ? ORDER BY date DESC, game LIMIT 20",
        [f"%{chosen['player'].lower()}%"] * 2
        + [datetime.date.fromisoformat(chosen["since"])]).fetchall()]
    at = page("game", **chosen)
    assert at.query_params["game"] if "game" in at.query_params else True
    latest = table(at, "game-pick")
    assert set(latest["game"]) == set(expected) and len(latest) == len(expected)
    at = click(at, "Other games here")
    assert {k: at.query_params[k] for k in chosen} == chosen
    assert set(table(at, "search-hits")["game"]) <= set(fitting(db, chosen))


def test_a_game_opened_from_a_list_keeps_the_filters(db, chosen):
    at = page("explorer", **chosen)
    found = next(d for d in at.dataframe if d.key and d.key.startswith("explorer-games"))
    at.session_state[found.key] = {"selection": {"rows": [], "columns": [],
                                                 "cells": [(0, "game")]}}
    at = run(at)
    assert at.query_params["game"] == str(fitting(db, chosen)[0])
    assert {k: at.query_params[k] for k in chosen} == chosen


# ----- defect 5: the filters are in the URL ------------------------------------------------------


def test_filters_from_a_link_are_restored(chosen):
    at = page("explorer", **chosen, min_moves=20, result="black", played_by="human",
              handicap="平手")
    assert at.text_input(key="f_player").value == chosen["player"]
    assert at.date_input(key="f_from").value == datetime.date.fromisoformat(chosen["since"])
    assert at.checkbox(key="f_decided").value is True
    assert at.number_input(key="f_min_moves").value == 20
    assert at.selectbox(key="f_result").value == "▲ Black won"
    assert at.selectbox(key="f_engine").value == "no engine shown"
    assert at.selectbox(key="f_handicap").value == "平手"
    assert any("decided games" in str(h.value) and "at least 20 moves" in str(h.value)
               for h in at.subheader)


def test_a_filter_set_in_the_sidebar_goes_into_the_url_and_follows_page_switches():
    at = page("explorer", moves="7g7f")
    at.text_input(key="f_event").set_value("竜王")
    at = run(at)
    assert at.query_params["event"] == "竜王" and at.query_params["moves"] == "7g7f"
    at.checkbox(key="f_decided").check()
    at = run(at)
    assert at.query_params["decided"] == "true" and at.query_params["event"] == "竜王"
    at.checkbox(key="f_decided").uncheck()
    at = run(at)
    assert "decided" not in at.query_params
    # a move played keeps the filters in the URL
    first = next(b for b in at.button if b.key and b.key.startswith("play-"))
    at = run(first.click())
    assert at.query_params["event"] == "竜王" and len(at.query_params["moves"].split()) == 2
    # the sidebar's link to another page carries no filter: they are kept, and written
    at.switch_page("views/results.py")
    at = run(at)
    assert at.text_input(key="f_event").value == "竜王" and at.query_params["event"] == "竜王"


def test_a_bad_filter_in_the_url_is_said_and_left_out():
    at = page("results", since="yesterday", min_moves="many", result="nobody")
    said = " | ".join(str(w.value) for w in at.warning)
    assert "since" in said and "yesterday" in said and "min\\_moves" in said and "result" in said
    assert at.date_input(key="f_from").value is None
    assert "since" not in at.query_params and "min_moves" not in at.query_params


def test_the_least_number_of_games_is_in_the_url_too():
    at = page("explorer", min_games=3)
    assert at.number_input(key="explorer-min").value == 3
    assert all(c >= 3 for c in [int(re.search(r'<span class="n">([\d,]+)</span>', m.value)
                                    .group(1).replace(",", ""))
                                for m in at.markdown if 'class="kifudb-move-stats"' in m.value
                                and "kifudb-bar" in m.value])
    at.number_input(key="explorer-min").set_value(2)
    at = run(at)
    assert at.query_params["min_games"] == "2"
    first = next(b for b in at.button if b.key and b.key.startswith("play-"))
    at = run(first.click())
    assert at.query_params["min_games"] == "2" and at.query_params["moves"]
    at.number_input(key="explorer-min").set_value(1)
    at = run(at)
    assert "min_games" not in at.query_params
