"""Techniques (手筋) and notes (備考): made-up games that must fire each technique or note for
the intended side at the intended ply (and near misses that must not), the first occurrence of
each in the real records of tests/fixtures/usi/real_games.usi (origin: tests/fixtures/SOURCES.md),
the vocabulary of [[technique]] and [[note]] tables, and how the engine indexes them.

Every made-up game is replayed with core.position.Position.push_usi first (it raises on an
illegal move). Squares in the comments are written ▲ Black / △ White, file then rank.
"""

from pathlib import Path

import pytest

from kifudb.core.handicap import HANDICAPS
from kifudb.core.position import Position
from kifudb.ingest.usi_file import read_usi_games
from kifudb.labels import techniques
from kifudb.labels.classify import (DEFINITION_FILES, DefinitionError, GameLabels, KINDS, Reached,
                                    classify_game, definitions, load_definitions)

REAL_GAMES = Path(__file__).resolve().parent / "fixtures" / "usi" / "real_games.usi"

# ----- made-up games -----------------------------------------------------------------------------

#: ▲2四歩 △同歩 ▲同飛 (7: 飛車先交換) △2三歩 (8: △ drops its only pawn, 歩切れ) ▲2六飛 (9: 浮き飛車)
#: … △8六同飛 (12) … ▲2四歩 (15: 合わせの歩) △同歩 ▲2五歩 (17: 継ぎ歩, ▲'s last pawn: 歩切れ)
#: △2五同歩 ▲同飛 △3二金; Black to move at ply 21 with a pawn in hand.
EXCHANGE = ("2g2f 8c8d 2f2e 8d8e 2e2d 2c2d 2h2d P*2c 2d2f 8e8f 8g8f 8b8f 6i7h 8f8d P*2d 2c2d "
            "P*2e 2d2e 2f2e 4a3b")
#: ▲7六歩 △3四歩 ▲7五歩 (3: 位の確保) △8四歩 ▲7四歩 (5: 突き捨て: △7三歩 takes it, nothing
#: defends it)
PUSH = "7g7f 3c3d 7f7e 8c8d 7e7d"
#: ▲2二角成 △同銀: Black's bishop took the other (a tempo lost), both hold a bishop
BISHOPS = "7g7f 3c3d 8h2b+ 3a2b"
#: then ▲5二角 △9四歩 ▲4一角成 (7: takes the gold, 角切り) △同玉 (8: a naked king, 裸玉)
GOLD = BISHOPS + " B*5b 9c9d 5b4a+ 5a4a"
#: Black's horse, lance and pawns take every White piece while White's king walks (made by a
#: greedy search): ▲2二角成 takes the bishop at ply 3, ▲3四と the last piece at ply 103.
EAT = (
    "7g7f 3c3d 8h2b+ 5a5b 2b3a 5b6b 3a4a 6b7b 4a2c 7b6b 2c1c 6b5a 1c1b 5a4b 1b1a 4b4a 1a2a "
    "4a5a 2a4c 5a6b 4c6a 6b6a 1g1f B*4b 1f1e 6a5b 1e1d 5b4a 1d1c+ 4a5a 1c1b 5a5b 1b1a 5b4c "
    "1a2a 4c3c 1i1h 3c3b 1h1g 3b3c 1g1f 3c2c 1f1e 2c3c 1e1d 3c4c 1d1c+ 4c3b 1c1b 3b2c 1b1a "
    "2c1c 1a1b 1c2c 1b2b 2c2d 2b3b 2d2e 3b4b 2e3e 4b5b 3e4d 5b5c 4d4e 5c6c 4e4d 6c7c 4d5e 7c8b "
    "5e4e 8b7a 4e5e 7a8a 5e6e 8a9a 6e5e 9a9b 5e4d 9b9c 4d3c 9c8c 3c4d 2a1a 4d5d 1a2a 5d4e 2a1a "
    "4e5e 1a2a 5e4e 2a3a 4e5e 2g2f 5e6e 2f2e 6e5e 2e2d 5e4d 2d2c+ 4d4e 2c3c 4e4d 3c3d")
#: after EAT, Black stacks lances and rooks on the ninth file: ▲9八飛 (111) ▲9七香 (113)
#: ▲9六香 (115) ▲9五飛 (117) over ▲9九香, while White's lone king steps about
ROCKETS = EAT + (" 4d4e 9g9f 4e5e 9f9e 5e6e 9e9d 6e5e 2h9h 5e6e L*9g 6e5e L*9f 5e6e R*9e")
#: Black builds an Anaguma (▲9八香 ▲6八玉 ▲7八玉 ▲8八玉 ▲9九玉) while White's king steps to and fro
ANAGUMA = ("7g7f 3c3d 8h7g 4a3b 7g6f 5a4b 9i9h 4b4a 5i6h 4a4b 6h7h 4b4a 7h8h 4a4b 8h9i 4b4a")
#: after EAT, Black (with everything in hand) promotes both rooks and both bishops: ▲7二馬 and
#: ▲5二馬 (115, 117), ▲2二龍 (119, 双竜双馬陣)
DRAGONS_HORSES = (EAT + " 4d4e R*9a 4e5e 9a9b+ 5e6e B*8a 6e5e 8a7b+ 5e6e B*6a 6e5e 6a5b+ 5e6e "
                  "2h2e 6e6d 2e2b+")


SHUFFLE = "5i4h 5a4b 4h5i 4b5a"  # both kings step out and back


def prefix(moves: str, plies: int) -> str:
    return " ".join(moves.split()[:plies])


