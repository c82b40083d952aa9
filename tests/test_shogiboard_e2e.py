"""The board you can play on, in real Chromium: the dashboard (``kifudb dashboard``, started as
a user starts it) driven through Playwright. The board is lishogi's shogiground in a Streamlit
component (an iframe): it is drawn with its pieces and readable at 1400 and 820 px; a drag or a
click on a piece then on a square plays a move and the explorer follows it (its URL and the
position shown change); a piece dropped from the hand too; a square the rules forbid is
refused by the board itself (nothing is sent); a promotion is asked when it is a choice and
made when it is forced; the sidebar's flip turns it round; the step keys work while the board
has the focus; the game viewer's board shows the current ply with the engine's best move as an
arrow and steps when the game's move is played on it; the position search is played into.

Moves sent by the board are counted on the page (every ``streamlit:setComponentValue``
message), so "refused" means none was sent. Debian's chromium is required (``make chromium``).
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote_plus

import pytest

from kifudb.analytics.position_input import position_from_moves
from kifudb.store.folder import Store
from shadowing import make_shadowing_folders
from test_dashboard_e2e import OUTPUT, chromium, dashboard_server, settle

pytestmark = pytest.mark.slow  # a real server and browser: `make test` runs it, `make test-fast` not

#: The least width of a readable board (pixels), as tests/test_dashboard_e2e.py has it.
READABLE = 340
START = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"

#: Counts the moves the board sends to Streamlit (the component's value messages; a ply
#: stepped to in the game viewer is sent too, and not counted).
COUNT_MOVES = """() => { window.__moves = [];
  window.addEventListener('message', e => { const d = e.data;
    if (d && d.type === 'streamlit:setComponentValue' && d.value.usi)
      window.__moves.push(d.value.usi); }); }"""


@pytest.fixture(scope="module")
def server(dashboard_store, tmp_path_factory):
    folder = make_shadowing_folders(tmp_path_factory.mktemp("board-server"))
    with dashboard_server(dashboard_store, folder) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    path = chromium()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=path, headless=True)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def tab(browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    yield page
    page.close()


@pytest.fixture(scope="module")
def db(dashboard_store):
    connection = Store(dashboard_store).connect()
    yield connection
    connection.close()


class Board:
    """The board of a page (``key``: its ``play_board`` key), inside its iframe."""

    def __init__(self, page, key: str):
        self.page, self.key = page, key
        self.frame = page.frame_locator(f".st-key-{key}-box iframe")
        self.root = self.frame.locator("#root")

    def wait(self, sfen: str | None = None) -> None:
        """Until the board is drawn (showing ``sfen`` when given), in one frame (a page whose
        shape changed draws a new frame while its run lasts)."""
        self.page.wait_for_function("k => document.querySelectorAll(`.st-key-${k}-box iframe`)"
                                    ".length === 1", arg=self.key, timeout=30_000)
        where = f'#root[data-sfen="{sfen}"]' if sfen else "#root[data-sfen]"
        self.frame.locator(where).wait_for(state="attached", timeout=30_000)
        self.frame.locator("sg-pieces piece").first.wait_for(state="attached", timeout=30_000)
        self.page.wait_for_timeout(300)  # the frame's height and the pieces' places

    @property
    def sfen(self) -> str:
        return self.root.get_attribute("data-sfen")

    def square(self, key: str) -> tuple:
        """The middle of a square (``7g``) on the page, as the board is turned."""
        box = self.frame.locator("sg-board").bounding_box()
        file, rank = int(key[0]), "abcdefghi".index(key[1])
        white = self.root.get_attribute("data-orientation") == "white"
        column, row = (file - 1, 8 - rank) if white else (9 - file, rank)
        return (box["x"] + box["width"] * (column + 0.5) / 9,
                box["y"] + box["height"] * (row + 0.5) / 9)

    def drag(self, start, to: str) -> None:
        """Drag from a square (``7g``) or from a hand's piece (a locator) to a square."""
        if isinstance(start, str):
            x, y = self.square(start)
        else:
            box = start.bounding_box()
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        mouse = self.page.mouse
        mouse.move(x, y)
        mouse.down()
        mouse.move(*self.square(to), steps=8)
        mouse.up()

    def click(self, key: str) -> None:
        self.page.mouse.click(*self.square(key))

    def pieces(self) -> int:
        return self.frame.locator("sg-pieces piece").count()

    def arrows(self) -> int:
        return self.frame.locator(".sg-shapes line").count()


