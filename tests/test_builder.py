"""The record builder (ingest.builder) that every reader hands what it recognised to: its rules one
by one, and the same rule seen through the KIF, CSA and JKF readers."""

from __future__ import annotations

import json

import pytest

from kifudb.core.handicap import handicap_sfen
from kifudb.core.position import STARTING_SFEN
from kifudb.ingest.builder import Dialect, RecordBuilder, quote
from kifudb.ingest.csa import read_csa
from kifudb.ingest.jkf import read_jkf
from kifudb.ingest.kif import read_kif

PLAIN = Dialect("usi", frozenset({"resign", "abort"}), "the test endings")
GAME_COMMENTS = Dialect("csa", frozenset({"%TORYO"}), "the test endings",
                        second_ending="unparsable_line", comments_after_ending="game")


def builder(dialect=PLAIN) -> RecordBuilder:
    return RecordBuilder("test", 0, "usi", "utf-8", dialect, first_line=1)


def codes(record) -> list:
    return [(f.code, f.line, f.ply) for f in record.findings]


# ----- headers and findings -----------------------------------------------------------------

def test_a_header_given_again_keeps_the_first_value():
    b = builder()
    assert b.header("black", "A", 1) and b.header("black", "A", 2)  # the same value: no finding
    assert not b.header("black", "B", 3, "black: B")
    record = b.finish()
    assert record.headers == {"black": "A"}
    [finding] = record.findings
    assert (finding.code, finding.line, finding.text) == ("duplicate_header", 3, "black: B")


def test_findings_quote_their_text_stripped_and_cut():
    b = builder()
    finding = b.add("warning", "x", "m", 4, 2, "   " + "y" * 300 + "  ")
    assert finding.text == quote("y" * 300) and len(finding.text) == 201
    assert b.record.findings == [finding]


# ----- the start position -------------------------------------------------------------------

def test_the_even_start_when_nothing_is_given():
    b = builder()
    b.move("7g7f", 2)  # the first move settles the start
    assert b.settled and b.record.start_sfen == STARTING_SFEN and b.record.handicap is None
    b.start(handicap_sfen("香落ち"))  # once settled, it stays
    assert b.record.start_sfen == STARTING_SFEN


def test_a_handicap_name_gives_its_position_and_white_moves_first():
    b = builder()
    b.start(name="KY", name_line=3)
    assert b.record.start_sfen == handicap_sfen("香落ち") and b.record.handicap == "香落ち"
    b.move("3c3d", 5)
    assert b.end("resign", 6).mover == 0  # after White's move, Black is to move
    assert b.finish().findings == []


def test_a_board_wins_over_a_name():
    board = "4k4/9/9/9/9/9/9/9/4K4 b G 1"
    b = builder()
    b.start(board, name="飛車落ち")
    assert b.record.start_sfen == board and b.record.handicap is None and not b.record.findings
    b = builder()
    b.start(board, name="歩三兵", name_line=2)
    assert codes(b.record) == [("unknown_handicap", 2, None)]
    assert b.record.findings[0].severity == "info"


def test_unknown_and_other_names_without_a_board_give_the_even_start():
    b = builder()
    b.start(name="歩三兵", name_line=2)
    assert b.record.start_sfen == STARTING_SFEN
    assert [(f.code, f.severity) for f in b.record.findings] == [("unknown_handicap", "warning")]
    b = builder()
    b.start(name="その他", name_line=2)
    assert [(f.code, f.severity) for f in b.record.findings] == [("bad_start_position", "warning")]


def test_the_side_to_move_and_a_standard_handicap_board_are_named():
    b = builder()
    b.start(handicap_sfen("角落ち").replace(" w ", " b "), side=1)
    assert b.record.start_sfen == handicap_sfen("角落ち") and b.record.handicap == "角落ち"
    assert b.first_turn == 1


def test_a_board_that_is_no_legal_setup_is_reported_when_asked():
    bad = "4k4/9/9/9/9/9/9/9/3KKK3 b - 1"  # three kings
    b = builder()
    b.start(bad, line=7, check=True)
    [finding] = b.record.findings
    assert (finding.code, finding.severity, finding.line) == ("bad_start_position", "error", 7)
    assert b.record.start_sfen == bad  # kept: the replay says what is wrong with it
    b = builder()
    b.start(bad)
    assert not b.record.findings