#: name -> (moves, side, ply): the technique must be reported for that side at that ply.
MADE_UP = {
    "飛車先交換": (EXCHANGE, "black", 7),
    "浮き飛車": (EXCHANGE, "black", 9),
    "合わせの歩": (EXCHANGE, "black", 15),
    "継ぎ歩": (EXCHANGE, "black", 17),
    "歩切れ": (EXCHANGE, "white", 8),
    "垂れ歩": (EXCHANGE + " P*2d", "black", 21),  # ▲2四歩: 2三 in front of it is empty
    "たたきの歩": (EXCHANGE + " P*2c", "black", 21),  # ▲2三歩 on the bishop's head, taken by it
    "角頭攻め": (EXCHANGE + " P*2c", "black", 21),
    "桂頭攻め": (EXCHANGE + " P*8b", "black", 21),  # ▲8二歩 under △8一桂
    "蓋歩": (EXCHANGE + " P*8b", "black", 21),  # … and over △8四飛, its way home
    "飛車不成": (EXCHANGE + " 2e2c", "black", 21),
    "序盤は飛車より角": (EXCHANGE + " 2e2b+", "black", 21),  # ▲2二飛成 takes the bishop, △同銀
    "位の確保": (PUSH, "black", 3),
    "突き捨て": (PUSH, "black", 5),
    "角不成": (PUSH + " 2b7g", "white", 6),  # △7七角 into Black's camp, not promoting
    "突き違いの歩": (PUSH + " 6c6d", "white", 6),  # ▲7四歩 hits △7三歩; △6四歩 instead of taking
    "ロケット": (PUSH + " 8b9b", "white", 6),  # △9二飛 on top of △9一香
    "2段ロケット": (PUSH + " 8b9b", "white", 6),
    "自陣角": (BISHOPS + " B*1h", "black", 5),
    "遠見の角": (BISHOPS + " B*7g", "black", 5),  # ▲7七角 sees △2二銀 across the board
    "たすきの角": (BISHOPS + " B*5b", "black", 5),  # ▲5二角 between △4一金 and △6一金
    "角切り": (GOLD, "black", 7),
    "裸玉": (GOLD, "white", 8),
    "腹金": (GOLD + " G*3a", "black", 9),
    "肩金": (GOLD + " G*3b", "black", 9),
    "頭金": (GOLD + " G*4b", "black", 9),
    "両取り": (GOLD + " G*6b", "black", 9),  # ▲6二金 hits △6一金 and △7一銀
    "馬切り": (prefix(EAT, 5), "black", 5),  # ▲3一馬 takes the silver next to △4一金
    "玉飛接近": (prefix(EAT, 8), "white", 8),  # △7二玉 beside △8二飛
    "控えの桂": (prefix(EAT, 40) + " N*1d", "black", 41),
    "底歩": (prefix(EAT, 40) + " P*1i", "black", 41),
    "下段の香": (prefix(EAT, 40) + " L*1i", "black", 41),
    "裾銀": (prefix(EAT, 40) + " S*2b", "black", 41),  # △3一玉: ▲2二銀 on its hem
    "裾金": (prefix(EAT, 40) + " G*2b", "black", 41),
    "腹銀": (prefix(EAT, 40) + " S*2c", "black", 41),
    "肩銀": (prefix(EAT, 40) + " S*2d", "black", 41),
    "尻銀": (prefix(EAT, 40) + " S*3b", "black", 41),
    "尻金": (prefix(EAT, 40) + " G*3b", "black", 41),
    "歩頭の桂": (prefix(EAT, 40) + " N*3e", "black", 41),
    "歩裏の香": (prefix(EAT, 40) + " L*5b", "black", 41),
    "継ぎ桂": (prefix(EAT, 40) + " N*7g", "black", 41),  # ▲7七桂 where ▲8九桂 can jump
    "端玉": (EAT, "white", 52),
    "中段玉": (EAT, "white", 56),
    "頭銀": (prefix(EAT, 60) + " S*3f", "black", 61),
    "大駒コンプリート": (EAT, "black", 69),  # ▲ takes △'s rook, its last major piece
    "大駒全ブッチ": (EAT, "white", 69),
    "二枚飛車": (prefix(EAT, 80) + " R*1a", "black", 81),
    "自陣飛車": (prefix(EAT, 80) + " R*1g", "black", 81),
    "全駒": (EAT, "black", 103),
    "玉単騎": (EAT, "white", 103),
    "双竜双馬陣": (DRAGONS_HORSES, "black", 119),
    # … and brings both horses home: ▲3六馬 (121), ▲9六馬 (123)
    "双馬結界": (DRAGONS_HORSES + " 6d5e 7b3f 5e6e 5b9f", "black", 123),
    "ポーンハンター": (EAT, "black", 63),  # ▲5三成香 takes a pawn: Black owns 13 of them
    "マムシのと金": (EAT, "black", 35),  # ▲2一と from 1一 comes within two steps of △4三玉
    # after EAT: ▲1四歩 (105), ▲1三歩成 (107), Black's third tokin (with ▲3一と and ▲3四と)
    "歩の錬金術師": (EAT + " 4d4e P*1d 4e5e 1d1c+", "black", 107),
    "封香連舞": (ROCKETS, "black", 115),  # ▲9六香 right after ▲9七香
    "屍の舞": (ROCKETS, "white", 104),  # △4五玉: White's king has nothing else left
    "土下座の歩": (prefix(EXCHANGE, 8), "white", 8),  # ▲2四同飛 △2三歩, before △2二角
    # ▲7七角 ▲7八金 ▲8八金 ▲6八玉 ▲7八玉 (11): the gold on 8八 walls the king in
    "壁金": ("7g7f 3c3d 8h7g 4a3b 6i7h 5a4b 7h8h 6a5b 5i6h 4b4a 6h7h", "black", 11),
    "名人に定跡なし": ("7g7f 5a4b", "white", 2),  # △4二玉 as White's first move
    "3段ロケット": (ROCKETS, "black", 113),  # ▲9七香 on ▲9八飛 on ▲9九香
    "4段ロケット": (ROCKETS, "black", 115),  # ▲9六香
    "5段ロケット": (ROCKETS, "black", 117),  # ▲9五飛
    # after EAT, White's king takes Black's promoted lance on 8三 (110) and gives the lance back
    # (▲6六同歩, 113): ▲9八飛 ▲9七香 ▲9六香 ▲9五香 ▲9四飛 over ▲9九香
    "6段ロケット": (EAT + " 4d5e 9g9f 5e6e 9f9e 6e7d 9e9d 7d8c 9d9c L*6f 6g6f 8c8b 2h9h 8b8c "
                  "L*9g 8c8b L*9f 8b8c L*9e 8c8b R*9d", "black", 123),
    "駒柱": ("7g7f 3c3d 8h2b+ 3a2b 2g2f 4a3b 3i3h 5a4b 3h2g 6a5b B*2e B*2d", "white", 12),
    "居飛車の税金": ("2g2f 3c3d 7g7f 8b4b 1g1f", "black", 5),  # ▲1六歩 against △4二飛
    "幽霊角": ("7g7f 3c3d 8h7g 4a3b 7g9e", "black", 5),
    "壁銀": ("7g7f 3c3d 8h7g 4a3b 7i8h 5a4b 5i6h 6a5b 6h7h", "black", 9),  # ▲7八玉 beside ▲8八銀
    "パンツを脱ぐ": (ANAGUMA + " 8i7g", "black", 17),  # ▲7七桂 from beside ▲9九玉
    "ハッチ閉鎖": (ANAGUMA + " 7i8h", "black", 17),
}

#: A playout that ends in a king mated in its corner: it fires 穴熊の姿焼き and 雪隠詰め
CORNERED_KING_MATED = (
    "5i4h 4a4b 1g1f 8c8d 7i6h 7c7d 9g9f 8b8c 8g8f 8a7c 1i1g 6a6b 1f1e 7d7e 6h5i 8c8b 8h7i "
    "7e7f 4i5h 7f7g+ 3g3f 9a9b 6i6h P*7f 8i7g 1a1b 3f3e 4b3b P*7e 7f7g 6h7g N*1a 4h3g 8b7b "
    "3g2f 7a8b 3i3h 7c8e 8f8e 8d8e N*7h 1c1d P*8g 7b7e 7i8h 7e3e 8h7i 3e6e 5i6h 6e6g+ 7g6g "
    "1d1e R*4h P*7g 2h1h 8b7a 6h7g P*7f 7g7f P*7c 1g1e 1b1e P*6h 1e1h 7f8e L*9a 4h4i R*2h "
    "7h8f 2h3h+ P*1e S*1c P*7d 3h2g 2f2g P*8b 2i1g 7c7d P*3i 3b4b 2g1h P*1f L*6e 1f1g+ 1h1i "
    "N*1b 8f7d P*7e 6e6c+ 6b6c P*7g 4b5b 8e9d 6c7d 9d9c 9b9c R*3e 9c9f P*2h S*2g 9i9f 1g2h")

