"""JKF: the move object notation (core.notation.jkf) and the reader (ingest.jkf).

Every JKF fixture in tests/fixtures/records is read and replayed, and compared with the same game
in tests/fixtures/usi/real_games.usi (read there by cshogi / python-shogi / rsshogi from the JKF
itself, or from the KIF of the same game); forks, comments, times, presets and the declared ending
are checked on real files and small hand-made ones; moves round-trip through jkf_move and
parse_jkf_move for every legal move of several positions; hostile input never raises.
"""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from kifudb.core import Move, Position, STARTING_SFEN
from kifudb.core.game import Game
from kifudb.core.handicap import HANDICAPS, handicap_sfen
from kifudb.core.notation.errors import NotationError
from kifudb.core.notation.jkf import jkf_move, parse_jkf_move
from kifudb.ingest.jkf import SPECIALS, looks_like_jkf, read_jkf
from kifudb.ingest.usi_file import read_usi_games

FIXTURES = Path(__file__).parent / "fixtures"
RECORDS = FIXTURES / "records"
JKF_FILES = sorted(RECORDS.rglob("*.jkf"))
M = Move.from_usi

KFJ = "kifu-for-js/packages/json-kifu-format/test/files"
RYUOU_KIF = f"{KFJ}/kif/ryuou201409020101.kif #1 %TORYO"
TSSHOGI = "tsshogi/src/tests/testdata/jkf"

#: What each fixture holds: moves on the main line, (start ply, parent, moves) of each
#: variation, the declared ending, and the game in real_games.usi with the same moves.
EXPECTED = {
    "kifu-for-js/_history/example/files/jkf/ryuou201409020101.jkf": (117, [], "TORYO", RYUOU_KIF),
    "kifu-for-js/_history/ryuou201409020101.jkf":
        (117, [], "TORYO", "kifu-for-js/_history/ryuou201409020101.kif #1 %TORYO"),
    "kifu-for-js/packages/Kifu-for-JS/examples/files/jkf/ryuou201409020101.jkf":
        (117, [], "TORYO", RYUOU_KIF),
    f"{KFJ}/jkf/ryuou201409020101.jkf": (117, [], "TORYO", RYUOU_KIF),
    f"{KFJ}/jkf/same_move_minimal.jkf": (5, [], None, f"{KFJ}/jkf/same_move_minimal.jkf #1"),
    "shogihome/src/command/usi-csa-bridge/e2e/scenario/29/record.jkf":
        (6, [], "TORYO", "shogihome/src/command/usi-csa-bridge/e2e/scenario/29/record.jkf #1 %TORYO"),
    f"{TSSHOGI}/sample01.jkf": (2, [], None, f"{TSSHOGI}/sample01.jkf #1"),
    f"{TSSHOGI}/sample02.jkf": (0, [], None, f"{TSSHOGI}/sample02.jkf #1"),
    f"{TSSHOGI}/sample03.jkf": (31, [(9, None, 7), (9, None, 19), (10, None, 1)], None,
                                f"{TSSHOGI}/sample03.jkf #1"),
    f"{TSSHOGI}/sample04.jkf": (79, [], "TORYO", f"{TSSHOGI}/sample04.jkf #1 %TORYO"),
    f"{TSSHOGI}/sample05.jkf": (6, [], "TORYO", f"{TSSHOGI}/sample05.jkf #1 %TORYO"),
}


def rel(path: Path) -> str:
    return path.relative_to(RECORDS).as_posix()


def read(relative: str):
    [game] = read_jkf((RECORDS / relative).read_text(encoding="utf-8"), source=relative,
                      encoding="utf-8")
    return game


def replay(start_sfen, prefix, records):
    """Play ``prefix`` (Moves), then parse and play every JKF ``MoveRecord``; return all Moves."""
    game = Game(start_sfen)
    for move in prefix:
        assert game.play(move) is None
    for ply, record in enumerate(records, start=len(prefix) + 1):
        move = parse_jkf_move(game.position, record.text)
        reason = game.play(move)
        assert reason is None, f"ply {ply} {record.text}: {reason}"
    return game.moves


