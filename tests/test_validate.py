"""Reading and validating whole files: every real fixture, the same game in six formats, the
normalized results, the ``kifudb validate`` command in every output format, and fuzzed input."""

import csv
import io
import json
import os
import re
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from kifudb.ingest.read import read_bytes, read_path, record_files
from kifudb.ingest.validate import validate_record
from kifudb.cli import main
from kifudb.cli_validate import validate_file, validate_files

FIXTURES = Path(__file__).parent / "fixtures"
RECORDS = FIXTURES / "records"
SAMPLES_DIR = Path(__file__).parent.parent / "data" / "samples" / "records"
CONVERSION = "shogihome/src/tests/testdata/conversion"
SIX_FORMATS = {
    "kif": RECORDS / CONVERSION / "input/kif-sjis.kif",
    "kifu": RECORDS / "shogihome/_history/src/tests/testdata/conversion/kifu-utf8.kifu",
    "ki2": RECORDS / CONVERSION / "input/ki2-sjis.ki2",
    "csa": RECORDS / "shogihome/_history/src/tests/testdata/conversion/csa-sjis.csa",
    "jkf": RECORDS / "tsshogi/src/tests/testdata/jkf/sample05.jkf",
    "usi": FIXTURES / "six_formats/conversion-game.usi",
}
ALL_FILES = sorted(record_files([RECORDS]))
# the only error the fixtures hold: a real illegal move (a tsume record whose last position
# leaves only useless interpositions, 無駄合, gets an info finding instead)
KNOWN_ERRORS = {"kifu-for-js/_history/examples/illegal_move.kif": "bad_geometry"}


def test_the_same_game_in_six_formats_is_one_game():
    games = {}
    for fmt, path in SIX_FORMATS.items():
        read = read_path(path)
        assert read.format == fmt, path
        games[fmt] = validate_record(read.records[0])
    fingerprints = {g.fingerprint for g in games.values()}
    positions = {tuple(g.sfens()) for g in games.values()}
    keys = {tuple(g.keys) for g in games.values()}
    assert len(fingerprints) == len(positions) == len(keys) == 1
    assert all(g.moves == 6 and g.valid for g in games.values())
    assert {read_path(p).encoding for p in SIX_FORMATS.values()} >= {"cp932", "utf-8"}


@pytest.mark.parametrize("path", ALL_FILES, ids=[p.split("records/")[1] for p in ALL_FILES])
def test_every_fixture_reads_and_replays(path):
    rows = validate_file(path)
    relative = path.split("records/")[1]
    codes = {f["code"] for r in rows for f in r["findings"]}
    assert not codes & {"reader_error", "internal_error", "not_a_record", "no_game",
                        "encoding_error"}, rows[0]["findings"]
    errors = {f["code"] for r in rows for f in r["findings"] if f["severity"] == "error"}
    assert errors == ({KNOWN_ERRORS[relative]} if relative in KNOWN_ERRORS else set())
    for row in rows:
        assert row["index"] is not None and row["format"] and row["encoding"]


ENDINGS = [  # file under apery-wcsc28/kifu, winner, reason
    ("utf8_WCSC28_U7_QHA_MCB.csa", "draw", "sennichite"),
    ("utf8_WCSC28_U1_TSG_HFW.csa", "black", "declaration"),
    ("utf8_WCSC28_L5_WDF_GIR.csa", "black", "time"),
    ("utf8_WCSC28_L5_YAM_WOD.csa", "black", "illegal_move"),
    ("utf8_WCSC28_L8_WOD_YUU.csa", "white", "illegal_move"),
    ("utf8_WCSC28_U4_HFW_APR.csa", "none", "abort"),
    ("utf8_WCSC28_L1_762_KFW.csa", None, "resign"),
]


@pytest.mark.parametrize("name, winner, reason", ENDINGS)
def test_endings_are_normalized(name, winner, reason):
    row = validate_file(str(RECORDS / "apery-wcsc28/kifu" / name))[0]
    assert row["reason"] == reason
    if winner is not None:
        assert row["winner"] == winner
    else:
        assert row["winner"] in ("black", "white")


