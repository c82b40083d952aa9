"""The dashboard (``dashboard/app.py``) page by page, with Streamlit's own test harness
(``AppTest``), on a store built from the real records.

Every page is opened the way a user gets there (the sidebar, or a link with its URL
parameters), every input path is driven (forms, buttons, sliders, table clicks), and what the
page shows is checked against the store read independently: plain DuckDB over the store's views,
and positions replayed with the rules engine. Bad input must give a message on the page, never a
traceback.
"""

from __future__ import annotations

import datetime
import html
import json
import re
from collections import Counter

import pytest
from streamlit.testing.v1 import AppTest

from kifudb.analytics.position_input import position_from_moves
from kifudb.core.move import code_usi
from kifudb.core.move import Move
from kifudb.core.notation import ki2_move
from kifudb.core.position import Position
from kifudb.core.notation.bod import bod_text
from kifudb.dashboard.display import count as counted

from dashboard_pages import db, page, run, store_env, table  # noqa: F401 (fixtures)

START = Position()


def sfen(position: Position) -> str:
    """An SFEN without the move number, as ``boards`` gives them."""
    return position.sfen(move_number=False)


# ----- opening pages, reading them ----------------------------------------------------------------


def one(db, sql: str, *parameters):
    return db.execute(sql, list(parameters)).fetchone()[0]


def shown(markdown: str) -> str:
    """The text a Markdown string shows, for the texts the pages escape (``display.plain``:
    a backslash before each ASCII punctuation mark, ``&lt;`` for ``<``, line breaks)."""
    return html.unescape(re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)).replace(
        "  \n", "\n").replace("\u2060", "")


def values(elements) -> list:
    return [shown(str(e.value)) for e in elements]


def metric(at: AppTest, label: str) -> str:
    found = [m.value for m in at.metric if m.label == label or m.label.startswith(label)]
    assert found, (label, [m.label for m in at.metric])
    return found[0]


def boards(at: AppTest) -> list:
    """The SFEN of every board on the page, without the move number: first the boards to play
    on (``board.play_board``: the shogiboard component's ``sfen``), then the pictures (the
    SVG's accessible label names it)."""
    played = [json.loads(c.proto.json_args).get("sfen") for c in at.get("component_instance")
              if "json_args" in str(c.proto) and '"sfen"' in c.proto.json_args]
    pictures = re.findall(r'aria-label="Shogi position, \w+ to move: SFEN ([^"]+)"',
                          "".join(m.value for m in at.markdown))
    return [sfen.rsplit(" ", 1)[0] for sfen in [*played, *pictures] if sfen]


def errors(at: AppTest) -> str:
    return " | ".join(values(at.error) + values(at.warning))


def click_row(at: AppTest, prefix: str, row: int, column: str | None = None) -> AppTest:
    """Click row ``row`` of the table whose key starts with ``prefix``, on a cell of ``column``
    (its first by default), as a user does: the tables select cells (a click anywhere on a
    row acts), not rows by their checkbox."""
    found = next(d for d in at.dataframe if d.key and d.key.startswith(prefix))
    column = column or list(found.value.columns)[0]
    at.session_state[found.key] = {"selection": {"rows": [], "columns": [],
                                                 "cells": [(row, column)]}}
    return run(at)


def occurrences(db, position: Position) -> tuple:
    """(occurrences, games) of a position among the games the store shows."""
    return db.execute("SELECT count(*), count(DISTINCT game) FROM positions WHERE key = ? "
                      "AND game IN (SELECT game FROM games)", [position.key()]).fetchone()


def next_moves(db, position: Position, player: str | None = None) -> tuple:
    """(moves, games) that the explorer lists for a position: distinct moves played next, and
    (move, game) pairs."""
    where = ""
    parameters = [position.key()]
    if player:
        where = " AND (lower(g.black) LIKE ? OR lower(g.white) LIKE ?)"
        parameters += [f"%{player.lower()}%"] * 2
    return db.execute("SELECT count(DISTINCT p.next_move), count(DISTINCT (p.next_move, p.game)) "
                      "FROM positions p JOIN games g USING (game) WHERE p.key = ? AND "
                      f"p.next_move IS NOT NULL{where}", parameters).fetchone()


def replayed(db, game: int, ply: int) -> str:
    """The SFEN of a stored game after ``ply`` moves, replayed with the rules engine."""
    start = one(db, "SELECT start_sfen FROM games WHERE game = ?", game)
    position = Position.from_sfen(start)
    for (usi,) in db.execute("SELECT usi FROM moves WHERE game = ? AND line = 0 AND usi IS NOT "
                             "NULL ORDER BY ply LIMIT ?", [game, ply]).fetchall():
        position.push(Move.from_usi(usi))
    return sfen(position)


# ----- the app itself -----------------------------------------------------------------------------


@pytest.mark.slow  # eight pages, 2 s or more; each page also has its own tests
def test_every_page_opens_without_an_exception():
    for name in ("overview", "validation", "explorer", "search", "game", "openings", "results",
                 "players"):
        at = page(name)
        assert at.title, name
        assert boards(at), f"{name}: no board"


def test_a_missing_store_is_a_message_not_a_traceback(monkeypatch, tmp_path):
    monkeypatch.setenv("KIFUDB_STORE", str(tmp_path / "nothing"))
    for name in ("overview", "explorer", "players"):
        at = page(name)
        assert "No store at" in errors(at)


