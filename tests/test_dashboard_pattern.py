"""The dashboard's pattern page (``dashboard/views/pattern.py``, issue 28) with Streamlit's
test harness on the store of the real records, and once in a real browser: a pattern given in
the URL finds what ``analytics.pattern.find_pattern`` finds (the count, the matches page by
page, what was played next, the command line); squares painted with the grid's buttons, the
hand and material widgets write the text and the URL; a text typed or a command line pasted
sets the board, the options and the filters; a bad condition is said, naming it, with no
traceback; an empty result is said; the sidebar's filters apply and stay in the URL; a click
on a match opens the game viewer at the ply where the pattern held.
"""

from __future__ import annotations

import html
import re
import tempfile
from pathlib import Path
from urllib.parse import urlencode

import pytest
from streamlit.testing.v1 import AppTest

from kifudb.analytics.filters import GameFilter
from kifudb.analytics.pattern import PatternSearch, find_pattern
from kifudb.core.move import Move
from kifudb.core.pattern import parse_pattern
from kifudb.core.position import Position

from dashboard_pages import APP, db, run, store_env  # noqa: F401 (fixtures)

TEXT = "pattern-text"


def page(**params) -> AppTest:
    """The pattern page opened by a link with the URL parameters ``params``."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({k: str(v) for k, v in params.items()})
    run(at)
    at.switch_page("views/pattern.py")
    return run(at)


def shown(markdown: str) -> str:
    """The text a Markdown string escaped by ``display.plain`` shows."""
    return html.unescape(re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)).replace(
        "\u2060", "")


def messages(at: AppTest, kind: str = "error") -> str:
    return " | ".join(shown(str(e.value)) for e in getattr(at, kind))


def square(at: AppTest, digits: str) -> str:
    """What the grid's square ``digits`` (file then rank) shows (blank: nothing)."""
    return shown(at.button(key=f"pattern-sq-{digits}").label).strip("\u3000")


def paint(at: AppTest, digits: str, piece: str, side: str = "▲", negated: bool = False):
    """Choose the brush, then click the square."""
    at.segmented_control(key="pattern-brush-side").set_value(side)
    at.pills(key="pattern-brush-piece").set_value(piece)
    at.toggle(key="pattern-brush-not").set_value(negated)
    run(at)
    return run(at.button(key=f"pattern-sq-{digits}").click())


def heading(at: AppTest) -> str:
    """The count the page says (without the filters it names after it)."""
    return next((s.value for s in at.subheader if "reached it" in s.value), "").split(" · ")[0]


def filters_said(at: AppTest) -> str:
    """The filters the count names."""
    return next(shown(s.value) for s in at.subheader if "reached it" in s.value).split(" · ")[1]


def matches_table(at: AppTest, page_number: int = 1):
    return next(d.value for d in at.dataframe if d.key == f"pattern-matches-{page_number}")


def expected(dashboard_store, conditions: str, chosen: GameFilter = GameFilter(),
             limit: int | None = 50, offset: int = 0, **options) -> dict:
    return find_pattern(dashboard_store, PatternSearch.of(conditions, **options),
                        filters=chosen, limit=limit, offset=offset)


def replayed(db, game: int, ply: int) -> Position:
    start = db.execute("SELECT start_sfen FROM games WHERE game = ?", [game]).fetchone()[0]
    position = Position.from_sfen(start)
    for (usi,) in db.execute("SELECT usi FROM moves WHERE game = ? AND line = 0 AND usi IS NOT "
                             "NULL ORDER BY ply LIMIT ?", [game, ply]).fetchall():
        position.push(Move.from_usi(usi))
    return position


# ----- a pattern in the URL -----------------------------------------------------------------------