def test_perpetual_check_named_as_a_foul_is_recognized():
    row = validate_file(str(RECORDS / "shogihome/src/command/usi-csa-bridge/e2e/scenario/6/record.kifu"))[0]
    assert (row["winner"], row["reason"]) == ("white", "perpetual_check")
    assert not row["findings"]


def test_illegal_move_is_located():
    row = validate_file(str(RECORDS / "kifu-for-js/_history/examples/illegal_move.kif"))[0]
    assert (row["moves"], row["first_illegal_ply"], row["illegal_code"]) == (2, 3, "bad_geometry")
    finding = row["findings"][0]
    assert (finding["line"], finding["ply"], finding["text"]) == (11, 3, "２一角成(88)")


def test_a_broken_game_does_not_stop_the_others_in_a_file():
    text = ("V2.2\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n/\nPI\n+\n+7775FU\n-3334FU\n%TORYO\n"
            "/\nPI\n+\n+2726FU\n%TORYO\n")
    read = read_bytes(text.encode(), "three.csa")
    results = [validate_record(r) for r in read.records]
    assert [g.moves for g in results] == [2, 0, 1]
    assert results[1].illegal_code == "bad_geometry" and results[1].first_illegal_ply == 1
    assert results[0].valid and results[2].valid


def run(*args):
    return CliRunner().invoke(main, ["validate", *map(str, args)])


def test_validate_text_summary_and_findings():
    result = run(RECORDS / "kifu-for-js/_history/examples")
    assert result.exit_code == 0
    assert result.output.startswith("2 files, 2 games, 5 moves; 1 game valid, 1 with errors\n")
    assert "illegal_move.kif:11: game 1 ply 3 error bad_geometry «２一角成(88)»" in result.output


def test_validate_jsonl_has_every_field(tmp_path):
    out = tmp_path / "report.jsonl"
    result = run(RECORDS / "apery-wcsc28/kifu", "--format", "jsonl", "--positions", "-o", out)
    assert result.exit_code == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 30
    for row in rows:
        for key in ("path", "index", "format", "encoding", "start_sfen", "moves",
                    "first_illegal_ply", "illegal_code", "final_sfen", "winner", "reason",
                    "fingerprint", "findings", "positions"):
            assert key in row
        assert len(row["positions"]) == row["moves"] + 1
        assert row["positions"][-1].split()[:3] == row["final_sfen"].split()[:3]


def test_unreadable_and_foreign_files_get_one_row_each(tmp_path):
    (tmp_path / "notes.kif").write_text("this is not a game record\n", encoding="utf-8")
    (tmp_path / "junk.csa").write_bytes(bytes(range(256)) * 4)
    os.mkfifo(tmp_path / "pipe.kif")
    result = run(tmp_path / "notes.kif", tmp_path / "junk.csa", tmp_path / "pipe.kif",
                 "--format", "jsonl")
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert [r["index"] for r in rows if r["path"].endswith("notes.kif")] == [None]
    assert rows[-1]["index"] is None and rows[-1]["findings"][0]["code"] == "unreadable_file"
    codes = {f["code"] for r in rows for f in r["findings"]}
    assert "not_a_record" in codes
    # a path that names nothing is the command's error, not a row (tests/test_cli_edges.py)
    missing = run(tmp_path / "notes.kif", tmp_path / "missing.kif", "--format", "jsonl")
    assert missing.exit_code == 2 and "missing.kif: no such file or folder" in missing.output


def test_jobs_give_the_same_report():
    one = run(RECORDS / "kifu-for-js", "--format", "jsonl").output
    two = run(RECORDS / "kifu-for-js", "--format", "jsonl", "--jobs", "2").output
    assert one == two and one.count("\n") > 50


def _fresh_process(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).parent.parent)
    return done.stdout


