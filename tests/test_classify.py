"""Castle (囲い) and opening (戦型) labels: a hand-made labelled set for every label (a game that
reaches it and a near miss that does not), both colours, real records checked by hand,
handicap games, the definitions file and the ``kifudb classify`` command."""

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kifudb.labels.classify import (DefinitionError, GameLabels, Reached, SideLabels, _start,
                                _holds, classify_game, definitions, definitions_version,
                                load_definitions)
from kifudb.core.handicap import HANDICAPS
from kifudb.core.move import Move
from kifudb.core.position import Position
from kifudb.cli_classify import classify

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "classify"

# ----- the labelled set --------------------------------------------------------------------------
# Castles are built by Black alone while White's king steps 5一 -> 4二 -> 5一 … (black_only).
# Each entry: Black's moves, and a near miss (Black's moves that do not reach the castle), or None
# for "the same without the last move". Whole games (both sides' moves) are marked GAME.

YAGURA = "7g7f 6g6f 7i6h 6h7g 8h7i 6i7h 4i5h 5h6g 7i6h 5i6i 6i7i 7i8h"
MINO = "7g7f 6g6f 2h6h 5i4h 4h3h 3h2h 3i3h"
TAKAMINO = MINO + " 6i5h 4g4f 5h4g"
ANAGUMA = "7g7f 8h7g 9i9h 5i6h 6h7h 7h8h 8h9i 7i8h 6i7i"
GAME = "game: "

CASTLES = {
    "矢倉囲い": (YAGURA, "7g7f 6g6f 7i6h 6h7g 4i5h 5h6g 6i6h 5i6i 6i7h"),  # near miss: 片矢倉
    "金矢倉": (YAGURA, "7g7f 6g6f 7i6h 6h7g 8h7i 6i7h 5g5f 3i4h 4h5g 5g6h 6h6g 7i6h 5i6i "
                    "6i7i 7i8h"),  # near miss: a silver on 6七 (銀矢倉)
    "銀矢倉": ("7g7f 6g6f 7i6h 6h7g 8h7i 6i7h 5g5f 3i4h 4h5g 5g6h 6h6g 7i6h 5i6i 6i7i 7i8h",
            YAGURA),
    "片矢倉": ("7g7f 6g6f 7i6h 6h7g 4i5h 5h6g 6i6h 5i6i 6i7h", None),
    "総矢倉": (YAGURA + " 5g5f 3i4h 4h5g", None),
    "菱矢倉": (YAGURA + " 5g5f 3i4h 4h5g 6f6e 5g6f", YAGURA + " 5g5f 3i4h 4h5g 6f6e"),
    "矢倉穴熊": (GAME + "2g2f 8c8d 7g7f 8d8e 9g9f 3c3d 8h9g 4a3b 9i9h 6a5b 8i7g 7a6b 6g6f 5a4b "
                     "4i5h 6c6d 5h6g 1c1d 5i6h 9c9d 6h7h 4b4a 7h8h 6b6c 8h8i 2b4d 8i9i 3a2b 7i8h "
                     "6c7d 6i7h", GAME + "2g2f 8c8d 7g7f 8d8e 9g9f 3c3d 8h9g 4a3b 9i9h 6a5b 8i7g "
                     "7a6b 6g6f 5a4b 4i5h 6c6d 5h6g 1c1d 5i6h 9c9d 6h7h 4b4a 7h8h 6b6c 8h8i 2b4d "
                     "8i9i 3a2b 7i8h"),
    "菊水矢倉": ("7g7f 9g9f 8h9g 7i8h 8i7g 6g6f 4i5h 5h6g 6i7h 5i6i 6i7i 7i8i", None),
    "銀立ち矢倉": (YAGURA + " 7f7e 7g7f", None),
    "土居矢倉": ("7g7f 6g6f 7i6h 6h7g 6i6h 6h6g 4i5h 8h7i 5i6i 6i7h", None),
    "矢倉早囲い": ("7g7f 6g6f 7i6h 6h7g 4i5h 5h6g 8h7i 5i6h 6h7h", None),
    "カニ囲い": ("7g7f 6i7h 4i5h 7i6h 5i6i", None),
    "片美濃囲い": (MINO, None),
    "美濃囲い": (MINO + " 6i5h", MINO + " 6i7h"),  # near miss: the left gold goes to 7八
    "高美濃囲い": (TAKAMINO, None),
    "銀冠": (TAKAMINO + " 2g2f 3h2g 4i3h", None),
    "ダイヤモンド美濃": ("7g7f 2h7h 5i4h 4h3h 3h2h 3i3h 5g5f 4g4f 7i6h 6h5g 5g4h 4h4g 6i5h", None),
    "木村美濃": ("7g7f 2h7h 5i4h 4h3h 3h2h 4g4f 3i4h 4h4g 4i3h", None),
    "銀美濃": ("7g7f 2h7h 5i4h 4h3h 3h2h 3i3h 7i6h 6h5i 5i5h", None),
    "四枚美濃": ("7g7f 2h7h 5i4h 4h3h 3h2h 3i3h 6i5h 4g4f 5h4g 4f4e 5g5f 7i6h 6h5g 5g4f", None),
    "坊主美濃": (GAME + "7g7f 3c3d 2h7h 4a3b 2g2f 6a5b 2f2e 1c1d 2e2d 2c2d 5i4h 5a4a 4h3h 4a5a "
                     "3h2h 5a4a 3i3h",  # near miss: the same with the pawn on 2五 (not exchanged)
             GAME + "7g7f 3c3d 2h7h 4a3b 2g2f 6a5b 2f2e 1c1d 5i4h 5a4a 4h3h 4a5a 3h2h 5a4a 3i3h"),
    "左美濃": ("7g7f 8h7g 5i6h 6h7h 7h8h 7i7h", None),
    "天守閣美濃": ("7g7f 8g8f 5i6h 6h7h 7h8g 7i7h", None),
    "居飛車銀冠": ("7g7f 8h7g 8g8f 5i6h 6h7h 7h8h 7i7h 7h8g 6i7h", None),
    "穴熊": ("7g7f 8h7g 9i9h 5i6h 6h7h 7h8h 8h9i", None),
    "居飛車穴熊": (ANAGUMA, None),
    "振り飛車穴熊": ("7g7f 2h6h 1i1h 5i4h 4h3h 3h2h 2h1i 3i2h", None),
    "松尾流穴熊": ("7g7f 8h7g 9i9h 5i6h 6h7h 7h8h 8h9i 7i8h 6i7h 6g6f 4i5h 5h6g 5g5f 3i4h 4h5g "
              "5g6h 6h7i", None),
    "銀冠穴熊": ("7g7f 9g9f 8h9g 9i9h 8g8f 5i6h 6h7h 7h8h 8h9i 7i8h 8h8g 6i7h 7h8h 4i5h 5h6h "
             "6h7h", None),
    "ビッグ4": ("7g7f 9g9f 8h9g 9i9h 8g8f 5i6h 6h7h 7h8h 8h9i 7i8h 8h8g 6i7h 7h8h 4i5h 5h6h 6h7h "
              "5g5f 3i4h 4h5g 5g6h 6h7g", None),
    "四枚穴熊": ("7g7f 9g9f 8h9g 9i9h 5i6h 6h7h 7h8h 8h9i 7i8h 6i7i 4i5h 5h6h 6h7h 5g5f 3i4h 4h5g "
             "5g6h 6h7g", None),
    "ミレニアム囲い": ("7g7f 8h6f 8i7g 7i8h 5i6h 6h7h 7h8i 6i7i", None),
    "舟囲い": ("7g7f 5i6h 6h7h 4i5h", "7g7f 7i6h 6h7g 5i6h 6h7h 4i5h"),  # near miss: 銀7七
    "エルモ囲い": ("7g7f 5i6h 6h7h 7i6h 6i7i", None),
    "箱入り娘": ("7g7f 5i6h 6h7h 4i5h 5h6h", None),
    "ボナンザ囲い": ("7g7f 7i6h 6h7g 5i6h 6h7h 6i6h 4i5h", None),
    "ツノ銀囲い": ("6g6f 4g4f 7i6h 6h6g 3i4h 4h4g 5i6h 6h7h 6i6h 4i5h", None),
    "雁木囲い": ("6g6f 7i6h 6h6g 5g5f 3i4h 4h5g 6i7h 4i5h 5i6i", None),
    "金無双": ("7g7f 2h7h 5i4h 4h3h 3i2h 4i4h 6i5h", None),
    "中住まい": ("6i7h 4i3h 5i5h", None),
    "右玉": ("3g3f 2i3g 4g4f 3i4h 4h4g 5i4h", None),
    "中原囲い": ("6i7h 5i6i 4i5i 3i4h", None),
    "アヒル囲い": ("5i5h 7i6h 3i4h 6i7i 4i3i", None),
    "大隅囲い": ("7g7f 2h7h 3g3f 2i3g 3i3h 3h2i 5i4h 4h3h 3h2h 4i3h", None),
    "串カツ囲い": ("7g7f 8g8f 8h7g 5i6h 6h7h 7h8g 8g9h 7i8h", None),
}

