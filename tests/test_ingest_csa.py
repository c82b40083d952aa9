"""The CSA and csa1 readers on the real records of tests/fixtures/records, hand-made edge cases
and hostile input.

Every fixture is decoded here with its known encoding (``Path.read_bytes().decode``), so these tests
do not depend on the decoding layer. Games are cross-checked against ``fixtures/usi/real_games.usi``,
whose entries were read by cshogi / python-shogi / rsshogi from the same corpus files.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from kifudb.core.game import Game
from kifudb.core.handicap import handicap_sfen
from kifudb.core.position import STARTING_SFEN
from kifudb.ingest.csa import ENDINGS, looks_like_csa, looks_like_csa1, read_csa, read_csa1
from kifudb.ingest.record import DeclaredEnding, GameRecord

from kifudb.core.notation.csa import parse_csa_move
from kifudb.core.notation.errors import NotationError

FIXTURES = Path(__file__).parent / "fixtures"
RECORDS = FIXTURES / "records"

CP932 = {
    "kifu-for-js/packages/Kifu-for-JS/examples/files/csa/8mai.csa",
    "kifu-for-js/packages/json-kifu-format/test/files/csa/8mai_hirate.csa",
    "kifu-for-js/packages/json-kifu-format/test/files/csa/9fu.csa",
    "kifu-for-js/packages/json-kifu-format/test/files/csa/9fu_komabetsu.csa",
    "kifu-for-js/packages/json-kifu-format/test/files/csa/chudan.csa",
    "kifu-for-js/packages/json-kifu-format/test/files/csa/example.csa",
    "kifu-for-js/packages/json-kifu-format/test/files/csa/formal.csa",
    "kifu-for-js/packages/json-kifu-format/test/files/csa/illegal_lose.csa",
    "kifu-for-js/packages/json-kifu-format/test/files/csa/illegal_win.csa",
    "kifu-for-js/packages/json-kifu-format/test/files/csa/noeol.csa",
    "shogihome/_history/src/tests/testdata/conversion/csa-sjis.csa",
    "shogihome/src/tests/testdata/conversion/input/csa-sjis.csa",
    "yaneuraou-nodchip/_history/src/testdata/csa1line/utf82chkifu.csa",  # Shift_JIS despite its name
}
EUC_JP = {"kifu-for-js/packages/json-kifu-format/test/files/csa/2005_YAMADA_GPS.csa"}
CSA1_FILES = ["apery-wcsc28/kifu.csa1", "yaneuraou-nodchip/_history/src/testdata/csa1line/utf82chkifu.csa"]
CSA_FILES = sorted(str(p.relative_to(RECORDS)) for p in RECORDS.rglob("*.csa")
                   if str(p.relative_to(RECORDS)) not in CSA1_FILES)
APERY = sorted(f for f in CSA_FILES if f.startswith("apery-wcsc28/kifu/"))
CSA_RS = ["csa-rs/fixtures/v1.csa", "csa-rs/fixtures/v2.csa", "csa-rs/fixtures/v2_1.csa",
          "csa-rs/fixtures/v2_2.csa"]
JSON_KIFU = "kifu-for-js/packages/json-kifu-format/test/files/csa/"
CONVERTER = "shogi-kifu-converter/data/tests/csa/"
SHOGIHOME_V3 = "shogihome/src/tests/testdata/conversion/output/all-to-csa/v3/"
FLOODGATE_KACHI = JSON_KIFU + "dr1test1test0+tu-1_aobazero_viper-300-5F+aobazero+viper+20200719201040.csa"


def encoding_of(rel: str) -> str:
    if rel in CP932:
        return "cp932"
    if rel in EUC_JP:
        return "euc-jp"
    if rel.startswith("apery-wcsc28/kifu/"):
        return "utf-8-sig"  # UTF-8 with a byte-order mark
    return "utf-8"


def text_of(rel: str, encoding: str = "") -> str:
    return (RECORDS / rel).read_bytes().decode(encoding or encoding_of(rel))


def read(rel: str) -> list:
    return read_csa(text_of(rel), source=rel, encoding=encoding_of(rel))


def only(rel: str) -> GameRecord:
    games = read(rel)
    assert len(games) == 1, rel
    return games[0]


def _real_games() -> dict:
    """(corpus path, 1-based index) -> (start SFEN, USI moves, ending or None)."""
    lines = (FIXTURES / "usi" / "real_games.usi").read_text(encoding="utf-8").splitlines()
    games = {}
    for comment, body in zip(lines, lines[1:]):
        if not comment.startswith("# ") or not body.startswith("sfen "):
            continue
        path, _, rest = comment[2:].rpartition(" #")
        words = rest.split()
        if not path:
            continue
        start, _, moves = body[len("sfen "):].partition(" moves")
        ending = next((w for w in words[1:] if w.startswith("%")), None)
        games[(path, int(words[0]))] = (start, moves.split(), ending)
    return games


REAL = _real_games()


def replay(record: GameRecord):
    """(Game, ply of the first move that fails or None, why)."""
    game = Game(record.start_sfen)
    for ply, move in enumerate(record.moves, start=1):
        try:
            parsed = parse_csa_move(game.position, move.text)
        except NotationError as error:
            return game, ply, str(error)
        reason = game.play(parsed)
        if reason is not None:
            return game, ply, str(reason)
    return game, None, ""


# ----- the fixture files, cross-checked ----------------------------------------------------------

def test_the_fixture_lists_are_complete():
    assert len(CSA_FILES) == 90 and len(APERY) == 30
    assert all((RECORDS / f).exists() for f in CSA1_FILES)


@pytest.mark.parametrize("rel", CSA_FILES)
def test_every_csa_fixture_matches_the_reference_readings(rel):
    """Start, every move and the ending agree with cshogi/python-shogi/rsshogi's readings."""
    for record in read(rel):
        key = (rel, record.index + 1)
        if key not in REAL:  # start positions the reference libraries rejected: tested below
            assert rel.endswith(("9fu.csa", "9fu_komabetsu.csa", "tsumeshogi.csa")), key
            continue
        start, usi_moves, ending = REAL[key]
        game, bad_ply, why = replay(record)
        assert bad_ply is None, (rel, bad_ply, why)
        assert game.start_sfen == start
        assert [m.usi() for m in game.moves] == usi_moves
        assert (record.ending.word if record.ending else None) == ending
        assert record.format == "csa" and record.source == rel
        assert all(m.notation == "csa" for m in record.moves)