def lines_of(game):
    """The full move list (from the start) of the main line and of every variation."""
    main = replay(game.start_sfen, [], game.moves)
    full = []
    for variation in game.variations:
        parent = main if variation.parent is None else full[variation.parent]
        assert variation.parent is None or variation.parent < len(full)
        prefix = parent[:variation.start_ply - 1]
        assert len(prefix) == variation.start_ply - 1, "the variation starts beyond its parent"
        full.append(replay(game.start_sfen, prefix, variation.moves))
    return main, full


@pytest.fixture(scope="module")
def real_games():
    with open(FIXTURES / "usi" / "real_games.usi", encoding="utf-8") as stream:
        return {game.note: game for game in read_usi_games(stream)}


# ----- the fixtures ---------------------------------------------------------------------------


def test_every_jkf_fixture_is_expected():
    assert {rel(path) for path in JKF_FILES} == set(EXPECTED)


@pytest.mark.parametrize("relative", sorted(EXPECTED))
def test_fixture_reads_and_agrees_with_real_games(relative, real_games):
    game = read(relative)
    moves, variations, ending, reference = EXPECTED[relative]
    assert [f for f in game.findings if f.severity == "error"] == []
    assert game.format == "jkf" and game.source == relative and game.encoding == "utf-8"
    assert len(game.moves) == moves
    assert [(v.start_ply, v.parent, len(v.moves)) for v in game.variations] == variations
    assert (game.ending.word if game.ending else None) == ending
    assert all(m.notation == "jkf" for m in game.moves)
    main, _ = lines_of(game)
    usi = real_games[reference]
    assert Position.from_sfen(game.start_sfen) == Position.from_sfen(usi.start_sfen)
    assert [m.usi() for m in main] == usi.moves
    if ending is not None:
        # the ending is declared by the side to move after the last move
        assert game.ending.mover == Position.from_sfen(game.start_sfen).turn ^ (len(main) & 1)
        assert reference.split()[-1] == "%" + ending


@pytest.mark.parametrize("relative", sorted(EXPECTED))
def test_move_text_is_the_compact_move_object(relative):
    game = read(relative)
    document = json.loads((RECORDS / relative).read_text(encoding="utf-8"))
    objects = [entry["move"] for entry in document["moves"][1:] if entry.get("move")]
    assert [m.text for m in game.moves] == [
        json.dumps(o, ensure_ascii=False, separators=(",", ":"), sort_keys=True) for o in objects]


@pytest.mark.parametrize("relative", sorted(EXPECTED))
def test_lines_point_at_the_move_key(relative):
    game = read(relative)
    text_lines = (RECORDS / relative).read_text(encoding="utf-8").split("\n")
    records = game.moves + [m for v in game.variations for m in v.moves]
    assert all(m.line is not None for m in records)
    assert all('"move"' in text_lines[m.line - 1] for m in records)
    if game.ending:
        assert '"special"' in text_lines[game.ending.line - 1]
    if len(text_lines) > 5:  # pretty-printed: each move on its own line(s)
        assert len({m.line for m in records}) == len(records)


@pytest.mark.parametrize("relative", sorted(EXPECTED))
def test_jkf_move_writes_what_the_record_wrote(relative):
    # every field of every fixture move is what jkf_move writes for it (color aside: the first
    # JKF versions wrote true/false or nothing)
    game = read(relative)
    play = Game(game.start_sfen)
    for record in game.moves:
        written = json.loads(record.text)
        move = parse_jkf_move(play.position, written)
        ours = jkf_move(play.position, move)
        for key in ("from", "to", "piece", "promote", "capture", "same", "relative"):
            assert written.get(key) == ours.get(key), (record.text, key)
        play.play(move)