KAKUGAWARI = "7g7f 8c8d 2g2f 3c3d 7i6h 8d8e 8h7g 2b7g+ 6h7g"
BOGIN = "2g2f 8c8d 2f2e 8d8e 3i3h 4a3b 3h2g"
HAYAKURI = "2g2f 8c8d 3g3f 8d8e 3i3h 4a3b 3h3g 1c1d 3g4f"
KOSHIKAKE = "2g2f 8c8d 4g4f 8d8e 3i4h 4a3b 4h4g 1c1d 4g5f"

# Openings, as whole games: the side, the game, the ply at which the label is first reached, and
# a near miss (a game that does not reach it), or None for "the same without the last move".
OPENINGS = {
    # near miss: a gold on 7八 after the rook ranged
    "居飛車": ("black", "2g2f", 1, "7g7f 3c3d 2h6h 8c8d 6g6f 8d8e 6i7h"),
    # near miss: the rook reaches 7六 by way of 2六 (ひねり飛車), not sideways from home
    "振り飛車": ("black", "7g7f 3c3d 2h6h", 3, "2g2f 8c8d 2f2e 8d8e 2h2f 4a3b 2f7f"),
    "相居飛車": ("black", "2g2f 8c8d", 2, "2g2f 8c8d 2h6h"),  # near miss: 陽動振り飛車
    "相振り飛車": ("black", "7g7f 3c3d 2h6h 8b4b", 4, "7g7f 3c3d 2h6h 8c8d"),
    "対抗形": ("black", "7g7f 3c3d 2h6h 8c8d", 4, "7g7f 3c3d 2h6h 8b4b"),
    "四間飛車": ("black", "7g7f 3c3d 2h6h", 3, "7g7f 3c3d 2h7h"),
    "三間飛車": ("black", "7g7f 3c3d 2h7h", 3, "7g7f 3c3d 2h6h"),
    "向かい飛車": ("white", "7g7f 3c3d 2g2f 2b3c 2f2e 8b2b", 6, "7g7f 3c3d 2g2f 2b3c 2f2e 8b3b"),
    "中飛車": ("black", "7g7f 3c3d 2h5h", 3, "7g7f 3c3d 2h6h"),
    # near miss: the bishop's diagonal still closed
    "ゴキゲン中飛車": ("white", "7g7f 3c3d 2g2f 5c5d 2f2e 8b5b", 6, "7g7f 5c5d 2g2f 8b5b"),
    "石田流": ("black", "7g7f 3c3d 7f7e 8c8d 2h7h 8d8e 7h7f", 7, None),
    # near miss: the king moved first
    "早石田": ("black", "7g7f 3c3d 7f7e 8c8d 2h7h", 5, "7g7f 3c3d 2h7h 8c8d 5i4h 8d8e 7f7e"),
    "角交換振り飛車": ("black", "7g7f 3c3d 2h6h 2b8h+ 7i8h", 5, "7g7f 3c3d 2h6h 8c8d"),
    "角交換四間飛車": ("black", "7g7f 3c3d 2h6h 2b8h+ 7i8h", 5, "7g7f 3c3d 2h7h 2b8h+ 7i8h"),
    "ダイレクト向かい飛車": ("white", "7g7f 3c3d 2g2f 2b8h+ 7i8h 8b2b", 6,
                   "7g7f 3c3d 2g2f 2b8h+ 7i8h 8b4b"),
    # near miss: the same with the king on 4八
    "藤井システム": ("black", "7g7f 3c3d 6g6f 8c8d 2h6h 8d8e 8h7g 7a6b 3i3h 5a4b 4g4f", 11,
               "7g7f 3c3d 6g6f 8c8d 2h6h 8d8e 8h7g 7a6b 3i3h 5a4b 5i4h 4b3b 4g4f"),
    "右四間飛車": ("black", "7g7f 3c3d 4g4f 8c8d 2h4h", 5, "7g7f 3c3d 2h4h"),
    "袖飛車": ("black", "7g7f 3c3d 3g3f 8c8d 2h3h", 5, "7g7f 3c3d 2h3h"),
    "棒銀": ("black", BOGIN, 7, None),
    "原始棒銀": ("black", BOGIN, 7, "2g2f 8c8d 2f2e 8d8e 5i6h 4a3b 3i3h 1c1d 3h2g"),
    "早繰り銀": ("black", HAYAKURI, 9, None),
    "腰掛け銀": ("black", KOSHIKAKE, 9, None),
    # near miss: bishops exchanged with neither rook's pawn pushed
    "角換わり": ("black", KAKUGAWARI, 9, "7g7f 3c3d 8h2b+ 3a2b"),
    # near miss: White takes the bishop on 7七, after it left 8八
    "一手損角換わり": ("white", "7g7f 3c3d 2g2f 2b8h+ 7i8h 8c8d", 6, KAKUGAWARI),
    "角換わり腰掛け銀": ("black", KAKUGAWARI + " 3a2b 3i4h 7a6b 4g4f 6c6d 4h4g 6b6c 4g5f", 17,
                  KOSHIKAKE),
    "角換わり早繰り銀": ("black", KAKUGAWARI + " 3a2b 3g3f 7a6b 3i3h 6c6d 3h3g 6b6c 3g4f", 17,
                  HAYAKURI),
    "角換わり棒銀": ("black", KAKUGAWARI + " 3a2b 3i3h 7a6b 3h2g", 13, BOGIN),
    # near miss: the bishops' diagonals opened first (the way to 横歩取り)
    "相掛かり": ("black", "2g2f 8c8d 2f2e 8d8e", 4, "7g7f 3c3d 2g2f 8c8d 2f2e 8d8e"),
    "ひねり飛車": ("black", "2g2f 8c8d 2f2e 8d8e 6i7h 4a3b 2e2d 2c2d 2h2d P*2c 2d2f 8e8f 8g8f "
                       "8b8f P*8g 8f8b 2f7f", 17, None),
    "横歩取り": ("black", "7g7f 3c3d 2g2f 8c8d 2f2e 8d8e 6i7h 4a3b 2e2d 2c2d 2h2d 8e8f 8g8f 8b8f "
                      "2d3d", 15, None),
    # near miss: the silver on 7七 without ▲6六歩
    "矢倉": ("black", "7g7f 8c8d 6i7h 3c3d 6g6f 8d8e 7i6h 4a3b 6h7g", 9,
           "7g7f 8c8d 6i7h 3c3d 7i6h 8d8e 6h7g"),
    "雁木": ("black", "7g7f 8c8d 6g6f 8d8e 7i6h 3c3d 6h6g 4a3b 2g2f 6a5b 4g4f 5a4a 3i4h 4a5a "
                    "4h4g", 15, None),
    "筋違い角": ("black", "7g7f 3c3d 8h2b+ 3a2b B*4e", 5, "7g7f 3c3d 8h2b+ 3a2b B*5e"),
    # near miss: the knight jumps too late (ply 11)
    "鬼殺し": ("black", "7g7f 3c3d 8i7g", 3, "7g7f 3c3d 2g2f 8c8d 2f2e 4a3b 6i7h 8d8e 5i6h 1c1d 8i7g"),
}