@pytest.mark.parametrize("rel", CSA_FILES)
def test_real_records_read_without_findings(rel):
    """Only one real record has something to report: a floodgate log that writes %KACHI twice."""
    findings = [(f.severity, f.code, f.line, f.text) for g in read(rel) for f in g.findings]
    if rel == FLOODGATE_KACHI:
        assert findings == [("warning", "unparsable_line", 1221, "%KACHI")]
    else:
        assert findings == []


def test_every_fixture_game_replays_legally():
    """Every move of every CSA and csa1 fixture game is legal (no fixture holds a known illegal
    move: the %ILLEGAL_MOVE games of WCSC28 record the ending, not the illegal move)."""
    known_illegal: dict = {}
    games = [g for rel in CSA_FILES for g in read(rel)]
    games += [g for rel in CSA1_FILES for g in read_csa1(text_of(rel))]
    assert len(games) == 90 + 27
    illegal = {}
    for record in games:
        _, bad_ply, why = replay(record)
        if bad_ply is not None:
            illegal[(record.source, record.index)] = (bad_ply, why)
    assert illegal == known_illegal
    assert sum(len(g.moves) for g in games) == 10729


def test_csa_rs_gives_one_game_in_every_version():
    records = [only(rel) for rel in CSA_RS]
    for record in records:
        assert [(m.text, m.seconds) for m in record.moves] == [("+2726FU", 12), ("-3334FU", 6)]
        assert record.start_sfen == STARTING_SFEN and record.handicap is None
        assert record.ending.word == "%CHUDAN" and record.ending.mover == 0
        assert (record.headers["black"], record.headers["white"]) == ("NAKAHARA", "YONENAGA")
        assert record.headers["N+"] == "NAKAHARA"
    assert [r.headers.get("version") for r in records] == [None, "V2", "V2.1", "V2.2"]
    for record in records[1:]:
        assert record.headers["$EVENT"] == "13th World Computer Shogi Championship"
        assert record.headers["$TIME_LIMIT"] == "00:25+00"
        assert record.headers["$START_TIME"] == "2003/05/03 10:30:00"
    assert "$EVENT" not in records[0].headers
    # the moves keep the line numbers of the file
    assert [m.line for m in records[0].moves] == [19, 21]
    assert records[0].ending.line == 23
    # comments before the first move are the game's; after the ending too (V2.2's last line)
    assert records[0].comments[0] == "http://www.computer-shogi.org/wcsc12/record.html"
    assert [len(r.comments) for r in records] == [6, 14, 14, 15]
    assert records[3].comments[-1] == "-" * 57


# ----- endings ------------------------------------------------------------------------------

@pytest.mark.parametrize("rel", APERY)
def test_every_apery_ending_maps_to_its_word_and_mover(rel):
    record = only(rel)
    expected = REAL[(rel, 1)][2]
    assert expected in ENDINGS
    assert isinstance(record.ending, DeclaredEnding)
    assert record.ending.word == expected
    assert record.ending.mover == len(record.moves) % 2  # Black starts: count the moves
    assert record.ending.seconds is not None  # the T line after the % line
    lines = text_of(rel).splitlines()
    assert lines[record.ending.line - 1] == expected
    assert record.headers["version"] == "V2.2"
    assert all(m.seconds is not None for m in record.moves)


