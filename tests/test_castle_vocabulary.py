"""Castle vocabulary (issue 32): kifudb names every castle (囲い) that bioshogi names.

(a) every castle of bioshogi's tag list (tests/fixtures/vocabulary/bioshogi_tags.tsv, names only;
see ORIGIN.md there) is a castle label or an alias of one; (b) every castle label, old and new, has
a game that reaches it, for Black and, turned half a turn, for White, at the ply expected; (c) a
castle that is easily confused with another does not fire the other.

The games are made for kifudb's tests (written here by hand, or found by a small search over
Black's moves and checked by hand): Black builds the castle while White's king steps 5一 -> 4二 ->
5一 … (``black_only`` of test_classify.py), or a whole game marked ``game:``.
"""

import pytest

from kifudb.labels.classify import classify_game, definitions
from test_classify import CASTLES, assert_legal, black_only, labels_of, turned
from vocabulary import bioshogi_tags, names_of

#: bioshogi's tags of each kind, as its report counts them
KINDS = {"castle": 128, "opening": 242, "technique": 104, "note": 15}


def castle_names() -> dict:
    return names_of("castle")


# ----- (a) the vocabulary ------------------------------------------------------------------------

def test_the_bioshogi_tag_list_as_copied():
    rows = bioshogi_tags()
    assert list(rows[0]) == ["kind", "name", "group", "parent", "aliases"]
    assert {kind: sum(r["kind"] == kind for r in rows) for kind in KINDS} == KINDS
    assert len({(r["kind"], r["name"]) for r in rows}) == len(rows)
    castles = {r["name"]: r for r in rows if r["kind"] == "castle"}
    assert castles["銀冠"]["parent"] == "片銀冠"
    assert castles["ミレニアム囲い"]["aliases"].split("|") == ["トーチカ", "トーチカ囲い", "かまぼこ囲い",
                                                             "かまくら囲い"]


def test_every_bioshogi_castle_is_a_kifudb_castle():
    known = castle_names()
    missing = [r["name"] for r in bioshogi_tags() if r["kind"] == "castle" and r["name"] not in known]
    assert missing == []


#: bioshogi alias -> why kifudb gives that name to another castle
OTHER_READINGS = {
    "三手囲い": "the JSA column 玉の囲い方 第65回 draws 三手囲い as ▲4八玉 ▲3八玉 ▲4八銀: kifudb's 早囲い",
}


def test_bioshogi_castle_aliases_name_the_same_castle():
    """An alias bioshogi gives a castle is, in kifudb, a name of that castle or of one of its
    relatives (bioshogi's 金矢倉 alias 矢倉囲い is kifudb's family label of 金矢倉)."""
    defs, known = definitions(), castle_names()
    assert known["三手囲い"] == "早囲い"
    for row in bioshogi_tags():
        if row["kind"] != "castle" or not row["aliases"]:
            continue
        label = known[row["name"]]
        family = {label} | defs.ancestors(label) | set(defs.children(label))
        for alias in row["aliases"].split("|"):
            if alias in known and alias not in OTHER_READINGS:
                assert known[alias] in family, (row["name"], alias)


def test_every_castle_has_a_source_and_an_english_name():
    defs = definitions()
    for name in defs.names("castle"):
        assert defs[name].source and defs[name].english, name


# ----- (b) a game for every castle ---------------------------------------------------------------

GAME = "game: "