WHITE_STEPS = ("5a4b", "4b5a")


def black_only(moves: str) -> list:
    """Black's moves with White's king stepping to and fro in between (or a whole game)."""
    if moves.startswith(GAME):
        return moves[len(GAME):].split()
    out = []
    for k, move in enumerate(moves.split()):
        out += [move, WHITE_STEPS[k % 2]]
    return out[:-1]


def near_miss(positive: str, miss) -> list:
    if miss is not None:
        return black_only(miss)
    if positive.startswith(GAME):
        return black_only(positive)[:-1]
    return black_only(" ".join(positive.split()[:-1]))


def turned(moves: list) -> list:
    """The same game with the colours swapped: every move turned half a turn, after a first
    Black move (▲1六歩, or a lance step) that hands the first move of the original to White."""
    def square(text):
        return f"{10 - int(text[0])}{'ihgfedcba'['abcdefghi'.index(text[1])]}"
    out = []
    for move in moves:
        if move[1] == "*":
            out.append(move[:2] + square(move[2:4]))
        else:
            out.append(square(move[:2]) + square(move[2:4]) + move[4:])
    for tempo in ("1g1f", "1i1h", "9i9h"):
        if not any(tempo[:2] in move for move in out):
            return [tempo] + out
    raise AssertionError("no free pawn for the first move")