def test_the_apery_endings_cover_the_special_moves():
    words = {only(rel).ending.word for rel in APERY}
    assert words == {"%TORYO", "%SENNICHITE", "%KACHI", "%ILLEGAL_MOVE", "%TIME_UP", "%CHUDAN",
                     "%+ILLEGAL_ACTION", "%-ILLEGAL_ACTION"}


def test_illegal_action_keeps_the_offender_sign_and_the_side_to_move():
    black = only("apery-wcsc28/kifu/utf8_WCSC28_L8_WOD_YUU.csa").ending
    white = only("apery-wcsc28/kifu/utf8_WCSC28_L5_YAM_WOD.csa").ending
    assert (black.word, black.mover) == ("%+ILLEGAL_ACTION", 0)
    assert (white.word, white.mover) == ("%-ILLEGAL_ACTION", 1)
    kachi = only("apery-wcsc28/kifu/utf8_WCSC28_U8_MCB_HFW.csa")
    assert (kachi.ending.word, kachi.ending.mover, len(kachi.moves)) == ("%KACHI", 1, 223)
    time_up = only("apery-wcsc28/kifu/utf8_WCSC28_L7_NRK_KFW.csa").ending
    assert (time_up.word, time_up.seconds) == ("%ILLEGAL_MOVE", 16)


def test_the_mover_counts_from_a_white_start():
    record = only(JSON_KIFU + "8mai_hirate.csa")  # 八枚落ち: White moves first
    assert len(record.moves) == 25  # ... so after 25 moves Black is to move
    assert record.ending.word == "%CHUDAN" and record.ending.mover == 0


def test_every_ending_word_is_read():
    for word in sorted(ENDINGS):
        [record] = read_csa(f"PI\n+\n+7776FU\n{word}\nT3.5\n")
        assert record.ending == DeclaredEnding(word, line=4, mover=1, seconds=3.5)
        assert record.findings == []
    [record] = read_csa("PI\n+\n%FOO\n")
    assert record.ending.word == "%FOO" and [f.code for f in record.findings] == ["unknown_ending"]


def test_moves_after_the_ending_are_kept_and_reported():
    [record] = read_csa("PI\n+\n+7776FU\n%TORYO\n'after\n-3334FU\nT5\n+2726FU\n")
    assert [m.text for m in record.moves] == ["+7776FU", "-3334FU", "+2726FU"]
    assert record.moves[1].seconds == 5
    assert record.ending.word == "%TORYO" and record.ending.mover == 1
    assert record.comments == ["after"]
    [finding] = record.findings
    assert (finding.severity, finding.code, finding.line, finding.ply) == \
           ("warning", "moves_after_ending", 6, 2)
    assert "2 move(s)" in finding.message


def test_a_second_ending_is_reported_not_lost():
    record = only(FLOODGATE_KACHI)
    assert record.ending.word == "%KACHI" and record.ending.line == 1219
    assert record.ending.seconds == 10 and record.ending.mover == 0
    assert record.comments[-14] == "* -5000 win"  # the comment joined to the first %KACHI


# ----- start positions ----------------------------------------------------------------------

@pytest.mark.parametrize("pi, name", [
    ("PI11KY", "香落ち"), ("PI91KY", "右香落ち"), ("PI22KA", "角落ち"), ("PI82HI", "飛車落ち"),
    ("PI82HI11KY", "飛香落ち"), ("PI82HI22KA", "二枚落ち"), ("PI82HI22KA11KY", "三枚落ち"),
    ("PI82HI22KA11KY91KY", "四枚落ち"), ("PI82HI22KA11KY91KY21KE81KE", "六枚落ち"),
    ("PI11KY21KE22KA31GI71GI81KE82HI91KY", "八枚落ち"),
    ("PI11KY21KE22KA31GI41KI61KI71GI81KE82HI91KY", "十枚落ち"),
])
def test_pi_handicaps(pi, name):
    [record] = read_csa(f"V2.2\n{pi}\n-\n-5142OU\n")
    assert record.start_sfen == handicap_sfen(name)
    assert record.handicap == name
    assert record.findings == []


def test_pi_handicap_records_from_kifu_for_windows():
    pi = only(JSON_KIFU + "8mai_hirate.csa")
    board = only("kifu-for-js/packages/Kifu-for-JS/examples/files/csa/8mai.csa")
    assert pi.start_sfen == board.start_sfen == handicap_sfen("八枚落ち")
    assert pi.handicap == board.handicap == "八枚落ち"
    assert [m.text for m in pi.moves] == [m.text for m in board.moves]
    assert pi.headers["encoding"] == "Shift_JIS"  # 'encoding=Shift_JIS is a header, not a comment
    assert pi.comments == [" ---- Kifu for Windows V7 V7.08 CSA形式棋譜ファイル ----"]