#: Black's moves (White's king stepping in between) reaching each castle added for issue 32.
MORE_CASTLES = {
    "いちご囲い": "4i5h 5i6h 6i7h",
    "カブト囲い": "4i5h 5i6h 7i7h 7g7f 7h7g 6i7h",
    "カタ囲い": "4i5h 5i6h 6h7h 7i6h 7h7i 6i7h 7g7f 8h7g 7i8h",
    "富士見矢倉": "7g7f 6g6f 7i6h 6h7g 8h7i 6i7h 4i5h 5h6g 7i6h 5i6i 6i7i 7i8h 5g5f 3i4h 4h5g 5f5e 5g5f",
    "高矢倉": "7g7f 6g6f 7i6h 6h7g 8h7i 6i7h 4i5h 5h6g 7i6h 5i6i 6i7i 7i8h 7f7e 7g7f 7h7g",
    "四角矢倉": "7g7f 6g6f 7i6h 6h7g 8h7i 6i7h 5g5f 3i4h 4h5g 5g6h 6h6g 7i6h 5i6i 6i7i 7i8h 6h5g 4i5h 5h6h",
    "角矢倉": "6i7h 5i6i 7i6h 6g6f 6h6g 7g7f 8h7g",
    "豆腐矢倉": "7g7f 6g6f 7i6h 6h7g 8h7i 6i7h 4i5h 5h6g 7i6h 5i6i 6i7i 7i8h 5g5f 6h7i 3i4h 4h5g 5g6h",
    "隅矢倉": "6i7h 5i6i 7i6h 6i7i 7g7f 8h6f 6h7g 7i8h 8h9h 4i5h 6f5e 6g6f 5h6g",
    "流れ矢倉": "4i5h 6i7h 5i6i 7g7f 8h7g 7i6h 6i7i 7g6f 6h7g",
    "流線矢倉": "7g7f 8h5e 7i8h 5g5f 3i4h 4h5g 5g6h 6h7g 6i7h 6g6f 4i5h 5h6g 9g9f 8i9g 5i6i 6i7i "
                "7i8i",
    "金門矢倉": "6i6h 5i6i 7i7h 6i7i 6g6f 6h6g 7g7f 8h7g 7i8h 4i5h 5h6h 7g8f 6h7g",
    "へこみ矢倉": "6i6h 5i6i 7i7h 6i7i 7g7f 8h7g 7i8h 4i5h 7g6f 6h7g 5h6h",
    "一文字矢倉": "4i5h 7i6h 5g5f 5h5g 6i5h 5i6i 6g6f 5h6g 7g7f 6h7g",
    "カギ囲い": "4i5h 6i7h 5i6i 7g7f 7i6h 6h7g",
    "悪形矢倉": "6i7h 5i6i 7i6h 6i7i 6g6f 6h6g 7g7f 8h7g 7i8h 4i5h 5h6h 7g8f 6h7g",
    "ムリヤリ矢倉": "6i7h 7i6h 7g7f 6h7g 4i5h 6g6f 5h6g",
    "無責任矢倉": "6i7h 7i6h 7g7f 6h7g 4i5h 6g6f 5h6g",
    "カニ缶囲い": "7i6h 4i5h 6i7h 5i6i 3i4h 5g5f 4h5g",
    "右矢倉": "4i3h 3i4h 5i4i 4i3i 2h1h 3i2h 3g3f 4h3g 4g4f 6i5h 5h4g",
    "オールド雁木": "7i6h 4i5h 6i7h 5i6i 6g6f 6h6g 3i4h 5g5f 4h5g",
    "ツノ銀雁木": "3i3h 4i5h 5i6h 6i7h 4g4f 3h4g 6h6i 7i6h 6g6f 6h6g",
    "新型雁木": "3i3h 4i5h 5g5f 5i6h 6g6f 7i7h 6h7i 7h6g 6i7h 4g4f 3h4g",
    "オリジナル雁木": "7i6h 6g6f 6h6g 3i4h 5g5f 4h5g 6i7h 4i4h 5i6i",
    "舟囲いDX": "3i4h 4i5h 5g5f 4h5g 5i6h 6h7h",
    "居飛車金無双": "4i5h 5i6h 6h7h 6i6h 7g7f 8h7g 7i8h",
    "天守閣囲い": "5i6h 6h7h 8g8f 7h8g 6i7h",
    "チョコレート囲い": "5i6h 6h7h 8g8f 7h8g 6i7h 7g7f 8h7g 7i8h",
    "角道不突き左美濃": "5i6h 7i7h 6h7i 9g9f 8h9g 7i8h",
    "居飛車金美濃": "5i6h 6h7h 7i6h 7g7f 8h7g 7h8h 4i5i 6i7h 5i6i",
    "升田美濃": "4i5h 7i7h 5i6h 6h7i 6g6f 7h6g 7i7h",
    "居飛車金冠": "7g7f 8g8f 8h6f 6i7h 7h8g 4i5h 5h6h 6h7h 7i6h 6h7g 5i6i 6i7i 7i8h",
    "端玉銀冠": "5i6h 6h7h 8g8f 7h8g 6i7h 8g9h 7g7f 7i6h 6h7g 7f7e 7g7f 7f8g",
    "かんぴょう囲い": "6i7h 5i6h 8g8f 7g7f 6h7g 7g8g 7h7g 7i7h 8g9h 7h8g 8h7i 9h8h 4i5h 5h6h 6h7h",
    "四枚銀冠": "7g7f 8h7g 8g8f 5i6h 6h7h 7h8h 7i7h 7h8g 6i7h 7g5e 6g6f 5g5f 3i4h 4h5g 5g6h 6h7g 4i5h 5h6g",
    "文鎮囲い": "6i6h 4i5h 7i7h 9i9h 7g7f 8i7g 5i6i 7g6e 7h7g 6i7h 9g9f 8h9g 7g8h",
    "金盾囲い": "6i6h 5i6i 6i7h 4i5h 6g6f 5h6g",
    "大盾囲い": "6i5h 5i6i 6i7h 5g5f 5h5g 4i5h 6g6f 5h6g",
    "セメント囲い": "3i4h 4i5h 7i7h 5g5f 4h5g 5i6h 6h7i 6g6f 7h6g 7i7h",
    "左山囲い": "4i5h 5i6h 6h7h 7i6h 6i7i 6g6f 5h6g",
    "片ツノ銀囲い": "4i5h 5i6h 6h7h 7i6h 6g6f 6h6g 6i6h",
    "桐山流中原囲い": "3i4h 5i5h 6i7h 7i6h",
    "裏アヒル囲い": "4i4h 5i5h 6i6h",
    "無敵囲い": "2h5h 3i4h 7i6h",
    "いかだ囲い": "3i4h 4i3h 6i7h 7i6h",
    "魔方陣": "6i7h 7i6h 6g6f 6h6g 5i6h 4i5i 5i6i 4g4f 3i4h 4h4g 4g5h",
    "天空の城": "3i4h 5i5h 4g4f 5h4g 4g5f 4h4g 4f4e 4g4f 4i4h 4h4g",
    "居玉": "game: 7g7f 3c3d 8h2b+",
    "雲隠れ玉": "5i6h 6h7h 8g8f 7h8g 8g9h 7g7f 8h7g 7i8h",
    "モノレール囲い": "5i6h 6h7h 6i6h 9i9h 8g8f 7h8g 8h9i 7i8h 4i5h 6h7h 5h6h 9g9f 9h9g 8g9h",
    "四段端玉": "5i6h 6h7h 8g8f 7h8g 6i7h 8g9f 7h8g",
    "あずまや囲い": "7i6h 4i5h 6i7h 3i4h 5g5f 4h5g 7g7f 6h7g 5i6h",
    "銀多伝": "7i6h 4g4f 5g5f 6g6f 6h6g 3i4h 4h5g",
    "金多伝": "4i5h 4g4f 5g5f 5h5g 6g6f 6i6h 6h6g",
    "早囲い": "2h1h 5i4h 4h3h 3i4h",
    "振り飛車エルモ": "3i4h 4i3i 5i4i 4i3h",
    "ずれ美濃": "4i5h 2h1h 5i4h 4h3h 3i4h",
    "連盟美濃": "4i4h 5i4i 4i3h 2h1h 3h2h 1g1f 2i1g 3i3h 3h2i 4h3h 6i5h 5h4h",
    "ちょんまげ美濃": "3i3h 2g2f 2f2e 5i4h 4h3i 2h2g 3i2h",
    "片銀冠": "2g2f 3i3h 3h2g 4i3h 5i4h 4h3i 2h1h 3i2h",
    "金美濃": "3i3h 5i4h 4h3i 2h1h 3i2h 2g2f 3h2g 4i3h 6i5i 5i4i",
    "振り飛車四枚美濃": "3i3h 5i4h 4h3i 6i5h 2h1h 3i2h 4g4f 5h4g 5g5f 7i6h 6h5g 4f4e 5g4f",
    "大山美濃": "3i3h 4g4f 6i6h 5g5f 6h5g 5i4h 4h3i 2h1h 3i2h",
    "美濃熊囲い": "1i1h 3i3h 5i4h 4h3i 1g1f 2i1g 3i2i 2i1i",
    "裾固め": "3i3h 4i3i 5i4h 3g3f 4h3g 2h1h 3g2h 4g4f 3h4g 6i5h 5h4h 4h3h",
    "カブト美濃": "2h7h 2g2f 3i2h 2h2g 5i4h 4h3h 3h2h 5g5f 7i6h 6h5g 5g4h 4h3i 3i3h",
    "振り飛車ミレニアム": "5i4h 4h3h 2h1h 3i2h 4i3i 3g3f 2i3g 3h2i",
    "振り飛車端玉銀冠": "2g2f 3i3h 3h2g 4i3h 5i4h 4h3i 2h1h 3i2h 1g1f 1h1g 2h1h",
    "振り飛車串カツ囲い": "5i4h 4h3h 2g2f 3h2g 2g1h 2h2g 3i2h",
    "振り飛車天守閣美濃": "2g2f 3i3h 5i4h 3g3f 4h3g 3g2g",
    "離れ金無双": "4i4h 5i4i 4i3h 2h1h 3i2h",
    "神吉流穴熊": "5i6h 6h7h 9i9h 8h9i 7h8h 7i7h 7g7f 8i7g 8h8i 7g6e 9i7g 8i9i",
    "角換わり穴熊": "game: 7g7f 8c8d 2g2f 3c3d 7i6h 8d8e 8h7g 2b7g+ 6h7g 5a4b 9i9h 4b5a 5i6h 5a4b 6h7h 4b5a 7h8h 5a4b 8h9i 4b5a 7g8h 5a4b 6i7h",
    "紙穴熊": "5i6h 6h7h 9i9h 7g7f 8h7g 7h8h 8h9i",
    "振り飛車銀冠穴熊": "4i3h 1i1h 5i4h 3g3f 4h3g 2g2f 2h2g 3g2h 2h1i 3i2h 2g3g 2h2g 3h2h 6i5h 5h4h 4h3h",
    "裸穴熊": "1i1h 5i4h 4h3h 3i4h 4h5i 1g1f 2i1g 3h2i 2i1i",
    "一枚穴熊": "1i1h 5i4h 4h3h 1g1f 2i1g 3h2i 2i1i",
    "二枚穴熊": "1i1h 4i4h 5i4i 4i3h 1g1f 2i1g 3h2i 2i1i",
    "三枚穴熊": "1i1h 4i4h 5i4i 4i3h 1g1f 2i1g 3h2i 2i1i 4g4f 6i5h 5h4g",
    "振り飛車ビッグ4": "4i3h 1i1h 5i4h 3g3f 4h3g 2g2f 2h2g 3g2h 2h1i 3i2h 2g3g 2h2g 3h2h 6i5h 5h4h 4h3h "
                 "3f3e 3g3f 7i6h 6h5i 5i4h 4h3g",
    "居飛穴音無しの構え": "7g7f 9g9f 8h9g 9i9h 8g8f 5i6h 6h7h 7h8h 8h9i 7i8h 8h8g 6i7h 7h8h 4i5h 5h6h "
                  "6h7h 3i3h 3h4i 4i5h 6g6f 5h6g",
    # the king gone into White's corner: White's rook, silver and 8c pawn step aside, the king
    # takes the pawn on 8d and the lance on 9a, and the silver taken by the horse is dropped on 9b
    "入玉穴熊": "game: 7g7f 3c3d 8h2b+ 8b5b 2b3a 7a6b 5i6h 8c8d 6h7g 1c1d 7g8f 1d1e 8f7e 2c2d "
                "7e8d 4c4d 8d8c 9c9d 8c8b 6c6d 8b9a 5c5d S*9b",
}