def labels_of(moves, side="black", start="startpos"):
    labels = getattr(classify_game(start, moves), side)
    return {r.name: r.ply for r in labels.castles + labels.openings}


def assert_legal(moves, start="startpos"):
    position = Position.from_sfen(start)
    for move in moves:
        position.push_usi(move)  # raises IllegalMoveError on a bad move


def test_every_label_has_a_labelled_example():
    # the castles and openings added for issue 32 have their games in test_castle_vocabulary.py
    # and test_opening_vocabulary.py, which check that the sets together name every label
    assert set(CASTLES) <= set(definitions().names("castle"))
    assert set(OPENINGS) <= set(definitions().names("opening"))


@pytest.mark.parametrize("name", list(CASTLES))
def test_castle_reached_and_near_miss(name):
    positive, miss = CASTLES[name]
    moves = black_only(positive)
    assert_legal(moves)
    assert name in labels_of(moves)
    assert labels_of(moves)[name] == len(moves) or positive.startswith(GAME)
    negative = near_miss(positive, miss)
    assert_legal(negative)
    assert name not in labels_of(negative)


@pytest.mark.parametrize("name", list(CASTLES))
def test_castle_of_white(name):
    """The same castle built by White (every move turned half a turn) is White's castle, one
    ply later; the near miss is still no castle; Black gets nothing from it."""
    positive, miss = CASTLES[name]
    moves = turned(black_only(positive))
    assert_legal(moves)
    black = labels_of(black_only(positive))
    assert labels_of(moves, "white")[name] == black[name] + 1
    assert name not in labels_of(moves, "black")
    negative = turned(near_miss(positive, miss))
    assert_legal(negative)
    assert name not in labels_of(negative, "white")


@pytest.mark.parametrize("name", list(OPENINGS))
def test_opening_reached_and_near_miss(name):
    side, game, ply, miss = OPENINGS[name]
    moves = game.split()
    assert_legal(moves)
    assert labels_of(moves, side).get(name) == ply
    negative = moves[:-1] if miss is None else miss.split()
    assert_legal(negative)
    assert name not in labels_of(negative, side)


@pytest.mark.parametrize("name", list(OPENINGS))
def test_opening_with_colours_swapped(name):
    side, game, ply, _ = OPENINGS[name]
    other = "white" if side == "black" else "black"
    moves = turned(game.split())
    assert_legal(moves)
    assert labels_of(moves, other).get(name) == ply + 1


def test_labels_for_both_sides():
    # 角換わり and 相掛かり label the opponent too, at the same ply
    assert labels_of(KAKUGAWARI.split(), "white")["角換わり"] == 9
    assert labels_of("2g2f 8c8d 2f2e 8d8e".split(), "white")["相掛かり"] == 4
    # 一手損角換わり belongs only to the side that gave up the tempo
    moves = "7g7f 3c3d 2g2f 2b8h+ 7i8h 8c8d".split()
    assert "一手損角換わり" not in labels_of(moves, "black")
    assert labels_of(moves, "black")["角換わり"] == 6


def test_primary_labels():
    # the most evolved Mino of a chain is the primary castle; its ancestors are still listed
    labels = classify_game("startpos", black_only(TAKAMINO + " 2g2f 3h2g 4i3h")).black
    assert [r.name for r in labels.castles] == ["片美濃囲い", "美濃囲い", "高美濃囲い", "銀冠"]
    assert labels.primary_castle == "銀冠"
    # reached at the same ply and of the same depth: the one with more conditions
    assert classify_game("startpos", black_only(CASTLES["矢倉穴熊"][0])).black.primary_castle \
        == "矢倉穴熊"
    # labels about the pair of sides (対抗形) are never primary; a child beats its parent (issue 32:
    # ▲6八飛 with the bishop's diagonal open is the child 角道オープン四間飛車 of 四間飛車)
    game = classify_game("startpos", "7g7f 3c3d 2h6h 8c8d".split())
    assert game.black.primary_opening == "角道オープン四間飛車" and game.white.primary_opening == "居飛車"
    assert ("black", "opening", "四間飛車", 3, False) in game.rows()
    assert ("black", "opening", "角道オープン四間飛車", 3, True) in game.rows()
    assert ("white", "opening", "対抗形", 4, False) in game.rows()