# ----- overview -----------------------------------------------------------------------------------


def test_overview_counts_match_the_store(db):
    at = page("overview")
    assert metric(at, "Games") == f"{one(db, 'SELECT count(*) FROM games'):,}"
    assert metric(at, "Positions") == f"{one(db, 'SELECT count(*) FROM positions'):,}"
    players = one(db, "SELECT count(*) FROM (SELECT black AS p FROM games UNION "
                      "SELECT white FROM games) WHERE p IS NOT NULL")
    assert metric(at, "Players") == f"{players:,}"
    assert metric(at, "Events") == f"{one(db, 'SELECT count(DISTINCT event) FROM games'):,}"
    assert metric(at, "Files read") == f"{one(db, 'SELECT count(*) FROM files'):,}"
    errors_found = one(db, "SELECT count(*) FROM findings WHERE severity = 'error'")
    assert metric(at, ":material/error: Errors") == f"{errors_found:,}"
    first, last = db.execute("SELECT min(date), max(date) FROM games").fetchone()
    assert metric(at, "Dates") == f"{first.year}–{last.year}"


def test_overview_top_labels_and_first_moves(db):
    at = page("overview")
    openings = next(d.value for d in at.dataframe if d.key == "top-opening")
    top, games = db.execute("SELECT label, count(*) FROM labels WHERE kind = 'opening' AND "
                            "\"primary\" GROUP BY label ORDER BY 2 DESC, 1 LIMIT 1").fetchone()
    assert openings.iloc[0]["label"].startswith(top)
    assert openings.iloc[0]["games"] == games
    first_moves = [b.label for b in at.button if b.key and b.key.startswith("first-")]
    expected = db.execute(
        "SELECT next_move, count(DISTINCT game) n FROM positions WHERE key = ? AND next_move "
        "IS NOT NULL AND game IN (SELECT game FROM games) GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1",
        [START.key()]).fetchone()
    assert first_moves[0] == ki2_move(START, Move.from_usi(code_usi(expected[0])))
    assert boards(at) == [sfen(START)]


# ----- the opening explorer -----------------------------------------------------------------------


def move_buttons(at: AppTest) -> dict:
    """The explorer's moves played next, each a button: ``{usi: label}``, in order."""
    return {b.key[len("play-"):]: b.label for b in at.button
            if b.key and b.key.startswith("play-")}


def move_rows(at: AppTest) -> list:
    """The figures of each move's row: ``(games, share, score, decided, latest)`` as shown."""
    rows = []
    for m in at.markdown:
        if 'class="kifudb-move-stats"' in m.value and "kifudb-move-head" not in m.value:
            cells = re.findall(r'<span class="(?:n|n decided|latest)"[^>]*>([^<]*)</span>',
                               m.value)
            rows.append((int(cells[0].replace(",", "")), *cells[1:]))
    return rows


def test_explorer_lists_the_moves_played_next(db):
    at = page("explorer")
    moves, games = next_moves(db, START)
    assert f"{counted(moves, 'move')} played next · {counted(games, 'game')}" in values(at.subheader)
    assert boards(at) == [sfen(START)]
    listed = move_buttons(at)
    assert len(listed) == moves and listed["7g7f"] == "▲７六歩"
    assert sum(row[0] for row in move_rows(at)) == games
    # a move is a button: a click steps into it, and the URL, the board, the breadcrumbs follow
    run(at.button(key="play-7g7f").click())
    assert at.query_params["moves"] == "7g7f"
    after = position_from_moves("7g7f")
    moves, games = next_moves(db, after)
    assert f"{counted(moves, 'move')} played next · {counted(games, 'game')}" in values(at.subheader)
    assert boards(at) == [sfen(after)]
    assert "1. ▲７六歩" in [b.label for b in at.button]
    # back to the start with the first breadcrumb
    run(at.button(key="crumb-0").click())
    assert "moves" not in at.query_params and boards(at) == [sfen(START)]


def test_explorer_steps_back_and_forward_with_the_arrow_keys(db):
    """Back (←) and forward (→) as in the game viewer: → goes on along the line just left,
    else plays the most played move; Home goes to the start."""
    at = page("explorer", moves="7g7f 3c3d 2g2f")
    keys = {key: at.button(key=key).proto.shortcut for key in
            ("explorer-to-start", "explorer-back", "explorer-forward")}
    assert keys == {"explorer-to-start": "home", "explorer-back": "left",
                    "explorer-forward": "right"}
    for line in ("7g7f 3c3d", "7g7f"):
        run(at.button(key="explorer-back").click())
        assert at.query_params["moves"] == line
    for line in ("7g7f 3c3d", "7g7f 3c3d 2g2f"):
        run(at.button(key="explorer-forward").click())
        assert at.query_params["moves"] == line
    assert boards(at) == [sfen(position_from_moves("7g7f 3c3d 2g2f"))]
    run(at.button(key="explorer-to-start").click())
    assert "moves" not in at.query_params
    run(at.button(key="explorer-forward").click())
    assert at.query_params["moves"] == "7g7f"
    # a line of its own: → plays the most played move
    at = page("explorer", moves="2g2f")
    first = next(iter(move_buttons(at)))
    run(at.button(key="explorer-forward").click())
    assert at.query_params["moves"] == f"2g2f {first}"