def sent(page) -> list:
    return page.evaluate("() => window.__moves")


def open_page(page, url: str, text: str, key: str) -> Board:
    page.goto(url)
    settle(page, text)
    page.evaluate(COUNT_MOVES)
    board = Board(page, key)
    board.wait()
    return board


def sfen_of(moves: str, start: str | None = None) -> str:
    return position_from_moves(moves, **({"start": start} if start else {})).sfen()


def url_moves(url) -> str:
    """The moves of a URL (a page's, or the page's own), decoded."""
    url = url if isinstance(url, str) else url.url
    found = re.search(r"[?&]moves=([^&]*)", url)
    return unquote_plus(found.group(1)) if found else ""


def wait_for_moves(page, moves: str) -> None:
    page.wait_for_url(lambda url: url_moves(url) == moves, timeout=30_000)


# ----- drawn, and sized -------------------------------------------------------------------------


@pytest.mark.parametrize("width", [1400, 820])
def test_the_board_is_drawn_with_its_pieces_and_readable(server, browser, width):
    page = browser.new_page(viewport={"width": width, "height": 1600})
    try:
        board = open_page(page, f"{server}/explorer", "moves played next", "explorer-board")
        assert board.sfen == START and board.pieces() == 40
        assert board.frame.locator("sg-hand piece").count() == 14  # both hands, every kind
        assert board.frame.locator("sg-hp-wrap:not([data-nb='0'])").count() == 0  # empty
        assert board.arrows() == 3  # the three most played moves
        # readable: the board with its coordinates and hands as wide as the dashboard's
        # pictures must be (tests/test_dashboard_e2e.py), its squares at least 35 px
        whole = board.root.bounding_box()
        size = board.frame.locator("sg-board").bounding_box()
        frame = page.locator(".st-key-explorer-board-box iframe").bounding_box()
        column = page.locator(".st-key-explorer-board-box").bounding_box()
        assert whole["width"] >= READABLE and size["width"] >= 9 * 35, (whole, size)
        assert frame["width"] <= column["width"] + 1 and frame["x"] + frame["width"] <= width
        # the frame is as tall as the board and its hands: nothing cut, no scrolling inside
        inside = board.root.evaluate("r => [r.scrollHeight, r.getBoundingClientRect().height, "
                                     "document.documentElement.clientHeight]")
        assert inside[0] <= inside[2] + 1 and abs(inside[1] - frame["height"]) <= 2, inside
        OUTPUT.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(OUTPUT / f"shogiboard-explorer-{width}.png"))
    finally:
        page.close()


# ----- the explorer follows the board ---------------------------------------------------------------


def test_a_drag_and_a_click_click_play_moves_and_the_explorer_follows(server, tab):
    board = open_page(tab, f"{server}/explorer", "moves played next", "explorer-board")
    board.drag("7g", "7f")
    tab.wait_for_url(re.compile(r"/explorer\?moves=7g7f$"), timeout=30_000)
    settle(tab, "moves played next")
    board.wait(sfen_of("7g7f"))
    assert tab.get_by_role("button", name="1. ▲７六歩").count() == 1  # the line's crumb
    board.click("3c")
    board.click("3d")
    tab.wait_for_url(re.compile(r"/explorer\?moves=7g7f\+3c3d$"), timeout=30_000)
    board.wait(sfen_of("7g7f 3c3d"))
    assert sent(tab) == ["7g7f", "3c3d"]
    # the step keys while the board has the focus: ← back one move, → on again
    board.frame.locator("sg-board").click(position={"x": 3, "y": 3})
    tab.keyboard.press("ArrowLeft")
    tab.wait_for_url(re.compile(r"/explorer\?moves=7g7f$"), timeout=30_000)
    board.wait(sfen_of("7g7f"))
    board.frame.locator("sg-board").click(position={"x": 3, "y": 3})
    tab.keyboard.press("ArrowRight")
    tab.wait_for_url(re.compile(r"/explorer\?moves=7g7f\+3c3d$"), timeout=30_000)
    board.wait(sfen_of("7g7f 3c3d"))