def test_a_link_finds_what_find_pattern_finds_page_by_page(dashboard_store, db):
    at = page(q="▲持角 △持角")  # the bishops exchanged: many games, more than a page
    found = expected(dashboard_store, "▲持角 △持角")
    total = found["games"]
    assert total > 50
    assert heading(at) == f"{total:,} games reached it"
    first = matches_table(at)
    assert [(r.game, r.ply, r.plies) for r in first.itertuples()] == \
        [(m["game"], m["ply"], m["plies"]) for m in found["matches"]]
    assert at.text_input(key=TEXT).value == "▲持角 △持角"
    assert square(at, "55") == ""
    assert at.number_input(key="pattern-hand-0-角").value == 1
    assert at.number_input(key="pattern-hand-1-角").value == 1
    code = [c.value for c in at.code]
    assert code == [f"kifudb pattern ▲持角 △持角 --store {Path(dashboard_store).resolve()}"]
    # what was played next: every move, its games and results
    played = next(d.value for d in at.dataframe if "usi" in d.value.columns)
    assert list(played["usi"]) == [m["usi"] for m in found["next_moves"]]
    assert list(played["games"]) == [m["games"] for m in found["next_moves"]]
    # the second page
    run(at.pagination[0].set_value(2))
    second = matches_table(at, 2)
    again = expected(dashboard_store, "▲持角 △持角", offset=50)
    assert [(r.game, r.ply) for r in second.itertuples()] == \
        [(m["game"], m["ply"]) for m in again["matches"]]


def test_options_in_the_link_narrow_the_search(dashboard_store):
    options = {"turn": "white", "min_ply": 10, "max_ply": 40, "mirror": True,
               "either_side": True}
    at = page(q="▲飛2* ・27", turn="white", min_ply="10", max_ply="40", mirror="true",
              either_side="true")
    found = expected(dashboard_store, "▲飛2* ・27", **options)
    plain = expected(dashboard_store, "▲飛2* ・27")
    assert found["games"] != plain["games"]
    assert heading(at) == f"{found['games']:,} games reached it"
    assert [r.game for r in matches_table(at).itertuples()] == \
        [m["game"] for m in found["matches"]]
    assert at.segmented_control(key="pattern-turn").value == "white"
    assert at.number_input(key="pattern-min-ply").value == 10
    assert at.number_input(key="pattern-max-ply").value == 40
    assert at.toggle(key="pattern-mirror").value and at.toggle(key="pattern-either-side").value
    assert at.code[0].value.startswith("kifudb pattern '▲飛2*' ・27 --turn white --min-ply 10 "
                                       "--max-ply 40 --mirror --either-side --store ")
    # a change of an option is written to the URL (the search follows)
    run(at.toggle(key="pattern-either-side").set_value(False))
    assert "either_side" not in at.query_params
    found = expected(dashboard_store, "▲飛2* ・27", **{**options, "either_side": False})
    assert heading(at) == f"{found['games']:,} games reached it"


def test_a_click_on_a_match_opens_the_game_where_the_pattern_held(db):
    at = page(q="▲玉88 ▲金78 ▲銀77")
    table = matches_table(at)
    row = table.iloc[2]
    found = next(d for d in at.dataframe if d.key == "pattern-matches-1")
    at.session_state[found.key] = {"selection": {"rows": [], "columns": [],
                                                 "cells": [(2, "result")]}}
    run(at)
    assert at.query_params["game"] == str(row["game"])
    assert at.query_params["ply"] == str(row["ply"])
    pattern = parse_pattern("▲玉88 ▲金78 ▲銀77")
    assert pattern.holds(replayed(db, int(row["game"]), int(row["ply"])))
    assert not pattern.holds(replayed(db, int(row["game"]), int(row["ply"]) - 1))


# ----- the board, the widgets and the text --------------------------------------------------------


