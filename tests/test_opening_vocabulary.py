"""Opening vocabulary (issue 32): kifudb names every strategy (戦法) that bioshogi names.

(a) every opening of bioshogi's tag list (tests/fixtures/vocabulary/bioshogi_tags.tsv, names only;
see ORIGIN.md there) is an opening label or an alias of one, but for the names kifudb already gives
to a label of another kind (``OTHER_KIND``); (b) every opening label added for issue 32 has a game
that reaches it at the ply expected, for the side expected and, turned half a turn, for the other
side one ply later (but for the strategies named by the exact move they come at, ``ONE_COLOUR``);
(c) an opening easily confused with another does not fire the other.

The games are made for kifudb's tests (written here by hand and checked legal by kifudb's own
rules); they come from no game record. ``vs(black, white)`` plays Black's moves against White's,
White stepping its king to and fro once its own moves run out.
"""

import pytest

from kifudb.labels.classify import definitions
from test_classify import OPENINGS, assert_legal, labels_of, turned
from vocabulary import bioshogi_tags, names_of


def bioshogi_openings() -> list:
    return bioshogi_tags("opening")


def opening_names() -> dict:
    return names_of("opening")


# ----- (a) the vocabulary ------------------------------------------------------------------------

#: bioshogi opening names that are kifudb labels of another kind (a name is one label across all
#: kinds): the name -> its kind in kifudb
OTHER_KIND = {"右玉": "castle"}
#: bioshogi opening names not defined yet (must shrink to nothing)
NOT_YET: set = set()


def test_every_bioshogi_opening_is_a_kifudb_opening():
    defs, known = definitions(), opening_names()
    rows = bioshogi_openings()
    assert len(rows) == 242
    missing = [r["name"] for r in rows if r["name"] not in known
               and r["name"] not in OTHER_KIND and r["name"] not in NOT_YET]
    assert missing == []
    assert not NOT_YET, f"{len(NOT_YET)} bioshogi openings still to define: {sorted(NOT_YET)}"
    for name, kind in OTHER_KIND.items():
        assert defs[name].kind == kind


def test_bioshogi_opening_aliases_are_names_of_the_same_opening():
    known = opening_names()
    for row in bioshogi_openings():
        for alias in filter(None, row["aliases"].split("|")):
            assert known.get(alias) == known[row["name"]], (row["name"], alias)


#: strategies bioshogi files under 右玉 that are no right-side king: the name -> why
NOT_A_RIGHT_KING = {"間宮久夢流": "an entering-king strategy (the king climbs to the opponent's camp)"}


def test_the_strategies_of_the_right_king_require_the_castle():
    # bioshogi's 右玉 is kifudb's castle; the strategies bioshogi files under it require it
    defs = definitions()
    assert "右玉" not in defs._compiled.labels[defs._compiled.names.index("間宮久夢流")].requires
    for row in bioshogi_openings():
        if row["name"] in NOT_A_RIGHT_KING:
            continue
        if row["group"] == "右玉" and row["name"] != "右玉" and row["parent"] in ("右玉", ""):
            assert "右玉" in defs._compiled.labels[defs._compiled.names.index(row["name"])].requires


def test_every_opening_has_a_source_and_an_english_name():
    defs = definitions()
    for name in defs.names("opening"):
        if name not in OPENINGS:
            assert defs[name].source and defs[name].english, name


# ----- (b) a game for every opening --------------------------------------------------------------

def vs(black: str, white: str = "") -> list:
    """Black's moves against White's; once White's run out its king steps to and fro (by ４二,
    or by ６二 when a piece of White's went to ４二)."""
    b, w = black.split(), white.split()
    steps = ("5a6b", "6b5a") if any(move.endswith("4b") for move in w) else ("5a4b", "4b5a")
    k = 0
    while len(w) < len(b) - 1:
        w.append(steps[k % 2])
        k += 1
    out = []
    for i, move in enumerate(b):
        out.append(move)
        if i < len(b) - 1:
            out.append(w[i])
    return out


def game(text: str) -> list:
    return text.split()


W_STATIC = "8c8d"  # White: a static rook (居飛車)
W_FOURTH = "3c3d 4c4d 8b4b"  # White: a fourth-file rook with the diagonal closed (ノーマル四間飛車)
W_YAGURA = "3c3d 4c4d 4a3b 3a4b 4b3c"  # White: a Yagura (矢倉) by its 5th move (ply 10)
YAGURA = "7g7f 6g6f 6i7h 7i6h 6h7g"  # Black: the Yagura opening by its 5th move (ply 9)
KAKU = "7g7f 8c8d 2g2f 3c3d 7i6h 8d8e 8h7g 2b7g+ 6h7g"  # bishop exchange, ply 9
AIGAKARI = "2g2f 8c8d 2f2e 8d8e"  # double wing attack, ply 4
YOKOFU = "7g7f 3c3d 2g2f 8c8d 2f2e 8d8e 6i7h 4a3b 2e2d 2c2d 2h2d 8e8f 8g8f 8b8f 2d3d"  # ply 15
HINERI = "2g2f 8c8d 2f2e 8d8e 6i7h 4a3b 2e2d 2c2d 2h2d P*2c 2d2f 8e8f 8g8f 8b8f P*8g 8f8b 2f7f"
GOKIGEN = "7g7f 3c3d 2g2f 5c5d 2f2e 8b5b"  # White's Gokigen central rook, ply 6
MIGIGYOKU = "3g3f 2i3g 4g4f 3i4h 4h4g 5i4h"  # Black's right-side king castle (右玉)