def test_old_kifu_for_js_records():
    # the first JKF version: color true/false, drops with "from": null
    booleans = read("kifu-for-js/_history/example/files/jkf/ryuou201409020101.jkf")
    assert '"color":true' in booleans.moves[0].text and '"color":false' in booleans.moves[1].text
    # no color at all, and two keys of its own ("result", "type")
    old = read("kifu-for-js/_history/ryuou201409020101.jkf")
    assert sum('"from":null' in m.text for m in old.moves) == 16  # its 16 drops
    assert all('"color"' not in m.text for m in old.moves)
    assert [f.code for f in old.findings] == ["unknown_key"]
    assert "result" in old.findings[0].message and "type" in old.findings[0].message
    assert old.headers["先手"] == "羽生善治" and old.headers["手合割"] == "平手　　"
    assert old.comments[0].startswith("森内俊之竜王への挑戦権を争う")
    assert old.moves[0].comments[0] == "10時対局開始。羽生の初手は▲７六歩だった。"


def test_sample03_forks_become_variations():
    game = read(f"{TSSHOGI}/sample03.jkf")
    main, full = lines_of(game)
    first = [line[v.start_ply - 1].usi() for v, line in zip(game.variations, full)]
    assert first == ["5i6h", "9g9f", "9c9d"]
    assert main[8].usi() == "5i5h" and main[9].usi() == "5a5b"
    assert [m.usi() for m in full[1][8:12]] == ["9g9f", "9c9d", "3g3f", "8e8f"]
    assert all(v.ending is None for v in game.variations)
    assert game.variations[0].line == 235


def test_comments_times_and_headers_are_kept():
    sample01 = read(f"{TSSHOGI}/sample01.jkf")
    assert sample01.headers["先手"] == "ルノワール" and sample01.headers["備考"] == "テスト"
    document = json.loads((RECORDS / TSSHOGI / "sample01.jkf").read_text(encoding="utf-8"))
    assert sample01.headers == document["header"] and len(sample01.headers) == 10
    assert sample01.comments == ["【コメントのテスト】", "", "この上に空行があります。",
                                 "この行の上下に空行はありません。", "この行の下に空行があります。", ""]
    assert [m.comments for m in sample01.moves] == [["1手目のコメントです。"], ["2手目のコメントです。"]]

    sample05 = read(f"{TSSHOGI}/sample05.jkf")
    assert [(m.seconds, m.total_seconds) for m in sample05.moves] == [
        (8, 8), (17, 17), (35 * 60 + 42, 35 * 60 + 50), (3 * 60 + 33, 3 * 60 + 50),
        (42 * 60 + 21, 3600 + 18 * 60 + 11), (9 * 60 + 11, 13 * 60 + 1)]
    assert sample05.ending.seconds == 50 * 60 + 43 and sample05.ending.mover == 0

    bridge = read("shogihome/src/command/usi-csa-bridge/e2e/scenario/29/record.jkf")
    assert bridge.moves[1].comments == ["互角", "*評価値=-35", "*読み筋=▲２五歩△８五歩", "*深さ=8",
                                        "*ノード数=12345", "*エンジン=usi-csa-bridge"]
    sample04 = read(f"{TSSHOGI}/sample04.jkf")
    assert sample04.headers["先手"] == "Sunfish4 v0.1.2 - depth15"
    assert sample04.moves[10].comments[1] == "*評価値=159"
    # the comment on the TORYO entry's move before it stays with that move
    assert sample04.moves[-1].comments == ["*詰み=先手勝ち:1手", "*深さ=1"]


def test_other_preset_reads_the_board():
    game = read(f"{TSSHOGI}/sample02.jkf")
    assert game.start_sfen == "lnsgk1snl/1r4gb1/p1ppppppp/9/1p5P1/9/PPPPPPP1P/1BGK3R1/LNS2GSNL w - 1"
    assert game.handicap is None and game.moves == [] and game.findings == []


# ----- small hand-made records ------------------------------------------------------------------


def doc(moves, **extra):
    return json.dumps({"header": {}, **extra, "moves": moves}, ensure_ascii=False)