def test_painting_squares_writes_the_text_and_the_url(dashboard_store):
    at = page()
    assert not at.code and "Put conditions on the board" in messages(at, "info")
    paint(at, "88", "玉")
    assert at.text_input(key=TEXT).value == "▲玉88" and at.query_params["q"] == "▲玉88"
    paint(at, "78", "金")
    paint(at, "22", "龍", side="△")
    paint(at, "77", "銀", negated=True)
    paint(at, "55", "・")
    paint(at, "44", "*", side="△")
    assert at.text_input(key=TEXT).value == "▲玉88 ▲金78 △龍22 !▲銀77 ・55 △*44"
    assert [square(at, d) for d in ("88", "78", "22", "77", "55", "44", "11")] == \
        ["▲玉", "▲金", "△龍", "!▲銀", "・", "△*", ""]
    paint(at, "55", "・")  # the same brush again: taken off
    paint(at, "22", "erase")
    paint(at, "78", "銀")  # another piece: in place of the gold
    assert at.query_params["q"] == "▲玉88 ▲銀78 !▲銀77 △*44"
    # the hands and the material
    run(at.number_input(key="pattern-hand-0-歩").set_value(2))
    run(at.checkbox(key="pattern-empty-1").check())
    at.selectbox(key="pattern-material-kind").select("飛")
    at.selectbox(key="pattern-material-op").select(">=")
    at.number_input(key="pattern-material-n").set_value(1)
    run(at.button(key="pattern-material-add").click())
    text = "▲玉88 ▲銀78 !▲銀77 △*44 ▲持歩2 △持なし ▲飛>=1"
    assert at.text_input(key=TEXT).value == text and at.query_params["q"] == text
    assert "▲飛>=1" in [shown(b.label) for b in at.button if b.key.startswith("pattern-remove")]
    found = expected(dashboard_store, text)
    assert heading(at) == (f"{found['games']:,} games reached it" if found["games"] else "")
    # a count in hand takes the place of an empty hand; a button takes a condition off
    run(at.number_input(key="pattern-hand-1-角").set_value(1))
    run(at.button(key="pattern-remove-▲飛>=1").click())
    assert at.query_params["q"] == "▲玉88 ▲銀78 !▲銀77 △*44 ▲持歩2 △持角"
    assert not at.checkbox(key="pattern-empty-1").value
    run(at.button(key="pattern-clear").click())
    assert "q" not in at.query_params and at.text_input(key=TEXT).value == ""


def test_a_typed_text_or_a_pasted_command_sets_the_board(dashboard_store):
    at = page()
    run(at.text_input(key=TEXT).input("▲金５八  ・55 △飛2* ▲持角"))
    assert at.query_params["q"] == "▲金58 ・55 △飛2* ▲持角"
    assert at.text_input(key=TEXT).value == "▲金58 ・55 △飛2* ▲持角"  # written as the URL says
    assert (square(at, "58"), square(at, "55")) == ("▲金", "・")
    assert at.number_input(key="pattern-hand-0-角").value == 1
    assert [shown(b.label) for b in at.button if b.key.startswith("pattern-remove")] == ["△飛2*"]
    # a command line copied from a terminal: its options and filters replace the page's
    line = "kifudb pattern ▲持角 △持角 '!▲銀77' --turn black --max-ply 40 --mirror --decided"
    run(at.text_input(key=TEXT).input(line))
    assert {k: at.query_params[k] for k in ("q", "turn", "max_ply", "mirror", "decided")} == \
        {"q": "▲持角 △持角 !▲銀77", "turn": "black", "max_ply": "40", "mirror": "true",
         "decided": "true"}
    assert at.checkbox(key="f_decided").value
    found = expected(dashboard_store, "▲持角 △持角 !▲銀77", GameFilter(decided=True),
                     turn="black", max_ply=40, mirror=True)
    assert heading(at) == f"{found['games']:,} games reached it"
    assert "--decided" in at.code[0].value
    # the command line the page shows, pasted back, says the same search
    run(at.text_input(key=TEXT).input(at.code[0].value))
    assert heading(at) == f"{found['games']:,} games reached it"
    assert "Left out" in messages(at, "info") and "--store" in messages(at, "info")