#: Made up by seeded random playouts (legal moves, captures and drops preferred), cut at the
#: ply where the technique or note first came: name -> (moves, side, ply).
PLAYOUTS = {
    "王手飛車": (
        "9i9h 3c3d 2h7h 2b7g+",
        "white", 4),
    "こびん攻め": (
        "4i5h 5c5d 5i6h 5d5e 5g5f 5e5f",
        "white", 6),
    "金頭の桂": (
        "3g3f 2c2d 2i3g 6a5b 3g4e 1a1b 4e5c",
        "black", 7),
    "勝ち確5三と": (
        "4i5h 5c5d 5i6h 5d5e 5g5f 5e5f 5h5i 5f5g+",
        "white", 8),
    "歩裏の歩": (
        "5g5f 3c3d 2h5h 2b7g 8h7g 3d3e 5h2h 7c7d 7g1a+ 6a7b 1a2a 8b9b 2a4c P*4h",
        "white", 14),
    "玉頭攻め": (
        "4i5h 5c5d 5i6h 5d5e 5g5f 5e5f 5h5i 5f5g+ 6h5g 5a5b P*5c 5b5c 1g1f P*5d 7g7f 5d5e",
        "white", 16),
    "桂頭の桂": (
        "7g7f 8b7b 8h3c+ 2a3c 2h8h B*9f 9g9f 3c4e B*1f 4e3g P*3d P*3f 2i3g 3f3g N*7e N*7d",
        "white", 16),
    "高跳びの桂": (
        "3i4h 7c7d 6g6f 5c5d 4g4f 4a5b 7i6h 8a7c 8g8f 1c1d 4h4g 2a1c 8h7i 5a4a 6h6g 7c6e",
        "white", 16),
    "守りの馬": (
        "6i6h 3c3d 4i4h 2b7g 8h7g 5a6b B*7f 6a5b 7f4c+ P*4e 4c5c 5b5c 7g1a+ B*5h L*4c 5h4i 1a7g",
        "black", 17),
    "ふんどしの桂": (
        "2h1h 8b9b 3g3f 9b3b 1h5h 4a5b 3i2h 6c6d 5i6h 5a6b 4i5i 8c8d 2i3g 6a7b 3g4e 4c4d 4e5c+",
        "black", 17),
    "跳ね違いの桂": (
        "6i5h 6a6b 8g8f 6b7b 7g7f 5a6a 8h3c+ 2a3c 9i9h B*3b 5i6h 3b2a 6h6i 3c2e 4i5i 2e3g+ 2i3g",
        "black", 17),
    "桂頭の銀": (
        "2h3h 8c8d 9g9f 8b7b 8h9g 7a6b 9g5c+ 1a1b 3h9h 6b5c 9h5h B*7h 5h7h 3a4b B*7e 2c2d 7e5c+ "
        "4b5c S*8b",
        "black", 19),
    "竜切り": (
        "7g7f 4a4b 8h3c 2a3c 1g1f B*3f 5i4h 3f2g 2h2g P*3f 2g2c+ 3f3g 4h3g P*2f B*6b 5a6b P*3f "
        "4b3b 2c3b",
        "black", 19),
    "飛車切り": (
        "9g9f 6c6d 9f9e 8b4b 2h3h 5a6b 8i9g 4b3b 7g7f 7c7d 8h3c+ 2b3c 3h2h 3c9i 3g3f 3b3f P*3h "
        "3f7f 9g8e 7f7i",
        "white", 20),
    "たすきの銀": (
        "1i1h 3c3d 2h7h 2b7g+ 7h7g 5c5d B*4f 5d5e 4f1c 9a9b 1c3a 4a3a S*2d 1a1g+ P*1d 1g1h 7g7c+ "
        "2c2d 8h7g S*6h",
        "white", 20),
    "一間竜": (
        "2h6h 9a9b 6h2h 4c4d 4g4f 8b4b 7g7f 9c9d 8h4d 7a6b 4d5c+ 7c7d 2h6h 1c1d 5c4b 3a4b R*5e "
        "B*5b 1i1h 2b1c 5e5c+",
        "black", 21),
    "銀不成": (
        "2h7h 6a6b 7i6h 1c1d 4i4h 1d1e 8g8f 2a1c 3g3f 1c2e 5i5h 2e1g+ 3i3h 1g2g 9g9f 2g3h 4h3h "
        "S*5i 6i7i 3c3d N*4f 5i6h",
        "white", 22),
    "と金攻め": (
        "7i6h 3a4b 3i4h 7a6b 3g3f 7c7d 4g4f 6c6d 8h7i 8a7c 4h3i 6a7a 4i4h 8c8d 6i5h 8d8e 2h1h "
        "8e8f 1h2h 8f8g+ 1g1f 8g7g",
        "white", 22),
    "金底の歩": (
        "2g2f 6c6d 2h1h 8c8d 4g4f 7a7b 1h7h 6d6e 3i4h 3a3b 4h4g 6a6b 6g6f 6e6f 7i6h 5a5b 4i4h "
        "7c7d 4h5h 1a1b 5h6g 8d8e 6g6f P*6a",
        "white", 24),
    "田楽刺し": (
        "1i1h 8b7b 5i4h 4a3b 2h3h 7a8b 2g2f 9a9b 7i7h 3c3d 8g8f 2b7g 6i7i 7g8f+ 8h1a+ 2c2d 1a2a "
        "8f9g 9i9g 3d3e 9g9c 8b9c N*8f 3a4b 2a3b L*7f",
        "white", 26),
    "端攻め": (
        "2h5h 9a9b 5i6h 6a6b 9g9f 4a3b 5g5f 3a4b 6h7h 5a6a 3i4h 7a7b 5h6h 4b5a 3g3f 6c6d 4i3i "
        "9c9d 5f5e 6a7a 1g1f 5a4b 8i9g 3b3a 6i5i 5c5d 5e5d 9d9e",
        "white", 28),
    "底歩に香": (
        "1g1f 9c9d 2h5h 8b7b 5h4h 8a9c 7i7h 7a6b 9i9h 8c8d 6i7i 8d8e 4h5h 7b7a 9g9f 4a4b 4i4h "
        "9d9e 9h9g 9e9f 9g9f P*9d 7g7f 3a3b P*9i 3c3d 9f9d 2b8h 5g5f B*9b 9d9c+ 8h4d+ 9c9b 9a9b",
        "white", 34),
    "双玉接近": (
        "6g6f 8b5b 4i4h 9a9b 4h3h 2c2d 5i6h 3c3d 6h6g 1c1d 8g8f 5a4b 9i9h 2b6f 6g6f 5c5d B*4d "
        "4c4d 6f7f B*7h 5g5f 7h8i 5f5e 5d5e 2g2f 8i9h 7f6g N*8g 8f8e L*1e 1i1h 4b5c 6i5h 6a5a "
        "6g6f 5b7b 6f5e",
        "black", 37),
    "入玉": (
        "7g7f 9c9d 2h3h 5a5b 5i4h 8b7b 8h3c+ 2a3c 6i7h 9d9e 3h1h B*9b 3g3f 3a4b 7h8h 4a5a 1h2h "
        "2b3a 4h3g 8a9c 3g4f 7c7d 1g1f 5c5d 4i4h 1c1d 4f3e 5a4a 9g9f 7b7c 9i9h 2c2d 9f9e 4b5c "
        "3e2d 6a6b 2h1h 1a1b 2d3c",
        "black", 39),
    "桂頭の玉": (
        "3g3f 4a3b 2g2f 2c2d 3i3h 9a9b 9i9h 1c1d 2h1h 3b4b 1g1f 6c6d 3h3g 6a7b 6g6f 3a3b 1h2h "
        "4b5b 2h4h 2b3a 8h9i 5a6a 2f2e 2d2e 4i3h 7c7d 3f3e 3a1c 7g7f 5b5a 1i1g 2e2f 3g2f P*2c "
        "P*2b 5c5d 2b2a+ 3b2a N*5c 6a5b",
        "white", 40),
    "割り打ちの銀": (
        "2h3h 8b7b 3g3f 6a5b 9g9f 7b8b 4g4f 3c3d 9f9e 2b7g 6i6h 7g8h+ 7i8h B*7e B*3e 7e5g 4i5h "
        "5g4f 8h9g 3a4b 3e5c+ 4f3e 5c4c 4b4c P*5d 4c3b P*7g P*4g 5h4g 8b9b 3f3e 3d3e P*4f B*8d "
        "B*1h 8d3i+ 6h5g 3i1g 2i1g S*2i",
        "white", 40),
    "連打の歩": (
        "4i5h 7a6b 5g5f 9a9b 7i6h 1c1d 4g4f 3c3d 3g3f 2b7g 8h7g 1a1b B*4d 4c4d 7g4d B*9a 4d5c "
        "6b5c 2h3h B*9f 9g9f P*4c B*7b 4c4d P*7h 6a7a 7b8c+ 8b8c 5h4g 8c8g P*8e 8g6g+ P*6b B*6f "
        "6h6g 5a6b 6g6f P*5e 6f5e P*5d",
        "white", 40),
    "吊るし桂": (
        "7i6h 1c1d 5i4h 8b6b 4h5i 7a8b 7g7f 4c4d 8h4d 6b7b 4d3c 2a3c 6i7i B*9h 5i6i 9h8g 6i5i "
        "P*3e P*8h 7b4b 8i7g 8g7f+ P*7e P*4f 4g4f 5c5d 7i6i 7f6g 6h7i 6g5g P*5b 6a5b 2g2f P*4d "
        "4f4e 3c4e 6i7h 4e3g+ 4i3h 3g2h 1i1h 2h2i 5i4i 5g7e 3i4h N*5f 8h8g R*7f 3h3i 3e3f 3i2i "
        "5f4h+",
        "white", 52),
    "銀ばさみ": (
        "3g3f 4a3b 5i4h 2c2d 1g1f 7a6b 8g8f 8c8d 4h5i 2d2e 2h5h 9a9b 6i7h 1c1d 2g2f 6a7a 3f3e "
        "5a4a 2f2e 3c3d 3e3d 3b2c 1i1h 2b7g+ 7i6h 7g7h P*7i P*3f 3d3c 7h7i 8h7i G*4d B*6a 2a3c "
        "6a4c+ 3c2e 4c2e P*4e P*3b 3a3b P*2f P*2g N*4c 3b4c 2e1d N*5d 1d3f P*3b P*7b 7a7b 3f4e "
        "4d4e P*3e P*4d P*7d B*1g 7d7c+ 1g3i 2i3g S*8g P*7g",
        "black", 61),
    "銀冠の小部屋": (
        "2h1h 4a4b 5g5f 5a4a 3g3f 8b7b 5i6h 1a1b 1h5h 2c2d 8g8f 9c9d 5f5e 7b5b 4i4h 6a6b 7i7h "
        "6b7b 8h7i 9a9b 3i2h 7a6b 4h3g 6b5a 9g9f 4b3b 2h3i 3c3d 8i9g 6c6d 3i4h 2b5e 5h5e 8a9c "
        "B*5g 3b4b 5g9c 9b9c 5e9e B*6e 9e6e 7b7a B*3e 5b9b N*4i 3d3e 6i5i 3e3f 1g1f B*6c 9f9e "
        "3a2b 6e6f 5a5b 9e9d P*9h P*3d 9c9d 3g2f 9h9i+ 2f3f L*6a P*9c 9d9g 3f4f 6c2g 5i5h 4b3b "
        "8f8e 2g4i+ 7h8g N*2g 6f6e 4i5h 6h7h G*2f 7h8h 2b3a 8h9g",
        "black", 79),
    "端玉には端歩": (
        "2h5h 8b7b 5h6h 1c1d 6h4h 2a1c 5g5f 1a1b 8g8f 1c2e 7i6h 5a4b 4g4f 2e1g+ 1i1g 5c5d 1g1d "
        "P*1h 1d1b+ 7b6b 6h7i 8c8d L*8g 2b1a N*9d 9c9d 1b1a N*5a 4h1h 2c2d B*2c 3a2b 1h1b+ 3c3d "
        "P*1d 4b3c 7i7h 2b1a 6i6h 1a1b 9i9h L*3f 2c4a R*5c 4a6c 5a6c G*2b B*1a 2b1a 3f3g+ B*3h "
        "P*6e 5i5h 3g2g 3h2g P*1h 6h5g 6a5b 2g5d 5c5d P*2f 3c2c 8f8e B*4e 1a1b 2c1b 5h6i 5d5f "
        "8e8d 1b2c 5g5f 2c1d 4f4e G*2a L*7i 2a2b 5f6e P*5e B*1i 1h1i+ P*3c B*2e R*4g 1i2i S*3g "
        "2b3c P*1h",
        "black", 87),
    "穴熊の姿焼き": (CORNERED_KING_MATED, "black", 102),
    "雪隠詰め": (CORNERED_KING_MATED, "white", 102),
    "都詰め": (
        "1i1h 8b7b 5i4h 4a3b 2h3h 7a8b 2g2f 9a9b 7i7h 3c3d 8g8f 2b7g 6i7i 7g8f+ 8h1a+ 2c2d 1a2a "
        "8f9g 9i9g 3d3e 9g9c 8b9c N*8f 3a4b 2a3b L*7f B*7e 7f7h+ 7e9c+ S*2h 3h2h P*9h L*1e 9b9c "
        "G*1f B*1b S*7g 7h7i 1e1c 7i8i 3b4b 7b4b S*5b 5a5b S*6i 1b6g P*6b 5b6b P*7i S*6f 7g6f "
        "G*8h S*2e 6g4i+ 4h4i 8i7i 2h8h N*7g B*4h 7g6i+ 2e2d S*2e 2f2e B*6g G*5h 6g5h+ 4i3h G*3f "
        "P*9g 5h5g S*7f G*2b 8h9h P*1e P*8i 5g6f 2d1e 3f4g 3h4g 6f4h 4g5f 7i8i 3i4h S*3i B*5b "
        "B*3a G*1b P*1d P*5i 6a5b 1f2f B*5g 1g1f 5g4h+ 2f3e 6b5a 9h4h P*3c P*6f S*4e 5f6e 3i4h "
        "B*2c 2b1c 8f9d R*2g 9g9f L*6d 6e5e P*9a 2c1d+ 2g3g+ P*8b 6i7i 8b8a+ 1c1b 7f6g G*3b N*7h "
        "7i7h 3e4e 3g6g S*5h 6g6f",
        "white", 124),
    "穴熊再生": (
        "7g7f 8b5b 8h3c 5b4b 3i3h 2a3c 5i4h B*5e 4i3i 5e3g 4h3g 4b8b B*3e 8b3b 3e1c+ 2b1c P*3e "
        "B*5d 5g5f 5d2g 3g2g 1c3e B*4e 3e1g 4e6c+ 1g2h+ 2g2h 1a1i+ 6c8a 1i2i 3h2i L*3h N*7d 7c7d "
        "2i3h N*2a 8a7a 6a7a B*4h R*1b L*7g P*3e 4h9c+ B*2b S*5h 9a9c P*1c 9c9g 1c1b+ 9g9i+ 1b2b "
        "9i8i R*9b 3b9b P*9g 8i7i 2b2c 7i6i 5h6i 9b9g+ L*3d 9g8g 3d3c 8g7g 3c3a+ B*6c 3a4a 5a4a "
        "N*4h R*8e G*1g 7g7f B*9a S*2b P*7e L*8g S*1d 2b2c 7e7d 6c7d 1d2c+ 7f6g L*8d P*9d S*2i "
        "6g5f 8d8c+ L*1b P*8i L*4d 2c1b 8e8c 1b2a P*8d L*9i 4d4g N*7e L*3b 7e8c 8g8i+ R*3a 4a4b "
        "4h5f G*6d 9i9d 7d5f R*4a 4b5b P*4f P*1f P*7e 1f1g 3h4g 6d7e 4a4c 5f4g L*7g N*7c 3a3b+ "
        "N*4b L*4i 4g6i+ 3b4b 5b6a 2h1i G*3b 9a7c S*8g P*5g N*7f 7g7f S*5i 7c8d+ 3b4b P*2h 4b4c "
        "8d7e R*3f N*3c 8g7f+ G*1h",
        "black", 141),
    "相入玉": (
        "2h3h 6c6d 5g5f 6a5b 3h1h 7a7b 5f5e 8b9b 1g1f 5a4b 7g7f 4c4d 8g8f 1c1d 4g4f 1a1b 1h5h "
        "4b4c 5e5d 5c5d 1i1h 8c8d 5h5d 4c5d P*5f P*5h 4i5h R*3f 8h4d 3f1f P*1g 3c3d 1g1f 5d4d "
        "R*9e P*5c 9e9c B*7a 3g3f 9b9c 4f4e 4d4e 1f1e 4e5f 5h4h 5f6g P*5g 7b6a P*6h 6g7f 1e1d "
        "2b9i+ 6h6g R*7b P*4d L*9d 6i7h P*1g 1h1g P*4b P*7g 9i7g 7h7g 7f6e B*4g 6e5d 5i5h P*1h "
        "7i7h 9d9g+ 4g8c+ 1b1d 8c9c 7a9c 8i9g 5d4d R*3b 3a3b L*2h B*3c 1g1d R*7d L*6c P*9d 2g2f "
        "7d7g+ 7h7g G*1g R*2b 4b4c 1d1b+ 5b6c 1b1c L*1b 2b1b 1g2h L*2g L*7d 1b3b 7d7g+ 3b7b+ "
        "2h3i 7b8a 2a1c S*3a 3i2i R*8b 4a3a 8b8d N*6e 8d8c 7g6g 5h6g 6e5g+ 6g7f L*8e 7f8e S*4b "
        "L*9e S*5d 8c9c+ 5g4h 9c9d 9a9d 8e9d G*2h 8a6a R*5e 6a3a 5e9e 9d8c S*4i L*9i 2h2g L*4g "
        "L*4e 4g4e 4d4e N*9h L*4g 3a4b P*8d G*1i L*5e 1i2i 9e9g+ 8c8d 2g2f B*7g 9g8f L*8e 8f7g "
        "4b4c 3c4d G*3b 2f3f 4c4d 4e5f 4d5d B*7a",
        "black", 160),
}