def test_the_command_forks_its_workers_only_without_other_threads():
    ask = "from kifudb.ingest.read import worker_context; print(worker_context().get_start_method())"
    assert _fresh_process(f"import kifudb.cli; {ask}").strip() == "fork"  # no DuckDB loaded
    assert _fresh_process(f"import duckdb; {ask}").strip() == "forkserver"
    assert _fresh_process(f"import threading, time; threading.Thread(target=time.sleep, "
                          f"args=(1,)).start(); {ask}").strip() == "forkserver"


def test_jobs_give_the_same_report_in_a_fresh_command():
    """``kifudb validate --jobs 2`` as a user runs it (forked workers) says what one job says."""
    folder = RECORDS / "kifu-for-js"
    run_command = ("import sys; from kifudb.cli import main; sys.argv = ['kifudb', 'validate', "
                   f"{str(folder)!r}, '--format', 'jsonl', '--jobs', '{{}}']; main()")
    one = _fresh_process(run_command.format(1))
    two = _fresh_process(run_command.format(2))
    assert one == two and one.count("\n") > 50


def test_csv_html_and_json_reports(tmp_path):
    folder = RECORDS / "kifu-for-js/packages/json-kifu-format/test/files/kif"
    text = run(folder, "--format", "csv").output
    assert text.startswith("\ufeff")  # UTF-8 with a byte-order mark: spreadsheets read it so
    rows = list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))
    assert rows and {"path", "moves", "fingerprint", "findings", "black", "white", "date",
                     "messages"} <= set(rows[0])
    page = run(folder, "--format", "html", "--all").output
    assert page.startswith("<!doctype html>") and "<h1>Validation report</h1>" in page
    # self-contained: links only inside the page
    assert "src=" not in page and not re.findall(r"href='[^#]", page)
    report = json.loads(run(folder, "--format", "json").output)
    assert report["summary"]["games"] == len(report["games"])


def test_html_escapes_what_records_contain(tmp_path):
    path = tmp_path / "evil.kif"
    path.write_text("先手：<script>alert(1)</script>\n手数----指手--\n   1 ７六歩(77)\n"
                    "   2 <b>bold</b>\n", encoding="utf-8")
    page = run(path, "--format", "html").output
    assert "<script>" not in page and "&lt;script&gt;" in page


def test_globs_and_strict_exit_code():
    pattern = str(RECORDS / "kifu-for-js/_history/examples/*.kif")
    assert "illegal_move.kif" in run(pattern).output
    assert run(pattern, "--strict").exit_code == 1
    assert run(RECORDS / "csa-rs", "--strict").exit_code == 0


SAMPLES = [RECORDS / p for p in (
    "python-shogi/data/games/habu-fujii-2006.kif",
    "kifu-for-js/packages/json-kifu-format/test/files/ki2/20091203.ki2",
    "apery-wcsc28/kifu/utf8_WCSC28_U7_QHA_MCB.csa",
    "kifu-for-js/packages/Kifu-for-JS/examples/files/kif/fork.kif",
    "tsshogi/src/tests/testdata/jkf/sample03.jkf",
    "apery-wcsc28/kifu.csa1")]


#: file-level findings that say why a file gave no game
NO_GAME_BECAUSE = {"not_a_record", "no_game", "unreadable_file", "file_too_large"}


def mutated(data: bytes, rng, edits: int) -> bytes:
    """``data`` with ``edits`` random flips, cuts, insertions, truncations and duplications."""
    data = bytearray(data)
    for _ in range(edits):
        where = rng.randrange(len(data) + 1)
        action = rng.choice(("flip", "cut", "insert", "truncate", "duplicate"))
        if action == "flip" and where < len(data):
            data[where] = rng.randrange(256)
        elif action == "cut":
            del data[where:where + rng.randrange(1, 40)]
        elif action == "insert":
            data[where:where] = rng.choice([b"\n", b"+", b"%", b"\xe5\x90\x8c", b"(", b"\x82",
                                            b"\"moves\":", b"\x00", b"99", b"/"]) * rng.randrange(1, 4)
        elif action == "truncate":
            del data[where:]
        else:
            data[where:where] = data[max(0, where - 200):where]
    return bytes(data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(SAMPLES), st.randoms(use_true_random=False),
                          st.integers(1, 12)), min_size=1, max_size=3))