#: opening -> (the side that reaches it, the game, the ply it is first reached at)
GAMES = {
    # 矢倉
    "矢倉▲3七銀戦法": ("black", vs(YAGURA + " 2g2f 3g3f 3i4h 4h3g", "8c8d 3c3d 6a5b"), 17),
    "矢倉棒銀": ("black", vs(YAGURA + " 2g2f 3i3h 3h2g", "8c8d 3c3d"), 15),
    "脇システム": ("black", vs("7g7f 6g6f 6i7h 7i6h 6h7g 5g5f 8h7i 7i4f",
                            "3c3d 4c4d 4a3b 3a4b 4b3c 5c5d 2b3a 3a6d") + ["3a6d"], 16),
    "森下システム": ("black", vs(YAGURA + " 8h7i 7i6h", "8c8d 3c3d"), 13),
    "同型矢倉": ("black", vs("7g7f 6g6f 6i7h 7i6h 6h7g 3i4h 5g5f 4h5g 5g4f 3g3f 2i3g",
                          "3c3d 4c4d 4a3b 3a4b 4b3c 7a6b 5c5d 6b5c 5c6d 7c7d 8a7c") + ["8a7c"], 22),
    "四手角": ("black", vs("2g2f 2f2e 7i7h 8h7i 5g5f 7i4f 3g3f 4f3g 3g2f"), 17),
    "雀刺し": ("black", vs(YAGURA + " 3g3f 2i3g 2h1h", "8c8d 3c3d"), 15),
    "矢倉旧24手組": ("black", game("7g7f 8c8d 7i6h 3c3d 6h7g 7a6b 2g2f 3a4b 3i4h 5c5d 5g5f 4a3b "
                                 "6i7h 5a4a 5i6i 6a5b 3g3f 4c4d 4i5h 4b3c 8h7i 2b3a 6g6f"), 23),
    "矢倉新24手組": ("black", game("7g7f 8c8d 7i6h 3c3d 6g6f 7a6b 5g5f 5c5d 3i4h 3a4b 4i5h 4a3b "
                                 "6i7h 5a4a 5i6i 7c7d 5h6g 6a5b 6h7g 4b3c 8h7i 2b3a 3g3f"), 23),
    "矢倉中飛車": ("black", vs("7g7f 6g6f 7i6h 6h7g 2h5h", W_STATIC), 9),
    "英春流かまいたち戦法": ("black", vs("7g7f 3i4h 5g5f 4h5g", W_FOURTH), 7),
    "中原流急戦矢倉": ("black", vs("2g2f 4g4f 3i4h 4h4g 5g5f 5f5e", W_YAGURA), 11),
    "阿久津流急戦矢倉": ("black", vs("2g2f 7i7h 8h7i 5g5f 3g3f 7i4f 4f3g 5f5e",
                                W_YAGURA + " 5c5d 5d5e"), 15),
    "米長流急戦矢倉": ("black", vs("2g2f 4g4f 3g3f 2i3g 3i4h 4h4g", W_YAGURA), 11),
    "藤森流急戦矢倉": ("black", vs("2g2f 4g4f 3g3f 2i3g 3i4h 4h4g 4g5f", W_YAGURA), 13),
    "屋敷流二枚銀": ("black", vs("2g2f 5g5f 5f5e 7i6h 6h5g 5g5f 4g4f 4f4e 3i4h 4h4g 4g4f"), 21),
    "屋敷流二枚銀棒銀型": ("black", vs("2g2f 2f2e 5g5f 5f5e 7i6h 6h5g 5g5f 3i3h 3h2g 2g2f"), 19),
    # 相掛かり
    "相掛かり棒銀": ("black", game(AIGAKARI + " 3i3h 4a3b 3h2g"), 7),
    "UFO銀": ("black", game(AIGAKARI + " 3i3h 4a3b 3h2g 7a7b 2g3f"), 9),
    "塚田スペシャル": ("black", game(AIGAKARI + " 6i7h 4a3b 2e2d 2c2d 2h2d P*2c 2d2f 7a7b 1g1f 1c1d "
                                          "3i3h 6c6d 7g7f 8e8f 8g8f 8b8f P*2d"), 21),
    "中原流相掛かり": ("black", game(AIGAKARI + " 6i7h 4a3b 5i6i 5a4b 4i5i 4b5a 3i4h"), 11),
    "5手爆弾": ("black", game(AIGAKARI + " 2e2d"), 5),
    "7手爆弾": ("black", game("7g7f 3c3d 2g2f 8c8d 2f2e 8d8e 2e2d"), 7),
    "必笑ひっかけ戦法": ("black", game(AIGAKARI + " 2e2d 2c2d 2h2d"), 7),
    "ノーガード戦法": ("black", game(AIGAKARI + " 6i7h 4a3b 2e2d 8e8f"), 8),
    "耀龍ひねり飛車": ("black", game("2g2f 8c8d 2f2e 8d8e 9g9f 4a3b 6i7h 5a4b 2e2d 2c2d 2h2d P*2c "
                                "2d2f 8e8f 8g8f 8b8f P*8g 8f8b 2f7f"), 19),
    "ネコ式タテ歩取り": ("black", game(AIGAKARI + " 6i7h 4a3b 2e2d 2c2d 2h2d P*2c 2d2f 3c3d 2f3f "
                                            "5a4b 3f3d"), 15),
    "桐山流タテ歩棒銀": ("black", game(AIGAKARI + " 6i7h 4a3b 2e2d 2c2d 2h2d P*2c 2d2f 5a4b 2f3f "
                                             "4b5a 3i3h 5a4b 3h2g"), 17),
    "たこ金戦法": ("white", game(HINERI + " 5c5d 9g9f 5d5e 9f9e 6a5b 5i5h 5b5c 5h5i 5c5d"), 26),
    # 横歩取り
    "相横歩取り": ("black", game(YOKOFU + " 8f7f"), 16),
    "青野流": ("black", game(YOKOFU + " 2b3c 5i5h"), 17),
    "勇気流": ("black", game(YOKOFU + " 2b3c 5i6h"), 17),
    "竹部スペシャル": ("black", game(YOKOFU + " 5a5b 8h2b+"), 17),
    "△3三角型空中戦法": ("white", game(YOKOFU + " 2b3c"), 16),
    "中座飛車": ("white", game(YOKOFU + " 2b3c 3d3f 8f8e"), 18),
    "△3三桂戦法": ("white", game(YOKOFU + " 2a3c"), 16),
    "△4五角戦法": ("white", game(YOKOFU + " 2b8h+ 7i8h B*4e"), 18),
    "中原飛車": ("white", game(YOKOFU + " 2b3c 3d3f 8f8d 5i5h 5a4a 5h5i 6a5a 5i5h 7a6b"), 24),
    # 袖飛車
    "△7二飛亜急戦": ("black", vs("2g2f 3g3f 2h3h", "3c3d 8b3b"), 5),
    "鷺宮定跡": ("black", vs("2g2f 3g3f 5g5f 7i6h 6h5g 2h3h", W_FOURTH), 11),
    "加藤流袖飛車": ("black", vs("2g2f 3g3f 2h3h", "3c3d 8b5b"), 5),
    "羽生式袖飛車": ("black", vs("2g2f 3g3f 2h3h", W_STATIC), 5),
    "森安流袖飛車穴熊": ("black", vs("7g7f 3g3f 2h3h 8h7g 9i9h 5i6h 6h7h 7h8h 8h9i"), 17),
    "棒玉": ("black", vs("5g5f 5f5e 5i5h 5h5g 5g5f"), 9),
    "棒玉袖飛車": ("black", vs("3g3f 2h3h 5g5f 5f5e 5i5h 5h5g 5g5f"), 13),
    # named by the move they come at
    "初手▲3六歩戦法": ("black", game("3g3f"), 1),
    "2手目△7四歩戦法": ("white", game("2g2f 7c7d"), 2),
    "3手目▲7七角戦法": ("black", game("7g7f 3c3d 8h7g"), 3),
    "4手目△3三角戦法": ("white", game("7g7f 3c3d 2g2f 2b3c"), 4),
    "初手▲7八飛戦法": ("black", game("2h7h"), 1),
    "2手目△3二飛戦法": ("white", game("7g7f 8b3b"), 2),
    "初手▲7八銀戦法": ("black", game("7i7h"), 1),
    "2手目△3二銀システム": ("white", game("7g7f 3a3b"), 2),
    "メイドシステム": ("black", game("7i7h 3c3d 6g6f 8c8d 7h6g"), 5),
    "2手目△6二銀戦法": ("white", game("7g7f 7a6b"), 2),
    "阪田流2手目△9四歩": ("white", game("7g7f 9c9d"), 2),
    "パックマン戦法": ("white", game("7g7f 4c4d"), 2),
    "山崎流パックマン": ("white", game("1g1f 1c1d 7g7f 4c4d"), 4),
    "嬉野流": ("black", game("7i6h"), 1),
    "新嬉野流": ("black", game("7i6h 3c3d 5g5f 8c8d 6h5g"), 5),
    # 右四間飛車
    "右四間飛車超急戦": ("black", vs("4g4f 2h4h 4f4e"), 5),
    "右四間飛車急戦": ("black", vs("5i6h 4g4f 2h4h 4f4e"), 7),
    "右四間飛車左美濃": ("black", vs("7g7f 8h7g 5i6h 6h7h 7h8h 7i7h 4g4f 2h4h"), 15),
    # 角換わり
    "角換わり腰掛け銀旧型": ("black", game(KAKU + " 3a2b 3i4h 7a6b 4g4f 6c6d 4h4g 6b6c 4g5f 4a3b "
                                           "4i5h"), 19),
    "木村定跡": ("black", game(KAKU + " 3a2b 3i4h 7a6b 4g4f 6c6d 4h4g 6b6c 4g5f 6c5d 3g3f 7c7d "
                                  "2i3g 8a7c 4f4e"), 23),
    "新ポンポン桂": ("black", game(KAKU + " 3a2b 3g3f 7a6b 2i3g 6c6d 3g4e"), 15),
    "△3三金型早繰り銀": ("black", game("7g7f 8c8d 2g2f 3c3d 6i7h 8d8e 8h7g 2b7g+ 7h7g 3a2b 3g3f "
                                   "7a6b 3i3h 4a3b 3h3g 6a5b 3g4f"), 17),
    "xaby角戦法": ("white", game("7g7f 3c3d 7f7e 2b8h+ 7i8h B*5d"), 6),
    "鏡の左早繰り銀": ("white", game("7g7f 3c3d 7f7e 2b8h+ 7i8h 3a2b 2h7h 2b3c 5i4h 3c4d"), 10),
    # 筋違い角
    "相筋違い角": ("black", game("7g7f 3c3d 8h2b+ 3a2b B*4e B*6e"), 6),
    "筋違い角阪田流": ("black", game("7g7f 3c3d 6i7h 8c8d 8h2b+ 3a2b B*4e 5a4b 7h7g"), 9),
    "筋違い角蟻地獄戦法": ("black", game("7g7f 3c3d 8h2b+ 3a2b B*4e 5a4b 2h4h"), 7),
    "ゴリ違い角": ("black", game("7g7f 3c3d 8h2b+ 3a2b B*4e 5a4b 4e3d"), 7),
    # 引き角
    "引き角": ("black", vs("7i6h 8h7i"), 3),
    "鳥刺し": ("black", vs("7i6h 8h7i 5g5f 6h5g 5g4f"), 9),
    "飯島流引き角戦法": ("black", vs("7g7f 7i7h 8h7i"), 5),
    "飯島流相掛かり引き角": ("black", game(AIGAKARI + " 7i6h 4a3b 8h7i"), 7),
    "ドラゴンスペシャル": ("black", vs("7i6h 8h7i 5g5f 6h5g 2h8h"), 9),
    "クルクル角": ("black", vs("7i7h 8h7i 7i6h"), 5),
    # silver, gold and knight attacks
    "速攻棒銀": ("black", vs("2g2f 2f2e 3i3h 3h2g 2g2f 2f1e"), 11),
    "極限早繰り銀": ("black", game("2g2f 8c8d 3g3f 8d8e 3i3h 4a3b 3h3g 1c1d 3g4f"), 9),
    "鎖鎌銀": ("black", vs("2g2f 4g4f 3i4h 4h4g 7g7f 4g3f", "8c8d 7a6b 6c6d 6b6c 6c5d"), 11),
    "棒金": ("black", vs("2g2f 4i3h 3h2g", "3c3d 8b3b"), 5),
    "早繰り金": ("black", vs("2g2f 3g3f 4i3h 3h3g 3g4f"), 9),
    "きｍきｍ金": ("white", game("7g7f 3c3d 6g6f 4a3b 2h7h 3b3c 5i4h 3c4d 4h3h 4d5d"), 10),
    "ゴリラの右手": ("black", vs("2g2f 3g3f 3f3e 4i3h 3h3g 3g3f"), 11),
    "UFO金": ("black", vs("2g2f 3g3f 3f3e 4i3h 3h3g 3g3f"), 11),
    "▲5七金戦法": ("black", vs("2g2f 4i5h 5g5f 5h5g", W_FOURTH), 7),
    "カニカニ金": ("black", vs("5g5f 2h5h 6g6f 4g4f 6i6h 6h6g 4i4h 4h4g"), 15),
    "腰掛け金": ("black", vs("2g2f 4g4f 4i4h 4h4g 4g5f"), 9),
    "きんとうん戦法": ("black", vs("4g4f 4i4h 4h4g 4g5f"), 7),
    "ゴリゴリ金": ("black", vs("2g2f 3g3f 3f3e 3e3d 4i3h 3h3g 3g3f 3f3e"), 15),
    "暴銀": ("black", vs("2g2f 2f2e 3i3h 3h2g 2g2f 2f1e 1e1d"), 13),
    "端棒銀": ("black", vs("1g1f 1f1e 2g2f 3i3h 3h2g 2g1f"), 11),
    # static rook against ranging rook
    "▲4六銀右急戦": ("black", vs("2g2f 5g5f 3i4h 4h5g 5g4f", W_FOURTH), 9),
    "▲4六銀左急戦": ("black", vs("2g2f 5g5f 7i6h 6h5g 5g4f", W_FOURTH), 9),
    "山田定跡": ("black", vs("2g2f 5g5f 3g3f 3i4h 4h5g 5g4f 3f3e", W_FOURTH), 13),
    "▲4五歩早仕掛け": ("black", vs("2g2f 4g4f 5i6h 4f4e", W_FOURTH), 7),
    "エルモ急戦": ("black", vs("2g2f 5i6h 6h7h 7i6h 6i7i", W_FOURTH), 9),
    "左美濃急戦": ("black", vs("2g2f 7g7f 8h7g 5i6h 6h7h 7h8h 7i7h 3g3f 3i4h 4h3g", W_FOURTH), 19),
    "へなちょこ急戦": ("black", vs("2g2f 7g7f 5i6h 6h7h 3i4h 3g3f 2i3g 4g4f 4f4e", W_FOURTH), 17),
    "へなちょこ持久戦": ("black", vs("2g2f 7g7f 3i4h 3g3f 2i3g 4g4f 8h7g 5i6h 6h7h 7h8h",
                                W_FOURTH), 19),
    "対振り持久戦": ("black", vs("2g2f 7g7f 8h7g 5i6h 6h7h 7h8h", W_FOURTH), 11),
    "一直線穴熊": ("black", vs("2g2f 7g7f 8h7g 9i9h 5i6h 6h7h 7h8h 8h9i 7i8h 6i7h", W_FOURTH), 19),
    "玉頭位取り": ("black", vs("2g2f 7g7f 7f7e 7i6h 6h7g 7g7f 5i6h 6h7h", W_FOURTH), 15),
    "6筋位取り": ("black", vs("2g2f 6g6f 6f6e 7i6h 6h6g 6g6f", W_FOURTH), 11),
    "5筋位取り": ("black", vs("2g2f 5g5f 5f5e 7i6h 6h5g 5g5f", W_FOURTH), 11),
    "ショーダンオリジナル": ("black", vs("2g2f 5g5f 5f5e 7i6h 6h5g 5g5f", W_FOURTH), 11),
    "銀雲雀": ("black", vs("2g2f 5g5f 5f5e 7i6h 6h5g 5g5f 4g4f 4f4e 3i4h 4h4g 4g4f", W_FOURTH),
            21),
    "ポンポン桂": ("black", vs("2g2f 3g3f 2i3g 3g4e", W_FOURTH), 7),
    "金無双急戦": ("black", vs("7g7f 2h7h 5i4h 4h3h 3i2h 4i4h 6i5h 3g3f 3f3e", "3c3d 8b4b"), 17),
    "△2三歩戦法": ("white", game("7g7f 3c3d 2g2f 8c8d 2f2e 8d8e 2e2d 2c2d 2h2d P*2c"), 10),
    # against the central rook
    "丸山ワクチン": ("black", game(GOKIGEN + " 8h2b+"), 7),
    "超速▲3七銀": ("black", game(GOKIGEN + " 3i4h 5a6b 3g3f 6b7b 4h3g"), 11),
    "超急戦": ("black", game("7g7f 3c3d 2g2f 5c5d 2f2e 8b5b 4i5h 5d5e 2e2d 2c2d 2h2d"), 11),
    "遠山流": ("white", game(GOKIGEN + " 3i4h 5a6b 3g3f 6b7b 4h3g 7a6b 5i6h 6b5c"), 14),
    "村田システム": ("black", vs("2g2f 3i4h 6i7h 7i6h 5g5f"), 9),
    "新村田システム": ("black", vs("2g2f 3i4h 4g4f 4f4e 4h4g 4g4f 5g5f"), 13),
    # the right-side king (右玉, a castle)
    "矢倉右玉": ("black", vs("2g2f " + YAGURA + " " + MIGIGYOKU, W_STATIC), 23),
    "角換わり右玉": ("black", game(KAKU + " 3a2b 3g3f 7a6b 2i3g 6c6d 4g4f 6b6c 3i4h 5a4b 4h4g "
                                    "4b5a 5i4h"), 21),
    "雁木右玉": ("black", game("7g7f 8c8d 6g6f 8d8e 7i6h 3c3d 6h6g 4a3b 2g2f 6a5b 4g4f 5a4a 3i4h "
                            "4a5a 4h4g 5a4a 3g3f 4a5a 2i3g 5a4a 5i4h"), 21),
    "リッチブリッジ": ("black", game("7g7f 8c8d 6g6f 8d8e 7i6h 3c3d 6h6g 4a3b 2g2f 6a5b 4g4f 5a4a "
                               "3i4h 4a5a 4h4g 5a4a 3g3f 4a5a 2i3g 5a4a 5i4h 4a5a 4i5h 5a4a "
                               "6i6h"), 25),
    "糸谷流右玉": ("black", vs(MIGIGYOKU, W_FOURTH), 11),
    "羽生流右玉": ("black", vs(MIGIGYOKU, W_STATIC), 11),
    "ツノ銀型右玉": ("black", vs("6g6f 7i6h 6h6g " + MIGIGYOKU), 17),
    "三段右玉": ("black", vs(MIGIGYOKU + " 4g5f 4h4g"), 15),
    "清野流岐阜戦法": ("black", vs("3g3f 2i3g 4g4f 3i4h 4h4g 5g5f 4i5h 5h5g 5i4i 2h7h"), 19),
    "間宮久夢流": ("black", vs("5g5f 5f5e 5e5d 5i5h 5h5g 5g5f 5f5e"), 13),
    "風車": ("black", vs("6g6f 4g4f 7i6h 6h6g 3i4h 4h4g 5i5h 3g3f 2i3g 2h2i"), 19),
    "新風車": ("black", vs("6g6f 4g4f 4f4e 7i6h 6h6g 3i4h 4h4g 5i5h 3g3f 2i3g 2h2i 6g5f 4g4f"),
            25),
    # other strategies
    "アヒル戦法": ("black", vs("5i5h 7i6h 3i4h 6i7i 4i3i"), 9),
    "裏アヒル戦法": ("black", vs("4i4h 5i5h 6i6h"), 5),
    "つくつくぼうし戦法": ("black", vs("2g2f 7g7f 2f2e 7f7e"), 7),
    "目くらまし戦法": ("black", vs("2g2f 2f2e 2h2f 6i7h 4i3h 5i5h", W_FOURTH), 11),
    "地下鉄飛車": ("black", vs("1g1f 1i1h 3g3f 2i3g 2h2i 2i1i"), 11),
    "ウソ矢倉": ("black", vs("5g5f 5f5e 2h5h 5h5f 7g7f 6g6f 7i6h 6h7g 8h7i 6i7h 4i5h 5h6g 7i6h "
                          "5i6i 6i7i 7i8h"), 31),
    "都成流△3一金": ("white", game("2g2f 3c3d 2f2e 3a3b 2e2d 2c2d 2h2d 4a3a"), 8),
    "花村流名古屋戦法": ("black", vs("6g6f 5g5f 2h5h"), 5),
    "新米長玉": ("black", vs("2g2f 7g7f 8g8f 8h7g 5i6h 6h7h 7h8h 8h9h 7i8h 8h8g", W_FOURTH), 19),
    "稲庭戦法": ("black", vs("1g1f 2g2f 3g3f 4g4f 5g5f 6g6f 7g7f 8g8f 9g9f"), 17),
    "力戦": ("black", game("2g2f 8c8d"), 2),
    # 中飛車
    "原始中飛車": ("black", vs("5g5f 2h5h 5f5e 3i4h 4h5g 5g5f", W_STATIC), 11),
    "▲5五龍中飛車": ("black", vs("5g5f 2h5h 5f5e 9g9f 8h9g"), 9),
    "カニカニ銀": ("black", vs("5g5f 2h5h 7i6h 6h5g 5g6f 3i4h 4h5g 5g4f"), 15),
    "鬼六流どっかん飛車": ("black", vs("5g5f 2h5h 5f5e 7i6h 6h5g 5g6f 5h5f"), 13),
    "中飛車ミレニアム": ("black", vs("5g5f 2h5h 5i4h 4h3h 3i2h 4i3i 3g3f 2i3g 3h2i"), 17),
    "先手中飛車": ("black", game("5g5f 3c3d 2h5h"), 3),
    "矢倉流中飛車": ("black", vs("6g6f 5g5f 2h5h 3i4h 4h5g 5g4f", W_STATIC), 11),
    "飛騨の中飛車合掌造り": ("black", vs("5g5f 2h5h 6g6f 6i6h 6h6g 4g4f 4i4h 4h4g 3i4h 4h5g"), 19),
    "ツノ銀中飛車": ("black", vs("6g6f 5g5f 2h5h 7i6h 6h6g 4g4f 3i4h 4h4g"), 15),
    "英ちゃん流中飛車": ("black", vs("7g7f 6g6f 2h5h"), 5),
    "中飛車左穴熊": ("black", vs("5g5f 2h5h 7g7f 8h7g 9i9h 5i6h 6h7h 7h8h 8h9i"), 17),
    "タランチュラ戦法": ("black", vs("5g5f 5f5e 2h5h 7i6h 6h5g 5g6f 3i4h 4h5g 5g5f"), 17),
    "5筋位取り中飛車": ("black", vs("5g5f 2h5h 5f5e 7i6h 6h5g 5g5f"), 11),
    "ヒラメ戦法": ("black", vs("5g5f 2h5h 5i4h 4h3h 3h2h 3i3h 6i5i 7i6h"), 15),
    # 四間飛車
    "ノーマル四間飛車": ("black", game("7g7f 3c3d 6g6f 8c8d 2h6h"), 5),
    "角道オープン四間飛車": ("black", game("7g7f 3c3d 2h6h"), 3),
    "四間飛車ミレニアム": ("black", vs("7g7f 6g6f 2h6h 5i4h 4h3h 3i2h 4i3i 3g3f 2i3g 3h2i"), 19),
    "耀龍四間飛車": ("black", vs("7g7f 6g6f 2h6h 5i4h 4h3h 3i4h"), 11),
    "はく式四間飛車": ("black", vs("7g7f 2h6h 6g6f 6f6e"), 7),
    "室岡システム": ("black", vs("7g7f 6g6f 2h6h 9g9f 9f9e"), 9),
    "立石流四間飛車": ("black", vs("7g7f 2h6h 6g6f 6f6e 7f7e"), 9),
    "レグスペ": ("black", vs("7g7f 2h6h 7i8h 1i1h 5i4h 4h3h 3h2h 2h1i 3i2h", "3c3d 2b8h+"), 17),
    "やばボーズ流": ("black", vs("7g7f 2h6h 6g6f 6f6e 6h6f"), 9),
    "錆刀戦法": ("black", vs("7g7f 6g6f 2h6h 3i4h 4i5h 5g5f 4h5g"), 13),
    "幻想四間飛車": ("black", vs("7g7f 2h6h 6g6f 6f6e 7i7h 7h6g 6g6f 6f7e"), 15),
    "魔界四間飛車": ("black", vs("7g7f 2h6h 9g9f 8h9g"), 7),
    # 三間飛車
    "ノーマル三間飛車": ("black", game("7g7f 3c3d 6g6f 8c8d 2h7h"), 5),
    "3→4→3戦法": ("black", vs("7g7f 7f7e 2h6h 6h7h"), 7),
    "戸辺流4→3戦法": ("black", vs("7g7f 2h6h 6h7h"), 5),
    "真部流": ("black", vs("7g7f 6g6f 2h7h 5i4h 4h3h 3h2h 3i3h 4i4h 6i5h 9g9f 9f9e",
                        "8c8d 3c3d 2b3c 1a1b 5a4b 4b3b 3b2b 2b1a 3a2b 4a3a"), 20),
    "三間飛車ミレニアム": ("black", vs("7g7f 6g6f 2h7h 5i4h 4h3h 3i2h 4i3i 3g3f 2i3g 3h2i"), 19),
    "△3三飛戦法": ("black", vs("7g7f 2h7h 7h7g"), 5),
    "コーヤン流三間飛車": ("black", vs("7g7f 6g6f 2h7h 5g5f 7i6h 6h5g", "8c8d 3c3d"), 11),
    "下町流三間飛車": ("black", vs("7g7f 7f7e 2h7h 7h7f 5g5f 5f5e 7i6h 6h5g 5g5f"), 17),
    "神吉流三間飛車": ("black", vs("7g7f 2h7h 1i1h 5i4h 4h3h 3h2h 2h1i"), 13),
    "菅井流三間飛車": ("black", game("7g7f 3c3d 8h7g 8c8d 6i7h 2b7g+ 7h7g 5a4b 2h7h"), 9),
    "うっかり三間飛車": ("black", vs("7g7f 5g5f 2h7h"), 5),
    "三間飛車藤井システム": ("black", vs("7g7f 6g6f 2h7h 3i3h 4g4f"), 9),
    "トマホーク": ("black", vs("7g7f 6g6f 2h7h 5i4h 5g5f 5f5e 7i6h 6h5g 5g5f", W_STATIC), 17),
    # 石田流
    "石田流本組み": ("black", game("7g7f 3c3d 7f7e 8c8d 2h7h 8d8e 7h7f 5a4b 9g9f 4b5a 8h9g 5a4b "
                              "8i7g"), 13),
    "楠本式石田流": ("black", game("7g7f 3c3d 7f7e 8c8d 2h7h 8d8e 7h7f 5a4b 9g9f 4b5a 8h9g 5a4b "
                              "8i7g 4b5a 6g6f 5a4b 6f6e 4b5a 7i6h 5a4b 6h6g 4b5a 6g6f"), 23),
    "升田式石田流": ("black", vs("7g7f 7f7e 2h7h 5i4h 4h3h 7h7f"), 11),
    "ムリヤリ早石田": ("black", game("7g7f 3c3d 7f7e 2b8h+ 7i8h 5a4b 2h7h"), 7),
    "新石田流": ("black", game("7g7f 3c3d 7f7e 8c8d 2h7h 8d8e 7h7f"), 7),
    "鈴木流早石田": ("black", game("7g7f 3c3d 7f7e 2b8h+ 7i8h 8c8d 2h7h 8d8e 8i7g 5a4b B*9f"), 11),
    "久保流早石田": ("black", vs("7g7f 7f7e 2h7h 7h6h"), 7),
    "新鬼殺し": ("black", vs("7g7f 7f7e 8i7g"), 5),
    # 向かい飛車
    "逆棒銀": ("black", vs("7g7f 2h6h 8g8f 8f8e 7i7h 7h8g 8g8f"), 13),
    "メリケン向かい飛車": ("black", vs("7g7f 7f7e 8h7g 2h8h"), 7),
    "阪田流向かい飛車": ("black", game("7g7f 3c3d 8h7g 8c8d 6i7h 2b7g+ 7h7g 5a4b 2h8h"), 9),
    "モノレール向かい飛車": ("black", vs("7g7f 9g9f 8h9g 2h8h 7i6h 6h7g 6i7h 4i5h 5h6h"), 17),
    "鬼殺し向かい飛車": ("black", vs("7g7f 9g9f 8h9g 2h8h 8i7g"), 9),
    "高田流左玉": ("black", vs("7g7f 8h7g 2h8h 5i6h 6h7h"), 9),
    "角頭歩戦法": ("black", game("7g7f 3c3d 8g8f"), 3),
    "金沢流": ("black", vs("7g7f 9g9f 8h9g 2h8h 6i7h 7h7g"), 11),
    "菜々河流△4四角": ("black", game("7g7f 3c3d 8h7g 8c8d 2h8h 5a4b 7g6f"), 7),
    "菜々河流向かい飛車": ("black", game("7g7f 3c3d 8h7g 8c8d 2h8h 5a4b 7g6f"), 7),
    "天彦流▲6六角": ("black", vs("7g7f 8h7g 2h8h 7g6f"), 7),
    "天彦流向かい飛車": ("black", vs("7g7f 8h7g 2h8h 7g6f"), 7),
    "ショーダンシステム": ("black", vs("7g7f 8h7g 2h8h 5g5f 7i6h 6h5g"), 11),
    "英春流カメレオン": ("black", vs("7g7f 8h7g 2h8h 5g5f 3i4h 4h5g"), 11),
    "オザワシステム": ("black", vs("7g7f 9g9f 8h9g 2h8h 7i6h 6h7g"), 11),
    # other ranging-rook strategies
    "陽動振り飛車": ("black", vs("2g2f 2h6h"), 3),
    "Uターン飛車": ("black", vs("7g7f 2h6h 6h2h"), 5),
    "穴角戦法": ("black", vs("9i9h 8h9i"), 3),
    "穴角向かい飛車": ("black", vs("9i9h 8h9i 2h8h"), 5),
    "一間飛車": ("black", vs("7g7f 8h7g 2h8h 8h9h"), 7),
    "一間飛車右穴熊": ("black", vs("7g7f 8h7g 2h8h 8h9h 1i1h 5i4h 4h3h 3h2h 2h1i 3i2h"), 19),
    "九間飛車": ("black", vs("2h1h"), 1),
    "九間飛車左穴熊": ("black", vs("2h1h 7g7f 8h7g 9i9h 5i6h 6h7h 7h8h 8h9i"), 15),
    "カメレオン戦法": ("black", vs("2g2f 2h6h 5g5f 3i4h 4h5g"), 9),
    "玉頭銀": ("black", vs("7g7f 6g6f 2h6h 3g3f 3f3e 3i3h 3h3g 3g3f 3f4e", W_STATIC), 17),
    "GAVA角": ("white", game("7g7f 3c3d 7f7e 2b8h+ 2h8h B*4d"), 6),
}