# △5六角 takes a knight: White holds three knights
PLAYOUTS["三桂懐刃"] = (prefix(PLAYOUTS["穴熊再生"][0], 106), "white", 106)
# ▲6六金 out of the camp, three steps from ▲5九玉
PLAYOUTS["退場の金"] = (prefix(PLAYOUTS["金底の歩"][0], 23), "black", 23)
# ▲5三歩 on △5二玉's head, guarded by nothing: the king takes it
PLAYOUTS["パンドラの歩"] = (prefix(PLAYOUTS["玉頭攻め"][0], 11), "black", 11)

#: (name, moves, side): near misses, each beside the technique it could be confused with: a
#: technique must not be reported for that side with the game's last move, a note not at all.
NEAR_MISSES = [
    ("突き捨て", prefix(EXCHANGE, 5), "black"),  # ▲2四歩 is attacked, but the rook defends it
    ("垂れ歩", prefix(EXCHANGE, 15), "black"),  # ▲2四歩 with △2三歩 in front: 合わせの歩
    ("合わせの歩", EXCHANGE + " P*2d", "black"),  # 2三 is empty: 垂れ歩
    ("たたきの歩", prefix(EXCHANGE, 15), "black"),  # a pawn's head is not a tataki
    ("継ぎ歩", prefix(EXCHANGE, 15), "black"),  # the first pawn of the pair
    ("連打の歩", EXCHANGE, "black"),  # the pawn that took was a pawn: 継ぎ歩
    ("遠見の角", BISHOPS + " B*1h", "black"),  # ▲1八角 sees nothing of White's camp: 自陣角
    ("2段ロケット", prefix(ROCKETS, 113), "black"),  # three pieces at ply 113: 3段ロケット
    ("頭金", GOLD + " G*3a", "black"),  # beside the king: 腹金
    ("腹金", GOLD + " G*4b", "black"),  # in front of it: 頭金
    ("居飛車の税金", "2g2f 3c3d 7g7f 8c8d 1g1f", "black"),  # no ranging rook to pay it to
    ("手損角交換型", "7g7f 3c3d 8h7g 2b7g+ 8i7g", "white"),  # each bishop moved once
    ("手得角交換型", "7g7f 3c3d 8h7g 2b7g+ 8i7g", "black"),
    ("全駒", prefix(EAT, 101), "black"),  # White still has one piece
    ("急戦", EXCHANGE, "black"),  # only pawns were taken
    ("相居玉", prefix(EAT, 8), "black"),  # the outbreak (▲3一馬, ply 5) came with △'s king moved
    ("持久戦", " ".join([SHUFFLE] * 12), "black"),  # 48 plies: too short to say
    ("相居玉", PUSH, "white"),  # both kings at home, but no fighting: nothing taken but a pawn
    ("短手数", " ".join([SHUFFLE] * 16), "black"),  # 64 plies
    # only Black's king went into its corner
    ("相穴熊", "7g7f 3c3d 8h7g 2b3c 9i9h 1a1b 5i6h 5a4b 6h7h 4b3b 7h8h 3b2b 8h9i 4a4b", "black"),
    ("ポーンハンター", prefix(EAT, 19), "black"),  # ▲4三馬 takes a pawn: Black owns 12
    # ▲5二歩 on △5一玉's head is guarded by ▲4三成香 (a random playout, cut)
    ("パンドラの歩", "2h6h 3c3d 3i2h 2b7g+ 8h7g 9c9d B*1f 7c7d 7g1a 2c2d L*5f 8b5b 5f5c+ P*5f "
                 "5c4c 5b5d P*7b 7a7b 1f2e 5f5g+ P*5b", "black"),
    # △2三歩 before △2二角, but the rook came to 2四 two plies before: not at once
    ("土下座の歩", prefix(EXCHANGE, 7) + " 4a3b 5i5h P*2c", "white"),
    ("歩の錬金術師", prefix(EAT, 99), "black"),  # ▲2三歩成 makes Black's second tokin
    ("マムシのと金", prefix(EAT, 33), "black"),  # ▲1一と, four steps from △5二玉
    ("マムシのと金", prefix(EAT, 101), "black"),  # ▲3三と stays two steps from △4五玉
    ("封香連舞", prefix(ROCKETS, 113), "black"),  # ▲9七香 after ▲9八飛
    # △3七歩成 takes a knight: two knights in hand (a random playout, cut)
    ("三桂懐刃", "5i4h 3c3d 5g5f 2b7g+ 8h7g 6a7b B*3e 3d3e 7g4d B*7h 4d3c 2a3c 6i7h B*5h 3i3h "
             "5h4g+ 3h4g 3c4e B*1b 4e3g B*5h 5a4b 2i3g 5c5d N*3f 3e3f 1b2c+ P*2a 4i3i 3f3g+",
     "white"),
    ("退場の金", prefix(PLAYOUTS["金底の歩"][0], 21), "black"),  # ▲6七金 stays in the camp
    ("壁金", MADE_UP["壁銀"][0], "black"),  # a silver on 8八: 壁銀
    ("双馬結界", DRAGONS_HORSES + " 6d5e 7b3f", "black"),  # one horse home, the other at 5二
    ("屍の舞", prefix(EAT, 102), "white"),  # △4四玉 with a pawn still on 3四
    ("名人に定跡なし", "7g7f 3c3d 5i4h", "black"),  # the king moves, but second
    ("名人に定跡なし", "7g7f 3c3d", "white"),
]

