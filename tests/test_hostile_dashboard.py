"""The dashboard and the store commands against a hostile user ("Nothing lost, no way in"), on
data each test makes itself:

- a board diagram file that is a device, a pipe, a folder or too big is refused with a message
  (``kifudb search --diagram /dev/zero`` used to read until the kernel killed it);
- every URL parameter a page reads (moves in any notation, typos, garbage, very long values, a
  game or ply that is not one) gives a message on the page, and the page still works from the
  start position — never a traceback;
- record text (players, event, comments, file names, findings) is shown as text: no element
  that Streamlit reads as Markdown holds it unescaped (the browser side is in
  ``test_dashboard_e2e.py``);
- a damaged store (a truncated, missing or corrupt Parquet file, a manifest of the wrong shape)
  gives every page and every store command one "store damaged" message naming the batch and
  file and the repair, never a traceback.
"""

from __future__ import annotations

import html
import io
import os
import json
import re
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from streamlit.testing.v1 import AppTest

from kifudb.analytics.position_input import (MAX_DIAGRAM_BYTES, position_from_diagram_file,
                                      position_from_moves, read_diagram_file)
from kifudb.core.notation.bod import bod_text
from kifudb.core.position import Position
from kifudb.cli import main

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "dashboard" / "app.py")
PAGES = ("overview", "validation", "explorer", "search", "pattern", "game", "openings",
         "results", "players")

# ----- a hostile record -------------------------------------------------------------------------

#: What a shared record may hold to make a viewer's browser fetch, link or run something.
IMG = "![x](http://127.0.0.1:9/x.png)"
LINK = "[link](http://127.0.0.1:9/)"
HTML = "<img src=x onerror=alert(1)>"
BOLD = "**bold**"
MATH = "$math$"
PAYLOADS = (IMG, LINK, HTML, BOLD, MATH)
BLACK = f"{IMG} {BOLD}"
WHITE = f"{LINK} {HTML} {MATH}"
EVENT = " ".join(PAYLOADS)
FILE_NAME = f"{HTML} {BOLD} {MATH} [link].kif"