#: strategies named by the move they come at: the colour that moves then, and nobody one ply later
ONE_COLOUR = {"初手▲3六歩戦法", "2手目△7四歩戦法", "3手目▲7七角戦法", "4手目△3三角戦法",
              "初手▲7八飛戦法", "2手目△3二飛戦法", "初手▲7八銀戦法", "2手目△3二銀システム",
              "メイドシステム", "2手目△6二銀戦法", "阪田流2手目△9四歩", "パックマン戦法", "5手爆弾",
              "7手爆弾", "必笑ひっかけ戦法"}


def test_every_opening_has_a_game():
    names = set(definitions().names("opening"))
    assert set(OPENINGS) | set(GAMES) == names
    assert not (set(OPENINGS) & set(GAMES))
    assert ONE_COLOUR <= set(GAMES)


@pytest.mark.parametrize("name", list(GAMES))
def test_opening_reached(name):
    side, moves, ply = GAMES[name]
    assert_legal(moves)
    assert labels_of(moves, side).get(name) == ply
    assert name not in labels_of(moves[:ply - 1], side)


@pytest.mark.parametrize("name", sorted(set(GAMES) - ONE_COLOUR))
def test_opening_reached_by_the_other_colour(name):
    side, moves, ply = GAMES[name]
    other = "white" if side == "black" else "black"
    moves = turned(moves)
    assert_legal(moves)
    assert labels_of(moves, other).get(name) == ply + 1