#: The notes, made up: name -> (moves, side, ply).
NOTES = {
    "急戦": (GOLD, "black", 7),  # the gold taken at ply 7 is the outbreak
    "持久戦": (" ".join([SHUFFLE] * 13), "white", 52),  # no capture in 52 plies
    "短手数": (GOLD, "white", 8),
    "長手数": (" ".join([SHUFFLE] * 50), "black", 200),
    "相居玉": (GOLD, "white", 7),  # both kings at home at the outbreak
    "角交換型": ("7g7f 3c3d 8h7g 2b7g+ 8i7g", "black", 5),
    "手損角交換型": (BISHOPS, "black", 4),  # ▲2二角成 took the bishop itself
    "手得角交換型": (BISHOPS, "white", 4),
    # ▲9九玉 under ▲9八香 (ply 13) and △1一玉 under △1二香 (ply 14)
    "相穴熊": ("7g7f 3c3d 8h7g 2b3c 9i9h 1a1b 5i6h 5a4b 6h7h 4b3b 7h8h 3b2b 8h9i 2b1a", "black",
            14),
}

#: The first occurrence of each technique and note in the real records of
#: tests/fixtures/usi/real_games.usi: name -> (index of the game, side, ply).
REAL = {
    "突き捨て": (69, "white", 8),
    "垂れ歩": (95, "black", 19),
    "たたきの歩": (80, "black", 11),
    "合わせの歩": (16, "white", 20),
    "継ぎ歩": (113, "black", 31),
    "連打の歩": (1, "black", 25),
    "蓋歩": (33, "white", 10),
    "歩裏の歩": (71, "black", 21),
    "突き違いの歩": (46, "black", 31),
    "こびん攻め": (74, "black", 11),
    "桂頭攻め": (45, "white", 16),
    "角頭攻め": (36, "black", 9),
    "玉頭攻め": (236, "black", 17),
    "端攻め": (23, "black", 39),
    "端玉には端歩": (397, "black", 23),
    "居飛車の税金": (82, "black", 13),
    "底歩": (98, "white", 28),
    "金底の歩": (53, "white", 50),
    "歩切れ": (33, "white", 10),
    "勝ち確5三と": (395, "black", 35),
    "と金攻め": (98, "white", 20),
    "田楽刺し": (71, "black", 29),
    "下段の香": (29, "black", 37),
    "歩裏の香": (234, "black", 33),
    "底歩に香": (31, "black", 87),
    "ロケット": (86, "white", 4),
    "2段ロケット": (86, "white", 4),
    "3段ロケット": (8, "black", 113),
    "ふんどしの桂": (33, "black", 19),
    "控えの桂": (90, "white", 28),
    "継ぎ桂": (62, "white", 52),
    "高跳びの桂": (45, "white", 26),
    "跳ね違いの桂": (90, "white", 22),
    "パンツを脱ぐ": (100, "white", 40),
    "歩頭の桂": (45, "white", 26),
    "金頭の桂": (183, "white", 38),
    "桂頭の桂": (114, "black", 33),
    "吊るし桂": (37, "white", 20),
    "割り打ちの銀": (82, "white", 42),
    "たすきの銀": (47, "white", 50),
    "位の確保": (64, "black", 3),
    "銀ばさみ": (214, "black", 25),
    "桂頭の銀": (255, "white", 22),
    "銀不成": (59, "black", 33),
    "壁銀": (130, "black", 13),
    "頭銀": (38, "black", 49),
    "腹銀": (234, "white", 36),
    "尻銀": (259, "black", 65),
    "肩銀": (79, "black", 39),
    "裾銀": (127, "black", 39),
    "頭金": (394, "black", 55),
    "腹金": (36, "black", 25),
    "尻金": (94, "white", 56),
    "肩金": (60, "white", 32),
    "裾金": (44, "white", 44),
    "穴熊再生": (62, "white", 76),
    "幽霊角": (44, "black", 25),
    "自陣角": (234, "white", 18),
    "遠見の角": (234, "white", 18),
    "たすきの角": (6, "black", 15),
    "守りの馬": (142, "white", 26),
    "角不成": (38, "white", 6),
    "角切り": (98, "black", 19),
    "馬切り": (26, "white", 20),
    "序盤は飛車より角": (143, "black", 25),
    "飛車先交換": (33, "black", 7),
    "浮き飛車": (64, "black", 11),
    "自陣飛車": (21, "black", 23),
    "二枚飛車": (127, "white", 28),
    "一間竜": (26, "white", 18),
    "飛車不成": (127, "black", 21),
    "飛車切り": (67, "black", 19),
    "竜切り": (234, "black", 25),
    "端玉": (54, "white", 54),
    "ハッチ閉鎖": (43, "white", 22),
    "玉飛接近": (57, "black", 7),
    "銀冠の小部屋": (50, "black", 71),
    "裸玉": (55, "black", 31),
    "桂頭の玉": (87, "white", 32),
    "中段玉": (87, "white", 32),
    "双玉接近": (87, "black", 76),
    "入玉": (42, "black", 95),
    "大駒コンプリート": (55, "black", 29),
    "大駒全ブッチ": (55, "white", 29),
    "穴熊の姿焼き": (60, "black", 52),
    "都詰め": (29, "white", 50),
    "雪隠詰め": (60, "white", 52),
    "両取り": (36, "black", 9),
    "王手飛車": (394, "white", 38),
    "急戦": (37, "black", 8),
    "持久戦": (1, "black", 51),
    "短手数": (155, "black", 2),
    "長手数": (149, "black", 205),
    "相入玉": (145, "black", 223),
    "相居玉": (37, "black", 8),
    "相穴熊": (27, "black", 63),
    "角交換型": (291, "black", 4),
    "手損角交換型": (291, "black", 4),
    "手得角交換型": (291, "white", 4),
}