def test_first_rook_file_wins():
    # a fourth-file rook that later moves on to the third file stays a 四間飛車
    moves = "7g7f 3c3d 2h6h 8c8d 6h7h".split()
    names = labels_of(moves)
    assert "四間飛車" in names and "三間飛車" not in names


def real_game(name: str) -> tuple[str, list[str]]:
    """The start and moves of the game of ``tests/fixtures/usi/real_games.usi`` named ``name``."""
    lines = (FIXTURES.parent / "usi" / "real_games.usi").read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("#") and name in line)
    start, _, moves = lines[at + 1].removeprefix("sfen ").partition(" moves ")
    return start, moves.split()


def test_the_primary_castle_is_of_the_family_the_king_ended_in():
    # White builds a boat castle (舟囲い, ply 16), then a left Mino (左美濃, ply 36): its castle
    # is the Mino, and the boat castle is still listed at its ply (WCSC28, USA–TKT)
    white = classify_game(*real_game("utf8_WCSC28_U6_USA_TKT_2.csa")).white
    assert [(r.name, r.ply) for r in white.castles] == [("舟囲い", 16), ("左美濃", 36)]
    assert white.primary_castle == "左美濃"
    # within one family the old order stands: 美濃囲い is not displaced by its sibling
    # 大山美濃, the gold moved up to 5七 later in the game (第3回電王戦第1局, 菅井)
    labels, _ = record_labels("denou3-1.ki2")
    assert "大山美濃" in [r.name for r in labels.black.castles]
    assert labels.black.primary_castle == "美濃囲い"


def test_a_label_that_requires_one_its_group_dropped_is_withdrawn():
    # White's rook ranges to the fourth file, then on to the third: its 三間飛車 is dropped
    # (first of the group wins), so Black's △7二飛亜急戦, which requires the opponent's
    # 三間飛車, does not hold (WCSC28, PAL–ひまわり, tests/fixtures/usi/real_games.usi)
    moves = ("7g7f 3c3d 2g2f 4c4d 2f2e 2b3c 3i4h 3a3b 5g5f 8b4b 5i6h 5a6b 6h7h 6b7b 4i5h 7b8b "
             "3g3f 7a7b 9g9f 6c6d 9f9e 4a5b 4h5g 7c7d 6i6h 3b4c 5g4f 5c5d 3f3e 4b3b 3e3d 4c3d "
             "2h3h 5b4c").split()
    game = classify_game("startpos", moves)
    white = [r.name for r in game.white.openings]
    assert "四間飛車" in white and "三間飛車" not in white
    assert "△7二飛亜急戦" not in [r.name for r in game.black.openings]
    assert "袖飛車" in [r.name for r in game.black.openings]


def test_withdrawn_labels_take_their_dependants_along():
    # bishops exchanged, then the 横歩: 角換わり is withdrawn, and so is 一手損角換わり
    moves = ("7g7f 3c3d 2g2f 2b8h+ 7i8h 8c8d 2f2e 8d8e 6i7h 4a3b 2e2d 2c2d 2h2d 8e8f 8g8f 8b8f "
             "2d3d").split()
    assert_legal(moves)
    white = labels_of(moves, "white")
    assert "横歩取り" in white and "角換わり" not in white and "一手損角換わり" not in white


def test_moves_as_move_values_or_usi_text():
    text = CASTLES["金矢倉"][0]
    moves = black_only(text)
    assert classify_game("startpos", [Move.from_usi(m) for m in moves]) == \
        classify_game("startpos", moves)
    assert classify_game(Position().sfen(), moves) == classify_game("startpos", moves)


def test_nothing_holds_in_any_start_position():
    """The start position is not looked at, which is right only if no label holds there."""
    defs = definitions()
    compiled = defs._compiled
    for sfen in HANDICAPS.values():
        _, board, hands, _ = _start(sfen)
        for i in range(compiled.n):
            for side in (0, 1):
                assert not _holds(compiled.condition[side][i], list(board), hands) \
                    or compiled.requires[i] or compiled.has_played[i], (compiled.names[i], sfen)


# ----- handicap games and other set-ups ------------------------------------------------------

HANDICAP_OPENINGS = {n for n in definitions() if definitions()[n].handicap}


@pytest.mark.parametrize("handicap", [n for n in HANDICAPS if n != "平手"])
def test_handicap_game_gets_no_even_game_label(handicap):
    """White (上手) moves first and ranges its rook to the fourth file where it has one; Black
    (下手) plays a static-rook Yagura. White gets nothing; Black only castles and the
    openings valid in handicap games."""
    start = HANDICAPS[handicap]
    white = ["8b4b"] if "r" in start.split()[0] else []  # a fourth-file rook, in an even game
    white += [("5a6b", "6b5a")[k % 2] for k in range(20)]
    black = ("2g2f " + YAGURA).split()
    moves = [move for pair in zip(white, black) for move in pair]
    assert_legal(moves, start)
    labels = classify_game(start, moves)
    assert labels.white == SideLabels()
    assert labels.black.primary_castle == "金矢倉"
    assert {r.name for r in labels.black.openings} <= HANDICAP_OPENINGS
    assert "居飛車" in {r.name for r in labels.black.openings}