def write_hostile_records(folder: Path) -> Path:
    """A KIF file whose players, event, comments, a move and its own name hold the payloads
    (the move gives findings that quote it); the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    kif = (f"# KIF\n開始日時：2024/01/02\n棋戦：{EVENT}\n手合割：平手\n先手：{BLACK}\n"
           f"後手：{WHITE}\n*{IMG} {LINK}\n手数----指手---------消費時間--\n"
           f"   1 ７六歩(77)   ( 0:01/00:00:01)\n*{EVENT}\n"
           f"   2 ３四歩(33)   ( 0:01/00:00:02)\n*{HTML}\n   3 {IMG}\n")
    (folder / FILE_NAME).write_text(kif, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def hostile_store(tmp_path_factory) -> Path:
    from kifudb.store.writer import ingest_paths

    base = tmp_path_factory.mktemp("hostile")
    records = write_hostile_records(base / "records")
    folder = base / "store"
    report = ingest_paths([str(records)], folder)
    assert report.games_added == 1 and report.findings >= 1
    return folder


@pytest.fixture(scope="module")
def small_store(tmp_path_factory) -> Path:
    """A store of the sample USI games (one batch), to damage copies of."""
    from kifudb.store.writer import ingest_paths

    folder = tmp_path_factory.mktemp("small") / "store"
    ingest_paths([str(ROOT / "data" / "samples" / "games.usi")], folder)
    return folder


# ----- helpers ----------------------------------------------------------------------------------


def shown(markdown: str) -> str:
    """The text a Markdown string escaped by ``display.plain`` shows (its word joiners, which
    keep addresses from becoming links, left out)."""
    return html.unescape(re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)).replace(
        "  \n", "\n").replace("\u2060", "")


def page(store: Path, view: str, monkeypatch, /, **params) -> AppTest:
    """The page ``views/VIEW.py`` on ``store``, opened with URL parameters; no exception."""
    monkeypatch.setenv("KIFUDB_STORE", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({k: str(v) for k, v in params.items()})
    at.run()
    at.switch_page(f"views/{view}.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def messages(at: AppTest) -> str:
    return " | ".join(shown(str(e.value)) for e in [*at.error, *at.warning])


def boards(at: AppTest) -> list:
    """Every board's SFEN without the move number: the boards to play on (the shogiboard
    component's ``sfen``), then the pictures (the SVG's accessible label)."""
    played = [json.loads(c.proto.json_args).get("sfen") for c in at.get("component_instance")
              if "json_args" in str(c.proto) and '"sfen"' in c.proto.json_args]
    pictures = re.findall(r'aria-label="Shogi position, \w+ to move: SFEN ([^"]+)"',
                          "".join(m.value for m in at.markdown))
    return [s.rsplit(" ", 1)[0] for s in [*played, *pictures] if s]


#: Elements whose text Streamlit reads as Markdown, and widgets whose label (and help) it does.
_MARKDOWN = ("markdown", "caption", "title", "header", "subheader", "info", "warning", "error",
             "success", "latex", "toast")
_LABELLED = ("metric", "button", "tabs", "expander", "selectbox", "multiselect", "text_input",
             "text_area", "number_input", "toggle", "checkbox", "radio", "slider",
             "date_input", "button_group", "select_slider", "status")


def markdown_texts(at: AppTest) -> list:
    """Every string of the page that Streamlit renders as Markdown."""
    found = []
    for kind in _MARKDOWN:
        found += [str(e.value) for e in getattr(at, kind, ())]
    for kind in _LABELLED:
        try:
            elements = getattr(at, kind)
        except (AttributeError, KeyError):
            continue
        for element in elements:
            for attribute in ("label", "help"):
                value = getattr(element, attribute, None)
                if isinstance(value, str):
                    found.append(value)
    return found


def assert_no_live_markup(at: AppTest) -> None:
    """No payload reaches Markdown unescaped (each would be an image, a link, HTML, bold or a
    formula), and the page raised nothing."""
    assert not at.exception, [e.value for e in at.exception]
    for text in markdown_texts(at):
        for payload in PAYLOADS:
            assert payload not in text, (payload, text)
        assert "<img" not in text and "](" not in text, text
        # nor a bare address of the record, which Streamlit would make a link
        assert "http://127.0.0.1" not in text.replace("\\", ""), text


# ----- 1. a diagram file is read within limits ----------------------------------------------------


def test_a_diagram_file_is_a_regular_file_of_at_most_64_kb(tmp_path):
    target = position_from_moves("7g7f 3c3d 2g2f")
    good = tmp_path / "board.kif"
    good.write_bytes(("手合割：平手\n" + bod_text(target)).encode("cp932"))
    assert position_from_diagram_file(good) == target
    assert position_from_diagram_file(io.BytesIO(good.read_bytes())) == target

    big = tmp_path / "big.kif"
    big.write_bytes(b"x" * (MAX_DIAGRAM_BYTES + 1))
    for source, why in [("/dev/zero", "not a regular file"), (tmp_path, "not a regular file"),
                        (tmp_path / "none.kif", "cannot read: No such file or directory"),
                        (big, f"{MAX_DIAGRAM_BYTES + 1:,} bytes; a board diagram is at most "
                              f"64 KB"),
                        (io.BytesIO(b"y" * 10 ** 6), "more than 65,536 bytes")]:
        with pytest.raises(ValueError, match=re.escape(why)):
            read_diagram_file(source)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # opening it would wait for a writer for ever
    with pytest.raises(ValueError, match="not a regular file"):
        read_diagram_file(fifo)


def test_kifudb_search_refuses_a_device_or_a_giant_diagram(small_store, tmp_path):
    big = tmp_path / "big.kif"
    big.write_bytes("後手の持駒：なし\n".encode("cp932") * 10_000)
    runner = CliRunner()
    for arguments, input_, why in [
            (["--diagram", str(big)], None, f"{big.stat().st_size:,} bytes; a board diagram "
                                            f"is at most 64 KB"),
            (["--diagram", "-"], b"z" * 100_000, "more than 65,536 bytes"),
            (["--diagram", str(tmp_path / "pipe")], None, "not a regular file")]:
        if "pipe" in arguments[-1]:
            os.mkfifo(arguments[-1])
        result = runner.invoke(main, ["search", *arguments, "--store", str(small_store)],
                               input=input_)
        assert result.exit_code == 2, result.output
        assert why in result.output and "Traceback" not in result.output
        assert "Invalid value for '--diagram'" in result.output


def kifudb_limited(*arguments) -> subprocess.CompletedProcess:
    """``kifudb ARGUMENTS`` in a process of its own with 4 GB of address space and a minute:
    a command that reads /dev/zero whole fails fast instead of taking the machine down."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (4 * 2 ** 30, 4 * 2 ** 30))

    return subprocess.run([sys.executable, "-m", "kifudb", *arguments], capture_output=True,
                          text=True, timeout=60, preexec_fn=limit, cwd=ROOT)