#: Black's horse takes White's two silvers and two golds, White's king takes the horse; Black's
#: king goes into 9九 with its own four golds and silvers on 7九 7八 6八 6七 and 8七 8八 8九 7七
#: cleared: the Anaguma counted by the pieces dropped next (the first drop makes five).
COUNTED_ANAGUMA = ("game: 7g7f 3c3d 8h2b+ 5a6b 2b3a 6b7b 3a4a 6a5b 4a5b 7a6b 5b6b 7b6b 9i9h 6b5a "
                   "5i6h 5a6b 6h7h 6b5a 7h8h 5a6b 8h9i 6b5a 6i7h 5a6b 6g6f 6b5a 4i5h 5a6b 5h6g "
                   "6b5a 3i4h 5a6b 4h5i 6b5a 5i6h 5a6b 8g8f 6b5a 9g9f 5a6b 8i9g 6b5a")
MORE_CASTLES.update({
    "五枚穴熊": COUNTED_ANAGUMA + " S*8h",
    "六枚穴熊": COUNTED_ANAGUMA + " S*8h 5a6b S*8g",
    "七枚穴熊": COUNTED_ANAGUMA + " S*8h 5a6b S*8g 6b5a G*8i",
    "八枚穴熊": COUNTED_ANAGUMA + " S*8h 5a6b S*8g 6b5a G*8i 5a6b G*7g",
})