def test_no_start_at_all():
    b = builder()
    b.start("")
    b.move("7g7f", 3)
    assert b.record.start_sfen == "" and b.record.handicap is None and b.first_turn == 0


def test_a_start_line_too_late_is_said():
    b = builder()
    b.move("7g7f", 2)
    b.start_too_late("手合割", 3, "手合割：香落ち")
    assert codes(b.record) == [("unparsable_line", 3, None)]


# ----- moves, times, comments ---------------------------------------------------------------

def test_moves_keep_their_text_line_notation_times_and_comments():
    b = builder()
    move = b.move("７六歩(77)", 5, "kif", 2, 2, ["why"])
    assert (move.text, move.line, move.notation, move.seconds, move.total_seconds,
            move.comments) == ("７六歩(77)", 5, "kif", 2, 2, ["why"])
    assert b.move("3c3d").notation == "usi" and b.current.ply == 3


def test_a_time_goes_to_the_last_move_or_ending_once():
    b = builder()
    b.time(3, 1, "T3")  # no move yet
    b.move("7g7f", 2)
    b.time(4, 3, "T4")
    b.time(5, 4, "T5")  # a second time for the same move
    b.end("resign", 5)
    b.time(6, 6, "T6")  # the ending's time
    record = b.finish()
    assert record.moves[0].seconds == 4 and record.ending.seconds == 6
    assert codes(record) == [("unparsable_line", 1, None), ("unparsable_line", 4, None)]


def test_comments_go_to_what_came_before_them():
    b = builder()
    b.comment("start", 1)
    b.move("7g7f", 2)
    b.comment("on 7g7f", 3)
    b.end("resign", 4)
    b.comment("after the ending", 5)  # the last move (KIF, JKF)
    record = b.finish()
    assert record.comments == ["start"]
    assert record.moves[0].comments == ["on 7g7f", "after the ending"]


def test_comments_after_the_ending_can_belong_to_the_game():
    b = builder(GAME_COMMENTS)
    b.move("+7776FU", 2)
    b.end("%TORYO", 3)
    b.comment("after the ending", 4)
    b.move("-3334FU", 5)  # a move after the ending takes the comments after it
    b.comment("on -3334FU", 6)
    record = b.finish()
    assert record.comments == ["after the ending"] and record.moves[1].comments == ["on -3334FU"]


def test_bookmarks():
    b = builder()
    b.bookmark("start", 1, "&start")
    b.move("7g7f", 2)
    b.bookmark("a", 3, "&a")
    b.bookmark("b", 4, "&b")
    record = b.finish()
    assert record.moves[0].bookmark == "a" and record.moves[0].comments == ["&b"]
    assert record.comments == ["&start"]
    assert [f.code for f in record.findings] == ["bookmark_at_start", "duplicate_bookmark"]


# ----- endings ------------------------------------------------------------------------------

def test_the_ending_its_mover_and_a_second_one():
    b = builder()
    b.move("7g7f", 2)
    ending = b.end("resign", 3, 5, "resign")
    assert (ending.word, ending.line, ending.mover, ending.seconds) == ("resign", 3, 1, 5)
    assert b.end("abort", 4, text="abort") is None  # the first is kept
    assert b.end("giving up", 5) is None  # unknown, and a second one: both are said
    record = b.finish()
    assert record.ending is ending
    assert [f.code for f in record.findings] == ["duplicate_ending", "unknown_ending",
                                                 "duplicate_ending"]
    assert record.findings[0].message == "a second ending after resign (line 3); the first is kept"


def test_an_ending_from_a_summary_keeps_its_word_and_mover():
    b = builder()
    ending = b.end("まで", 9, summary="まで0手で後手の勝ち", mover=1)
    assert (ending.word, ending.mover, ending.summary) == ("まで", 1, "まで0手で後手の勝ち")
    assert b.finish().findings == []


def test_moves_after_the_ending_are_kept_and_said_once_a_line_with_their_count():
    b = builder()
    b.move("7g7f", 2)
    b.end("resign", 3)
    for number, text in enumerate(["3c3d", "2g2f", "8c8d"], 4):
        b.move(text, number, raw=f"{number} {text}")
    record = b.finish()
    assert len(record.moves) == 4
    [finding] = record.findings
    assert (finding.code, finding.line, finding.ply, finding.text) == \
        ("moves_after_ending", 4, 2, "4 3c3d")
    assert finding.message == "3 move(s) follow the ending resign (line 3); kept as moves"