def test_kifudb_search_diagram_dev_zero_stops_at_once(small_store):
    """The reported case: it read /dev/zero until the kernel killed it."""
    done = kifudb_limited("search", "--diagram", "/dev/zero", "--store", str(small_store))
    assert done.returncode == 2, done.stderr
    assert "/dev/zero: not a regular file" in done.stderr
    assert "Traceback" not in done.stderr


def test_kifudb_replay_refuses_a_device(tmp_path):
    games = tmp_path / "games.usi"
    games.write_text("startpos moves 7g7f 3c3d\n", encoding="utf-8")
    done = kifudb_limited("replay", "/dev/zero", str(games), "-q")
    assert "/dev/zero: cannot read: not a regular file" in done.stderr, done.stderr
    assert re.search(r"\b1 games?, 2 moves replayed", done.stdout), done.stdout


# ----- 2. every URL parameter is read as a form reads it ------------------------------------------


START = Position().sfen(move_number=False)


@pytest.mark.parametrize("moves, usi", [
    ("▲７六歩", "7g7f"), ("▲７六歩 △３四歩 ▲２六歩", "7g7f 3c3d 2g2f"),
    ("７六歩(77) ３四歩(33)", "7g7f 3c3d"), ("7g7f 3c3d 8h2b+ 3a2b", "7g7f 3c3d 8h2b+ 3a2b"),
    ("▲７六歩 △３四歩 ▲２二角成 △同　銀", "7g7f 3c3d 8h2b+ 3a2b"),
    ("startpos moves 7g7f", "7g7f")])
def test_explorer_reads_url_moves_in_any_notation(hostile_store, monkeypatch, moves, usi):
    at = page(hostile_store, "explorer", monkeypatch, moves=moves)
    assert not messages(at), messages(at)
    assert boards(at) == [position_from_moves(usi).sfen(move_number=False)]
    assert at.query_params["moves"] == usi  # written back as USI


@pytest.mark.parametrize("params, why", [
    ({"moves": "7g7x"}, "move 1 (7g7x): not a move"),
    ({"moves": "7g7f 7g7f"}, "move 2"),
    ({"moves": "garbage!! ¥¥"}, "not a move"),
    ({"moves": IMG}, "not a move"),
    ({"moves": "x" * 200_000}, "characters of moves"),
    ({"moves": "7g7f " + "y" * 5000}, "move 2"),
    ({"moves": " ".join(["5i5h 5a5b 5h5i 5b5a"] * 300)}, "1,200 moves; at most 1,000"),
    ({"start": "nonsense"}, "bad SFEN"),
    ({"start": "s" * 100_000}, "an SFEN is at most"),
    ({"start": "香落ち", "moves": "7g7f"}, "white is to move"),
])
def test_explorer_bad_url_is_a_message_and_the_start(hostile_store, monkeypatch, params, why):
    at = page(hostile_store, "explorer", monkeypatch, **params)
    said = messages(at)
    assert "This line cannot be shown" in said and why in said, said
    assert len(said) < 1000  # a long value is not echoed whole
    sfen = boards(at)[0]
    assert sfen == START or params.get("start") == "香落ち"
    # the page goes on from that start: its moves played next, its latest games
    assert "Latest games through this position" in [s.value for s in at.subheader]
    assert_no_live_markup(at)


@pytest.mark.parametrize("params, why", [
    ({"game": "99999999999999999999999", "ply": "0"}, "game must be a whole number from 1"),
    ({"game": "1", "ply": "abc"}, "ply must be a whole number from 0"),
    ({"game": "1", "ply": "-5"}, "ply must be a whole number from 0"),
    ({"game": "1", "ply": "99999"}, "the ply must be 0 to"),
    ({"game": "0"}, "game must be a whole number from 1"),
    ({"sfen": "x" * 10_000}, "an SFEN is at most 512"),
    ({"moves": "7g7x 3c3d"}, "not a move"),
    ({"moves": LINK}, "not a move"),
    ({"moves": "7g7f", "start": "garbage"}, "bad SFEN"),
])
def test_search_bad_url_is_a_message(hostile_store, monkeypatch, params, why):
    at = page(hostile_store, "search", monkeypatch, **params)
    said = messages(at)
    assert "This position cannot be shown" in said and why in said, said
    assert boards(at) == [START]  # the page, as if nothing was given
    assert_no_live_markup(at)