@pytest.mark.parametrize("suffix, name", [("2", "二枚落ち"), ("4", "四枚落ち"), ("6", "六枚落ち"),
                                          ("hi", "飛車落ち"), ("ka", "角落ち"), ("ky", "香落ち"),
                                          ("hirate", None)])
def test_board_handicaps(suffix, name):
    """shogi-kifu-converter writes handicaps as P1..P9 boards; the first comment names them."""
    record = only(f"{CONVERTER}initial_{suffix}.csa")
    assert record.start_sfen == handicap_sfen(name or "平手")
    assert record.handicap == name
    assert record.comments[0] == (name or "平手")
    assert record.moves == [] and record.ending is None


def test_a_p1_to_p9_problem_and_the_same_as_piece_lists():
    board = only(JSON_KIFU + "9fu.csa")
    pieces = only(JSON_KIFU + "9fu_komabetsu.csa")
    expected = "7pk/7p1/7p1/7p1/7p1/7p1/7p1/7p1/7p1 b 2R4L4s4n 1"
    assert board.start_sfen == pieces.start_sfen == expected
    assert [m.text for m in board.moves] == [m.text for m in pieces.moves]
    assert len(board.moves) == 61 and board.ending.word == "%TSUMI" and board.ending.mover == 1
    assert board.ending.seconds == 4


def test_all_remaining_pieces_go_to_hand_with_00AL():
    record = only(CONVERTER + "tsumeshogi.csa")
    # the board holds 2 dragons, 2 bishops, a lance and 3 pawns + a tokin: White holds the rest
    assert record.start_sfen == "9/9/3pp4/+r2k1p3/2L1+p4/2+R6/B8/B8/9 b 4g4s4n3l14p 1"
    assert [m.text for m in record.moves] == ["+7572NY", "-0086KE", "+7673RY"]
    assert record.ending.word == "%TSUMI" and record.ending.mover == 1
    assert record.findings == []


def test_the_problems_end_in_mate():
    for rel in (JSON_KIFU + "9fu.csa", JSON_KIFU + "9fu_komabetsu.csa", CONVERTER + "tsumeshogi.csa"):
        game, bad_ply, _ = replay(only(rel))
        assert bad_ply is None
        assert game.final_ending().reason == "checkmate"


def test_piece_lists_add_to_a_board_and_00AL_counts_hands():
    text = "P-51OU\nP+59OU\nP+00KI00KI\nP-33FU\nP-00AL\n+\n"
    [record] = read_csa(text)
    assert record.start_sfen == "4k4/9/6p2/9/9/9/9/9/4K4 b 2G2r2b2g4s4n4l17p 1"
    assert record.findings == []
    [record] = read_csa("PI\nP+00KA\n+\n")  # a piece list after PI adds (here: a third bishop)
    assert record.start_sfen.endswith(" b B 1")
    assert [f.code for f in record.findings] == ["bad_start_position"]
    assert "3 bishops" in record.findings[0].message


def test_empty_piece_lists_and_a_white_start_in_sunfish_pro_records():
    record = only("sunfish4/kifu/learn/pro10/kifu25654.csa")  # P+ and P- lines with nothing after
    assert record.start_sfen == handicap_sfen("香落ち") and record.handicap == "香落ち"
    assert record.moves[0].text == "-3334FU"


def test_malformed_start_lines_are_reported_and_reading_goes_on():
    text = "\n".join([
        "P1-KY-KE-GI-KI-OU-KI-GI-KE-KY",
        "P2 * -HI *  *  *  *  * -KA",      # 8 squares
        "P3-FU-FU-FU-FU-FU-FU-FU-FU-XX",   # unknown piece
        "P4 *  *  *  *  *  *  *  *  * ",
        "P5 *  *  *  *  *  *  *  *  * ",
        "P6 *  *  *  *  *  *  *  *  * ",
        "P7+FU+FU+FU+FU+FU+FU+FU+FU+FU",
        "P8 * +KA *  *  *  *  * +HI * ",
        # P9 missing
        "P+00K",                           # truncated piece list
        "P-99ZZ",
        "+",
        "+7776FU",
        "-3334FU",
        "%TORYO",
    ])
    [record] = read_csa(text)
    bad = [(f.severity, f.code, f.line) for f in record.findings]
    assert bad == [("error", "bad_start_position", 2), ("error", "bad_start_position", 3),
                   ("error", "bad_start_position", 9), ("error", "bad_start_position", 10),
                   ("error", "bad_start_position", 1)]
    assert record.findings[0].text == "P2 * -HI *  *  *  *  * -KA"
    assert "8 squares" in record.findings[0].message
    assert "P9" in record.findings[-1].message
    assert [m.text for m in record.moves] == ["+7776FU", "-3334FU"]
    assert record.ending.word == "%TORYO"
    # what could be read is kept: P3 lost its 1c pawn, rank 9 is empty
    assert record.start_sfen == "lnsgkgsnl/1r5b1/pppppppp1/9/9/9/PPPPPPPPP/1B5R1/9 b - 1"