@pytest.mark.parametrize("name", sorted(ONE_COLOUR))
def test_a_strategy_of_one_move_number_is_not_reached_a_ply_later(name):
    side, moves, ply = GAMES[name]
    other = "white" if side == "black" else "black"
    moves = turned(moves)
    assert_legal(moves)
    assert name not in labels_of(moves, other)


def test_the_first_move_strategies_of_white_and_black():
    # 嬉野流: 初手▲6八銀, or White's 2手目△4二銀, not later
    assert labels_of("7g7f 3a4b".split(), "white")["嬉野流"] == 2
    assert "嬉野流" not in labels_of("7g7f 3c3d 7i6h".split())
    # Black's ▲4八銀 at move 1 is no 2手目△6二銀, White's △6二銀 at move 2 is
    assert "2手目△6二銀戦法" not in labels_of(["3i4h"], "black")
    # 3手目▲7七角: not when the bishop comes up at Black's fourth move (ply 7)
    late = "7g7f 3c3d 2g2f 8c8d 2f2e 8d8e 8h7g".split()
    assert_legal(late)
    assert "3手目▲7七角戦法" not in labels_of(late)


# ----- (c) openings easily confused --------------------------------------------------------------

#: opening -> openings its game must not reach (for the same side)
NOT_THE_OTHER = {
    "ノーマル四間飛車": ["角道オープン四間飛車", "藤井システム", "角交換四間飛車"],
    "角道オープン四間飛車": ["ノーマル四間飛車", "藤井システム", "角交換四間飛車"],
    "耀龍四間飛車": ["藤井システム", "角道オープン四間飛車"],
    "ノーマル三間飛車": ["石田流", "早石田", "うっかり三間飛車", "3→4→3戦法"],
    "新石田流": ["石田流本組み", "升田式石田流", "鈴木流早石田", "ムリヤリ早石田"],
    "升田式石田流": ["新石田流", "石田流本組み"],
    "石田流本組み": ["升田式石田流", "楠本式石田流"],
    "先手中飛車": ["ゴキゲン中飛車", "原始中飛車", "5筋位取り中飛車"],
    "原始中飛車": ["カニカニ銀", "鬼六流どっかん飛車"],
    "ツノ銀中飛車": ["矢倉流中飛車", "ゴキゲン中飛車"],
    "角換わり腰掛け銀旧型": ["木村定跡", "新ポンポン桂", "角換わり右玉"],
    "新ポンポン桂": ["角換わり腰掛け銀", "角換わり腰掛け銀旧型"],
    "△3三金型早繰り銀": ["角換わり腰掛け銀", "角換わり棒銀"],
    "5手爆弾": ["7手爆弾", "必笑ひっかけ戦法"],
    "7手爆弾": ["5手爆弾"],
    "青野流": ["勇気流", "竹部スペシャル"],
    "勇気流": ["青野流"],
    "▲4六銀右急戦": ["▲4六銀左急戦", "山田定跡"],
    "▲4六銀左急戦": ["▲4六銀右急戦", "山田定跡"],
    "矢倉旧24手組": ["矢倉新24手組", "森下システム"],
    "矢倉新24手組": ["矢倉旧24手組"],
    "村田システム": ["新村田システム"],
    "新村田システム": ["村田システム"],
    "右四間飛車超急戦": ["右四間飛車急戦", "右四間飛車左美濃"],
    "右四間飛車急戦": ["右四間飛車超急戦", "右四間飛車左美濃"],
    "右四間飛車左美濃": ["右四間飛車急戦", "右四間飛車超急戦"],
    "初手▲7八銀戦法": ["2手目△3二銀システム", "嬉野流"],
    "初手▲3六歩戦法": ["2手目△7四歩戦法"],
    "初手▲7八飛戦法": ["2手目△3二飛戦法"],
    "3手目▲7七角戦法": ["4手目△3三角戦法"],
    "ショーダンシステム": ["英春流カメレオン"],
    "英春流カメレオン": ["ショーダンシステム"],
    "中原流急戦矢倉": ["米長流急戦矢倉", "阿久津流急戦矢倉"],
    "米長流急戦矢倉": ["中原流急戦矢倉", "藤森流急戦矢倉"],
}


@pytest.mark.parametrize("name", list(NOT_THE_OTHER))
def test_opening_does_not_fire_the_other(name):
    side, moves, _ = GAMES[name]
    reached = labels_of(moves, side)
    assert name in reached
    assert [other for other in NOT_THE_OTHER[name] if other in reached] == []


def test_pacman_is_the_second_move_only():
    # the same pawn offered at move 4 is 山崎流, not the 2手目 パックマン; a Black ▲6六歩 that
    # closes its own opened diagonal offers nothing
    white = labels_of(GAMES["山崎流パックマン"][1], "white")
    assert "山崎流パックマン" in white and "パックマン戦法" not in white
    closed = "7g7f 3c3d 6g6f".split()
    assert not {"パックマン戦法", "山崎流パックマン"} & set(labels_of(closed))


def test_a_rook_that_ranges_twice_keeps_the_first_files_strategies():
    # ▲6八飛 (四間飛車) then ▲7八飛 later: no 三間飛車 strategy (ノーマル三間飛車) is named
    moves = vs("7g7f 6g6f 2h6h 5i4h 4h3h 3h2h 6h7h")
    assert_legal(moves)
    names = labels_of(moves)
    assert "ノーマル四間飛車" in names and "ノーマル三間飛車" not in names