@pytest.mark.parametrize("params, why, title", [
    ({"game": "1", "ply": "abc"}, "Not a ply of this game: 'abc'", True),
    ({"game": "1", "ply": "-3"}, "Not a ply of this game: '-3'", True),
    ({"game": "1", "ply": "1.5"}, "Not a ply of this game: '1.5'", True),
    ({"game": "1.5"}, "Not a game id: '1.5'", False),
    ({"game": "-1"}, "Not a game id: '-1'", False),
    ({"game": "abc"}, "Not a game id: 'abc'", False),
    ({"game": "9" * 40}, "Not a game id", False),
    ({"game": IMG}, "Not a game id", False),
])
def test_game_viewer_bad_url_is_a_message(hostile_store, monkeypatch, params, why, title):
    at = page(hostile_store, "game", monkeypatch, **params)
    assert why in messages(at), messages(at)
    if title:  # the game, at its start
        assert shown(at.title[0].value) == f"▲{BLACK}  対  △{WHITE}"
        assert boards(at)[0] == START and "ply" not in at.query_params
    else:  # the latest games, to pick one
        assert at.get("dataframe") and not boards(at)
    assert_no_live_markup(at)


def test_game_viewer_ply_past_the_end_is_said(hostile_store, monkeypatch):
    """A ply past the end of the game is said, and its last position shown (it was the start,
    without a word)."""
    at = page(hostile_store, "game", monkeypatch, game=1, ply=99999)
    said = messages(at)
    assert "Ply 99999 is past the end: the game ends at ply 2" in said, said
    assert boards(at)[0] == position_from_moves("7g7f 3c3d").sfen(move_number=False)
    assert at.query_params["ply"] == "2"
    assert_no_live_markup(at)


def test_other_pages_with_hostile_url_values(hostile_store, monkeypatch):
    at = page(hostile_store, "openings", monkeypatch, kind=IMG, study=LINK)
    assert f"Unknown kind {IMG!r}" in messages(at)
    assert_no_live_markup(at)
    at = page(hostile_store, "players", monkeypatch, name=HTML + "x" * 5000)
    assert "No game in scope has a player named" in messages(at)
    assert len(messages(at)) < 500
    assert_no_live_markup(at)
    at = page(hostile_store, "validation", monkeypatch, severity=IMG)
    assert_no_live_markup(at)


# ----- 3. record text is shown as text ------------------------------------------------------------


def test_game_viewer_shows_record_text_as_text(hostile_store, monkeypatch):
    at = page(hostile_store, "game", monkeypatch, game=1, ply=1)
    assert_no_live_markup(at)
    assert shown(at.title[0].value) == f"▲{BLACK}  対  △{WHITE}"
    assert EVENT in shown(at.caption[0].value)
    assert EVENT in [shown(i.value) for i in at.info]  # the move's comment
    assert any(FILE_NAME in shown(c.value) for c in at.caption)  # "Read from"
    assert IMG in at.dataframe[0].value["comment"].iloc[0]  # a table cell: text as it is


def test_players_validation_and_search_show_record_text_as_text(hostile_store, monkeypatch):
    at = page(hostile_store, "players", monkeypatch, name=BLACK)
    assert_no_live_markup(at)
    assert shown(at.header[0].value) == BLACK
    at = page(hostile_store, "players", monkeypatch)
    assert_no_live_markup(at)

    at = page(hostile_store, "validation", monkeypatch)
    assert_no_live_markup(at)
    said = [shown(m.value) for m in at.markdown]
    assert any(IMG in text for text in said)  # the move as written, and the message
    assert any(FILE_NAME in shown(c.value) for c in at.caption)

    for params in ({"moves": "7g7f"}, {"game": 1, "ply": 2}):
        at = page(hostile_store, "search", monkeypatch, **params)
        assert_no_live_markup(at)
        assert BLACK in list(at.dataframe[0].value["black"])
    at = page(hostile_store, "explorer", monkeypatch, moves="7g7f")
    assert_no_live_markup(at)
    for name in ("overview", "openings", "results"):
        assert_no_live_markup(page(hostile_store, name, monkeypatch))


def test_a_player_filter_is_shown_as_text(hostile_store, monkeypatch):
    at = page(hostile_store, "explorer", monkeypatch)
    at.text_input(key="f_player").set_value(IMG)
    at.run()
    assert_no_live_markup(at)
    assert any(f"player “{IMG}”" in shown(s.value) for s in at.subheader)
    at = page(hostile_store, "results", monkeypatch)
    at.text_input(key="f_event").set_value(f"<b>no</b> {LINK}")
    at.run()
    assert_no_live_markup(at)
    assert any(f"event “<b>no</b> {LINK}”" in shown(i.value) for i in at.info)