def test_a_condition_given_twice_is_kept_once():
    """A link or a text that repeats a condition: one button to take it off (two buttons of
    one key were an exception)."""
    at = page(q="▲玉28/39 ▲金58 ▲玉28/39 ▲金58")
    assert [shown(b.label) for b in at.button if b.key.startswith("pattern-remove")] == \
        ["▲玉28/39"]
    run(at.text_input(key=TEXT).input("△飛2* △飛2*"))
    assert at.query_params["q"] == "△飛2*"


# ----- bad input, no result -----------------------------------------------------------------------


@pytest.mark.parametrize("q, said", [
    ("▲金5x", "'▲金5x'"), ("▲象58", "unknown piece '象'"), ("▲金58 ・58", "'・58' contradicts"),
    ("▲金99 ▲持", "'▲持'")])
def test_a_bad_condition_in_a_link_is_said_naming_it(q, said):
    at = page(q=q)
    assert "This pattern cannot be searched" in messages(at) and said in messages(at)
    assert not at.code  # no search


def test_a_bad_option_in_a_link_is_said():
    at = page(q="▲玉88", max_ply="abc")
    assert "max_ply must be a whole number" in messages(at)
    at = page(q="▲玉88", min_ply="40", max_ply="10")
    assert "min_ply (40) is after max_ply (10)" in messages(at)


def test_a_bad_text_is_said_and_the_search_stays():
    at = page(q="▲玉88")
    run(at.text_input(key=TEXT).input("▲玉88 ・88"))
    assert "'・88' contradicts '▲玉88'" in messages(at)
    assert at.query_params["q"] == "▲玉88" and at.text_input(key=TEXT).value == "▲玉88 ・88"
    assert square(at, "88") == "▲玉"
    run(at.text_input(key=TEXT).input("kifudb pattern ▲玉88 --limit"))
    assert "--limit needs a value" in messages(at)
    run(at.text_input(key=TEXT).input("▲玉88 --colour black"))
    assert "--colour is not an option of the pattern page" in messages(at)
    # a contradiction made on the board is said too
    run(at.text_input(key=TEXT).input("▲飛=2"))
    at.selectbox(key="pattern-material-kind").select("飛")
    at.number_input(key="pattern-material-n").set_value(1)
    run(at.button(key="pattern-material-add").click())
    assert "'▲飛=1' contradicts '▲飛=2'" in messages(at)
    assert at.query_params["q"] == "▲飛=2"


def test_an_empty_result_is_said():
    at = page(q="▲玉11 △玉99")
    assert "No game reached this pattern." in messages(at, "info")
    assert not [d for d in at.dataframe if d.key and d.key.startswith("pattern-matches")]


# ----- the sidebar's filters ----------------------------------------------------------------------


def test_the_filters_apply_and_stay_in_the_url(dashboard_store):
    at = page(q="▲持角 △持角", player="miyado")
    chosen = GameFilter(player="miyado")
    found = expected(dashboard_store, "▲持角 △持角", chosen)
    every = expected(dashboard_store, "▲持角 △持角")
    assert 0 < found["games"] < every["games"]
    assert heading(at) == f"{found['games']:,} games reached it"
    assert filters_said(at) == "player “miyado”"
    assert [r.game for r in matches_table(at).itertuples()] == \
        [m["game"] for m in found["matches"]]
    assert "--player miyado" in at.code[0].value
    paint(at, "55", "・")
    assert at.query_params["player"] == "miyado" and at.query_params["q"] == "▲持角 △持角 ・55"
    found = expected(dashboard_store, "▲持角 △持角 ・55", chosen)
    assert heading(at) == f"{found['games']:,} games reached it"
    # a filter set in the sidebar: the search follows, the pattern stays
    run(at.checkbox(key="f_decided").check())
    found = expected(dashboard_store, "▲持角 △持角 ・55", chosen.replace(decided=True))
    assert at.query_params["decided"] == "true" and at.query_params["q"] == "▲持角 △持角 ・55"
    assert heading(at) == f"{found['games']:,} games reached it"
    assert filters_said(at) == "player “miyado”, decided games"