def test_a_game_from_another_set_up_gets_no_labels():
    start = "lnsgkgsnl/1r5b1/pppppppp1/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"  # a pawn short
    moves = black_only(CASTLES["金矢倉"][0])
    assert_legal(moves, start)
    assert classify_game(start, moves) == GameLabels()
    assert classify_game(start, moves).rows() == []


# ----- real records, checked by hand -------------------------------------------------------------

def record_labels(name, index=0):
    from kifudb.ingest.read import read_path
    from kifudb.ingest.validate import validate_record
    game = validate_record(read_path(FIXTURES / name).records[index])
    return classify_game(game.start_sfen, game.game.moves), game.headers


def plies(side_labels):
    return {r.name: r.ply for r in side_labels.castles + side_labels.openings}


def test_habu_fujii_2006_anaguma_against_anaguma():
    # 戦型 header 四間飛車. △４二飛 at ply 6; ▲９九玉 (25) ▲８八銀 (27) ▲７九金 (35) is the
    # static-rook Anaguma, △９一玉 (24) behind △９二香 (22) and △８二銀 (26) the ranging one.
    labels, headers = record_labels("habu-fujii-2006.kif")
    assert headers["opening"] == "四間飛車"
    # (issue 32: △4四歩 (4) closed the diagonal before △4二飛: ノーマル四間飛車; the static rook's
    # king on ８八 (19) on its way to the Anaguma is a 対振り持久戦)
    assert labels.white.primary_opening == "ノーマル四間飛車" and plies(labels.white)["四間飛車"] == 6
    assert labels.black.primary_opening == "対振り持久戦" and plies(labels.black)["居飛車"] == 3
    assert plies(labels.black)["対抗形"] == plies(labels.white)["対抗形"] == 6
    assert labels.black.primary_castle == "居飛車穴熊" and plies(labels.black)["居飛車穴熊"] == 35
    assert labels.white.primary_castle == "振り飛車穴熊" and plies(labels.white)["振り飛車穴熊"] == 26


def test_oui_2021_double_wing_attack():
    # 戦型 header 相掛かり: ▲２六歩 △８四歩 ▲２五歩 △８五歩 with both bishops' diagonals closed
    labels, headers = record_labels("oui202106290101.kif")
    assert headers["opening"] == "相掛かり"
    for side in (labels.black, labels.white):
        assert side.primary_opening == "相掛かり" and plies(side)["相掛かり"] == 4


def test_ryuou_2014_tempo_loss_bishop_exchange():
    # The comments say: 6手目 △８八角成 "一手損角換わりとなった"; 15手目 ▲２七銀 "羽生は棒銀を採用";
    # 33手目 "先手は結局金矢倉となりそうだ" (▲６七金 at ply 37 completes it). 22手目 △４二飛 is
    # "後手の四間飛車策" in the comments; 48手目 "本局の糸谷は右玉でガンガンだ" (the king on △6二
    # behind the knight on 7三 and the silver on 6三 since ply 36, the rook on 4二).
    labels, _ = record_labels("ryuou201409020101.kif")
    assert plies(labels.white)["一手損角換わり"] == 7
    assert labels.white.primary_castle == "右玉" and plies(labels.white)["右玉"] == 36
    assert labels.white.primary_opening == "角換わり右玉"
    assert plies(labels.white)["四間飛車"] == 22
    assert labels.black.primary_opening == "角換わり棒銀" and plies(labels.black)["棒銀"] == 15
    assert labels.black.primary_castle == "金矢倉" and plies(labels.black)["金矢倉"] == 37


def test_kiou_2014_side_pawn_capture():
    # ▲２四歩 △同歩 ▲同飛 △８六歩 ▲同歩 △同飛 ▲３四飛 (ply 15); White sets up 中住まい
    labels, _ = record_labels("kiou201403160101.kif")
    assert plies(labels.black)["横歩取り"] == plies(labels.white)["横歩取り"] == 15
    # (issue 32: White answered △3三角 (16) and drew the rook back to △8五飛 (32): 中座飛車)
    assert labels.black.primary_opening == "横歩取り" and labels.white.primary_opening == "中座飛車"
    assert plies(labels.white)["△3三角型空中戦法"] == 16 and plies(labels.white)["中座飛車"] == 32
    assert labels.white.primary_castle == "中住まい"