# ----- 4. a damaged store: one message ------------------------------------------------------------


def _corrupt(path: Path) -> None:
    """Bytes of the middle of a Parquet file overwritten: its footer still reads, its data not
    (DuckDB's error then names no file)."""
    size = path.stat().st_size
    with open(path, "r+b") as stream:
        stream.seek(size // 3)
        stream.write(b"\xff" * max(16, size // 4))


def _flip(path: Path, offset: int) -> None:
    """One bit of a Parquet file flipped: DuckDB reads it without an error (a wrong value)."""
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x10
    path.write_bytes(bytes(data))


DAMAGE = {
    "one flipped bit in positions": (
        lambda s: _flip(s / "batches/b000001/positions.parquet", 1000),
        "batch b000001, file positions.parquet: its bytes are not those written"),
    "truncated positions": (lambda s: os.truncate(s / "batches/b000001/positions.parquet", 100),
                            "batch b000001, file positions.parquet"),
    "missing games": (lambda s: (s / "batches/b000001/games.parquet").unlink(),
                      "batch b000001, file games.parquet: the file is missing"),
    "corrupt games": (lambda s: _corrupt(s / "batches/b000001/games.parquet"),
                      "batch b000001, file games.parquet"),
    "manifest of the wrong shape": (
        lambda s: (s / "manifest.json").write_text('{"format": 4, "batches": 5}'),
        "manifest.json"),
    "manifest a list": (lambda s: (s / "manifest.json").write_text("[]"), "manifest.json"),
}


@pytest.fixture(params=list(DAMAGE))
def damaged(request, small_store, tmp_path):
    """A copy of the small store, damaged one way; (folder, what the message must name)."""
    folder = tmp_path / "store"
    shutil.copytree(small_store, folder)
    spoil, named = DAMAGE[request.param]
    spoil(folder)
    return folder, named


def test_every_page_of_a_damaged_store_says_so(damaged, monkeypatch):
    folder, named = damaged
    for name in PAGES:
        at = page(folder, name, monkeypatch, **({"sfen": "startpos"} if name == "search"
                                                 else {"q": "▲玉59"} if name == "pattern"
                                                 else {}))
        said = messages(at)
        assert said.count("store damaged") == 1, (name, said)
        assert named in said and "kifudb check" in said, (name, said)
        assert "--repair" in said or "--repair" in " ".join(c.value for c in at.code), said


def test_the_game_viewer_says_which_file_is_damaged(small_store, tmp_path, monkeypatch):
    """moves.parquet is read by the game viewer only, but its digest is verified when the views
    are made: the explorer says so too, rather than answer from a store known to be damaged."""
    folder = tmp_path / "store"
    shutil.copytree(small_store, folder)
    _corrupt(folder / "batches/b000001/moves.parquet")
    at = page(folder, "game", monkeypatch, game=1)
    assert "store damaged: batch b000001, file moves.parquet" in messages(at)
    assert f"kifudb check --repair --store {folder.resolve()}" in [c.value for c in at.code]
    assert "store damaged: batch b000001, file moves.parquet" in \
        messages(page(folder, "explorer", monkeypatch))


@pytest.mark.parametrize("command", [["search", "--moves", "7g7f"], ["explore"],
                                     ["stats", "overview"], ["stats", "players"], ["game", "1"],
                                     ["sql", "SELECT count(*) FROM games"]])
def test_every_store_command_on_a_damaged_store_says_so(damaged, command):
    folder, named = damaged
    result = CliRunner().invoke(main, [*command, "--store", str(folder)])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and result.exception.__class__ is SystemExit
    assert "Error: store damaged" in result.output and named in result.output, result.output


def test_the_game_command_says_which_file_is_damaged(small_store, tmp_path):
    folder = tmp_path / "store"
    shutil.copytree(small_store, folder)
    _corrupt(folder / "batches/b000001/moves.parquet")
    result = CliRunner().invoke(main, ["game", "1", "--store", str(folder)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert "store damaged: batch b000001, file moves.parquet: " in result.output
    assert "[SQL:" not in result.output and "sqlalchemy" not in result.output.lower()
    assert re.search(rf"kifudb check (--repair )?--store {re.escape(str(folder.resolve()))}",
                     result.output), result.output
    assert "--repair" in result.output
