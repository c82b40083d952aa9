"""The record writers (core.writers) on hand-made games, each read back by our readers: the start
(手合割, a board diagram, CSA's PI and P1–P9, JKF's preset and OTHER), times, comments, bookmarks,
variations nested and side by side, the endings in each format's words, the encodings, several
games in one file. The whole fixture corpus goes round in tests/test_roundtrip.py.
"""

from __future__ import annotations

import json

import pytest

from kifudb.core.handicap import handicap_sfen
from kifudb.core.kifu import Kifu, KifuEnding, KifuMove, KifuVariation, ending_word
from kifudb.core.writers import FORMATS, left_out, write, write_games
from kifudb.ingest.read import read_bytes
from kifudb.ingest.validate import validate_record

TSUME = "7nl/7k1/9/7pp/6N2/9/9/9/9 b GS2r2b3g3s2n3l16p 1"


def back(text: str, fmt: str, encoding: str = "utf-8") -> list:
    """The games our readers read in ``text``, each with its replay."""
    read = read_bytes(text.encode(encoding), f"written.{fmt}")
    return [(record, validate_record(record)) for record in read.records]


def one(text: str, fmt: str, encoding: str = "utf-8"):
    games = back(text, fmt, encoding)
    assert len(games) == 1
    record, replayed = games[0]
    assert replayed.valid, [str(f) for f in replayed.findings]
    return record, replayed


def usi(replayed) -> list:
    return replayed.usi_moves


