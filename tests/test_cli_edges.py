"""The command line at its edges, as a person meets them (issue 19, "as a person uses it"):
arguments that name nothing, what ``ingest`` says about findings and games already stored,
progress bars, the grammar of counts, long paths, a busy dashboard port, the explorer's
columns and handicap, a JKF source shown "as written", and messages free of kifudb's
internals."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kifudb.cli import main

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "tests" / "fixtures" / "records"
SAMPLES = ROOT / "data" / "samples" / "records"
KIFUDB = Path(sys.executable).with_name("kifudb")

ONE_GAME_KIF = "先手：甲\n後手：乙\n手数----指手--\n   1 ７六歩(77)\n   2 ３四歩(33)\n   3 投了\n"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


# ----- arguments that name nothing --------------------------------------------------------------


@pytest.mark.parametrize("command", ["validate", "ingest", "classify"])
def test_a_path_that_does_not_exist_fails_clearly(command, tmp_path):
    extra = ["--store", tmp_path / "store"] if command == "ingest" else []
    result = run(command, tmp_path / "nonexistent", *extra)
    assert result.exit_code == 2, result.output
    assert f"{tmp_path / 'nonexistent'}: no such file or folder" in result.output
    assert not (tmp_path / "store").exists()  # nothing was written


@pytest.mark.parametrize("command", ["validate", "ingest", "classify"])
def test_a_glob_that_matches_nothing_fails_clearly(command, tmp_path):
    (tmp_path / "game.kif").write_text(ONE_GAME_KIF, encoding="utf-8")
    extra = ["--store", tmp_path / "store"] if command == "ingest" else []
    result = run(command, tmp_path / "*.csa", tmp_path / "game.kif", *extra)
    assert result.exit_code == 2, result.output
    assert "*.csa: the pattern matches no file" in result.output
    assert "game.kif" not in result.output.split("Error:")[1]  # only the argument at fault


def test_a_folder_without_records_fails_clearly(tmp_path):
    (tmp_path / "notes.txt").write_text("not a record", encoding="utf-8")
    result = run("validate", tmp_path)
    assert result.exit_code == 2 and "the folder holds no record file (.kif" in result.output


# ----- what ingest says ---------------------------------------------------------------------------


def test_ingest_says_where_to_see_its_findings_and_why_games_are_already_stored(tmp_path):
    store = tmp_path / "store"
    first = run("ingest", SAMPLES, "--store", store)
    assert first.exit_code == 0, first.output
    # the same game in KIF and JKF: read from another file of this run
    assert "1 already stored (read from another file of this run)" in first.output
    assert re.search(rf"\n\d+ findings: 'kifudb stats findings --store {re.escape(str(store))}' "
                     rf"lists them \(or the dashboard's Validation page\)\n", first.output)
    listed = run("stats", "findings", "--store", store)
    assert listed.exit_code == 0, listed.output
    assert "illegal_move.kif:11: game" in listed.output and "error bad_geometry" in listed.output
    assert re.search(r"^\d+ findings by code:$", listed.output, re.M)
    errors = json.loads(run("stats", "findings", "--store", store, "--severity", "error",
                            "--format", "json").output)
    assert {f["code"] for f in errors["findings"]} == {"bad_geometry"}

    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(SAMPLES / "denou3-1.ki2", copy / "again.ki2")
    again = run("ingest", copy, "--store", store)
    assert "1 already stored (read from another file, in this run or an earlier ingest)" \
        in again.output
    assert "finding" not in again.output.splitlines()[0]


# ----- progress bars --------------------------------------------------------------------------------


def test_progress_bars_count_bytes_and_games(tmp_path):
    """A bar of files sits still while one big file is read: the bars count bytes (and say
    the games found so far), and ``classify`` has one too."""
    for command in ("validate", "classify"):
        result = CliRunner().invoke(main, [command, str(SAMPLES), "--progress"])
        assert result.exit_code == 0, result.output
        assert f"{command}:" in result.stderr and "B/s" in result.stderr, result.stderr
        assert "file/s" not in result.stderr
    from kifudb.ingest.pipeline import read_files
    import io
    import contextlib

    caught = io.StringIO()
    with contextlib.redirect_stderr(caught):
        reads = list(read_files([str(SAMPLES / "utf82chkifu.csa"), str(SAMPLES / "4mai.ki2")],
                                progress="reading"))
    size = sum((SAMPLES / name).stat().st_size for name in ("utf82chkifu.csa", "4mai.ki2"))
    assert len(reads) == 2 and "B/s" in caught.getvalue()
    assert f"/{size / 1024:.1f}k " in caught.getvalue()  # the bytes of both files


def test_one_big_file_moves_the_bar_game_by_game(monkeypatch):
    """The bar does not sit still while one file of many games is read: each replayed game
    is reported (``on_game``), and ``read_files`` turns the reports into bytes on the bar."""
    from kifudb.ingest.pipeline import read_file, read_files
    import io
    import contextlib

    big = Path(__file__).parent / "fixtures" / "usi" / "openings.usi"
    calls = []
    read = read_file(str(big), on_game=lambda done, total: calls.append((done, total)))
    assert len(read.games) == 2000
    assert calls[0] == (1, 2000) and calls[999] == (1000, 2000) and calls[-1] == (2000, 2000)

    import functools
    import tqdm

    # tqdm draws every update (not one each 0.1 s), so that what is drawn does not hang on speed
    monkeypatch.setattr(tqdm.tqdm, "__init__",
                        functools.partialmethod(tqdm.tqdm.__init__, mininterval=0))
    caught = io.StringIO()
    with contextlib.redirect_stderr(caught):
        list(read_files([str(big)], progress="reading"))
    shown = re.findall(r"games ([\d,]+)", caught.getvalue())
    counts = {int(games.replace(",", "")) for games in shown}
    assert len({count for count in counts if 0 < count < 2000}) > 100, sorted(counts)[:9]


# ----- counts, paths -------------------------------------------------------------------------------


def test_one_of_a_thing_is_singular(tmp_path):
    (tmp_path / "one.kif").write_text(ONE_GAME_KIF.replace("   2 ３四歩(33)\n   3", "   2"),
                                      encoding="utf-8")
    store = tmp_path / "store"
    checked = run("validate", tmp_path / "one.kif")
    assert checked.output.startswith("1 file, 1 game, 1 move; 1 game valid, 0 with errors")
    stored = run("ingest", tmp_path / "one.kif", "--store", store)
    assert "1 file read (" in stored.output and "), 1 game: 1 new" in stored.output
    assert f"store {store}: 1 game, 2 positions" in stored.output
    found = run("search", "--moves", "7g7f", "--store", store)
    assert "1 occurrence in 1 game" in found.output
    explored = run("explore", "--store", store)
    assert "1 move played next, 1 game" in explored.output
    assert "(1 move)" in run("classify", tmp_path / "one.kif").output
    assert "(1 row)" in run("sql", "SELECT 1", "--store", store).output
    assert "1 game (1 valid), " in run("stats", "overview", "--store", store).output
    for output in (checked.output, stored.output, found.output, explored.output):
        assert not re.search(r"\b1 (files|games|moves|occurrences|rows|positions)\b", output)


def test_long_paths_are_shown_relative_to_the_folder_given(tmp_path):
    deep = tmp_path.joinpath(*[f"a-long-folder-name-{i:02d}" for i in range(8)])
    deep.mkdir(parents=True)
    shutil.copy(RECORDS / "kifu-for-js/_history/examples/illegal_move.kif", deep / "bad.kif")
    report = run("validate", tmp_path)
    assert report.exit_code == 0, report.output
    line = next(l for l in report.output.splitlines() if "bad_geometry «" in l)
    assert line.startswith("a-long-folder-name-00/") and str(tmp_path) not in line
    assert f"(paths relative to {tmp_path})" in report.output
    listed = run("classify", tmp_path)
    assert str(tmp_path) not in listed.output.split("\n", 1)[1]
    store = tmp_path / "store"
    assert run("ingest", deep / "bad.kif", "--store", store).exit_code == 0
    found = run("search", "--moves", "7g7f", "--store", store)
    assert max(map(len, found.output.splitlines())) < 160, found.output
    assert "…" in found.output and "bad.kif" in found.output


# ----- the dashboard's port ----------------------------------------------------------------------


def test_dashboard_on_a_busy_port_fails_before_it_prints_an_address(tmp_path):
    store = tmp_path / "store"
    assert run("ingest", SAMPLES / "denou3-1.ki2", "--store", store).exit_code == 0
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        # a process of its own: the command becomes the server when the port is free
        done = subprocess.run([str(KIFUDB), "dashboard", "--store", str(store), "--port",
                               str(port), "--address", "127.0.0.1"],
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "http://" not in done.stdout + done.stderr
    assert f"127.0.0.1:{port}: the port is in use" in done.stderr


# ----- the explorer ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample_store(tmp_path_factory):
    store = tmp_path_factory.mktemp("edges") / "store"
    assert run("ingest", ROOT / "data" / "samples", "--store", store).exit_code == 0
    return store


def test_explore_says_what_no_result_counts_and_filters_decided_and_long_games(sample_store):
    text = run("explore", "--store", sample_store).output
    assert "no result" in text.splitlines()[2] and "other" not in text
    assert "(no result: games without a win or a draw" in text
    every = json.loads(run("explore", "--store", sample_store, "--format", "json").output)
    decided = json.loads(run("explore", "--store", sample_store, "--decided",
                             "--format", "json").output)
    assert sum(m["other"] for m in every["moves"]) > 0
    assert sum(m["other"] for m in decided["moves"]) == 0
    assert sum(m["games"] for m in decided["moves"]) == \
        sum(m["games"] - m["other"] for m in every["moves"])
    long = json.loads(run("explore", "--store", sample_store, "--min-moves", "100",
                          "--format", "json").output)
    assert 0 < sum(m["games"] for m in long["moves"]) < sum(m["games"] for m in every["moves"])
    bad = run("explore", "--store", sample_store, "--min-moves", "-1")
    assert bad.exit_code == 2 and "--min-moves" in bad.output


def test_even_games_are_found_whatever_their_format(sample_store):
    """``--handicap 平手`` found 40 of 13,021 games: it read the 手合割 header, which CSA and
    USI records do not have. A game's handicap is its start position's."""
    every = json.loads(run("explore", "--store", sample_store, "--format", "json").output)
    even = json.loads(run("explore", "--store", sample_store, "--handicap", "平手",
                          "--format", "json").output)
    assert sum(m["games"] for m in even["moves"]) == sum(m["games"] for m in every["moves"])
    formats = run("sql", "SELECT DISTINCT s.format FROM sources s JOIN games g USING (game) "
                  "WHERE g.handicap = '平手' ORDER BY 1", "--format", "json",
                  "--store", sample_store).output
    assert {"csa", "usi"} <= {row[0] for row in json.loads(formats)["rows"]}
    # the explorer starts from the position of the handicap asked for, in any spelling
    lance = run("explore", "--store", sample_store, "--handicap", "KY")
    assert lance.output.startswith("position: lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/"
                                   "1B5R1/LNSGKGSNL w - 1")
    assert "△３四歩" in lance.output
    moved = json.loads(run("explore", "--store", sample_store, "--handicap", "香落ち",
                           "--moves", "3c3d", "--format", "json").output)
    assert moved["position"]["sfen"] == "lnsgkgsn1/1r5b1/pppppp1pp/6p2/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 2"
    rows = [json.loads(line) for line in run(
        "validate", SAMPLES / "utf8_WCSC28_U7_QHA_MCB.csa", "--format", "jsonl").output.splitlines()]
    assert rows[0]["headers"]["handicap"] == "平手"


# ----- a JKF source --------------------------------------------------------------------------------


def test_a_game_from_jkf_and_kif_is_shown_as_written_in_kif(tmp_path):
    store = tmp_path / "store"
    # the JKF file comes first by name: its moves are the ones stored
    assert run("ingest", SAMPLES / "ryuou201409020101.jkf", SAMPLES / "ryuou201409020101.kif",
               "--store", store).exit_code == 0
    shown = run("game", "1", "--store", store)
    assert shown.exit_code == 0, shown.output
    assert "{" not in shown.output and '"piece"' not in shown.output
    assert re.search(r"^\s+1  ▲７六歩\s+７六歩\(77\)", shown.output, re.M), shown.output
    sources = [l for l in shown.output.splitlines() if l.startswith("  source:")]
    assert sources[0].endswith("(kif, cp932)") and sources[1].endswith("(jkf, utf-8)")
    data = json.loads(run("game", "1", "--store", store, "--format", "json").output)
    assert data["moves"][0]["text"] == "７六歩(77)" and data["moves"][0]["written"].startswith("{")
    assert data["sources"][0]["format"] == "kif"


# ----- messages ----------------------------------------------------------------------------------

#: a class or module of kifudb named in a message: ``GameRecord.comments``, ``ingest.kif``
_INTERNAL = re.compile(r"\b(?:[A-Z][a-z]+[A-Z]\w*\.\w|(?:ingest|core|store|analytics|kifudb|"
                       r"labels|dashboard)\.[a-z_]+\b)")


def test_findings_do_not_name_kifudb_internals():
    rows = [json.loads(line) for line in run("validate", RECORDS, "--format", "jsonl")
            .output.splitlines()]
    messages = {f["message"] for row in rows for f in row["findings"]}
    assert any("bookmark on the start position" in m for m in messages)
    assert [m for m in messages if _INTERNAL.search(m)] == []