def test_explorer_latest_games_list_each_game_once(db):
    """A game that reached the position several times (a repetition) is listed once, at the
    first time (it was listed at each: plies 117, 121, 125, 129)."""
    game, ply = db.execute("SELECT game, min(ply) FROM positions GROUP BY key, game HAVING "
                           "count(*) > 2 ORDER BY game LIMIT 1").fetchone()
    start = one(db, "SELECT start_sfen FROM games WHERE game = ?", game)
    position = Position.from_sfen(start)
    for (usi,) in db.execute("SELECT usi FROM moves WHERE game = ? AND line = 0 ORDER BY ply "
                             "LIMIT ?", [game, ply]).fetchall():
        position.push(Move.from_usi(usi))
    at = page("explorer", start=position.sfen())
    latest = table(at, "explorer-games")
    assert len(latest) == len(set(latest["game"])) and game in set(latest["game"])
    assert latest.loc[latest["game"] == game, "ply"].iloc[0] == ply


def test_explorer_plays_typed_moves_in_any_notation_and_rejects_bad_ones(db):
    at = page("explorer", moves="7g7f")
    play = next(b for b in at.button if b.label == "Play")
    at.text_input(key="explorer-typed").set_value("△３四歩 ２六歩(27)")
    run(play.click())
    assert at.query_params["moves"] == "7g7f 3c3d 2g2f"
    assert boards(at) == [sfen(position_from_moves("7g7f 3c3d 2g2f"))]
    at.text_input(key="explorer-typed").set_value("8h2b")
    run(next(b for b in at.button if b.label == "Play").click())
    assert "illegal" in errors(at) and at.query_params["moves"] == "7g7f 3c3d 2g2f"
    at.text_input(key="explorer-typed").set_value("hello")
    run(next(b for b in at.button if b.label == "Play").click())
    assert "not a move" in errors(at)


def test_explorer_line_from_the_url_must_be_legal():
    at = page("explorer", moves="7g7f 7g7f")
    assert "This line cannot be shown" in errors(at) and "move 2" in errors(at)


def test_explorer_filters_and_handicap_start(db):
    at = page("explorer")
    at.text_input(key="f_player").set_value("羽生")
    run(at)
    moves, games = next_moves(db, START, player="羽生")
    assert f"{counted(moves, 'move')} played next · {counted(games, 'game')} · player “羽生”" in values(at.subheader)
    at.text_input(key="f_player").set_value("nobody-plays-here")
    run(at)
    assert any("with these filters" in i for i in values(at.info))

    at = page("explorer", start="香落ち")
    lance = Position.from_sfen("lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1")
    assert boards(at) == [sfen(lance)]
    moves, games = next_moves(db, lance)
    assert games >= 1 and f"{counted(moves, 'move')} played next · {counted(games, 'game')}" in values(at.subheader)
    run(at.selectbox(key="explorer-start").set_value("平手"))
    assert boards(at) == [sfen(START)] and "start" not in at.query_params


# ----- position search ----------------------------------------------------------------------------


def search_form(at: AppTest, method: str, **fields) -> AppTest:
    run(at.segmented_control(key="search-method").set_value(method))
    for name, value in fields.items():
        widget = next(w for kind in ("text_area", "text_input", "number_input")
                      for w in getattr(at, kind) if w.key == f"search-{name}")
        widget.set_value(value)
    return run(next(b for b in at.button if b.label == "Search").click())


@pytest.mark.parametrize("text", ["7g7f 3c3d 2g2f", "▲７六歩 △３四歩 ▲２六歩",
                                  "1 ７六歩(77)\n2 ３四歩(33)\n3 ２六歩(27)",
                                  "startpos moves 7g7f 3c3d 2g2f"])
def test_search_by_moves_in_every_notation(db, text):
    at = search_form(page("search"), "moves", moves=text)
    target = position_from_moves("7g7f 3c3d 2g2f")
    count, games = occurrences(db, target)
    assert f"{counted(count, 'occurrence')} in {counted(games, 'game')}" in values(at.subheader)
    assert boards(at) == [sfen(target)]
    assert at.query_params["moves"] == "7g7f 3c3d 2g2f"
    table = at.dataframe[0].value
    assert len(table) == count and set(table["ply"]) <= {3, 5}


def test_search_by_sfen_diagram_and_game(db):
    target = position_from_moves("7g7f 3c3d 2g2f 8c8d")
    count, games = occurrences(db, target)
    expected = f"{counted(count, 'occurrence')} in {counted(games, 'game')}"
    at = search_form(page("search"), "sfen", sfen=sfen(target))
    assert expected in values(at.subheader) and boards(at) == [sfen(target)]
    at = search_form(page("search"), "diagram", diagram="手合割：平手\n" + bod_text(target))
    assert expected in values(at.subheader) and at.query_params["sfen"].startswith(sfen(target))
    game, ply = db.execute("SELECT game, ply FROM positions WHERE key = ? ORDER BY game LIMIT 1",
                           [target.key()]).fetchone()
    at = search_form(page("search"), "game", game=game, ply=ply)
    assert expected in values(at.subheader) and boards(at) == [sfen(target)]
    assert at.query_params["game"] == str(game)