def test_a_square_the_rules_forbid_is_refused(server, tab):
    """A pawn in hand (and one on 5g): the pawn on 5g cannot go two squares, the pawn in hand
    cannot be dropped on file 5 (a second pawn there) or on the last rank; each is put back by
    the board and nothing is sent; a drop on 4e is played."""
    start = "4k4/9/9/9/9/9/4P4/9/4K4 b P 1"
    board = open_page(tab, f"{server}/explorer?start={quote(start)}", "定跡",
                      "explorer-board")
    assert board.sfen == start
    hand = board.frame.locator("sg-hand piece.sente.pawn")
    assert hand.count() == 1
    board.drag("5g", "5e")
    board.drag(hand, "5e")
    board.drag(hand, "4a")
    board.click("5g")
    board.click("5d")
    tab.wait_for_timeout(500)
    assert sent(tab) == [] and board.sfen == start and url_moves(tab) == ""
    assert board.frame.locator("sg-squares sq.dest").count() == 0  # the click let go of 5g
    board.drag(hand, "4e")
    wait_for_moves(tab, "P*4e")
    board.wait(sfen_of("P*4e", start))
    assert sent(tab) == ["P*4e"]
    assert board.frame.locator("sg-hp-wrap:not([data-nb='0'])").count() == 0


def test_a_promotion_is_asked_when_it_is_a_choice_and_made_when_forced(server, tab):
    start = "4k4/1P7/6P2/9/9/9/9/9/4K4 b - 1"
    board = open_page(tab, f"{server}/explorer?start={quote(start)}", "定跡",
                      "explorer-board")
    board.drag("3c", "3b")  # in the zone: promote or not
    choices = board.frame.locator("sg-promotion-choices piece")
    choices.first.wait_for(timeout=10_000)
    assert choices.count() == 2
    board.frame.locator("sg-promotion-choices piece.tokin").click()
    wait_for_moves(tab, "3c3b+")
    board.wait(sfen_of("3c3b+", start))
    board.drag("5a", "6a")  # White's king
    wait_for_moves(tab, "3c3b+ 5a6a")
    board.wait(sfen_of("3c3b+ 5a6a", start))
    board.drag("8b", "8a")  # a pawn on the last rank: promoted without asking
    wait_for_moves(tab, "3c3b+ 5a6a 8b8a+")
    board.wait(sfen_of("3c3b+ 5a6a 8b8a+", start))
    assert sent(tab) == ["3c3b+", "5a6a", "8b8a+"]


def test_the_flip_turns_the_board_and_moves_still_play(server, tab):
    board = open_page(tab, f"{server}/explorer", "moves played next", "explorer-board")
    middle = tab.locator(".st-key-explorer-board-box iframe").bounding_box()
    middle = middle["y"] + middle["height"] / 2
    king = board.frame.locator("sg-pieces piece.sente.king")
    assert king.bounding_box()["y"] > middle  # Black's king at the bottom
    tab.get_by_text("△ 後手 at the bottom").click()
    board.frame.locator('#root[data-orientation="white"]').wait_for(state="attached",
                                                                   timeout=30_000)
    settle(tab, "moves played next")
    board.wait(START)
    assert board.frame.locator(".sg-wrap.orientation-gote").count() == 1
    assert king.bounding_box()["y"] < middle  # now at the top
    board.drag("7g", "7f")
    tab.wait_for_url(re.compile(r"/explorer\?moves=7g7f$"), timeout=30_000)
    board.wait(sfen_of("7g7f"))
    assert sent(tab) == ["7g7f"]


# ----- the game viewer and the position search -------------------------------------------------


def test_the_game_viewers_board_shows_the_ply_and_steps_when_the_games_move_is_played(
        server, tab, db):
    game, ply = db.execute(
        "SELECT game, min(ply) FROM moves WHERE line = 0 AND pv IS NOT NULL AND ply > 2 "
        "GROUP BY game ORDER BY game LIMIT 1").fetchone()
    played = [usi for (usi,) in db.execute(
        "SELECT usi FROM moves WHERE game = ? AND line = 0 ORDER BY ply", [game]).fetchall()]
    start = db.execute("SELECT start_sfen FROM games WHERE game = ?", [game]).fetchone()[0]
    board = open_page(tab, f"{server}/game?game={game}&ply={ply}", "対", "game-board")
    assert board.sfen == sfen_of(" ".join(played[:ply]), start)
    assert board.arrows() == 1  # the engine's best move, from the record's comment
    following = played[ply]
    board.drag(following[:2], following[2:4])  # the game's next move (no drop, no promotion)
    tab.wait_for_url(re.compile(rf"/game\?game={game}&ply={ply + 1}$"), timeout=30_000)
    board.wait(sfen_of(" ".join(played[:ply + 1]), start))
    board.frame.locator("sg-board").click(position={"x": 3, "y": 3})
    tab.keyboard.press("ArrowLeft")
    tab.wait_for_url(re.compile(rf"/game\?game={game}&ply={ply}$"), timeout=30_000)
    board.wait(sfen_of(" ".join(played[:ply]), start))
    assert sent(tab) == [following]