def test_mutated_real_files_never_crash(mutations):
    """Damaged real files go through ``kifudb validate``'s whole path (files on disk, the
    pipeline's safety net, the report rows): no reader or replay fails inside kifudb, every file
    is answered, and every game is accounted for."""
    with tempfile.TemporaryDirectory() as folder:
        paths, data = [], {}
        for number, (sample, rng, edits) in enumerate(mutations):
            path = str(Path(folder) / f"{number}-{sample.name}")  # the name breaks sniffing ties
            data[path] = mutated(sample.read_bytes(), rng, edits)
            Path(path).write_bytes(data[path])
            paths.append(path)
        answers = list(validate_files(paths))
    assert len(answers) == len(paths)  # every file answered, in order
    for path, rows in zip(paths, answers):
        assert rows and all(row["path"] == path for row in rows), path
        codes = [f["code"] for row in rows for f in row["findings"]]
        assert not {"reader_error", "internal_error"} & set(codes), rows
        games = [row for row in rows if row["index"] is not None]
        if games:  # every game the reader found has its row, numbered from 0 in file order
            assert games == rows and [row["index"] for row in rows] == list(range(len(rows)))
            assert len(read_bytes(data[path], path).records) == len(rows)
            assert all(row["format"] and row["fingerprint"] for row in rows), rows
        else:  # one file-level row that says why there is no game
            assert len(rows) == 1 and NO_GAME_BECAUSE & set(codes), rows


def test_header_problems_are_reported():
    text = ("開始日時：2014/09/31\n終了日時：2014/09/01\n手合割：香落ち\n"
            "手数----指手--\n   1 ７六歩(77)\n").encode("utf-8")
    game = validate_record(read_bytes(text, "headers.kif").records[0])
    codes = sorted(f.code for f in game.findings)
    assert codes.count("bad_date") == 1  # 9/31 is no date, so the end cannot be compared
    assert "handicap_mismatch" not in codes  # 香落ち: the reader starts from that handicap
    assert game.headers["end_date"] == "2014-09-01" and game.headers["start_date"] is None
    row = validate_file(str(RECORDS / "shogihome/src/command/usi-csa-bridge/e2e/scenario/27/record.csa"))[0]
    assert [f["code"] for f in row["findings"]] == ["bad_date"]  # '$START_TIME: 15:35:06'


def test_pipes_and_repeated_names_are_handled(tmp_path):
    import os
    os.mkfifo(tmp_path / "pipe.kif")  # reading it would block forever
    (tmp_path / "game.kif").write_text("手数----指手--\n   1 ７六歩(77)\n", encoding="utf-8")
    result = run(tmp_path, str(tmp_path) + "/../" + tmp_path.name + "/*.kif", "--format", "jsonl")
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert len(rows) == 2  # the glob names the same two files again
    pipe = next(r for r in rows if r["path"].endswith("pipe.kif"))
    assert pipe["findings"][0]["message"] == "not a regular file"


def test_html_shows_the_board_where_a_game_went_wrong():
    page = run(RECORDS / "kifu-for-js/_history/examples/illegal_move.kif", "--format", "html").output
    assert page.count("<svg") == 1 and "the position before ply 3" in page
    assert "Shogi position, Black to move" in page  # the board of the position before ２一角成


def test_useless_interpositions_do_not_spoil_a_mate():
    from kifudb.core import Position
    from kifudb.ingest.result import mate_but_for_useless_interpositions
    # White's king on 1a, checked by the rook on 1i; 2a, 2b and 1b are guarded
    one_pawn = Position.from_sfen("8k/6S2/7G1/9/9/9/9/9/K7R w p 1")
    assert not one_pawn.is_checkmate() and mate_but_for_useless_interpositions(one_pawn)
    two_pawns = Position.from_sfen("8k/6S2/7G1/9/9/9/9/9/K7R w 2p 1")  # the second one helps
    assert not mate_but_for_useless_interpositions(two_pawns)
    row = validate_file(str(RECORDS / "kifu-for-js/packages/json-kifu-format/test/files/ki2/"
                            "kobayashi_kinsho196702.ki2"))[0]
    assert [f["code"] for f in row["findings"]] == ["useless_interposition"]