@pytest.mark.parametrize("method, fields, message", [
    ("sfen", {"sfen": "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN b - 1"},
     "bad SFEN: rank 9"),
    ("moves", {"moves": "7g7f 3c3d 7f7e 4c4d 7e7d 7c7d 8h3c"}, "move 7 (8h3c): illegal"),
    ("moves", {"moves": "7g7f banana"}, "not a move"),
    ("diagram", {"diagram": "no diagram here"}, "no board diagram found"),
    ("diagram", {"diagram": "後手の持駒：なし\n  ９ ８ ７ ６ ５ ４ ３ ２ １\n"
                            "+---------------------------+\n|v香v桂v銀v金v玉v金v銀v桂v香|一\n"},
     "bad board diagram"),
    ("game", {"game": 999999, "ply": 0}, "no game 999999"),
    ("game", {"game": 1, "ply": 9999}, "the ply must be 0 to"),
])
def test_search_explains_bad_input(method, fields, message):
    at = search_form(page("search"), method, **fields)
    assert message in errors(at)


def test_search_from_a_broken_url_is_a_message():
    at = page("search", sfen="not an sfen")
    assert "This position cannot be shown: bad SFEN" in errors(at)
    at = page("search", game="abc")
    assert "whole number" in errors(at)


def test_search_pages_through_the_start_position_and_opens_a_game(db):
    at = page("search", sfen="startpos")
    count, games = occurrences(db, START)
    assert f"{counted(count, 'occurrence')} in {counted(games, 'game')}" in values(at.subheader)
    table = at.dataframe[0].value
    assert len(table) == min(50, count)
    pager = at.pagination[0]
    assert count > 50 and pager.num_pages == -(-count // 50)
    run(pager.set_value(2))
    second = at.dataframe[0].value
    assert len(second) == min(50, count - 50)
    assert list(second.itertuples(index=False)) != list(table.itertuples(index=False))[:len(second)]
    # newest first, as the store orders them
    dates = [d for d in table["date"] if d != "—"]
    assert dates == sorted(dates, reverse=True)
    # a click on a row (on its result, say) opens that game at that ply
    row = second.iloc[3]
    click_row(at, "search-hits-", 3, "result")
    assert at.query_params["game"] == str(row["game"])
    assert boards(at)[0] == replayed(db, int(row["game"]), int(row["ply"]))


def test_search_with_the_mirror_image(db):
    target = position_from_moves("2g2f 8c8d")  # its mirror is 8g8f 2c2d
    at = page("search", moves="2g2f 8c8d")
    plain = occurrences(db, target)[0]
    assert f"{plain:,} occurrences" in values(at.subheader)[0]
    run(at.toggle(key="mirror").set_value(True))
    mirrored = occurrences(db, target.mirror())[0]
    assert values(at.subheader)[0].startswith(f"{plain + mirrored:,} occurrences")


# ----- the game viewer ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rich_game(db) -> int:
    """A game with variations, comments and times."""
    return one(db, "SELECT game FROM moves WHERE line > 0 GROUP BY game ORDER BY count(DISTINCT "
                   "line) DESC, game LIMIT 1")


def test_game_viewer_steps_through_a_game(db, rich_game):
    game = rich_game
    black, white, moves = db.execute("SELECT black, white, moves FROM games WHERE game = ?",
                                     [game]).fetchone()
    at = page("game", game=game, ply=3)
    assert shown(at.title[0].value) == f"▲{black or '?'}  対  △{white or '?'}"
    assert boards(at)[0] == replayed(db, game, 3)
    table = at.dataframe[0].value
    assert len(table) == one(db, "SELECT count(*) FROM moves WHERE game = ? AND line = 0", game)
    written = [t for (t,) in db.execute("SELECT text FROM moves WHERE game = ? AND line = 0 "
                                        "ORDER BY ply", [game]).fetchall()]
    assert list(table["written"]) == written
    run(at.button(key="forward").click())
    assert boards(at)[0] == replayed(db, game, 4) and at.query_params["ply"] == "4"
    run(at.button(key="back").click())
    run(at.button(key="back").click())
    assert boards(at)[0] == replayed(db, game, 2)
    run(at.button(key="to-end").click())
    assert boards(at)[0] == replayed(db, game, moves)
    run(at.button(key="to-start").click())
    assert boards(at)[0] == replayed(db, game, 0)
    run(at.slider(key="ply").set_value(5))
    assert boards(at)[0] == replayed(db, game, 5)
    # a click in the move list (on the move itself) goes to that move
    click_row(at, f"moves-{game}-", 1, "move")
    assert boards(at)[0] == replayed(db, game, 2) and at.query_params["ply"] == "2"


def test_game_viewer_shows_variations_comments_and_labels(db, rich_game):
    game = rich_game
    at = page("game", game=game, ply=1)
    lines = one(db, "SELECT count(DISTINCT line) FROM moves WHERE game = ? AND line > 0", game)
    variation = at.selectbox(key=f"variation-{game}")
    assert len(variation.options) == lines
    comment = one(db, "SELECT comment FROM moves WHERE game = ? AND line = 0 AND ply = 1", game)
    if comment:
        assert comment in values(at.info)
    # a variation is read back on a board of its own
    assert len(boards(at)) == 2

    labelled = one(db, "SELECT game FROM labels GROUP BY game ORDER BY count(*) DESC, game "
                       "LIMIT 1")
    at = page("game", game=labelled)
    buttons = [b for b in at.button if b.key and b.key.startswith("label-")]
    assert len(buttons) == one(db, "SELECT count(*) FROM labels WHERE game = ?", labelled)
    side, kind, label, ply = db.execute("SELECT side, kind, label, ply FROM labels WHERE game = ? "
                                        "ORDER BY ply DESC LIMIT 1", [labelled]).fetchone()
    run(at.button(key=f"label-{side}-{kind}-{label}-{ply}").click())
    assert boards(at)[0] == replayed(db, labelled, ply)


def test_game_viewer_lists_the_moves_around_the_current_one(db):
    game, moves = db.execute("SELECT game, moves FROM games WHERE moves > 80 ORDER BY game "
                             "LIMIT 1").fetchone()
    at = page("game", game=game, ply=50)
    window = table(at, f"moves-{game}-")
    assert len(window) == 15 and 50 in set(window["ply"])
    everything = table(at, f"all-moves-{game}-")
    assert len(everything) == one(db, "SELECT count(*) FROM moves WHERE game = ? AND line = 0",
                                  game) >= moves
    row = list(window["ply"]).index(52)
    click_row(at, f"moves-{game}-", row)
    assert boards(at)[0] == replayed(db, game, 52) and at.query_params["ply"] == "52"


@pytest.mark.parametrize("game, message", [("999999", "No game 999999 in the store"),
                                           ("abc", "Not a game id: 'abc'")])
def test_game_viewer_unknown_game(db, game, message):
    at = page("game", game=game)
    assert message in errors(at)
    latest = table(at, "game-pick-")
    assert len(latest) == 20  # the latest games, to pick one
    click_row(at, "game-pick-", 2)
    picked = int(latest.iloc[2]["game"])
    assert at.query_params["game"] == str(picked) and not errors(at)
    assert boards(at)[0] == replayed(db, picked, 0)
    # another game, from the latest games under this one
    click_row(at, f"game-pick-{picked}", 3)
    assert at.query_params["game"] == str(latest.iloc[3]["game"])


def test_game_viewer_opens_the_newest_game_by_default(db):
    at = page("game")
    newest = one(db, "SELECT game FROM games ORDER BY date DESC NULLS LAST, game DESC LIMIT 1")
    assert boards(at) == [replayed(db, newest, 0)]


def test_game_viewer_says_a_ply_past_the_end(db):
    """A ply past the end is said and the last position shown (it was the start, without a
    word); for a record whose replay stops at an illegal move, that is said too."""
    game, moves = db.execute("SELECT game, moves FROM games WHERE valid AND moves > 20 ORDER BY "
                             "game LIMIT 1").fetchone()
    at = page("game", game=game, ply=moves + 7)
    assert f"Ply {moves + 7} is past the end: the game ends at ply {moves}" in errors(at)
    assert boards(at)[0] == replayed(db, game, moves)
    assert at.query_params["ply"] == str(moves)
    game, illegal = db.execute("SELECT game, first_illegal_ply FROM games WHERE NOT valid AND "
                               "first_illegal_ply > 1 ORDER BY game LIMIT 1").fetchone()
    at = page("game", game=game, ply=illegal)
    assert f"the replay stops at ply {illegal - 1}" in errors(at)
    assert boards(at)[0] == replayed(db, game, illegal - 1)


def test_handicap_games_name_their_sides_shitate_and_uwate(db):
    """In a handicap game the weaker player (下手) plays ▲ and the stronger (上手) △: the game
    viewer, its board, the explorer from a handicap start and the tables of games say so (they
    said ▲先手 and △後手)."""
    game, winner = db.execute("SELECT game, winner FROM games WHERE handicap = '香落ち' AND "
                              "winner IN ('black', 'white') ORDER BY game LIMIT 1").fetchone()
    at = page("game", game=game)
    caption = values(at.caption)
    said = {"black": "▲下手勝ち", "white": "△上手勝ち"}[winner]
    assert any("香落ち: ▲下手 · △上手" in c and said in c for c in caption), caption
    assert any("開始局面 · △上手番 (White to move)" in c for c in caption), caption
    (told,) = [json.loads(c.proto.json_args) for c in at.get("component_instance")]
    assert told["hand_names"] == {"black": "▲下手の持駒", "white": "△上手の持駒"}
    assert "先手" not in " ".join(v for v in values(at.markdown) if v.startswith("**"))

    at = page("explorer", start="香落ち")
    assert any(c.startswith("△上手番 (White to move)") for c in values(at.caption))
    (told,) = [json.loads(c.proto.json_args) for c in at.get("component_instance")]
    assert told["hand_names"]["white"] == "△上手の持駒"
    latest = table(at, "explorer-games")
    handicapped = set(db.execute("SELECT game FROM games WHERE handicap = '香落ち'").fetchall())
    results = [r for g, r in zip(latest["game"], latest["result"]) if (g,) in handicapped
               and r not in ("—", "中断")]
    assert results and all("上手勝ち" in r or "下手勝ち" in r for r in results), results


def test_a_click_on_any_cell_of_a_table_acts(db):
    """A click on any cell of a row (not only the row's checkbox) opens what the row is: a
    finding's position, a player's favourite opening."""
    at = page("validation")
    found = table(at, "findings-")
    target = next(i for i, m in enumerate(found["message"]) if i > 0 and m and m !=
                  found["message"].iloc[0])
    click_row(at, "findings-", target, "message")
    assert any(found["message"].iloc[target] == shown(m.value) for m in at.markdown)

    player = one(db, "SELECT p FROM (SELECT black p FROM games UNION ALL SELECT white FROM games) "
                     "WHERE p IS NOT NULL GROUP BY p ORDER BY count(*) DESC, p LIMIT 1")
    at = page("players", name=player)
    click_row(at, f"openings-{player}", 0, "wins")
    assert at.query_params["kind"] == "opening" and at.query_params.get("study")


# ----- openings & castles -------------------------------------------------------------------------


def test_openings_and_castles_match_the_labels(db):
    at = page("openings")
    castles = {label for (label,) in db.execute("SELECT DISTINCT label FROM labels WHERE kind = "
                                                "'castle'").fetchall()}
    study = at.selectbox(key="study")
    assert {o.split(" · ")[0] for o in study.options} == castles  # shown with English names
    label = study.value
    black = one(db, "SELECT count(DISTINCT game) FROM labels WHERE label = ? AND side = 'black'",
                label)
    assert any(m.label.startswith(f"▲先手 · {black:,} games") for m in at.metric) or black == 0
    examples = next(d.value for d in at.dataframe if d.key and d.key.startswith("examples-"))
    assert examples["game"].nunique() == min(20, one(  # 20 games, a row for each side in each
        db, "SELECT count(DISTINCT game) FROM labels WHERE label = ?", label))
    first = examples.iloc[0]
    assert boards(at)[0] == replayed(db, int(first["game"]), int(first["ply"]))
    # issue 32: beside it, the castle's shape as its definition asks for it
    from kifudb.labels.shapes import shape_sfen

    assert boards(at)[1] == shape_sfen(label).rsplit(" ", 1)[0]


@pytest.mark.parametrize("kind", ["technique", "note"])
def test_techniques_and_notes_have_the_page_of_castles(db, kind):
    """Issue 32: the Openings & castles page covers every kind of label: each technique (at
    every ply it was played) and note, with its counts and examples opening at its ply."""
    at = page("openings", kind=kind)
    assert at.segmented_control(key="kind").value == kind
    found = {label for (label,) in db.execute("SELECT DISTINCT label FROM labels WHERE kind = "
                                              "?", [kind]).fetchall()}
    study = at.selectbox(key="study")
    assert found and {o.split(" · ")[0] for o in study.options} == found
    label = study.value
    examples = next(d.value for d in at.dataframe if d.key and d.key.startswith("examples-"))
    assert examples["game"].nunique() == min(20, one(  # 20 games, a row for each side in each
        db, "SELECT count(DISTINCT game) FROM labels WHERE label = ?", label))
    first = examples.iloc[0]
    assert boards(at)[0] == replayed(db, int(first["game"]), int(first["ply"]))


def test_openings_from_a_link_and_an_unknown_label(db):
    label, games = db.execute("SELECT label, count(DISTINCT game) FROM labels WHERE kind = "
                              "'opening' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1 OFFSET 1").fetchone()
    at = page("openings", kind="opening", study=label)
    assert at.segmented_control(key="kind").value == "opening"
    assert at.selectbox(key="study").value == label
    run(at.segmented_control(key="kind").set_value("castle"))
    assert at.selectbox(key="study").value != label and not at.warning
    at = page("openings", kind="opening", study="no such opening")
    assert "No game in scope reached 'no such opening'" in errors(at)


# ----- results ------------------------------------------------------------------------------------


def test_results_match_the_games(db):
    at = page("results")
    games, black, white, draws = db.execute(
        "SELECT count(*), count(*) FILTER (winner = 'black'), count(*) FILTER (winner = 'white'), "
        "count(*) FILTER (winner = 'draw') FROM games").fetchone()
    assert metric(at, "Games") == f"{games:,}"
    assert metric(at, "▲先手勝ち") == f"{black:,}" and metric(at, "△後手勝ち") == f"{white:,}"
    assert metric(at, "引き分け") == f"{draws:,}"
    reasons = next(d.value for d in at.dataframe if d.key and d.key.startswith("reasons-"))
    expected = dict(db.execute("SELECT reason, count(*) FROM games GROUP BY 1").fetchall())
    assert sorted(reasons["games"]) == sorted(expected.values())
    # the most common decided reason's latest game, on the board at its end
    reason = next(r for r, _ in sorted(expected.items(), key=lambda x: (-x[1], x[0]))
                  if r != "unknown")
    game, moves = db.execute("SELECT game, moves FROM games WHERE reason = ? ORDER BY date DESC "
                             "NULLS LAST, game DESC LIMIT 1", [reason]).fetchone()
    assert boards(at)[0] == replayed(db, game, moves)


def test_results_with_a_filter(db):
    at = page("results")
    at.text_input(key="f_event").set_value("竜王")
    run(at)
    games = one(db, "SELECT count(*) FROM games WHERE lower(event) LIKE '%竜王%'")
    assert metric(at, "Games") == f"{games:,}"
    at.date_input(key="f_from").set_value(datetime.date(2030, 1, 1))
    run(at)
    assert any("No game in scope" in i for i in values(at.info))


# ----- players ------------------------------------------------------------------------------------


def test_players_summary_and_head_to_head(db):
    player = one(db, "SELECT p FROM (SELECT black p FROM games UNION ALL SELECT white FROM games) "
                     "WHERE p IS NOT NULL GROUP BY p ORDER BY count(*) DESC, p LIMIT 1")
    at = page("players", name=player)
    assert player in values(at.header)
    games = one(db, "SELECT count(*) FROM games WHERE black = ? OR white = ?", player, player)
    assert metric(at, "Games") == f"{games:,}"
    as_black = one(db, "SELECT count(*) FROM games WHERE black = ?", player)
    assert any(m.label == f"▲先手 · {as_black:,} games" for m in at.metric)
    opponent = at.selectbox(key="opponent").value
    between = one(db, "SELECT count(*) FROM games WHERE (black = ? AND white = ?) OR "
                      "(black = ? AND white = ?)", player, opponent, opponent, player)
    h2h = next(d.value for d in at.dataframe if d.key and d.key.startswith("h2h-"))
    assert len(h2h) == between
    everyone = next(d.value for d in at.dataframe if d.key == "players-table")
    from kifudb.labels.players import canonical  # one row per player, by canonical name
    assert len(everyone) == len({canonical(p, date).name for p, date in db.execute(
        "SELECT black, date FROM games UNION SELECT white, date FROM games").fetchall()
        if p is not None})
    assert boards(at)  # the latest game's final position


def test_a_player_with_the_player_filter_set(db):
    """The sidebar's player filter (a part of a name) beside the player shown (the exact name)
    used to crash the page: "got multiple values for argument 'player'"."""
    player = one(db, "SELECT p FROM (SELECT black p FROM games UNION ALL SELECT white FROM games) "
                     "WHERE p IS NOT NULL GROUP BY p ORDER BY count(*) DESC, p LIMIT 1")
    at = page("players", name=player)
    at.text_input(key="f_player").set_value(player[:-1])
    run(at)
    assert player in values(at.header)
    games = one(db, "SELECT count(*) FROM games WHERE black = ? OR white = ?", player, player)
    assert metric(at, "Games") == f"{games:,}"
    everyone = next(d.value for d in at.dataframe if d.key == "players-table")
    assert len(everyone) == one(db, "SELECT count(DISTINCT p) FROM (SELECT black AS p, white AS "
                                    "o FROM games UNION ALL SELECT white, black FROM games) "
                                    "WHERE p IS NOT NULL AND (contains(lower(p), lower(?)) OR "
                                    "contains(lower(o), lower(?)))", player[:-1], player[:-1])


def test_an_unknown_player_is_a_warning():
    at = page("players", name="nobody-of-that-name")
    assert "No game in scope has a player named 'nobody-of-that-name'" in errors(at)


# ----- validation ---------------------------------------------------------------------------------


def test_validation_counts_and_the_position_of_an_illegal_move(db):
    at = page("validation")
    by_code = next(d.value for d in at.dataframe if d.key == "counts-code")
    expected = Counter(dict(((c, s), n) for c, s, n in db.execute(
        "SELECT code, severity, count(*) FROM findings GROUP BY 1, 2").fetchall()))
    assert sum(by_code["count"]) == sum(expected.values())
    assert set(by_code["code"]) == {c for c, _ in expected}

    at = page("validation", severity="error")
    found = next(d.value for d in at.dataframe if d.key and d.key.startswith("findings-"))
    errors_found = db.execute("SELECT game, ply, text FROM findings WHERE severity = 'error' "
                              "ORDER BY path").fetchall()
    assert len(found) == len(errors_found)
    game, ply, text = errors_found[0]
    assert boards(at) == [replayed(db, game, ply - 1)]
    assert any(text in shown(m.value) for m in at.markdown)


def test_validation_filters(db):
    at = page("validation")
    code = one(db, "SELECT code FROM findings GROUP BY 1 ORDER BY count(*) DESC LIMIT 1")
    run(at.selectbox(key="v-code").set_value(code))
    found = next(d.value for d in at.dataframe if d.key and d.key.startswith("findings-"))
    assert set(found["code"]) == {code}
    assert len(found) == min(50, one(db, "SELECT count(*) FROM findings WHERE code = ?", code))
    at.text_input(key="v-path").set_value("no/such/folder")
    run(at)
    assert "No finding with these filters." in values(at.info)


# ----- the decided count beside every score (issue 19, point 4) ----------------------------------


def shown_columns(at: AppTest, prefix: str) -> list:
    """The columns a table shows (its ``column_order``, else every column of its frame)."""
    found = next(d for d in at.dataframe if d.key and d.key.startswith(prefix))
    return list(found.proto.column_order) or list(found.value.columns)


def decided_delta(decided: int) -> str:
    return f"of {decided:,} decided · 95%" if decided else "no decided game"


def test_explorer_rows_give_the_decided_count_beside_the_score(db):
    at = page("explorer")
    rows = move_rows(at)
    assert all(len(row) == 5 for row in rows)
    listed = dict(zip(move_buttons(at), rows))
    decided = {code_usi(move): n for move, n in db.execute(
        "SELECT p.next_move, count(DISTINCT p.game) FROM positions p JOIN games g USING (game) "
        "WHERE p.key = ? AND p.next_move IS NOT NULL AND g.winner <> 'none' GROUP BY 1",
        [START.key()]).fetchall()}
    assert sum(int(row[3].replace(",", "")) for row in rows) == sum(decided.values())
    assert listed["7g7f"][3] == f"{decided['7g7f']:,}"
    head = next(m.value for m in at.markdown if "kifudb-move-head" in m.value)
    assert ">decided</span>" in head


def test_openings_scores_give_the_decided_count(db):
    at = page("openings")
    label = at.selectbox(key="study").value
    decided = one(db, "SELECT count(DISTINCT l.game) FROM labels l JOIN games g USING (game) "
                      "WHERE l.label = ? AND l.side = 'black' AND g.winner <> 'none'", label)
    black = next((m for m in at.metric if m.label.startswith("▲先手 · ")), None)
    if black is not None:
        assert black.delta.startswith(decided_delta(decided)), black.delta
    assert "decided" in shown_columns(at, "rates-")
    rates = table(at, "rates-")
    assert (rates["decided"] == rates["wins"] + rates["losses"] + rates["draws"]).all()
    pairings = next(d for d in at.dataframe if "black_score" in d.value.columns)
    assert "decided" in list(pairings.proto.column_order)


def test_players_scores_give_the_decided_count(db):
    player = one(db, "SELECT p FROM (SELECT black p FROM games UNION ALL SELECT white FROM games) "
                     "WHERE p IS NOT NULL GROUP BY p ORDER BY count(*) DESC, p LIMIT 1")
    at = page("players", name=player)
    as_black = one(db, "SELECT count(*) FROM games WHERE black = ? AND winner <> 'none'", player)
    as_white = one(db, "SELECT count(*) FROM games WHERE white = ? AND winner <> 'none'", player)
    assert metric_delta(at, "▲先手 · ").startswith(decided_delta(as_black))
    assert metric_delta(at, "△後手 · ").startswith(decided_delta(as_white))
    opponent = at.selectbox(key="opponent").value
    between = one(db, "SELECT count(*) FROM games WHERE ((black = ? AND white = ?) OR (black = ? "
                      "AND white = ?)) AND winner <> 'none'", player, opponent, opponent, player)
    assert metric_delta(at, f"{player}'s score").startswith(decided_delta(between))
    everyone = table(at, "players-table")
    assert "decided" in shown_columns(at, "players-table")
    row = everyone[everyone["player"] == player].iloc[0]
    assert row["decided"] == one(db, "SELECT count(*) FROM games WHERE (black = ? OR white = ?) "
                                     "AND winner <> 'none'", player, player)
    assert "decided" in shown_columns(at, f"openings-{player}")
    assert "decided" in shown_columns(at, f"castles-{player}")


def metric_delta(at: AppTest, label: str) -> str:
    found = [m.delta for m in at.metric if shown(m.label).startswith(label)]
    assert found, (label, [m.label for m in at.metric])
    return found[0]


# ----- engines' evaluations and players' ratings ---------------------------------------------------


def test_game_viewer_graphs_the_evaluations_and_a_click_on_the_graph_goes_there(db):
    game = one(db, "SELECT game FROM moves WHERE line = 0 AND score_black IS NOT NULL GROUP BY "
                   "game ORDER BY count(*) DESC, game LIMIT 1")
    scored = dict(db.execute("SELECT ply, score_black FROM moves WHERE game = ? AND line = 0 "
                             "AND score_black IS NOT NULL", [game]).fetchall())
    at = page("game", game=game, ply=10)
    layers = json.loads(at.get("vega_lite_chart")[0].proto.spec)["layer"]
    points = {p["ply"]: p["score"] for p in layers[0]["data"]["values"]}
    assert points == {ply: max(-3000, min(3000, s)) for ply, s in scored.items()}  # Black's
    assert any(layer["data"].get("values") == [{"ply": 10}] for layer in layers)  # marked
    window = table(at, f"moves-{game}-")
    assert window[window["ply"] == 10].iloc[0]["score"] == f"{scored[10]:+d}"
    # a click on the graph (its selection: the nearest ply) goes to that ply
    at.session_state[f"evaluation-{game}-10"] = {"selection": {"ply": [{"ply": 40}]}}
    run(at)
    assert at.query_params["ply"] == "40" and boards(at)[0] == replayed(db, game, 40)


def test_game_viewer_without_evaluations_has_no_graph_nor_score_column(db, rich_game):
    assert one(db, "SELECT count(score) FROM moves WHERE game = ?", rich_game) == 0
    at = page("game", game=rich_game)
    assert not at.get("vega_lite_chart")
    assert "score" not in table(at, f"moves-{rich_game}-").columns


def test_explorer_min_rating_and_the_average_rating_of_each_move(db):
    at = page("explorer")
    at.number_input(key="f_min_rating").set_value(3000)
    run(at)
    rated = db.execute("SELECT count(*), avg(black_rating) FROM games WHERE black_rating >= 3000 "
                       "AND white_rating >= 3000 AND start_sfen LIKE 'lnsgkgsnl/1r5b1/ppppppppp/"
                       "9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b%'").fetchone()
    assert rated[0] >= 1
    assert sum(row[0] for row in move_rows(at)) == rated[0]
    ratings = [cell for m in at.markdown for cell in re.findall(
        r'<span class="n rating">([^<]*)</span>', m.value)]
    assert ratings and all(r != "—" for r in ratings)
    assert f"{rated[1]:.0f}" in ratings or len(ratings) > 1