def test_the_step_keys_step_the_game_while_the_board_has_the_focus(server, tab, db):
    """Issue 29: → did not step the game viewer while its board (an iframe) had the focus.
    The board steps through the game itself: → ← End Home each draw the position at once and
    put the ply in the URL (one history entry each: Back goes through them); the page
    follows (its caption says the ply)."""
    game, moves = db.execute("SELECT game, moves FROM games WHERE valid AND moves > 10 "
                             "ORDER BY game LIMIT 1").fetchone()
    played = [usi for (usi,) in db.execute(
        "SELECT usi FROM moves WHERE game = ? AND line = 0 ORDER BY ply", [game]).fetchall()]
    start = db.execute("SELECT start_sfen FROM games WHERE game = ?", [game]).fetchone()[0]
    board = open_page(tab, f"{server}/game?game={game}&ply=3", "対", "game-board")
    board.frame.locator("sg-board").click(position={"x": 3, "y": 3})
    for key, ply in (("ArrowRight", 4), ("ArrowRight", 5), ("ArrowLeft", 4), ("End", moves),
                     ("Home", 0)):
        tab.keyboard.press(key)
        tab.wait_for_url(re.compile(rf"/game\?game={game}" + (f"&ply={ply}$" if ply else "$")),
                         timeout=30_000)
        board.wait(sfen_of(" ".join(played[:ply]), start))
        settle(tab, f"{ply}手" if ply else "開始局面")
    for ply in (moves, 4, 5, 4):  # the browser's Back: the steps one by one
        tab.go_back()
        tab.wait_for_url(re.compile(rf"/game\?game={game}&ply={ply}$"), timeout=30_000)
        board.wait(sfen_of(" ".join(played[:ply]), start))
    assert sent(tab) == []


def test_another_move_in_the_game_viewer_opens_the_explorer_with_it(server, tab, db):
    game = db.execute("SELECT min(game) FROM games WHERE start_sfen IS NULL OR start_sfen = ?",
                      [START]).fetchone()[0]
    first = db.execute("SELECT usi FROM moves WHERE game = ? AND ply = 1 AND line = 0",
                       [game]).fetchone()[0]
    other = "9g9f" if first != "9g9f" else "1g1f"
    board = open_page(tab, f"{server}/game?game={game}&ply=0", "対", "game-board")
    board.drag(other[:2], other[2:])
    tab.wait_for_url(re.compile(rf"/explorer\?moves={other}$"), timeout=30_000)
    settle(tab, "定跡")
    Board(tab, "explorer-board").wait(sfen_of(other))


def test_the_position_search_is_played_into(server, tab):
    board = open_page(tab, f"{server}/search", "Give a position", "search-board")
    assert board.sfen == START
    board.drag("7g", "7f")
    tab.wait_for_url(re.compile(r"/search\?moves=7g7f$"), timeout=30_000)
    settle(tab, "occurrences in")
    board.wait(sfen_of("7g7f"))
    assert tab.get_by_role("textbox", name="Moves from the start").input_value() == "7g7f"
    board.drag("3c", "3d")
    tab.wait_for_url(re.compile(r"/search\?moves=7g7f\+3c3d$"), timeout=30_000)
    settle(tab, "occurrences in")
    board.wait(sfen_of("7g7f 3c3d"))
    assert sent(tab) == ["7g7f", "3c3d"]
    # a position given as an SFEN: the moves go on from it
    given = sfen_of("7g7f 3c3d")
    board = open_page(tab, f"{server}/search?sfen={quote(given)}", "occurrences in",
                      "search-board")
    assert board.sfen == given
    board.drag("2g", "2f")
    tab.wait_for_url(re.compile(r"/search\?start=.*&moves=2g2f$"), timeout=30_000)
    settle(tab, "occurrences in")
    board.wait(sfen_of("2g2f", given))
    assert sent(tab) == ["2g2f"]
    # the form says the new line, from that start: searching again finds the same position
    assert tab.get_by_role("textbox", name="Moves from the start").input_value() == "2g2f"
    tab.get_by_role("button", name="Search", exact=True).first.click()
    settle(tab, "occurrences in")
    board.wait(sfen_of("2g2f", given))
