"""What kifudb writes, when the records are hostile: no control character from a record or a
file name reaches the terminal raw (``kifudb.output.printable``), no CSV cell runs as a
spreadsheet formula (``csv_cell``), JSON escapes every control (``json_text``) and the HTML
report escapes markup. Every record here is made by the test."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kifudb.cli import main
from kifudb.output import csv_cell, csv_text, json_text, printable
from kifudb.cli_validate import render_html, summarize

#: what must never reach a terminal raw: C0 but the output's own newlines, DEL, C1, the line
#: and paragraph separators, the bidi overrides and isolates
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

BLACK = "=HYPERLINK(\"http://evil\")\x1b]0;pwned\x07"       # sets the terminal's title, rings
WHITE = "@SUM(1+1)\u009b2J\u202e羽生"                       # C1 CSI, right-to-left override
EVENT = "-2+3\x00棋戦"                                      # NUL
HOSTILE_KIF = (f"先手：{BLACK}\n後手：{WHITE}\n棋戦：{EVENT}\n手合割：平手\n"
               "手数----指手---------消費時間--\n*コメント\x1b[2J\n"
               "   1 ７六歩(77)\n   2 ３四歩\x1b[31m(33)\n   3 ２六歩(27)\n")
HOSTILE_NAME = "=evil\x1b[2J\tname.kif"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def no_raw_controls(text: str) -> None:
    found = RAW.search(text)
    if found is not None:
        near = text[max(0, found.start() - 40):found.start() + 40]
        raise AssertionError(f"raw {found.group()!r} at {found.start()}: {near!r}")


@pytest.fixture
def hostile(tmp_path) -> Path:
    folder = tmp_path / "records"
    folder.mkdir()
    (folder / HOSTILE_NAME).write_text(HOSTILE_KIF, encoding="utf-8")
    return folder


@pytest.fixture
def hostile_store(hostile, tmp_path) -> Path:
    store = tmp_path / "store"
    result = run("ingest", hostile, "--store", store)
    assert result.exit_code == 0, result.output
    return store


# ----- the rules -----------------------------------------------------------------------------


def test_printable_escapes_controls_and_keeps_japanese_text():
    assert printable("a\x1b[2Jb\x07\x00\n\r\t\x7f\u009b\u2028\u202e") == \
        "a\\x1b[2Jb\\x07\\x00\\n\\r\\t\\x7f\\x9b\\u2028\\u202e"
    kept = "▲７六歩　(77) 羽生善治 ｶﾀｶﾅ 👍 café"
    assert printable(kept) == kept
    assert printable("line 1\nline 2\x1b", lines=True) == "line 1\nline 2\\x1b"
    assert printable(Path("/tmp/a\x1bb")) == "/tmp/a\\x1bb"


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx",
                                  "=HYPERLINK(\"http://evil\")", "-2+3"])
def test_csv_cell_neutralises_formulas(text):
    assert csv_cell(text) == "'" + text


def test_csv_cell_keeps_numbers_and_plain_text():
    assert csv_cell(-3) == -3 and csv_cell(2.5) == 2.5 and csv_cell(0) == 0
    assert csv_cell("羽生善治") == "羽生善治" and csv_cell("a=b") == "a=b" and csv_cell("") == ""
    assert csv_cell(None) == ""
    text = csv_text(["=h", "n", "s"], [[-3, -3, "-3"], {"=h": "=x", "n": 1}])
    rows = list(csv.reader(io.StringIO(text)))
    assert rows == [["'=h", "n", "s"], ["-3", "-3", "'-3"], ["'=x", "1", ""]]


def test_json_text_escapes_what_json_dumps_leaves_raw():
    data = {"name": "a\x1b\x7f\u009b\u2028\u202eb 羽生"}
    assert "\u009b" in json.dumps(data, ensure_ascii=False)  # what json.dumps leaves
    text = json_text(data)
    no_raw_controls(text)
    assert json.loads(text) == data and "羽生" in text


# ----- kifudb validate -----------------------------------------------------------------------


def test_validate_text_shows_controls_escaped(hostile):
    result = run("validate", hostile)
    assert result.exit_code == 0, result.output
    no_raw_controls(result.output)
    assert "=evil\\x1b[2J\\tname.kif" in result.output
    assert "«３四歩\\x1b[31m(33)»" in result.output


def test_validate_json_and_jsonl_escape_every_control(hostile):
    for fmt in ("json", "jsonl"):
        result = run("validate", hostile, "--format", fmt)
        assert result.exit_code == 0, result.output
        no_raw_controls(result.output)
        text = result.output if fmt == "json" else result.output.splitlines()[0]
        data = json.loads(text)
        row = data["games"][0] if fmt == "json" else data
        assert row["headers"]["black"] == BLACK and row["headers"]["white"] == WHITE
        assert row["path"].endswith(HOSTILE_NAME)


def test_validate_csv_neutralises_formula_cells(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    names = ["=cmd.kif", "+x.kif", "-y.kif", "@z.kif", "\tt.kif", "plain.kif"]
    for name in names:
        Path(name).write_text(HOSTILE_KIF, encoding="utf-8")
    result = run("validate", "--format", "csv", "--", *names)
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.output.removeprefix("\ufeff"))))
    assert [r["path"] for r in rows] == ["'" + n for n in names[:-1]] + ["plain.kif"]
    assert all(r["index"] == "0" and r["moves"] == "1" and r["errors"] == "1" for r in rows)


def test_validate_html_escapes_markup(tmp_path):
    name = "<b>x'\" onmouseover=alert(1).kif"
    path = tmp_path / name
    path.write_text(HOSTILE_KIF.replace(BLACK, "<script>alert(1)</script>")
                    .replace(WHITE, "' onclick='alert(2)"), encoding="utf-8")
    result = run("validate", path, "--format", "html")
    assert result.exit_code == 0, result.output
    page = result.output
    assert "<script>" not in page and "<b>" not in page and "onclick='" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&#x27; onclick=&#x27;alert(2)" in page
    assert "&lt;b&gt;x&#x27;&quot; onmouseover=alert(1).kif" in page
    # every attribute is quoted and its value escaped: a severity cannot close it either
    rows = [{"path": "p", "index": None, "moves": 0, "findings": [
        {"severity": "x' onmouseover='alert(3)", "code": "c", "line": 1, "ply": None,
         "text": "", "message": "m"}]}]
    assert "onmouseover='alert" not in render_html(rows, summarize(rows))


# ----- the other commands --------------------------------------------------------------------


def test_classify_text_shows_controls_escaped(hostile):
    result = run("classify", hostile)
    assert result.exit_code == 0, result.output
    no_raw_controls(result.output)
    assert "=evil\\x1b[2J\\tname.kif game 1" in result.output
    assert "«３四歩\\x1b[31m(33)»" in result.output
    for fmt in ("json", "jsonl"):
        output = run("classify", hostile, "--format", fmt).output
        no_raw_controls(output)


def test_replay_shows_controls_escaped(tmp_path):
    path = tmp_path / "game\x1b[2J.usi"
    path.write_text("# \x1b]0;pwned\x07 \u009b\nstartpos moves 7g7f 3c3d\n", encoding="utf-8")
    result = run("replay", path)
    assert result.exit_code == 0, result.output
    no_raw_controls(result.output)
    assert "game\\x1b[2J.usi:2" in result.output and "\\x1b]0;pwned\\x07" in result.output
    missing = run("replay", tmp_path / "gone\x1b[2J.usi")
    no_raw_controls(missing.output)


def test_ingest_report_shows_the_store_path_escaped(hostile, tmp_path):
    result = run("ingest", hostile, "--store", tmp_path / "store\x1b[2J")
    assert result.exit_code == 0, result.output
    no_raw_controls(result.output)
    assert "store\\x1b[2J: 1 game, 2 positions" in result.output


def test_store_commands_show_record_text_escaped(hostile_store):
    for args in (["sql", "SELECT black, white, event FROM games"],
                 ["sql", "SELECT black AS \"\x1b[2J\" FROM games"],
                 ["sql", "SELECT CAST(black AS INTEGER) FROM games"],  # the error quotes it
                 ["sql", "SELECT black, white FROM games", "--format", "json"],
                 ["game", "1"], ["game", "1", "--format", "json"],
                 ["search", "--moves", "7g7f"], ["stats", "players"],
                 ["stats", "players", "--format", "json"]):
        result = run(*args, "--store", hostile_store)
        no_raw_controls(result.output)
    text = run("sql", "SELECT black FROM games", "--store", hostile_store).output
    assert "\\x1b]0;pwned\\x07" in text
    game = run("game", "1", "--store", hostile_store).output
    assert "\\x9b2J\\u202e羽生" in game and "-2+3\\x00棋戦" in game


def test_sql_csv_neutralises_formula_cells(hostile_store):
    result = run("sql", "SELECT black, white, event, -3 AS n, '-3' AS s, 1.5 AS f, 'ok' AS \"=h\" "
                 "FROM games", "--format", "csv", "--store", hostile_store)
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO(result.output)))
    assert rows[0] == ["black", "white", "event", "n", "s", "f", "'=h"]
    assert rows[1] == ["'" + BLACK, "'" + WHITE, "'" + EVENT, "-3", "'-3", "1.5", "ok"]