def test_a_start_the_rules_reject_is_reported_and_kept():
    [record] = read_csa("P-51OU52OU\nP+59OU\n+\n")
    assert [(f.code, f.line) for f in record.findings] == [("bad_start_position", 1)]
    assert "3 kings: a set has only 2" in record.findings[0].message
    assert record.start_sfen == "4k4/4k4/9/9/9/9/9/9/4K4 b - 1"


def test_pi_removing_a_piece_that_is_not_there():
    [record] = read_csa("PI55KA82HI\n-\n")
    assert record.start_sfen == handicap_sfen("飛車落ち")
    [finding] = record.findings
    assert finding.code == "bad_start_position" and "55" in finding.message


def test_missing_side_or_start_is_reported_with_what_is_assumed():
    [record] = read_csa("-3334FU\n")
    assert record.start_sfen == STARTING_SFEN.replace(" b ", " w ")
    assert sorted(f.code for f in record.findings) == ["bad_start_position"] * 2
    [record] = read_csa("PI\n+7776FU\n")
    assert record.start_sfen == STARTING_SFEN
    assert [f.message.split(";")[0] for f in record.findings] == \
           ["no side-to-move line (+ or -) after the start position"]


# ----- headers, V3.0, commas, comments ------------------------------------------------------

V3_HAND_MADE = """'CSA encoding=UTF-8
V3.0
N+先手,N-後手
$EVENT:V3.0 example
$TIME:600+10+0.5
$TIME+:300+0+5.5
$MAX_MOVES:256
$JISHOGI:27
$NOTE:hand-made, after the V3.0 spec, with a comma
PI
+
+2726FU,T12.345
-8384FU
T0.5
'* a comment, with commas, after a move
+2625FU,T1,'** 120 -8485FU
%MAX_MOVES
T1.25
"""


def test_v3_decimal_times_and_headers():
    [record] = read_csa(V3_HAND_MADE, source="v3.csa", encoding="utf-8")
    assert record.headers["encoding"] == "UTF-8" and record.headers["version"] == "V3.0"
    assert (record.headers["black"], record.headers["white"]) == ("先手", "後手")
    assert record.headers["$TIME+"] == "300+0+5.5" and record.headers["$JISHOGI"] == "27"
    assert record.headers["$NOTE"] == "hand-made, after the V3.0 spec, with a comma"
    assert [(m.text, m.line, m.seconds) for m in record.moves] == \
           [("+2726FU", 12, 12.345), ("-8384FU", 13, 0.5), ("+2625FU", 16, 1)]
    assert record.moves[1].comments == ["* a comment, with commas, after a move"]
    assert record.moves[2].comments == ["** 120 -8485FU"]
    assert record.ending == DeclaredEnding("%MAX_MOVES", line=17, mover=1, seconds=1.25)
    assert record.comments == [] and record.findings == []


@pytest.mark.parametrize("name", ["csa-sjis", "ki2-sjis", "ki2u-utf8", "kifu-utf8"])
def test_shogihome_v3_exports(name):
    v3 = only(f"{SHOGIHOME_V3}{name}.csa")
    v2 = only(f"shogihome/src/tests/testdata/conversion/output/all-to-csa/not-create-subdir/{name}.csa")
    assert v3.headers["encoding"] == "UTF-8" and v3.headers["version"] == "V3.0"
    assert v2.headers["version"] == "V2.2" and "encoding" not in v2.headers
    assert v3.headers["$START_TIME"] == " 13:28:35"  # as written
    assert [(m.text, m.seconds) for m in v3.moves] == [(m.text, m.seconds) for m in v2.moves]
    assert v3.comments == []


def test_comma_joined_lines_keep_their_physical_line():
    record = only("kifu-for-js/packages/Kifu-for-JS/examples/files/csa/8mai.csa")
    text = text_of("kifu-for-js/packages/Kifu-for-JS/examples/files/csa/8mai.csa").split("\n")
    assert [(m.text, m.seconds) for m in record.moves[:3]] == [("-6172KI", 3), ("+7776FU", 1),
                                                               ("-4132KI", 2)]
    for move in record.moves:
        assert text[move.line - 1].startswith(move.text + ",T")
    assert record.ending.word == "%CHUDAN" and record.ending.seconds == 39
    [record] = read_csa("N+foo,N-bar\nPI,+\n+7776FU,T1,-3334FU,T2\n")
    assert (record.headers["black"], record.headers["white"]) == ("foo", "bar")
    assert [(m.text, m.line, m.seconds) for m in record.moves] == [("+7776FU", 3, 1),
                                                                   ("-3334FU", 3, 2)]


