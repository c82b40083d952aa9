"""Hostile input to the readers (issue "Nothing lost, no way in", defects 5 and 14): every test
makes its own data (or damages a real fixture) and fails on the readers before the fix.

Defect 5: findings are capped per line and per game (``ingest.record.Findings``), so memory stays
a small multiple of the input, however the input repeats one mistake. Defect 14: the readers are
forgiving where they can be and strict where they must be: a junk line before a SFEN collection or
a csa1 file does not hide its games, UTF-16, UTF-32 and ISO-2022-JP records are read, and text in
which nothing of a game is recognised is no game (``GameRecord.recognised``)."""

from __future__ import annotations

import codecs
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from kifudb.ingest.pipeline import read_data
from kifudb.ingest.record import Finding, Findings, PER_GAME
from kifudb.ingest.validate import validate_record
from kifudb.ingest.read import read_bytes

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "tests" / "fixtures" / "records"
KI2_HEAD = "先手：a\n後手：b\n▲７六歩 △３四歩\n"
KIF_HEAD = "手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)\n"
CSA_HEAD = "V2.2\nPI\n+\n+7776FU\n"


def codes(findings) -> list:
    return [f.code for f in findings]


def only_game(data: bytes, name: str):
    read = read_data(data, name)
    assert not read.findings, read.findings
    [game] = read.games
    return game


# ----- defect 5: one finding and a count, not a million findings ---------------------------------

_CHILD = r"""
import json, resource, sys
from kifudb.ingest.pipeline import read_data
data = sys.stdin.buffer.read()
read = read_data(data, sys.argv[1]) if data else None
print(json.dumps({
    "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    "findings": [] if read is None else [[f.code, f.line, f.message] for g in read.games
                                         for f in g.findings]}))
"""


def read_in_child(data: bytes, name: str) -> dict:
    """Read ``data`` in a fresh interpreter: its findings and its peak RSS in bytes."""
    done = subprocess.run([sys.executable, "-c", _CHILD, name], input=data, cwd=ROOT,
                          capture_output=True, check=True)
    return json.loads(done.stdout)


def test_a_line_of_a_million_marks_is_one_finding_and_a_count_in_bounded_memory():
    """``print('▲' * 1_000_000)`` after a KI2 game's first lines: a million marks without a move
    on line 4 were a million findings (about 660 MB for these 3 MB); now one finding and one
    ``too_many_findings``, and the peak memory grows by less than 40 times the input."""
    data = (KI2_HEAD + "▲" * 1_000_000 + "\n").encode("utf-8")
    baseline = read_in_child(b"", "x.ki2")["rss"]  # the interpreter with the readers loaded
    child = read_in_child(data, "hostile.ki2")
    assert child["findings"] == [
        ["unparsable_line", 4, "a move mark (▲/△) without a move"],
        ["too_many_findings", 4, "… and 999,999 more unparsable_line findings on this line"]]
    assert child["rss"] - baseline < 40 * len(data), (child["rss"] - baseline) / len(data)


@pytest.mark.parametrize("head, line, name", [
    (KIF_HEAD, "▲" * 200_000, "marks.kif"),  # KI2 marks in a KIF record
    (CSA_HEAD, "T1," + "+," * 200_000, "sides.csa"),  # 200,000 side-to-move statements
], ids=["kif", "csa"])
def test_one_mistake_repeated_on_a_line_is_one_finding_and_a_count(head, line, name):
    game = only_game((head + line + "\n").encode("utf-8"), name)
    number = head.count("\n") + 1
    counted = [f for f in game.findings if f.line == number]
    assert codes(counted) == ["unparsable_line", "too_many_findings"]
    assert counted[1].message == "… and 199,999 more unparsable_line findings on this line"
    assert counted[1].severity == "warning"


@pytest.mark.parametrize("head, line, name, code", [
    (KIF_HEAD, "x\n", "junk.kif", "unparsable_line"),  # a junk line, 100,000 times
    (CSA_HEAD, "+\n", "sides.csa", "unparsable_line"),  # a side-to-move line after the moves
], ids=["kif", "csa"])
def test_one_mistake_on_many_lines_is_a_hundred_findings_and_a_count(head, line, name, code):
    game = only_game((head + line * 100_000).encode("utf-8"), name)
    mine = [f for f in game.findings if f.code == code]
    assert len(mine) == PER_GAME == 100
    [count] = [f for f in game.findings if f.code == "too_many_findings"]
    assert count.line is None
    assert count.message == f"… and 99,900 more {code} findings in this game"