def test_stated_move_counts_and_results():
    b = builder()
    b.move("7g7f", 2)
    b.stated_moves(1, 3, "the summary")
    b.stated_moves(2, 3, "the summary", "まで2手")
    b.result("result=1", 1, "black")
    record = b.finish()
    assert codes(record) == [("move_count_mismatch", 3, 1)]
    assert record.findings[0].message == "the summary says 2 moves, but the line has 1"
    assert (record.ending.word, record.ending.winner, record.ending.mover) == \
        ("result=1", "black", None)


# ----- variations ---------------------------------------------------------------------------

def test_variations_branch_from_their_parent_and_reading_goes_back():
    b = builder()
    b.move("7g7f", 2)
    b.move("3c3d", 3)
    first = b.begin_variation(2, 4)  # from the main line
    b.move("8c8d", 5)
    b.begin_variation(3, 6)  # from the variation
    b.move("2g2f", 7)
    b.end("abort", 8)
    b.end_variation()
    b.move("6g6f", 9)  # back in the first variation
    b.end_variation()
    b.move("2g2f", 10)  # back in the main line
    b.begin_variation(4, 11, parent=first)  # KIF picks the parent itself
    record = b.finish()
    assert [m.text for m in record.moves] == ["7g7f", "3c3d", "2g2f"]
    assert [(v.start_ply, v.parent, v.line, [m.text for m in v.moves], v.ending and v.ending.word)
            for v in record.variations] == [
        (2, None, 4, ["8c8d", "6g6f"], None), (3, 0, 6, ["2g2f"], "abort"), (4, 0, 11, [], None)]
    assert record.variations[1].ending.mover == 1
    assert codes(record) == [("empty_variation", 11, 4)]


def test_comments_before_a_variation_s_first_move_wait_for_it():
    b = builder()
    b.move("7g7f", 2)
    b.begin_variation(1, 3)
    b.comment("before 2g2f", 4)
    b.move("2g2f", 5)
    b.end_variation()
    b.begin_variation(1, 6)
    b.comment("never placed", 7)
    record = b.finish()
    assert record.variations[0].moves[0].comments == ["before 2g2f"]
    assert record.comments == ["never placed"]
    assert codes(record) == [("comment_placement", 4, None), ("empty_variation", 6, 1),
                             ("comment_placement", 7, None)]


# ----- one rule, three readers --------------------------------------------------------------

def jkf(*entries) -> str:
    return json.dumps({"header": {}, "moves": [{}, *entries]})


def jkf_move(x, y, to_y, piece, colour) -> dict:
    return {"move": {"from": {"x": x, "y": y}, "to": {"x": x, "y": to_y}, "piece": piece,
                     "color": colour}}


@pytest.mark.parametrize("record, code", [
    (read_kif("1 ７六歩(77)\n2 投了\n2 ３四歩(33)\n3 ２六歩(27)\n")[0], "moves_after_ending"),
    (read_csa("PI\n+\n+7776FU\n%TORYO\n-3334FU\n+2726FU\n")[0], "moves_after_ending"),
    (read_jkf(jkf(jkf_move(7, 7, 6, "FU", 0), {"special": "TORYO"}, jkf_move(3, 3, 4, "FU", 1),
                  jkf_move(2, 7, 6, "FU", 0)))[0], "move_after_ending"),
])
def test_moves_after_the_ending_in_every_format(record, code):
    [finding] = record.findings
    assert (finding.code, finding.ply) == (code, 2) and finding.message.startswith("2 move(s)")
    assert len(record.moves) == 3


def test_a_duplicate_header_in_kif_and_csa_is_the_same_finding():
    [kif] = read_kif("先手：a\n先手：b\n1 ７六歩(77)\n")
    [csa] = read_csa("N+a\nN+b\nPI\n+\n+7776FU\n")
    assert [(f.code, f.line) for f in kif.findings] == [("duplicate_header", 2)]
    assert [(f.code, f.line) for f in csa.findings] == [("duplicate_header", 2)]
    assert kif.findings[0].message.replace("先手", "N+") == csa.findings[0].message