def test_padded_comma_joined_lines_with_comments():
    """GPS's 2005 log pads the statements and joins three comments to every move."""
    record = only(JSON_KIFU + "2005_YAMADA_GPS.csa")
    first = record.moves[0]
    assert (first.text, first.line, first.seconds) == ("+7776FU", 18, 0)
    assert first.comments == ["T0", "7776", "   1手目  ▲7六歩"]
    assert sum(len(m.comments) for m in record.moves) == 3 * len(record.moves) == 321
    assert record.headers["white"] == "山田将棋 Version 2.18 (LEVEL5)"


@pytest.mark.parametrize("rel, game_comments, move_comments", [
    ("shogi-kifu-converter/data/tests/csa/floodgate.csa", 21, 125),
    (JSON_KIFU + "v2.csa", 20, 196),
    (JSON_KIFU + "2005_GPS_K-SHOGI.csa", 4, 173),
    ("shogihome/src/command/usi-csa-bridge/e2e/scenario/27/record.csa", 0, 18),
    ("yaneuraou-nodchip/_history/src/testdata/csa/"
     "wdoor+floodgate-600-10+01WishBlue_07+Apery_i5-4670+20150415003002.csa", 17, 134),
    ("sunfish4/kifu/learn/pro10/kifu09136.csa", 13, 0),
])
def test_comments_are_kept(rel, game_comments, move_comments):
    record = only(rel)
    assert len(record.comments) == game_comments
    assert sum(len(m.comments) for m in record.moves) == move_comments
    text = text_of(rel)
    assert text.count("\n'") + text.startswith("'") == game_comments + move_comments


def test_engine_comments_keep_the_text_after_the_quote():
    record = only("shogi-kifu-converter/data/tests/csa/floodgate.csa")
    assert record.moves[0].comments[0].startswith("** 113 -3334FU +2625FU")
    assert record.comments[0] == "wdoor+floodgate-300-10F+10b_n003_1060+40b_n007_1050Ti+20210405160009.csa"
    assert record.comments[-2:] == ["summary:toryo:10b_n003_1060 win:40b_n007_1050Ti lose",
                                     "$END_TIME:2021/04/05 16:25:34"]
    bridge = only("shogihome/src/command/usi-csa-bridge/e2e/scenario/27/record.csa")
    assert bridge.moves[1].comments == ["*互角", "**評価値=-35", "**読み筋=▲２五歩△８五歩", "**深さ=8",
                                        "**ノード数=12345", "**エンジン=usi-csa-bridge"]
    assert bridge.headers["$TIME"] == "30+0+5" and bridge.headers["$END_TIME"] == ""


def test_duplicate_headers_keep_the_first_and_say_so():
    [record] = read_csa("N+a\nN+b\n$EVENT:x\n$EVENT:x\nPI\n+\n")
    assert record.headers["N+"] == "a" and record.headers["black"] == "a"
    assert [(f.code, f.line) for f in record.findings] == [("duplicate_header", 2)]


def test_a_byte_order_mark_left_in_the_text_is_tolerated():
    rel = APERY[0]
    with_bom = read_csa(text_of(rel, "utf-8"))
    assert text_of(rel, "utf-8").startswith("\ufeff")
    assert with_bom[0].headers["version"] == "V2.2"
    assert [m.text for m in with_bom[0].moves] == [m.text for m in only(rel).moves]
    assert with_bom[0].findings == []


def test_crlf_and_cr_line_ends():
    text = text_of(CSA_RS[3])
    lf = read_csa(text)[0]
    for ending in ("\r\n", "\r"):
        other = read_csa(text.replace("\n", ending))[0]
        assert [(m.text, m.line, m.seconds) for m in other.moves] == \
               [(m.text, m.line, m.seconds) for m in lf.moves]


# ----- several games in one file ------------------------------------------------------------