# ----- in a real browser --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(dashboard_store):
    """``kifudb dashboard`` on the store, started from a folder outside the project."""
    from bench import browser as browser_tools

    with tempfile.TemporaryDirectory() as folder, \
            browser_tools.dashboard_server(dashboard_store, Path(folder)) as url:
        yield url


@pytest.fixture
def tab(server):
    from playwright.sync_api import sync_playwright

    from bench import browser as browser_tools

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=browser_tools.chromium(),
                                             headless=True)
        try:
            yield browser.new_page(viewport={"width": 1400, "height": 2000})
        finally:
            browser.close()


def settle(tab, text: str) -> None:
    from bench import browser as browser_tools

    browser_tools.settle(tab, text)


@pytest.mark.slow
def test_a_pattern_link_in_the_browser_and_a_click_to_the_game(dashboard_store, server, tab,
                                                                db):
    q = "▲玉88 ▲金78 ▲銀77"
    found = expected(dashboard_store, q)
    first = found["matches"][0]
    tab.goto(f"{server}/pattern?{urlencode({'q': q})}")
    settle(tab, f"{found['games']} games reached it")
    assert tab.locator(".st-key-pattern-sq-78 button").first.inner_text() == "▲金"
    grid = tab.locator('.st-key-pattern-matches-1 [data-testid="stDataFrame"]')
    grid.wait_for(timeout=30_000)
    grid.scroll_into_view_if_needed()
    tab.wait_for_timeout(500)  # the grid drawn (a canvas)
    box = grid.bounding_box()
    grid.click(position={"x": box["width"] / 2, "y": 35 + 35 // 2})  # the first row
    tab.wait_for_url(re.compile(rf"/game\?game={first['game']}&ply={first['ply']}$"))
    position = replayed(db, first["game"], first["ply"])
    assert parse_pattern(q).holds(position)
    settle(tab, position.sfen(move_number=False))  # the viewer at that ply (its SFEN shown)


@pytest.mark.slow
def test_each_square_painted_is_one_step_back_and_forward(server, tab):
    tab.goto(f"{server}/pattern")
    settle(tab, "Put conditions on the board")
    entries = tab.evaluate("history.length")
    tab.get_by_role("radio", name="玉").click()
    settle(tab, "Put conditions on the board")
    tab.locator(".st-key-pattern-sq-88 button").first.click()
    tab.wait_for_url(re.compile(r"/pattern\?q=%E2%96%B2%E7%8E%8988$"))  # ▲玉88
    settle(tab, "reached it")
    tab.get_by_role("radio", name="金").click()
    settle(tab, "reached it")
    tab.locator(".st-key-pattern-sq-78 button").first.click()
    tab.wait_for_url(re.compile(r"q=%E2%96%B2%E7%8E%8988(\+|%20)%E2%96%B2%E9%87%9178$"))
    settle(tab, "reached it")
    assert tab.evaluate("history.length") == entries + 2
    tab.go_back()
    tab.wait_for_url(re.compile(r"/pattern\?q=%E2%96%B2%E7%8E%8988$"))
    settle(tab, "reached it")
    assert tab.get_by_role("textbox", name="Pattern").input_value() == "▲玉88"
    assert tab.locator(".st-key-pattern-sq-78 button").first.inner_text().strip() == ""
    tab.go_forward()
    tab.wait_for_url(re.compile(r"%E2%96%B2%E9%87%9178$"))
    settle(tab, "reached it")
    assert tab.get_by_role("textbox", name="Pattern").input_value() == "▲玉88 ▲金78"