def test_sunfish_pro_games_against_their_opening_headers():
    # kifu11058, $OPENING:矢倉: ▲７七銀 (15) with ▲７六歩 ▲６六歩; ▲８八玉 (33) completes 金矢倉
    labels, headers = record_labels("kifu11058.csa")
    assert headers["opening"] == "矢倉"
    # (issue 32: ▲3八銀 (27) ▲2七銀 (29) with the rook at home is a climbing silver: 矢倉棒銀)
    assert labels.black.primary_opening == "矢倉棒銀" and labels.white.primary_opening == "矢倉"
    assert plies(labels.black)["矢倉"] == 15 and plies(labels.black)["矢倉棒銀"] == 29
    assert labels.black.primary_castle == "金矢倉" and plies(labels.black)["金矢倉"] == 33
    # kifu15093, $OPENING:角換わり: △７七角成 ▲同銀 (13); ▲２七銀 (31) is 棒銀
    labels, headers = record_labels("kifu15093.csa")
    assert headers["opening"] == "角換わり"
    assert plies(labels.black)["角換わり"] == plies(labels.white)["角換わり"] == 13
    assert labels.black.primary_opening == "角換わり棒銀"
    # kifu20023, $OPENING:四間飛車: Black 舟囲い (▲５八金, 13) -> 左美濃 (▲７八銀, 23) -> 居飛車銀冠
    # (▲７八金, 37) -> 居飛車穴熊 (▲８八銀, 59); White 美濃 (22) -> 高美濃 (28) -> 銀冠 (44)
    labels, headers = record_labels("kifu20023.csa")
    # (issue 32: △4四歩 (4) before △4二飛 (6): ノーマル四間飛車)
    assert headers["opening"] == "四間飛車" and labels.white.primary_opening == "ノーマル四間飛車"
    # (issue 32: ▲5七銀 (17) on the 舟囲い is 舟囲いDX; ▲9九玉 (41) has three golds and silvers
    # around it, 三枚穴熊)
    assert [(r.name, r.ply) for r in labels.black.castles] == [
        ("舟囲い", 13), ("舟囲いDX", 17), ("左美濃", 23), ("居飛車銀冠", 37), ("穴熊", 41), ("三枚穴熊", 41),
        ("居飛車穴熊", 59)]
    assert [(r.name, r.ply) for r in labels.white.castles] == [
        ("片美濃囲い", 20), ("美濃囲い", 22), ("高美濃囲い", 28), ("銀冠", 44)]
    assert labels.white.primary_castle == "銀冠" and labels.black.primary_castle == "居飛車穴熊"
    # kifu29397, $OPENING:三間飛車 (the rook moves on to the fourth file later; still 三間飛車)
    labels, headers = record_labels("kifu29397.csa")
    assert headers["opening"] == "三間飛車" and labels.black.primary_opening == "三間飛車"
    # kifu32335, $OPENING:相振飛車: ▲７八飛 (11) △４二飛 (12); △６二金 (30) completes 金無双
    labels, headers = record_labels("kifu32335.csa")
    assert headers["opening"] == "相振飛車"
    assert plies(labels.black)["相振り飛車"] == plies(labels.white)["相振り飛車"] == 12
    # (issue 32: both diagonals closed first, ▲6六歩 (3) and △4四歩 (6): the ノーマル forms)
    assert labels.black.primary_opening == "ノーマル三間飛車"
    assert labels.white.primary_opening == "ノーマル四間飛車"
    assert labels.white.primary_castle == "金無双" and plies(labels.white)["金無双"] == 30


def test_central_rook_and_side_pawn_games():
    # 第3回電王戦第1局: 菅井's ▲５八飛 (5) with the bishop's diagonal open, then 美濃囲い
    labels, _ = record_labels("denou3-1.ki2")
    assert labels.black.primary_opening == "ゴキゲン中飛車" and labels.black.primary_castle == "美濃囲い"
    # utf82chkifu.csa game 2: 島-三浦 2003, ▲３四飛 at ply 15; game 3: 畠山's ▲５五歩 ▲５八飛
    labels, _ = record_labels("utf82chkifu.csa", 1)
    assert plies(labels.black)["横歩取り"] == 15
    labels, _ = record_labels("utf82chkifu.csa", 2)
    assert plies(labels.black)["中飛車"] == 7 and "居飛車" in plies(labels.white)


def test_real_handicap_games_and_set_ups():
    # 香落ち: 下手 糸谷 builds 左美濃 (▲７八銀 at ply 24) without ever playing ▲7六歩 (the bishop
    # went round by 7九): 角道不突き左美濃, the child of 左美濃; the giver (上手) gets nothing
    labels, headers = record_labels("20081220kyoochi.kif")
    assert headers["handicap"] == "香落ち"
    assert labels.white == SideLabels()
    assert labels.black.primary_castle == "角道不突き左美濃"
    assert ("左美濃", 24) in [(r.name, r.ply) for r in labels.black.castles]
    assert {r.name for r in labels.black.openings} <= HANDICAP_OPENINGS
    labels, headers = record_labels("4.ki2")
    assert headers["handicap"] == "四枚落ち" and labels.white == SideLabels()
    assert {r.name for r in labels.black.openings} <= HANDICAP_OPENINGS
    labels, headers = record_labels("9fu.kif")  # 手合割 その他: a set-up, no labels
    assert labels == GameLabels()


# ----- the definitions ---------------------------------------------------------------------------

def test_definitions_describe_every_label():
    defs = definitions()
    assert len(defs.names("castle")) >= 40 and len(defs.names("opening")) >= 30
    assert re.fullmatch(r"[0-9a-f]{12}", definitions_version())
    mino = defs["美濃囲い"]
    assert (mino.kind, mino.english, mino.parents, mino.depth) == ("castle", "Mino castle",
                                                                   ("片美濃囲い",), 1)
    assert defs["ダイヤモンド美濃"].parents == ("美濃囲い",)
    assert defs["四間飛車"].parents == ("振り飛車",)
    assert defs["角換わり"].both_sides and defs["相掛かり"].both_sides
    assert not defs["対抗形"].primary
    assert "四間飛車" in defs.children("振り飛車")
    assert defs.ancestors("銀冠") == {"高美濃囲い", "美濃囲い", "片美濃囲い"}
    for name in defs:
        info = defs[name]
        assert info.english and info.kind in ("castle", "opening", "technique", "note")
        assert info.window > 0 or info.kind in ("technique", "note")  # 0: the whole game