#: bioshogi's tags of kind 手筋 and 備考 (akicho8/bioshogi, lib/bioshogi/analysis/report/all.org;
#: names only) that kifudb has no definition for, with the reason: none left (those without a
#: public description are defined from the name's evident meaning, "reading:" in their note).
NOT_DEFINED: dict = {}
#: bioshogi's notes that are openings in kifudb, under the same name (a name is one label)
NOTES_AS_OPENINGS = ("居飛車", "振り飛車", "相居飛車", "相振り飛車", "対抗形")
BIOSHOGI_NOTES = NOTES_AS_OPENINGS + (
    "急戦", "持久戦", "短手数", "長手数", "相入玉", "相居玉", "相穴熊", "角交換型", "手損角交換型",
    "手得角交換型")
#: the techniques defined here that bioshogi's list does not have
NOT_IN_BIOSHOGI = {"合わせの歩", "底歩", "両取り", "王手飛車"}


def replay(moves: str) -> GameLabels:
    usi = moves.split()
    position = Position()
    for move in usi:
        position.push_usi(move)  # raises IllegalMoveError on an illegal move
    return classify_game("startpos", usi)


def side_labels(labels: GameLabels, side: str):
    return getattr(labels, side)


@pytest.mark.parametrize("name", list(MADE_UP))
def test_made_up_game_fires_the_technique(name):
    moves, side, ply = MADE_UP[name]
    assert name in definitions() and definitions()[name].kind == "technique"
    assert Reached(name, ply) in side_labels(replay(moves), side).techniques