def game(*moves, **fields) -> Kifu:
    return Kifu(moves=[m if isinstance(m, KifuMove) else KifuMove(m) for m in moves], **fields)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_tsume_start_goes_out_as_a_diagram_or_a_board_and_comes_back(fmt):
    kifu = game("S*2c", "2b3a", headers=[("作者", "someone")], start_sfen=TSUME)
    record, replayed = one(write(kifu, fmt), fmt)
    assert replayed.start_sfen.split()[:3] == TSUME.split()[:3]
    assert usi(replayed) == ["S*2c", "2b3a"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_handicap_start_is_named(fmt):
    kifu = game("5a4b", "7g7f", headers=[("下手", "A"), ("上手", "B")],
                start_sfen=handicap_sfen("香落ち"))
    text = write(kifu, fmt)
    assert {"kif": "手合割：香落ち", "ki2": "手合割：香落ち", "csa": "PI11KY",
            "jkf": '"preset": "KY"', "usi": "position sfen lnsgkgsn1/"}[fmt] in text
    record, replayed = one(text, fmt)
    assert replayed.start_sfen == handicap_sfen("香落ち")
    if fmt != "usi":
        assert replayed.headers["black"] == "A" and replayed.headers["white"] == "B"


def test_kif_writes_times_as_kifu_for_windows_does_and_adds_the_totals_up():
    kifu = game(KifuMove("7g7f", 75), KifuMove("3c3d", 3723.5), KifuMove("2g2f", 10))
    text = write(kifu, "kif")
    assert "   1 ７六歩(77)   ( 1:15/00:01:15)" in text
    assert "   2 ３四歩(33)   (62:03.5/01:02:03.5)" in text
    assert "   3 ２六歩(27)   ( 0:10/00:01:25)" in text
    record, _ = one(text, "kif")
    assert [(m.seconds, m.total_seconds) for m in record.moves] == [(75, 75), (3723.5, 3723.5),
                                                                    (10, 85)]


def test_comments_and_bookmarks_stay_with_their_moves():
    kifu = game(KifuMove("7g7f", comments=["first", "*#評価値=120"], bookmark="opening"),
                "3c3d", comments=["about the game"])
    for fmt in ("kif", "ki2", "csa", "jkf"):
        record, _ = one(write(kifu, fmt), fmt)
        assert record.comments == ["about the game"], fmt
        assert list(record.moves[0].comments) == ["first", "*#評価値=120"], fmt
        assert not record.moves[1].comments, fmt
        if fmt in ("kif", "ki2"):
            assert record.moves[0].bookmark == "opening"
    assert left_out(kifu, "csa") == ["the bookmarks"]
    assert left_out(kifu, "usi") == ["the comments", "the bookmarks"]


def test_ki2_says_which_piece_moves_and_breaks_lines_at_comments():
    kifu = game("6i5h", "4a5b", "4i4h", "5b4b",
                start_sfen="lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1")
    kifu.moves[2].comments = ["a note"]
    text = write(kifu, "ki2")
    assert "▲５八金左  △５二金左  ▲４八金上\n*a note\n△４二金\n" in text
    _, replayed = one(text, "ki2")
    assert usi(replayed) == ["6i5h", "4a5b", "4i4h", "5b4b"]


def nested() -> Kifu:
    """A main line with two alternatives at ply 2, one of which has its own branch at ply 3,
    and one more at ply 3 of the main line."""
    return game("7g7f", "3c3d", "2g2f", variations=[
        KifuVariation(2, [KifuMove("8c8d"), KifuMove("2g2f")]),
        KifuVariation(2, [KifuMove("4a3b")], ending=KifuEnding("投了")),
        KifuVariation(3, [KifuMove("6g6f")], parent=0),
        KifuVariation(3, [KifuMove("8h2b+")])])


def variation_paths(record, replayed) -> set:
    full, out = {None: replayed.usi_moves}, set()
    for index, variation in enumerate(record.variations):
        path = full[variation.parent][:variation.start_ply - 1] + [
            m.usi() for m in replayed.variations[index]]
        full[index] = path
        out.add((variation.start_ply, tuple(path)))
    return out


@pytest.mark.parametrize("fmt", ["kif", "ki2", "jkf"])
def test_every_variation_comes_back_from_where_it_branched(fmt):
    record, replayed = one(write(nested(), fmt), fmt)
    assert variation_paths(record, replayed) == {
        (2, ("7g7f", "8c8d", "2g2f")), (2, ("7g7f", "4a3b")),
        (3, ("7g7f", "8c8d", "6g6f")), (3, ("7g7f", "3c3d", "8h2b+"))}
    ended = [(v.start_ply, v.ending.winner) for v in record.variations if v.ending is not None]
    assert len(ended) == 1 and ended[0][0] == 2  # 4a3b, then Black resigns


def test_kif_writes_branches_last_ply_first_and_marks_them():
    lines = write(nested(), "kif").splitlines()
    assert [line for line in lines if line.startswith("変化")] == [
        "変化：3手", "変化：2手", "変化：3手", "変化：2手"]
    marked = [line.split()[1] for line in lines if line.endswith("+")]
    # the main line at 2 and 3, its first alternative at 2 (one more follows) and 3 (its branch)
    assert marked == ["３四歩(33)", "２六歩(27)", "８四歩(83)", "２六歩(27)"]


def test_csa_and_usi_write_the_main_line_and_say_they_leave_the_variations_out():
    for fmt in ("csa", "usi"):
        record, replayed = one(write(nested(), fmt), fmt)
        assert usi(replayed) == ["7g7f", "3c3d", "2g2f"] and not record.variations
        assert left_out(nested(), fmt)[0] == "4 variations"


@pytest.mark.parametrize("word, kif, csa, jkf, usi, mover", [
    ("投了", "投了", "%TORYO", "TORYO", "resign", 0),
    ("%SENNICHITE", "千日手", "%SENNICHITE", "SENNICHITE", "rep_draw", 1),
    ("反則勝ち", "反則勝ち", "%+ILLEGAL_ACTION", "+ILLEGAL_ACTION", None, 1),
    ("%-ILLEGAL_ACTION", "反則負け", "%ILLEGAL_MOVE", "ILLEGAL_MOVE", "illegal", 1),
    ("時間切れ", "切れ負け", "%TIME_UP", "TIME_UP", "timeout", 0),
    ("KACHI", "入玉勝ち", "%KACHI", "KACHI", "win", 0),
    ("%MAX_MOVES", "最大手数", "%MAX_MOVES", None, "max_moves", 0),
    ("封じ手", "封じ手", None, None, None, 0),
    ("resign", "投了", "%TORYO", "TORYO", "resign", 1),
])
def test_an_ending_in_each_formats_words(word, kif, csa, jkf, usi, mover):
    assert [ending_word(word, fmt, mover) for fmt in ("kif", "csa", "jkf", "usi")] == \
        [kif, csa, jkf, usi]


@pytest.mark.parametrize("word, winner, reason", [
    ("投了", "black", "resign"), ("%TIME_UP", "black", "time"), ("持将棋", "draw", "jishogi"),
    ("%-ILLEGAL_ACTION", "black", "illegal_move"), ("中断", "none", "abort")])
@pytest.mark.parametrize("fmt", FORMATS)
def test_the_result_survives_the_trip(fmt, word, winner, reason):
    kifu = game("7g7f", "3c3d", "2g2f", ending=KifuEnding(word, winner, reason))
    _, replayed = one(write(kifu, fmt), fmt)
    assert replayed.winner == winner
    if not (fmt == "ki2" and reason == "resign"):  # KI2 says まで3手で後手の勝ち
        assert replayed.reason == reason
    if fmt == "usi":
        assert write(kifu, fmt).split()[-1] == {"resign": "resign", "time": "timeout",
                                                "jishogi": "jishogi", "illegal_move": "illegal",
                                                "abort": "break"}[reason]


def test_the_summary_of_a_handicap_game_names_uwate_and_shitate():
    kifu = game("5a4b", "7g7f", start_sfen=handicap_sfen("香落ち"),
                ending=KifuEnding("投了", "black", "resign"))
    assert write(kifu, "kif").splitlines()[-1] == "まで2手で下手の勝ち"


def test_jkf_holds_an_other_start_and_the_times():
    kifu = game(KifuMove("S*2c", 12), KifuMove("2b3a", 70), start_sfen=TSUME)
    data = json.loads(write(kifu, "jkf"))
    assert data["initial"]["preset"] == "OTHER"
    assert data["initial"]["data"]["board"][1][1] == {"color": 1, "kind": "OU"}  # 2b
    assert data["moves"][2]["time"] == {"now": {"m": 1, "s": 10}, "total": {"h": 0, "m": 1,
                                                                            "s": 10}}
    record, _ = one(write(kifu, "jkf"), "jkf")
    assert [m.seconds for m in record.moves] == [12, 70]


def test_the_declared_encoding_is_the_one_written():
    kifu = game("7g7f", headers=[("先手", "羽生善治")])
    for fmt, declared in (("kif", "#KIF version=2.0 encoding=Shift_JIS"),
                          ("csa", "'CSA encoding=Shift_JIS")):
        text = write(kifu, fmt, "cp932")
        assert text.splitlines()[0] == declared
        record, _ = one(text, fmt, "cp932")
        assert record.encoding == "cp932" and "羽生善治" in dict(record.headers).values()
    with pytest.raises(ValueError, match="not 'latin-1'"):
        write(kifu, "kif", "latin-1")


def test_several_games_in_one_csa_or_usi_file():
    games = [game("7g7f", headers=[("先手", "A")]), game("2g2f", "8c8d")]
    for fmt in ("csa", "usi"):
        read = back(write_games(games, fmt), fmt)
        assert [usi(replayed) for _, replayed in read] == [["7g7f"], ["2g2f", "8c8d"]]
    assert write_games(games, "csa").count("'CSA encoding=") == 1
    with pytest.raises(ValueError, match="a KIF file holds one game"):
        write_games(games, "kif")


def test_headers_go_out_in_each_formats_words():
    kifu = game("7g7f", headers=[("N+", "A"), ("N-", "B"), ("$EVENT", "E"), ("black", "A"),
                                 ("$START_TIME", "2020/01/02 10:00:00"), ("作者", "X")])
    text = write(kifu, "kif")
    assert "先手：A\n後手：B\n棋戦：E\n開始日時：2020/01/02 10:00:00\n作者：X" in text
    assert "black" not in text
    csa = write(Kifu(headers=[("先手", "A"), ("棋戦", "E"), ("作者", "X")]), "csa")
    assert "N+A\n$EVENT:E\n" in csa and "作者" not in csa
    assert left_out(Kifu(headers=[("作者", "X")]), "csa") == ["the headers 作者"]