def games() -> dict:
    return {**CASTLES_AS_LINES, **MORE_CASTLES}


CASTLES_AS_LINES = {name: positive for name, (positive, _) in CASTLES.items()}


def moves_of(line: str) -> list:
    return line[len(GAME):].split() if line.startswith(GAME) else black_only(line)


def test_every_castle_has_a_game():
    names = set(definitions().names("castle"))
    assert set(CASTLES) | set(MORE_CASTLES) == names
    assert not (set(MORE_CASTLES) & set(CASTLES))


@pytest.mark.parametrize("name", sorted(set(CASTLES) | set(MORE_CASTLES)))
def test_castle_reached_by_black(name):
    line = games()[name]
    moves = moves_of(line)
    assert_legal(moves)
    assert labels_of(moves).get(name) == len(moves)
    assert name not in labels_of(moves[:-1])


@pytest.mark.parametrize("name", sorted(set(CASTLES) | set(MORE_CASTLES)))
def test_castle_reached_by_white(name):
    line = games()[name]
    moves = turned(moves_of(line))
    assert_legal(moves)
    assert labels_of(moves, "white").get(name) == len(moves)
    if not line.startswith(GAME):  # in a whole game both sides may build
        assert name not in labels_of(moves, "black")


def test_a_bishop_exchange_anaguma_needs_the_exchange():
    plain = black_only("9i9h 5i6h 6h7h 7h8h 8h9i 7i8h 6i7h")
    assert "居飛車穴熊" in labels_of(plain) and "角換わり穴熊" not in labels_of(plain)