@pytest.mark.parametrize("name, moves, side", NEAR_MISSES)
def test_near_miss_does_not_fire(name, moves, side):
    labels = side_labels(replay(moves), side)
    if definitions()[name].kind == "technique":
        assert Reached(name, len(moves.split())) not in labels.techniques
    else:
        assert name not in {r.name for r in labels.notes}


@pytest.mark.parametrize("name", list(PLAYOUTS))
def test_random_playout_fires_it(name):
    moves, side, ply = PLAYOUTS[name]
    labels = side_labels(replay(moves), side)
    assert Reached(name, ply) in labels.techniques + labels.notes


@pytest.mark.parametrize("name", list(NOTES))
def test_made_up_game_has_the_note(name):
    moves, side, ply = NOTES[name]
    assert definitions()[name].kind == "note"
    assert Reached(name, ply) in side_labels(replay(moves), side).notes


@pytest.fixture(scope="module")
def real_games():
    with open(REAL_GAMES, encoding="utf-8") as stream:
        return list(read_usi_games(stream))


@pytest.mark.parametrize("name", list(REAL))
def test_real_record_fires_it(real_games, name):
    index, side, ply = REAL[name]
    game = real_games[index]
    labels = side_labels(classify_game(game.start_sfen, game.moves), side)
    assert Reached(name, ply) in labels.techniques + labels.notes


def test_every_technique_and_note_has_a_test():
    tested = set(MADE_UP) | set(NOTES) | set(PLAYOUTS) | set(REAL)
    names = set(definitions().names("technique")) | set(definitions().names("note"))
    assert tested == names


def test_names_against_bioshogi():
    defs = definitions()
    for name in NOT_IN_BIOSHOGI:
        assert "not in bioshogi's list" in defs[name].note
    assert not set(NOT_DEFINED) & set(defs)
    techniques_defined = set(defs.names("technique")) - NOT_IN_BIOSHOGI
    assert len(techniques_defined) + len(NOT_DEFINED) == 104  # bioshogi's 手筋
    for name in NOTES_AS_OPENINGS:
        assert defs[name].kind == "opening"
    assert set(defs.names("note")) == set(BIOSHOGI_NOTES) - set(NOTES_AS_OPENINGS)


def test_every_definition_says_where_it_comes_from_or_why_not():
    for name in definitions().names("technique") + definitions().names("note"):
        info = definitions()[name]
        assert info.english and (info.source or info.note), name


# ----- reported at every ply, per side, as rows --------------------------------------------------

def test_a_technique_is_reported_at_every_ply_it_happens():
    labels = replay(EXCHANGE)
    assert [r for r in labels.black.techniques if r.name == "合わせの歩"] == [
        Reached("合わせの歩", 15), Reached("合わせの歩", 17)]
    assert [r.ply for r in labels.black.techniques] == sorted(r.ply for r in labels.black.techniques)
    assert ("black", "technique", "継ぎ歩", 17, False) in labels.rows()
    assert ("white", "note", "短手数", 20, False) in labels.rows()
    kinds = [row[1] for row in labels.rows() if row[0] == "black"]
    assert kinds == sorted(kinds, key=("castle", "opening", "technique", "note").index)
    shown = labels.as_dict()["black"]
    assert {"name": "継ぎ歩", "ply": 17} in shown["techniques"]
    assert {"name": "短手数", "ply": 20} in shown["notes"]
    assert KINDS == ("castle", "opening", "technique", "note")


def test_both_sides_and_the_opponents_move():
    # △2四角 (ply 12) is the ninth piece on the second file: both sides get 駒柱
    labels = replay(MADE_UP["駒柱"][0])
    assert Reached("駒柱", 12) in labels.black.techniques
    # 大駒全ブッチ is White's, though Black's move made it
    labels = replay(EAT)
    assert Reached("大駒全ブッチ", 69) in labels.white.techniques
    assert "大駒全ブッチ" not in {r.name for r in labels.black.techniques}


def test_once_reports_the_first_time_only():
    # 壁銀 is marked once: the king stepping 7八 -> 7九 -> 7八 beside the silver is not reported again
    moves = MADE_UP["壁銀"][0] + " 5b6b 7h7i 6b5b 7i7h"
    assert [r for r in replay(moves).black.techniques if r.name == "壁銀"] == [Reached("壁銀", 9)]


def test_a_handicap_game_labels_the_full_army_only_and_has_no_notes():
    start = HANDICAPS["香落ち"]
    moves = "5a4b 7g7f 4b5a 7f7e 5a4b 7e7d".split()  # ▲7四歩: 突き捨て
    position = Position.from_sfen(start)
    for move in moves:
        position.push_usi(move)
    labels = classify_game(start, moves)
    assert Reached("突き捨て", 6) in labels.black.techniques
    assert labels.white.techniques == [] and labels.black.notes == labels.white.notes == []


def test_no_notes_for_a_game_without_moves():
    assert classify_game("startpos", []) == GameLabels()


# ----- the vocabulary ----------------------------------------------------------------------------

def load(text, tmp_path):
    path = tmp_path / "extra.toml"
    path.write_text(text, encoding="utf-8")
    return load_definitions(DEFINITION_FILES[:3] + (path,))