def mv(usi, piece, color, **extra):
    """A JKF move entry for the USI move ``usi`` (``7g7f``, ``G*5b``)."""
    move = Move.from_usi(usi)
    obj = {"to": {"x": move.to_square // 9 + 1, "y": move.to_square % 9 + 1}, "piece": piece,
           "color": color, **extra}
    if move.from_square is not None:
        obj["from"] = {"x": move.from_square // 9 + 1, "y": move.from_square % 9 + 1}
    return {"move": obj}


@pytest.mark.parametrize("preset", ["HIRATE", "KY", "KY_R", "KA", "HI", "HIKY", "2", "3", "4", "5",
                                    "5_L", "6", "7_L", "7_R", "8", "10"])
def test_presets(preset):
    [game] = read_jkf(doc([{}], initial={"preset": preset}))
    assert game.start_sfen == handicap_sfen(preset) and game.findings == []
    assert game.handicap == (None if preset == "HIRATE" else
                             next(name for name in HANDICAPS if handicap_sfen(name) == game.start_sfen))


def test_handicap_game_white_moves_first_and_mover_follows():
    moves = [{}, mv("4a4b", "KI", 1), mv("7g7f", "FU", 0), {"special": "TORYO"}]
    [game] = read_jkf(doc(moves, initial={"preset": "8"}))
    assert game.handicap == "八枚落ち"
    assert [m.usi() for m in replay(game.start_sfen, [], game.moves)] == ["4a4b", "7g7f"]
    assert game.ending.word == "TORYO" and game.ending.mover == 1  # White (上手) resigns


def test_other_preset_with_hands_and_legacy_colours():
    board = [[{} for _ in range(9)] for _ in range(9)]
    board[4][0] = {"color": 1, "kind": "OU"}
    board[4][8] = {"color": True, "kind": "OU"}  # the first JKF versions: true = Black
    board[1][1] = {"color": 0, "kind": "RY"}
    hands = [{"KI": 2, "FU": 0}, {"FU": 3, "KA": 1}]
    [game] = read_jkf(doc([{}, mv("G*5b", "KI", 0)],
                          initial={"preset": "OTHER", "data": {"color": 0, "board": board,
                                                              "hands": hands}}))
    assert game.start_sfen == "4k4/7+R1/9/9/9/9/9/9/4K4 b 2Gb3p 1"
    assert game.findings == [] and game.handicap is None
    assert replay(game.start_sfen, [], game.moves) == [M("G*5b")]


@pytest.mark.parametrize("initial, why", [
    ({"preset": "9"}, "unknown preset '9'"),
    ({"preset": "OTHER"}, "initial.data must be an object"),
    ({"preset": "OTHER", "data": {"color": 0, "board": [[]], "hands": [{}, {}]}}, "9 columns"),
    ({"preset": "OTHER", "data": {"color": 2, "board": {}, "hands": [{}, {}]}}, "color"),
    ({"preset": "OTHER", "data": {"color": 0, "board": {}, "hands": [{"OU": 1}, {}]}},
     "cannot be held"),
    ("HIRATE", '"initial" must be an object'),
])
def test_bad_start_position(initial, why):
    [game] = read_jkf(doc([{}, mv("7g7f", "FU", 0)], initial=initial))
    [finding] = game.findings
    assert (finding.severity, finding.code) == ("error", "bad_start_position")
    assert why in finding.message
    assert game.start_sfen == "" and len(game.moves) == 1  # the moves are kept


def test_preset_and_data_that_disagree():
    board = [[{} for _ in range(9)] for _ in range(9)]
    data = {"color": 0, "board": board, "hands": [{}, {}]}
    [game] = read_jkf(doc([{}], initial={"preset": "HIRATE", "data": data}))
    assert [f.code for f in game.findings] == ["start_position_mismatch"]
    assert game.start_sfen == STARTING_SFEN


def test_nested_forks_endings_and_comments():
    text = doc([
        {"comments": ["start"]},
        mv("7g7f", "FU", 0),
        {**mv("3c3d", "FU", 1), "comments": ["main 2"], "forks": [
            [{**mv("8c8d", "FU", 1), "comments": ["var 2"]},
             {**mv("2g2f", "FU", 0), "forks": [
                 [{**mv("6g6f", "FU", 0), "time": {"now": {"m": 1, "s": 2},
                                                      "total": {"h": 1, "m": 0, "s": 0}}},
                  {"special": "CHUDAN", "comments": ["stopped"]}]]},
             {"special": "TORYO"}],
            [{"special": "SENNICHITE"}]]},
        mv("8h2b", "KA", 0, promote=True, capture="KA"),
        {"forks": [[mv("4a3b", "KI", 1)]], **mv("3a2b", "GI", 1, capture="UM")},
        {"special": "TIME_UP"},
    ])
    [game] = read_jkf(text)
    assert game.findings == []
    assert game.comments == ["start"]
    assert [m.comments for m in game.moves] == [[], ["main 2"], [], []]
    assert [(v.start_ply, v.parent, len(v.moves), v.ending and v.ending.word)
            for v in game.variations] == [(2, None, 2, "TORYO"), (3, 0, 1, "CHUDAN"),
                                          (2, None, 0, "SENNICHITE"), (4, None, 1, None)]
    main, full = lines_of(game)
    assert [m.usi() for m in main] == ["7g7f", "3c3d", "8h2b+", "3a2b"]
    assert [m.usi() for m in full[0]] == ["7g7f", "8c8d", "2g2f"]
    assert [m.usi() for m in full[1]] == ["7g7f", "8c8d", "6g6f"]
    assert [m.usi() for m in full[3]] == ["7g7f", "3c3d", "8h2b+", "4a3b"]
    assert game.variations[0].moves[0].comments == ["var 2"]
    assert game.variations[1].moves[0].comments == ["stopped"]  # the special's comment
    assert (game.variations[1].moves[0].seconds, game.variations[1].moves[0].total_seconds) == (62, 3600)
    # mover: whose turn it was when the ending was recorded
    assert [v.ending.mover for v in game.variations[:3]] == [1, 1, 1]
    assert game.ending.word == "TIME_UP" and game.ending.mover == 0


def test_same_without_to_and_move_after_ending():
    same = {"move": {"from": {"x": 3, "y": 1}, "same": True, "piece": "GI", "color": 1,
                     "capture": "UM"}}
    text = doc([{}, mv("7g7f", "FU", 0), mv("3c3d", "FU", 1),
                mv("8h2b", "KA", 0, promote=True), {"special": "KACHI"}, same,
                {"special": "HOGE"}])
    [game] = read_jkf(text)
    assert [f.code for f in game.findings] == ["move_after_ending", "unknown_special",
                                               "second_ending"]
    assert game.ending.word == "KACHI" and game.ending.mover == 1
    assert replay(game.start_sfen, [], game.moves)[-1] == M("3a2b")


def test_shape_errors_are_located_and_nothing_is_lost():
    text = '{"header": {"棋戦": "x", "n": 5},\n "moves": [{}, 5,\n {"move": "7776FU"}, {}, {"comments": ["c"]}, {"odd": 1}]}'
    [game] = read_jkf(text)
    codes = [(f.severity, f.code, f.ply) for f in game.findings]
    assert codes == [("warning", "header_not_text", None), ("error", "unparsable_move", 1),
                     ("error", "unparsable_move", 2), ("warning", "empty_entry", 3),
                     ("warning", "empty_entry", 3), ("warning", "empty_entry", 3),
                     ("warning", "unknown_key", None)]
    assert game.headers == {"棋戦": "x", "n": "5"}
    assert [m.text for m in game.moves] == ["5", '"7776FU"']
    assert game.moves[1].line == 3 and game.moves[1].comments == ["c"]
    assert "moves[2].move" in game.findings[2].message
    with pytest.raises(NotationError) as info:
        parse_jkf_move(Position(), game.moves[1].text)
    assert info.value.code == "unparsable_move"


def test_first_entry_holding_a_move_is_read_as_ply_one():
    [game] = read_jkf(doc([mv("7g7f", "FU", 0), mv("3c3d", "FU", 1)]))
    assert [f.code for f in game.findings] == ["first_entry_is_move"]
    assert len(game.moves) == 2


def test_several_documents_are_several_games():
    one = doc([{}, mv("7g7f", "FU", 0)])
    games = read_jkf(one + "\n" + one + "\n{oops")
    assert [g.index for g in games] == [0, 1, 2]
    assert [len(g.moves) for g in games] == [1, 1, 0]
    assert [g.first_line for g in games] == [1, 2, 3]
    assert [g.moves[0].line for g in games[:2]] == [1, 2]
    assert games[2].findings[0].code == "unparsable_file" and games[2].findings[0].line == 3


def test_lines_survive_escaped_keys_and_give_up_on_duplicate_keys():
    tricky = ('{"header": {"note": "a \\"move\\": here"},\n "moves": [{},\n'
              ' {"comments": ["\\\\", "\\"special\\":"], "move": {"to": {"x": 7, "y": 6}, '
              '"from": {"x": 7, "y": 7}, "piece": "FU"}},\n {"special": "TORYO"}]}')
    [game] = read_jkf(tricky)
    assert game.moves[0].line == 3 and game.ending.line == 4
    duplicate = '{"header": {},\n "moves": [{},\n {"move": 1, "move": {"to": {"x": 7, "y": 6}}}]}'
    [game] = read_jkf(duplicate)
    assert game.moves[0].line is None  # unknown rather than wrong


def test_looks_like_jkf():
    for path in JKF_FILES:
        assert looks_like_jkf(path.read_text(encoding="utf-8"))
    others = [p for p in RECORDS.rglob("*") if p.suffix in (".kif", ".csa", ".ki2")][:30]
    assert others
    for path in others:
        assert not looks_like_jkf(path.read_bytes().decode("utf-8", "replace"))
    assert looks_like_jkf('\ufeff\n  {"moves": []}')
    assert not looks_like_jkf("") and not looks_like_jkf("{}") and not looks_like_jkf(None)


# ----- the move notation ----------------------------------------------------------------------


with open(FIXTURES / "usi" / "real_games.usi", encoding="utf-8") as _stream:
    RYUOU = next(g for g in read_usi_games(_stream) if g.note == RYUOU_KIF).moves

ROUND_TRIP_POSITIONS = [
    (STARTING_SFEN, []),
    (STARTING_SFEN, ["7g7f", "3c3d", "8h2b+", "3a2b", "2g2f", "8c8d"]),  # a bishop each in hand
    (STARTING_SFEN, RYUOU[:40]),  # the middle game of 羽生–糸谷 (ryuou201409020101)
    (STARTING_SFEN, RYUOU[:90]),  # its ending, pieces in both hands
    ("4k4/1P1P1P1P1/9/9/9/9/9/9/4K4 b RBGSNLPr3g3s3n3l13p 1", []),  # promotions and drops
    ("l7k/1+P5g1/2N3+Rp1/9/9/9/9/6+b2/K8 w GSLPrbsnl 1", []),  # White, promoted pieces
]


@pytest.mark.parametrize("sfen, usi", ROUND_TRIP_POSITIONS)
def test_round_trip_every_legal_move(sfen, usi):
    position = Position.from_sfen(sfen)
    for text in usi:
        position.push(M(text))
    legal = position.legal_moves()
    assert legal
    for move in legal:
        obj = jkf_move(position, move)
        assert parse_jkf_move(position, obj) == move
        compact = json.dumps(obj, separators=(",", ":"), sort_keys=True)
        assert parse_jkf_move(position, compact) == move
        assert ("from" in obj) == (move.drop is None)
        assert obj["color"] == position.turn


def test_jkf_move_fields():
    pos = Position.from_sfen(STARTING_SFEN)
    for text in ("7g7f", "3c3d", "8h2b+"):
        pos.push(M(text))
    assert jkf_move(pos, M("3a2b")) == {"color": 1, "from": {"x": 3, "y": 1}, "to": {"x": 2, "y": 2},
                                        "piece": "GI", "capture": "UM", "same": True}
    pos.push(M("3a2b"))
    assert jkf_move(pos, M("B*4e"))["piece"] == "KA"
    # a non-promotion that could have promoted says so
    pos = Position.from_sfen("4k4/9/9/4S4/9/9/9/9/4K4 b - 1")
    assert jkf_move(pos, M("5d5c"))["promote"] is False
    assert jkf_move(pos, M("5d5c+"))["promote"] is True
    assert "promote" not in jkf_move(pos, M("5i5h"))


def error_code(position, obj, **kwargs):
    with pytest.raises(NotationError) as info:
        parse_jkf_move(position, obj, **kwargs)
    assert info.value.message and info.value.text
    return info.value.code


def test_error_codes():
    start = Position()
    fu = {"from": {"x": 7, "y": 7}, "to": {"x": 7, "y": 6}, "piece": "FU"}
    assert error_code(start, [1, 2]) == "unparsable_move"
    assert error_code(start, "not json") == "unparsable_move"
    assert error_code(start, {**fu, "piece": "XX"}) == "unparsable_move"
    assert error_code(start, {**fu, "piece": None}) == "unparsable_move"
    assert error_code(start, {**fu, "to": {"x": 0, "y": 6}}) == "unparsable_move"
    assert error_code(start, {**fu, "to": {"x": 7.0, "y": 6}}) == "unparsable_move"
    assert error_code(start, {**fu, "from": [7, 7]}) == "unparsable_move"
    assert error_code(start, {**fu, "promote": "yes"}) == "unparsable_move"
    assert error_code(start, {**fu, "color": 2}) == "unparsable_move"
    assert error_code(start, {"from": {"x": 7, "y": 7}, "piece": "FU"}) == "unparsable_move"
    assert error_code(start, {"to": {"x": 5, "y": 5}, "piece": "UM"}) == "unparsable_move"
    assert error_code(start, {"to": {"x": 5, "y": 5}, "piece": "OU"}) == "unparsable_move"
    assert error_code(start, {**fu, "piece": "KY"}) == "no_piece"
    assert error_code(start, {**fu, "from": {"x": 7, "y": 5}}) == "no_piece"
    assert error_code(start, {**fu, "from": {"x": 7, "y": 3}, "to": {"x": 7, "y": 4}}) == "no_piece"
    assert error_code(start, {**fu, "capture": "FU"}) == "no_piece"
    assert error_code(start, {"to": {"x": 5, "y": 5}, "piece": "KA"}) == "not_in_hand"
    assert error_code(start, {**fu, "color": 1}) == "wrong_turn"
    assert error_code(start, {**fu, "color": False}) == "wrong_turn"
    assert error_code(start, {"from": {"x": 7, "y": 7}, "same": True, "piece": "FU"}) == \
        "no_previous_move"
    # JKF names the piece before the move: a CSA-style promoted name is refused, with a hint
    pos = Position.from_sfen("4k4/9/9/9/9/9/9/7B1/4K4 b - 1")
    with pytest.raises(NotationError) as info:
        parse_jkf_move(pos, {"from": {"x": 2, "y": 8}, "to": {"x": 2, "y": 2}, "piece": "UM",
                             "promote": True})
    assert info.value.code == "no_piece" and "before the move" in info.value.message


def test_legacy_colour_and_same_with_previous():
    start = Position()
    fu = {"from": {"x": 7, "y": 7}, "to": {"x": 7, "y": 6}, "piece": "FU"}
    assert parse_jkf_move(start, {**fu, "color": True}) == M("7g7f")
    same = {"from": {"x": 7, "y": 7}, "same": True, "piece": "FU"}
    assert parse_jkf_move(start, same, previous=M("7c7f")) == M("7g7f")  # only its square counts
    # with "to" given, "same" is an annotation only
    assert parse_jkf_move(start, {**fu, "same": True}) == M("7g7f")


# ----- hostile input --------------------------------------------------------------------------


def assert_read_safely(text):
    games = read_jkf(text)
    assert isinstance(games, list) and games
    for game in games:
        assert all("could not read the document" not in f.message for f in game.findings)
        assert all(f.severity in ("error", "warning", "info") for f in game.findings)
    return games


@pytest.mark.parametrize("text, code", [
    ("", "unparsable_file"), ("   \n", "unparsable_file"), ("[]", "unparsable_file"),
    ('{"moves": 5}', "unparsable_file"), ("{}", "unparsable_file"), ("null", "unparsable_file"),
    ('{"header": {}, "moves": [{}, {"move": ', "unparsable_file"),
    ("[" * 100000, "unparsable_file"), ('{"moves": [{}, {"move": {"to": 1e99999}}]}', None),
    ('{"moves": [' + "[" * 5000 + "]" * 5000 + "]}", None),
    # a number of 5,000 digits reads as infinity (core.numbers): the document is read, and the
    # replay says the move is unreadable
    ('{"moves": [{}, {"move": {"to": {"x": ' + "9" * 5000 + ', "y": 1}}}]}', None),
])
def test_hostile_documents(text, code):
    [game] = assert_read_safely(text)
    if code:
        assert game.findings and game.findings[0].code == code
        assert game.findings[0].severity == "error" and game.findings[0].line is not None


def test_every_truncation_of_a_fixture():
    text = (RECORDS / TSSHOGI / "sample03.jkf").read_text(encoding="utf-8")
    for cut in range(0, len(text), 97):
        [game] = assert_read_safely(text[:cut])
        assert game.findings[0].code == "unparsable_file" and game.findings[0].line


JSON_LEAF = st.none() | st.booleans() | st.integers(-3, 12) | st.floats() | st.text(max_size=5) | \
    st.sampled_from(["FU", "KA", "UM", "OU", "TORYO", "OTHER", "KY"])
KEYS = st.sampled_from(["header", "initial", "moves", "move", "special", "forks", "comments",
                        "time", "now", "total", "h", "m", "s", "from", "to", "x", "y", "piece",
                        "color", "promote", "same", "capture", "preset", "data", "board", "hands",
                        "kind", "comment"])
JSON = st.recursive(JSON_LEAF, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(KEYS, inner, max_size=5), max_leaves=30)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_random_text_never_raises(text):
    assert_read_safely(text)
    looks_like_jkf(text)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(KEYS, JSON, max_size=4), st.lists(JSON, max_size=6))
def test_random_jkf_shaped_documents_never_raise(top, moves):
    games = assert_read_safely(json.dumps({**top, "moves": [{}] + moves}))
    position = Position()
    for record in games[0].moves:  # and the move texts only ever raise NotationError
        try:
            parse_jkf_move(position, record.text)
        except NotationError:
            pass


@settings(max_examples=200, deadline=None)
@given(JSON)
def test_random_move_objects_raise_only_notation_errors(obj):
    for position in (Position(), Position.from_sfen(ROUND_TRIP_POSITIONS[4][0])):
        try:
            parse_jkf_move(position, obj)
        except NotationError as error:
            assert error.code in ("unparsable_move", "no_piece", "not_in_hand", "wrong_turn",
                                  "no_previous_move")


def test_specials_are_jkfs():
    assert {"TORYO", "CHUDAN", "SENNICHITE", "TIME_UP", "ILLEGAL_MOVE", "+ILLEGAL_ACTION",
            "-ILLEGAL_ACTION", "JISHOGI", "KACHI", "HIKIWAKE", "TSUMI", "FUZUMI",
            "ERROR"} <= set(SPECIALS)