def test_a_board_of_a_hundred_thousand_rows_is_a_hundred_findings_and_a_count():
    """The board diagram's reader (``core.notation.bod``) says up to three things of each row
    without a border; the KIF reader hands them on to the game while it reads (capped there)."""
    game = only_game(("手合割：平手\n" + "|\n" * 100_000).encode("utf-8"), "rows.kif")
    # a hundred of its warnings and a hundred of its errors
    assert codes(game.findings).count("bad_start_position") == 200
    [count] = [f for f in game.findings if f.code == "too_many_findings"]
    left_out = int(count.message.split()[2].replace(",", ""))
    assert left_out >= 100_000 and count.message == (f"… and {left_out:,} more "
                                                     "bad_start_position findings in this game")


def test_the_replay_findings_are_capped_too():
    """100,000 variations from a ply the main line never reaches: each was a bad_variation, an
    empty_variation and a variation_not_replayed (the last from ``ingest.validate``)."""
    game = only_game((KIF_HEAD + "変化：5手\n" * 100_000).encode("utf-8"), "forks.kif")
    for code in ("bad_variation", "empty_variation", "variation_not_replayed"):
        assert codes(game.findings).count(code) == 100
    counts = sorted(f.message for f in game.findings if f.code == "too_many_findings")
    assert counts == [f"… and 99,900 more {code} findings in this game" for code in
                      ("bad_variation", "empty_variation", "variation_not_replayed")]


@pytest.mark.parametrize("name, data", [
    ("moves.ki2", KI2_HEAD + "▲７六歩" * 300_000 + "\n"),  # without separators, on one line
    ("moves.csa", CSA_HEAD + "+7776FU\n" * 300_000),
    ("moves.usi", "startpos moves " + "7g7f " * 300_000 + "\n"),
], ids=["ki2", "csa", "usi"])
def test_unreplayable_moves_are_one_finding_not_one_a_move(name, data):
    """Hundreds of thousands of legal-looking moves after an illegal one: the replay stops at
    the first and says how many it did not replay, once."""
    game = only_game(data.encode("utf-8"), name)
    assert game.first_illegal_ply is not None
    replay = [f for f in game.findings if f.ply is not None and f.ply >= game.first_illegal_ply]
    assert len(replay) == 2 and replay[1].code == "not_replayed"
    left = game.written_moves - game.first_illegal_ply
    assert replay[1].message == f"{left} later moves were not replayed"


def test_a_huge_move_or_header_is_quoted_cut():
    game = only_game((KI2_HEAD + "▲" + "同" * 1_000_000 + "\n").encode("utf-8"), "dou.ki2")
    [bad] = [f for f in game.findings if f.code == "unparsable_move"]
    assert len(bad.text) == 201 and bad.text.endswith("…")
    game = only_game(("開始日時：2020/" + "1" * 1_000_000 + "\n" + KIF_HEAD).encode(), "d.kif")
    [bad] = [f for f in game.findings if f.code == "bad_date"]
    assert len(bad.text) == 201 and len(bad.message) < 300


def test_the_findings_list_counts_what_it_leaves_out():
    findings = Findings()
    for line in range(1, 301):
        for _ in range(3):  # the same error three times a line, then a different info
            findings.add(Finding("error", "bad", "same", line))
        findings.add(Finding("info", "bad", f"other {line}", line))
    kept = [f for f in findings if f.code == "bad"]
    assert len(kept) == 200  # a hundred of each severity
    assert [(f.line, f.severity) for f in kept[:3]] == [(1, "error"), (1, "info"), (2, "error")]
    summaries = [f for f in findings if f.code == "too_many_findings"]
    # lines 1 to 99 kept one error and one info: two errors left out on each of them; from the
    # hundredth error on, what is left out is counted for the game
    assert [f.message for f in summaries[:99]] == ["… and 2 more bad findings on this line"] * 99
    assert len(summaries) == 100 and summaries[-1].line is None
    assert summaries[-1].severity == "warning"
    assert summaries[-1].message == "… and 802 more bad findings in this game"
    copy = findings.copy()  # goes on counting, without touching the original
    copy.add(Finding("error", "bad", "more", 999))
    in_game = [f.message for f in copy if f.line is None]
    assert in_game == ["… and 803 more bad findings in this game"]
    assert summaries[-1].message == "… and 802 more bad findings in this game"
    merged = Findings()
    merged.add_all(findings)
    assert [f.message for f in merged if f.line is None] == [summaries[-1].message]
    # an error is never left out behind a hundred warnings of its code: the game stays invalid
    findings = Findings()
    for line in range(1, 1001):
        findings.add(Finding("warning", "unparsable_line", "a warning", line))
    findings.add(Finding("error", "unparsable_line", "an error", 1001))
    assert findings[-1].severity == "error" and len(findings) == 102