@pytest.mark.parametrize("text, message", [
    ('[[castle]]\nname = "x"\nenglish = "x"\nown = ["玉 28"]\ncolour = 1\n', "unknown keys"),
    ('[[castle]]\nname = "x"\nenglish = "x"\nwindow = 9\nown = ["象 28"]\n', "unknown piece"),
    ('[[castle]]\nname = "x"\nenglish = "x"\nwindow = 9\nown = ["玉 20"]\n', "bad square"),
    ('[[castle]]\nname = "x"\nenglish = "x"\nwindow = 9\nparents = ["y"]\n', "unknown parent"),
    ('[[castle]]\nname = "x"\nenglish = "x"\nown = ["玉 28"]\n', "window"),
    ('[[opening]]\nname = "x"\nenglish = "x"\nwindow = 9\nrequires = ["y"]\n'
     '[[opening]]\nname = "y"\nenglish = "y"\nwindow = 9\nrequires = ["x"]\n', "cycle"),
    ('[[opening]]\nname = "x"\nenglish = "x"\nwindow = 9\nhandicap = true\ntheirs = ["飛 82"]\n',
     "handicap"),
    ('[[castle]]\nname = "x"\n', "english"),
])
def test_bad_definitions_are_refused(tmp_path, text, message):
    path = tmp_path / "labels.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DefinitionError, match=message):
        load_definitions(path)


def test_a_small_definitions_file(tmp_path):
    path = tmp_path / "labels.toml"
    path.write_text('[defaults.castle]\nwindow = 30\n[[castle]]\nname = "舟"\nenglish = "Boat"\n'
                    'own = ["玉 78", "金 69/79"]\nempty = ["68"]\n', encoding="utf-8")
    defs = load_definitions(path)
    moves = black_only("7g7f 5i6h 6h7h")
    assert classify_game("startpos", moves, defs).black.castles == [Reached("舟", 5)]
    assert classify_game("startpos", turned(moves), defs).white.castles == [Reached("舟", 6)]


# ----- kifudb classify ---------------------------------------------------------------------------

def run(*args):
    return CliRunner().invoke(classify, [str(a) for a in args])


def test_cli_jsonl_one_object_per_game_and_unreadable_files(tmp_path):
    broken = tmp_path / "broken.kif"
    broken.write_bytes(b"\x00\x01 not a record")
    os.mkfifo(tmp_path / "pipe.csa")  # a path that names something unreadable gets a row
    result = run(FIXTURES / "utf82chkifu.csa", FIXTURES / "habu-fujii-2006.kif", broken,
                 tmp_path / "pipe.csa", "--format", "jsonl")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert [r["index"] for r in rows] == [0, 1, 2, 0, None, None]
    habu = rows[3]
    assert habu["path"].endswith("habu-fujii-2006.kif")
    assert habu["white"]["primary_opening"] == "ノーマル四間飛車"
    assert {"name": "居飛車穴熊", "ply": 35} in habu["black"]["castles"]
    assert set(habu["black"]) == {"castles", "openings", "primary_castle", "primary_opening",
                                  "techniques", "notes"}
    assert rows[4]["error"] and rows[5]["error"] and "index" in rows[5]


def test_cli_json_and_text(tmp_path):
    result = run(FIXTURES / "kifu20023.csa", "--format", "json")
    data = json.loads(result.output)
    assert data["definitions_version"] == definitions_version()
    assert data["games"][0]["white"]["primary_castle"] == "銀冠"
    os.mkfifo(tmp_path / "pipe.kif")
    result = run(FIXTURES / "kifu20023.csa", tmp_path / "pipe.kif")
    assert result.exit_code == 0
    assert "▲ castles:    舟囲い (13), 舟囲いDX (17), 左美濃 (23)" in result.output
    assert "△ openings:   振り飛車 (6), 対抗形 (6), 四間飛車 (6), *ノーマル四間飛車 (6)" in result.output
    assert "▲ techniques: " in result.output and "▲ notes:      " in result.output
    assert "pipe.kif: cannot read" in result.output
    missing = run(FIXTURES / "kifu20023.csa", tmp_path / "missing.kif")  # names nothing
    assert missing.exit_code == 2 and "missing.kif: no such file or folder" in missing.output
    assert run("--format", "xml", FIXTURES).exit_code == 2


def test_cli_says_where_a_main_line_stopped():
    # a real record whose third move is illegal: labels cover the two moves before it
    illegal = "tests/fixtures/records/kifu-for-js/_history/examples/illegal_move.kif"
    [row] = [json.loads(line) for line in run(illegal, "--format", "jsonl").output.splitlines()]
    assert row["moves"] == 2
    assert row["stopped"] == {"ply": 3, "line": 11, "text": "２一角成(88)", "code": "bad_geometry",
                              "message": "the bishop on 8h cannot move to 2a"}
    text = run(illegal).output
    assert "(2 moves; the replay stopped at ply 3, line 11 «２一角成(88)»: bad_geometry:" in text
    assert "stopped" not in json.loads(run(FIXTURES / "kifu20023.csa", "--format",
                                           "json").output)["games"][0]