@pytest.mark.parametrize("text, message", [
    ('[[technique]]\nname = "x"\nenglish = "x"\npiece = "歩"\ncolour = 1\n', "unknown keys"),
    ('[[technique]]\nname = "x"\nenglish = "x"\naround_own = ["歩 Q"]\n', "bad relative square"),
    ('[[technique]]\nname = "x"\nenglish = "x"\naround_own = ["歩 FFL*"]\n', "eight directions"),
    ('[[technique]]\nname = "x"\nenglish = "x"\naround_own = ["歩"]\n', "needs a piece"),
    ('[[technique]]\nname = "x"\nenglish = "x"\nmate = false\n', "mate can only"),
    ('[[technique]]\nname = "x"\nenglish = "x"\ndrop = true\nfrom = "77"\n', "a drop has no"),
    ('[[technique]]\nname = "x"\nenglish = "x"\nmover = "both"\n', "mover is"),
    ('[[technique]]\nname = "x"\nenglish = "x"\nprevious = { colour = 1 }\n', "previous is a"),
    ('[[technique]]\nname = "x"\nenglish = "x"\nown_count = ["two 金 11-99"]\n', "own_count"),
    ('[[technique]]\nname = "y"\nenglish = "y"\n\n[[technique]]\nname = "x"\nenglish = "x"\n'
     'requires = ["y"]\n', "it takes castle"),
    ('[[technique]]\nname = "x"\nenglish = "x"\nwindow = 0\n', "window"),
    ('[[technique]]\nname = "居飛車"\nenglish = "x"\n', "defined twice"),
    ('[[technique]]\nname = "x"\nenglish = "x"\nown_king_to = "9"\n', "king steps"),
    ('[[technique]]\nname = "x"\nenglish = "x"\ntheir_king_to = 1\n', "king steps"),
    ('[[technique]]\nname = "x"\nenglish = "x"\nown_king_to = "3-1"\n', "runs backwards"),
    ('[[technique]]\nname = "x"\nenglish = "x"\ndrop = true\nown_king_from = "1"\n',
     "a drop has no"),
    ('[[technique]]\nname = "x"\nenglish = "x"\nhand_count = ["3 桂 11-99"]\n', "hand_count"),
    ('[[note]]\nname = "x"\nenglish = "x"\nat = "middle"\n', "at is"),
    ('[[note]]\nname = "x"\nenglish = "x"\nreached = ["no such"]\n', "unknown label"),
    ('[[note]]\nname = "x"\nenglish = "x"\nbishop_moves = "same"\n', "bishop_moves"),
    ('[[note]]\nname = "x"\nenglish = "x"\nplies_min = -1\n', "plies_min"),
])
def test_bad_definitions_say_what_is_wrong(tmp_path, text, message):
    with pytest.raises(DefinitionError, match=message):
        load(text, tmp_path)


def test_relative_squares_lines_and_edges(tmp_path):
    defs = load("""
[[technique]]
name = "香の先"
english = "x"
piece = "香"
drop = true
around_theirs = ["歩 F*", "金/銀 F**"]

[[technique]]
name = "端まで"
english = "x"
piece = "香"
drop = true
around_theirs = ["金 F$"]
around_empty = ["F"]
""", tmp_path)
    # after 16 plies of EAT Black holds a lance; △6三歩 and △6一金, △7三歩 and △7一銀 stand
    moves = prefix(EAT, 16).split()
    sixth = classify_game("startpos", moves + ["L*6e"], defs).black.techniques
    assert sixth == [Reached("香の先", 17), Reached("端まで", 17)]  # ▲6五香
    seventh = classify_game("startpos", moves + ["L*7e"], defs).black.techniques
    assert seventh == [Reached("香の先", 17)]  # ▲7五香: the edge square 7一 holds a silver


def test_previous_moves_at_from_and_material(tmp_path):
    defs = load("""
[[technique]]
name = "取り返し"
english = "x"
previous = { capture = "角", at = "." }
capture = "馬/角"

[[technique]]
name = "角なし"
english = "x"
mover = "opponent"
captures = true
material_max = ["0 角"]
""", tmp_path)
    labels = classify_game("startpos", "7g7f 3c3d 8h2b+ 3a2b".split(), defs)
    assert Reached("取り返し", 4) in labels.white.techniques  # △2二同銀 takes back the horse
    assert labels.black.techniques == []  # ▲'s bishop in hand: it still owns one
    labels = classify_game("startpos", "7g7f 3c3d 8h2b+ 3a2b B*5b 4a5b".split(), defs)
    assert Reached("角なし", 6) in labels.black.techniques  # △5二同金: ▲ has no bishop left


def test_king_steps_and_pieces_in_hand(tmp_path):
    defs = load("""
[[technique]]
name = "玉の隣に打つ"
english = "x"
drop = true
their_king_to = "1"

[[technique]]
name = "玉の隣から"
english = "x"
their_king_from = "1"
own_king_to = "4-8"

[[technique]]
name = "角を持ち合う"
english = "x"
captures = true
hand_count = ["1 角"]
their_hand_count = ["1 角"]
""", tmp_path)
    # ▲5二角 (5) next to △5一玉; ▲4一角成 (7) from next to it, eight steps from ▲5九玉
    labels = classify_game("startpos", GOLD.split(), defs)
    assert labels.black.techniques == [Reached("玉の隣に打つ", 5), Reached("玉の隣から", 7)]
    # ▲2二角成 (3): Black holds a bishop, White none; △同銀 (4): each holds one
    labels = classify_game("startpos", BISHOPS.split(), defs)
    assert labels.black.techniques == [] and labels.white.techniques == [
        Reached("角を持ち合う", 4)]


# ----- the engine looks only at what a move can fire -----------------------------------------------

def test_a_move_looks_at_a_few_of_the_techniques_only():
    compiled = definitions()._techniques
    clauses = compiled.clauses()  # each technique's, for each owner
    assert len(clauses) > 150

    def names(lists):
        return {compiled.names[c.technique] for c in lists}

    # ▲7六歩 (7g7f), a pawn push taking nothing, looks at the pawn pushes' clauses only
    pawn = compiled.lists(techniques.slot(0, 1, False, 6 * 9 + 5, 0))
    assert 0 < len(pawn[techniques.PLAIN]) <= len(clauses) / 10
    assert "突き捨て" in names(pawn[techniques.PLAIN])
    assert not names(sum(pawn, ())) & {"垂れ歩", "継ぎ歩", "頭金", "入玉", "角切り"}
    # every slot of every move: no slot looks at more than a tenth of the clauses
    for key in range(techniques.slot(1, 31, 1, 80, 14) + 1):
        if key % 15 in (0, 1, 7):  # taking nothing, a pawn, a gold
            assert len(compiled.lists(key)[techniques.PLAIN]) <= len(clauses) / 10
    # a mate is looked for after the last move only, a full file only when a file is full, a
    # check only when the move gives check, 頭金 only when the opponent's king is near
    gold = compiled.lists(techniques.slot(0, 7, True, 4 * 9 + 1, 0))  # ▲4二金打
    assert "頭金" in names(gold[techniques.KING_NEAR]) and "頭金" not in names(gold[0])
    knight = compiled.lists(techniques.slot(0, 3, False, 6 * 9 + 6, 0))  # ▲7七桂
    assert "吊るし桂" in names(knight[techniques.MATE])
    assert "吊るし桂" not in names(knight[techniques.PLAIN])
    assert "駒柱" in names(knight[techniques.FULL]) and "駒柱" not in names(knight[0])
    assert all(c.mate for c in knight[techniques.MATE])