# ----- defect 14: a junk first line ---------------------------------------------------------------

def usi_collection() -> bytes:
    """300 real games, one a line (``startpos moves …`` and ``sfen … moves …``)."""
    lines = [line for line in (ROOT / "tests/fixtures/usi/real_games.usi").read_text(
        encoding="utf-8").splitlines() if line.startswith(("startpos", "sfen"))]
    assert len(lines) >= 300
    return ("\n".join(lines[:300]) + "\n").encode("utf-8")


@pytest.mark.parametrize("name, data, games", [
    ("collection.sfen", usi_collection(), 300),
    ("kifu.csa1", (RECORDS / "apery-wcsc28/kifu.csa1").read_bytes(), 24),
], ids=["sfen", "csa1"])
def test_a_junk_first_line_does_not_hide_the_games(name, data, games):
    clean = read_data(data, name)
    assert len(clean.games) == games and not clean.findings
    junk = b"<html>this is not a record</html>\n"
    first = read_data(junk + data, name)
    assert not first.findings and len(first.games) == games
    assert [g.fingerprint for g in first.games] == [g.fingerprint for g in clean.games]
    said = [(f.code, f.line, f.text) for f in first.games[0].findings]
    assert said[0] == ("unparsable_line", 1, junk.decode().strip())
    # exactly as a junk line further down: said on the game before it, no game of its own
    lines = data.split(b"\n")
    cut = len(lines) // 2 + 1  # (a csa1 game is two lines: cut between two games)
    later = read_data(b"\n".join(lines[:cut] + [junk.strip()] + lines[cut:]), name)
    assert not later.findings and len(later.games) == games
    assert [g.fingerprint for g in later.games] == [g.fingerprint for g in clean.games]
    [(game, finding)] = [(g, f) for g in later.games for f in g.findings
                         if f.code == "unparsable_line"]
    assert (finding.line, finding.text, finding.severity) == (cut + 1, said[0][2], "warning")
    assert game.line < finding.line


# ----- defect 14: encodings -----------------------------------------------------------------------

REAL_KIF = RECORDS / "python-shogi/data/games/habu-fujii-2006.kif"


def _real_text() -> str:
    return REAL_KIF.read_bytes().decode("cp932").replace("\r\n", "\n")