def test_several_games_separated_by_slash_lines():
    parts = [text_of(SHOGIHOME_V3 + "kifu-utf8.csa"), "PI\n+\n+7776FU\nT1.5\n%TORYO\n",
             text_of(JSON_KIFU + "8mai_hirate.csa"), text_of(CSA_RS[3])]
    text = "\n/\n".join(p.rstrip("\n") for p in parts) + "\n/\n"
    games = read_csa(text, source="multi.csa", encoding="utf-8")
    assert [g.index for g in games] == [0, 1, 2, 3]
    singles = [read_csa(p)[0] for p in parts]
    offset = 0
    for game, single, part in zip(games, singles, parts):
        assert game.first_line == offset + 1
        assert [(m.text, m.seconds, m.line - offset) for m in game.moves] == \
               [(m.text, m.seconds, m.line) for m in single.moves]
        assert game.start_sfen == single.start_sfen and game.source == "multi.csa"
        offset += len(part.rstrip("\n").split("\n")) + 1
    # V3.0 writes encoding and version once: the second game inherits them
    assert games[1].headers == {"encoding": "UTF-8", "version": "V3.0"}
    assert games[1].ending.word == "%TORYO" and games[1].moves[0].seconds == 1.5
    assert games[2].headers["version"] == "V2.2" and games[2].handicap == "八枚落ち"
    assert all(g.findings == [] for g in games)


# ----- csa1 ---------------------------------------------------------------------------------

@pytest.mark.parametrize("rel, count", [(CSA1_FILES[0], 24), (CSA1_FILES[1], 3)])
def test_csa1_files(rel, count):
    games = read_csa1(text_of(rel), source=rel, encoding=encoding_of(rel))
    assert [g.index for g in games] == list(range(count))
    for game in games:
        assert game.format == "csa1" and game.findings == []
        assert int(game.headers["plies"]) == len(game.moves)
        assert len(REAL[(rel, game.index + 1)][1]) == len(game.moves)
        assert game.first_line == 2 * game.index + 1
        assert all(m.line == game.first_line + 1 and len(m.text) == 6 for m in game.moves)
        assert game.headers["black"] and game.headers["white"]
        assert game.start_sfen == STARTING_SFEN


def test_csa1_headers_with_names_that_contain_spaces():
    games = read_csa1(text_of(CSA1_FILES[0]))
    tnk = "the end of genesis T.N.K.evolution turbo type D"
    assert (games[7].headers["black"], games[7].headers["white"]) == ("ArgoCorse_IcSyo", tnk)
    assert (games[15].headers["black"], games[15].headers["white"]) == (tnk, "大合神クジラちゃん2")
    assert (games[20].headers["black"], games[20].headers["white"]) == ("Hefeweizen", tnk)
    assert games[0].headers == {"no": "1", "date": "kifu/utf8_WCSC28_L1_HFW_KMA", "result": "1",
                                "plies": "83", "event": "?", "opening": "10000000",
                                "black": "Hefeweizen", "white": "こまあそび"}
    yane = read_csa1(text_of(CSA1_FILES[1]))
    assert (yane[0].headers["black"], yane[0].headers["white"], yane[0].headers["result"],
            yane[0].headers["event"], yane[0].headers["date"]) == \
           ("羽生善治", "谷川浩司", "2", "王位戦", "2003/09/08")


def test_csa1_names_that_cannot_be_split():
    [game] = read_csa1("1 2020/01/01 a b c 1 2 ev op\n7776FU3334FU\n")
    assert game.headers["players"] == "a b c" and "black" not in game.headers
    assert [f.code for f in game.findings] == ["ambiguous_players"]


@pytest.mark.parametrize("rel", CSA1_FILES)
def test_csa1_moves_match_the_reference_readings(rel):
    for game in read_csa1(text_of(rel)):
        replayed, bad_ply, why = replay(game)
        assert bad_ply is None, why
        assert [m.usi() for m in replayed.moves] == REAL[(rel, game.index + 1)][1]


def test_csa1_damage_is_reported():
    games = read_csa1("1 d a b 1 3 e o\n7776FU3334XX2726F\nnot csa1\n7776FU\n2 x\n")
    assert [m.text for m in games[0].moves] == ["7776FU", "3334XX"]
    codes = [(f.code, f.line) for f in games[0].findings]
    assert codes == [("unparsable_line", 2), ("unparsable_line", 2), ("unparsable_line", 3),
                     ("move_count_mismatch", 1)]
    assert games[1].moves[0].text == "7776FU" and games[1].findings[0].code == "unparsable_line"
    # a header line too short to be a game's is no game: said on the game before it
    assert len(games) == 2
    assert [(f.code, f.line, f.text) for f in games[1].findings[1:]] == \
        [("unparsable_line", 5, "2 x")]


# ----- sniffers -----------------------------------------------------------------------------

def test_sniffers_on_every_fixture_record():
    for path in sorted(RECORDS.rglob("*")):
        if not path.is_file():
            continue
        rel = str(path.relative_to(RECORDS))
        data = path.read_bytes()
        encoding = encoding_of(rel)
        if rel not in CP932 and rel not in EUC_JP:
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                encoding = "cp932"
        text = data.decode(encoding, errors="replace")
        assert looks_like_csa(text) == (rel in CSA_FILES), rel
        assert looks_like_csa1(text) == (rel in CSA1_FILES), rel
    usi = (FIXTURES / "usi" / "real_games.usi").read_text(encoding="utf-8")
    assert not looks_like_csa(usi) and not looks_like_csa1(usi)