def test_the_king_at_home_needs_a_capture():
    pawn = black_only("7g7f 7f7e 7e7d 7d7c")  # a pawn taken: not yet a fight
    assert "居玉" not in labels_of(pawn)
    assert labels_of(moves_of(MORE_CASTLES["居玉"]))["居玉"] == 3
    moved = "5i4h 3c3d 4h5i 5a4b 7g7f 4b5a 8h2b+".split()  # approximation: a king come back counts
    assert_legal(moved)
    assert labels_of(moved)["居玉"] == 7
    assert classify_game("startpos", moves_of(MORE_CASTLES["居玉"])).black.primary_castle is None


# ----- (c) castles easily confused ---------------------------------------------------------------

#: castle -> castles its game must not reach
NOT_THE_OTHER = {
    "美濃囲い": ["高美濃囲い", "銀冠", "ダイヤモンド美濃", "銀美濃"],
    "高美濃囲い": ["銀冠", "振り飛車四枚美濃", "四枚美濃", "片銀冠"],
    "銀冠": ["片銀冠"],
    "片銀冠": ["銀冠"],
    "片美濃囲い": ["美濃囲い", "ちょんまげ美濃", "坊主美濃", "金美濃", "早囲い"],
    "早囲い": ["ずれ美濃", "片美濃囲い", "振り飛車エルモ"],
    "金矢倉": ["銀矢倉", "総矢倉", "矢倉穴熊", "豆腐矢倉", "隅矢倉", "高矢倉", "悪形矢倉"],
    "銀矢倉": ["金矢倉", "四角矢倉"],
    "総矢倉": ["菱矢倉", "富士見矢倉"],
    "富士見矢倉": ["菱矢倉"],
    "菊水矢倉": ["流線矢倉", "ミレニアム囲い"],
    "流線矢倉": ["菊水矢倉", "ミレニアム囲い"],
    "片矢倉": ["土居矢倉", "矢倉早囲い", "金矢倉"],
    "いちご囲い": ["カブト囲い", "カニ囲い"],
    "カニ囲い": ["カタ囲い", "カニ缶囲い", "カギ囲い", "いちご囲い"],
    "オールド雁木": ["ツノ銀雁木", "新型雁木"],
    "ツノ銀雁木": ["オールド雁木", "新型雁木"],
    "穴熊": ["居飛車穴熊", "二枚穴熊"],
    "居飛車穴熊": ["松尾流穴熊", "銀冠穴熊", "四枚穴熊", "矢倉穴熊", "角換わり穴熊", "紙穴熊"],
    "銀冠穴熊": ["ビッグ4", "居飛穴音無しの構え"],
    "振り飛車穴熊": ["振り飛車銀冠穴熊", "美濃熊囲い"],
    "裸穴熊": ["一枚穴熊"],
    "一枚穴熊": ["二枚穴熊"],
    "二枚穴熊": ["三枚穴熊"],
    "左美濃": ["天守閣美濃", "居飛車銀冠", "居飛車金美濃", "角道不突き左美濃"],
    "天守閣美濃": ["天守閣囲い", "四枚美濃", "チョコレート囲い"],
    "舟囲い": ["舟囲いDX", "セメント囲い", "升田美濃", "居飛車金無双"],
    "中住まい": ["桐山流中原囲い", "裏アヒル囲い"],
    "五枚穴熊": ["六枚穴熊"],
    "六枚穴熊": ["七枚穴熊", "五枚穴熊"],
    "七枚穴熊": ["八枚穴熊", "六枚穴熊"],
    # the thinner counts passed on the way are withdrawn
    "八枚穴熊": ["一枚穴熊", "二枚穴熊", "三枚穴熊", "五枚穴熊", "六枚穴熊", "七枚穴熊"],
    "入玉穴熊": ["穴熊"],
}


@pytest.mark.parametrize("name", list(NOT_THE_OTHER))
def test_castle_does_not_fire_the_other(name):
    reached = labels_of(moves_of(games()[name]))
    assert name in reached
    assert [other for other in NOT_THE_OTHER[name] if other in reached] == []