# ----- the HTML and CSV reports on a large collection (issue 19) -----------------------------------


def _games_table(page: str) -> str:
    return page[page.index("<h2>Games</h2>"):]


def test_html_report_lists_the_games_with_findings_and_links_their_codes(tmp_path):
    """On a large collection the report listed every game (2.3 MB, 379,485 px tall): by
    default only the games (and files) with findings, a summary on top, each code linked to its
    rows, paths relative to the folder given, and a table that fits the page."""
    folder = RECORDS / "kifu-for-js/_history/examples"
    rows = [json.loads(line) for line in run(folder, "--format", "jsonl").output.splitlines()]
    flagged = [r for r in rows if r["findings"]]
    assert 0 < len(flagged) < len(rows)
    page = run(folder, "--format", "html").output
    games = _games_table(page)
    assert games.count("<tr>") == 1 + len(flagged)  # the header row and each flagged game
    everything = _games_table(run(folder, "--format", "html", "--all").output)
    assert everything.count("<tr>") == 1 + len(rows)
    # the summary first: counts, what is listed, then the findings by code
    assert page.index("1 with errors") < page.index("Findings by code") < page.index("Games")
    assert f"{len(flagged)} of {len(rows)} rows" in page and "--all" in page
    # each code links to its first finding, each finding to the next of its code
    assert "href='#c-bad_geometry-1'><code>bad_geometry</code></a>" in page
    assert "id='c-bad_geometry-1'" in games
    # paths relative to the folder given (named once, above)
    assert f"<td>{folder}/" not in page and "<td>illegal_move.kif</td>" in page
    assert f"Paths are relative to <code>{folder}</code>" in page
    # long paths and messages wrap inside a table as wide as the window
    assert "table-layout:fixed" in page and "overflow-wrap:anywhere" in page


def test_html_report_walks_through_the_findings_of_a_code(tmp_path):
    for name in ("a.kif", "b.kif", "c.kif"):
        shutil.copy(RECORDS / "kifu-for-js/_history/examples/illegal_move.kif", tmp_path / name)
    page = run(tmp_path, "--format", "html").output
    assert [int(n) for n in re.findall(r"id='c-bad_geometry-(\d+)'", page)] == [1, 2, 3]
    assert re.findall(r"href='#c-bad_geometry-(\d+)'", page) == ["1", "2", "3"]


def test_csv_report_has_players_dates_messages_and_a_byte_order_mark(tmp_path):
    out = tmp_path / "report.csv"
    path = SAMPLES_DIR / "illegal_move.kif"
    assert run(path, SAMPLES_DIR / "denou3-1.ki2", "--format", "csv", "-o", out).exit_code == 0
    data = out.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")  # a spreadsheet then reads it as UTF-8
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))
    bad, good = rows
    assert (good["black"], good["white"], good["date"]) == ("菅井竜也五段", "習甦", "2014-03-15")
    assert good["event"].startswith("第３回電王戦") and good["messages"] == ""
    assert bad["messages"] == ("error bad_geometry (line 11, ply 3): the bishop on 8h cannot "
                               "move to 2a")


def test_every_ending_word_a_reader_knows_has_its_meaning():
    """The words each reader takes for an ending (``core.kifu.ENDING_WORDS``) are those whose
    meaning ``ingest.result`` gives, but for a game not played (不戦勝, 不戦敗: nothing to settle)."""
    from kifudb.core.kifu import ENDING_WORDS
    from kifudb.ingest.result import _MEANINGS
    read = {word.lstrip("%") for words in ENDING_WORDS.values() for word in words}
    assert read - set(_MEANINGS) == {"不戦勝", "不戦敗"}