@pytest.mark.parametrize("codec, mark", [
    ("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE),
    ("utf-32-le", codecs.BOM_UTF32_LE), ("utf-32-be", codecs.BOM_UTF32_BE),
    ("iso-2022-jp", b""),
], ids=lambda value: value if isinstance(value, str) else "")
def test_utf16_utf32_and_iso2022jp_records_are_read(codec, mark):
    original = read_data(REAL_KIF.read_bytes(), "game.kif")
    read = read_data(mark + _real_text().encode(codec), "game.kif")
    assert (read.format, read.encoding, read.findings) == ("kif", codec, [])
    assert [g.fingerprint for g in read.games] == [g.fingerprint for g in original.games]
    assert [g.raw_headers for g in read.games] == [g.raw_headers for g in original.games]


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_byte_order_mark_is_read_and_said(codec):
    original = read_data(REAL_KIF.read_bytes(), "game.kif")
    read = read_data(_real_text().encode(codec), "game.kif")
    assert read.encoding == codec
    [finding] = read.findings
    assert finding.code == "no_byte_order_mark" and finding.severity == "warning"
    assert "looks like " + codec.upper() + " without a byte-order mark" in finding.message
    assert [g.fingerprint for g in read.games] == [g.fingerprint for g in original.games]


# ----- defect 14: what makes a record -------------------------------------------------------------

RANDOM = random.Random(1).randbytes(200_000)


@pytest.mark.parametrize("data", [
    RANDOM,
    b"+---------------------------+\n" + RANDOM,  # a board border, then nothing of a board
    b"#KIF version=2.0 encoding=Shift_JIS\n" + RANDOM,  # a KIF file line, then nothing
    b"#KI2 version=2.0\n" + RANDOM,
    b"\n".join(b"|" + RANDOM[i:i + 100] for i in range(0, len(RANDOM), 100)),  # "board rows"
], ids=["random", "border", "kif-line", "ki2-line", "bars"])
def test_random_bytes_are_no_game(data):
    """Bytes in which the reader recognises no header, board, move or ending were games of no
    moves (three of them for the border, the KIF and KI2 lines, four for the bars)."""
    read = read_data(data, "random.kif")
    assert read.games == []
    reasons = [f for f in read.findings if f.code in ("not_a_record", "no_game")]
    assert len(reasons) == 1 and reasons[0].severity == "error"
    assert len(read.findings) <= 3  # with what the decoding said, and nothing else


ZERO_MOVES = [
    "shogi-kifu-converter/data/tests/kif/empty.kif",  # headers only
    "shogi-kifu-converter/data/tests/kif/empty.kifu",
    "shogihome/src/command/usi-csa-bridge/e2e/scenario/3/record.kifu",  # a board and an ending
    "shogi-kifu-converter/data/tests/csa/initial_ka.csa",  # names and a handicap
    "shogi-kifu-converter/data/tests/csa/initial_hirate.csa",
    "tsshogi/src/tests/testdata/jkf/sample02.jkf",
    "apery-wcsc28/benchmark.sfen",  # a position without moves among the games
]


@pytest.mark.parametrize("path", ZERO_MOVES)
def test_real_records_of_no_moves_are_still_games(path):
    data = (RECORDS / path).read_bytes()
    read = read_data(data, path)
    assert read.games and not read.findings
    assert any(g.written_moves == 0 for g in read.games)
    assert [g.fingerprint for g in read.games] == \
        [validate_record(r).fingerprint for r in read_bytes(data, path).records]


def test_a_board_diagram_without_headers_or_moves_is_a_game():
    text = (RECORDS / ZERO_MOVES[2]).read_text(encoding="utf-8")
    board = text[text.index("後手の持駒"):text.index("手数----")]  # the diagram alone
    game = only_game(board.encode("utf-8"), "diagram.kif")
    assert game.written_moves == 0 and game.start_sfen == "4K4/9/9/9/9/9/+r+bgggg+b+r1/ssssk4/9 w - 1"
    assert game.findings == []


# ---- a number of thousands of digits (core.numbers): its line is said, the rest is read -----

HUGE = "9" * 5000  # past Python's 4,300-digit limit on converting digits to an int
BOARD = ("後手の持駒：なし\n  ９ ８ ７ ６ ５ ４ ３ ２ １\n+---------------------------+\n"
         + "".join(f"|{row}|{rank}\n" for row, rank in zip((
             "v香v桂v銀v金v玉v金v銀v桂v香", " ・v飛 ・ ・ ・ ・ ・v角 ・", "v歩v歩v歩v歩v歩v歩v歩v歩v歩",
             " ・ ・ ・ ・ ・ ・ ・ ・ ・", " ・ ・ ・ ・ ・ ・ ・ ・ ・", " ・ ・ ・ ・ ・ ・ ・ ・ ・",
             " 歩 歩 歩 歩 歩 歩 歩 歩 歩", " ・ 角 ・ ・ ・ ・ ・ 飛 ・", " 香 桂 銀 金 玉 金 銀 桂 香"),
             "一二三四五六七八九"))
         + "+---------------------------+\n")


@pytest.mark.parametrize("name, text, moves, code", [
    ("number.kif", f"{KIF_HEAD}{HUGE} ３四歩(33)\n   2 ３四歩(33)\n", 2, "unparsable_line"),
    ("loose.kif", f"{KIF_HEAD}{HUGE} ３四歩 (33) x\n   2 ３四歩(33)\n", 2, "unparsable_line"),
    ("time.kif", f"{KIF_HEAD}   2 ３四歩(33)   ( 0:{HUGE}/0:00:01)\n   3 ２六歩(27)\n", 3,
     "bad_time"),
    ("summary.kif", f"{KIF_HEAD}   2 ３四歩(33)\nまで{HUGE}手で後手の勝ち\n", 2,
     "move_count_mismatch"),
    ("variation.kif", f"{KIF_HEAD}   2 ３四歩(33)\n変化：{HUGE}手\n", 2, "unparsable_line"),
    ("hand.kif", f"{BOARD}先手の持駒：歩{HUGE}\n   1 ７六歩(77)\n   2 ３四歩(33)\n", 2,
     "bad_start_position"),
    ("move_number.kif", f"{BOARD}手数＝{HUGE}\n   1 ７六歩(77)\n   2 ３四歩(33)\n", 2,
     "bad_start_position"),
    ("time.csa", f"{CSA_HEAD}T{HUGE}\n-3334FU\n", 2, "unparsable_line"),
    ("inline_time.csa", f"{CSA_HEAD[:-1]},T{HUGE}\n-3334FU\n", 2, "unparsable_line"),
    ("time.jkf", '{"header": {}, "moves": [{}, {"move": {"from": {"x": 7, "y": 7}, "to": {"x": 7, '
     '"y": 6}, "color": 0, "piece": "FU"}, "time": {"now": {"m": ' + HUGE + ', "s": 0}, "total": '
     '{"m": -' + HUGE + ', "s": 0}}}, {"move": {"from": {"x": 3, "y": 3}, "to": {"x": 3, "y": 4}, '
     '"color": 1, "piece": "FU"}}]}', 2, "bad_time"),
    ("start.usi", f"sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - {HUGE} "
     "moves 7g7f\nposition startpos moves 7g7f 3c3d\n", None, "bad_start_position"),
    ("hand.usi", f"sfen 4k4/9/9/9/9/9/9/9/4K4 b {HUGE}P 1 moves 5i5h\n"
     "position startpos moves 7g7f 3c3d\n", None, "bad_start_position"),
])
def test_a_number_of_thousands_of_digits_costs_its_line_not_the_file(name, text, moves, code):
    read = read_data(text.encode("utf-8"), name)
    assert "reader_error" not in codes(read.findings), read.findings
    assert read.games, read.findings
    for game in read.games:
        assert "internal_error" not in codes(game.findings), game.findings[:3]
    first = read.games[0]
    if moves is not None:  # the moves around the bad number are all read
        assert first.moves == moves, first.findings[:5]
    else:  # a USI collection: the other game is read whole
        assert read.games[-1].moves == 2
    said = [f for f in first.findings if f.code == code]  # where and why
    assert said and said[0].line is not None, first.findings[:5]


# ---- damaged real records: a reader's own failure never stands for a damaged file ----------

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

_RECORD_FILES = sorted(p for p in RECORDS.rglob("*") if p.is_file() and p.name != "MANIFEST.csv")
_INSERTS = ["9" * 5000, "同", "\u3000", "(", ")", "+", "%", "変化：", "まで", "*", "&", "手数＝",
            "|", "P", "T", "'", "$", "N+", "{", "}", "sfen ", "moves ", "\r", "\x00", "\ufeff"]


@st.composite
def _damaged(draw):
    """A real record file, damaged a few times: bytes changed, lines repeated, dropped or
    swapped, the text cut, another file spliced in, a mark or a long number inserted."""
    path = draw(st.sampled_from(_RECORD_FILES))
    data = path.read_bytes()
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.integers(0, 6))
        at = draw(st.integers(0, len(data)))
        lines = data.split(b"\n")
        line = draw(st.integers(0, len(lines) - 1))
        if kind == 0 and data:
            data = data[:max(at - 1, 0)] + bytes([draw(st.integers(0, 255))]) + data[at:]
        elif kind == 1:
            data = b"\n".join(lines[:line] + [lines[line]] * draw(st.integers(2, 50)) + lines[line:])
        elif kind == 2:
            data = b"\n".join(lines[:line] + lines[line + 1:])
        elif kind == 3:
            data = data[:at]
        elif kind == 4:
            other = draw(st.sampled_from(_RECORD_FILES)).read_bytes()
            data = data[:at] + other[:draw(st.integers(0, len(other)))] + data[at:]
        elif kind == 5:
            data = data[:at] + draw(st.sampled_from(_INSERTS)).encode("utf-8") + data[at:]
        else:
            other = draw(st.integers(0, len(lines) - 1))
            lines[line], lines[other] = lines[other], lines[line]
            data = b"\n".join(lines)
    return path.name, data


@given(_damaged())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_damaged_record_is_reported_never_failed_on(damaged):
    """Whatever the damage, every reader reads what it can and says what it cannot: the safety
    nets' ``reader_error`` (a reader failed) and ``internal_error`` (a replay failed) stay for
    bugs, and none shows here."""
    name, data = damaged
    read = read_data(data, name, lines=True)
    assert "reader_error" not in codes(read.findings), read.findings
    for game in read.games:
        assert "internal_error" not in codes(game.findings), game.findings[:3]