# ----- hostile input ------------------------------------------------------------------------

def check_sane(games, text):
    assert games and all(isinstance(g, GameRecord) for g in games)
    assert [g.index for g in games] == list(range(len(games)))
    assert not any(f.code == "reader_error" for g in games for f in g.findings)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for game in games:
        assert isinstance(game.start_sfen, str)
        for move in game.moves:
            assert move.text in lines[move.line - 1]


def test_empty_text_and_slash_only():
    for text in ("", "\n\n", "/", "/\n/\n", "\ufeff"):
        games = read_csa(text)
        assert len(games) == 1 and [f.code for f in games[0].findings] == ["no_game"]
        assert games[0].moves == []
        # "/" is no csa1 line: the text has no game, and its one finding counts them
        [finding] = read_csa1(text)[0].findings
        assert finding.code == "no_game"
        assert ("unparsable_line" in finding.message) == ("/" in text)


def test_binary_junk_decoded_as_latin1():
    junk = random.Random(7).randbytes(50_000).decode("latin-1")
    for reader in (read_csa, read_csa1):
        games = reader(junk)
        check_sane(games, junk)
        assert any(g.findings for g in games)
    assert not looks_like_csa(junk) and not looks_like_csa1(junk)


def test_truncated_lines_of_a_real_record():
    lines = text_of(JSON_KIFU + "2005_YAMADA_GPS.csa").split("\n")
    text = "\n".join(line[: i % 9] for i, line in enumerate(lines))
    games = read_csa(text)
    check_sane(games, text)
    assert any(f.code == "bad_start_position" for f in games[0].findings)
    assert any(f.code == "unparsable_line" for f in games[0].findings)


def test_ten_thousand_garbage_lines():
    text = "\n".join(f"garbage {i} ,,, %% $ P" for i in range(10_000))
    for reader in (read_csa, read_csa1):
        # no statement of a game: no game, and one finding that counts the lines
        [record] = reader(text)
        [finding] = record.findings
        assert not record.recognised and (finding.code, finding.line) == ("no_game", 1)
        assert "10,000 findings: unparsable_line 10,000" in finding.message
    # in a game, one a line up to 100, and the count of the others
    [game] = read_csa("N+a\n" + text)
    assert [(f.severity, f.code) for f in game.findings if f.code != "bad_start_position"] == \
        [("warning", "unparsable_line")] * 100 + [("warning", "too_many_findings")]
    assert (game.findings[99].line, game.findings[99].text) == (101, "garbage 99 ,,, %% $ P")
    assert game.findings[100].message == "… and 9,900 more unparsable_line findings in this game"


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_random_text_never_raises(text):
    check_sane(read_csa(text), text)
    check_sane(read_csa1(text), text)
    looks_like_csa(text), looks_like_csa1(text)


STATEMENTS = ["PI", "PI82HI", "+", "-", "+7776FU", "-3334FU", "+0055KA,T3", "T12", "T1.5", "%TORYO",
              "/", "P1-KY-KE * ", "P+00AL", "P-00KI", "P2 * ", "'comment, with a comma", "N+a,N-b",
              "$EVENT:x,y", "V2.2", "'CSA encoding=UTF-8", "+77", "-3334FU,'c,%CHUDAN", "P9+OU",
              "7776FU", "T", "%", "P", "N", "$"]
MOVES_IN = {"+7776FU": 1, "-3334FU": 1, "+0055KA,T3": 1, "+77": 1, "-3334FU,'c,%CHUDAN": 1,
            "7776FU": 1}
ENDS_IN = {"%TORYO": 1, "-3334FU,'c,%CHUDAN": 0}  # %CHUDAN there is inside a comment


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(STATEMENTS), st.text(alphabet="abxyz *.", max_size=8)),
                max_size=60))
def test_random_csa_statements_lose_nothing(lines):
    text = "\n".join(lines)
    games = read_csa(text)
    check_sane(games, text)
    assert sum(len(g.moves) for g in games) == sum(MOVES_IN.get(line, 0) for line in lines)
    endings = sum(g.ending is not None for g in games)
    extra = sum(1 for g in games for f in g.findings if f.text == "%TORYO")
    assert endings + extra == sum(ENDS_IN.get(line, 0) for line in lines)


def test_csa1_names_the_winner_but_not_the_reason():
    from kifudb.ingest.validate import validate_record
    text = (RECORDS / "apery-wcsc28" / "kifu.csa1").read_bytes().decode("utf-8")
    games = [validate_record(r) for r in read_csa1(text)]
    assert {g.record.ending.word for g in games} <= {"result=0", "result=1", "result=2"}
    assert all(g.winner in ("black", "white", "draw") for g in games)
