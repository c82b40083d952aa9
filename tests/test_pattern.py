"""Pattern search (``core.pattern``, ``core.placement``, ``analytics.pattern``) on real records:
the grammar and its errors, the placements against a replay of every ply, the store's answer
against a brute-force replay of every stored game, and the doors (CLI, Python, HTTP)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import kifudb
from kifudb.analytics.filters import GameFilter
from kifudb.analytics.pattern import PatternSearch, find_by_replay, find_pattern
from kifudb.cli import main
from kifudb.core.move import Move, move_code
from kifudb.core.pattern import PatternError, parse_pattern
from kifudb.core.pieces import HAND_TYPES, UNPROMOTED
from kifudb.core.placement import HAND_PLACE, MATERIAL_PLACE, placements
from kifudb.core.position import Position
from kifudb.store.folder import Store
from kifudb.store.writer import ingest_paths

FIXTURES = Path(__file__).parent / "fixtures"
#: real records of every format: professional games, engine games, handicap games
RECORDS = [FIXTURES / "records", FIXTURES / "classify"]

#: patterns of every form, with options; each answered by the store and by replaying every game
CASES = [
    ("▲玉28", {}), ("▲玉28/39", {}), ("▲金58", {}), ("△飛2*", {}), ("▲*77", {}),
    ("▲金/銀67", {}), ("▲と**", {}), ("・55", {}), ("!▲銀77", {}), ("▲持角", {}),
    ("▲持歩3", {}), ("△持なし", {}), ("▲飛=2", {}), ("△歩<5", {}), ("▲角>=1 △角=0", {}),
    ("▲玉88 ▲金78 ▲銀77", {}), ("▲玉28", {"turn": "white"}), ("▲玉28", {"mirror": True}),
    ("▲玉28", {"either_side": True}),
    ("▲玉28 ▲持角", {"mirror": True, "either_side": True, "turn": "black"}),
    ("▲飛2* ・27", {"min_ply": 3, "max_ply": 30}), ("・55 ・56", {}), ("!・55/56", {}),
    ("▲馬** △馬**", {}), ("△持なし ▲持なし", {"turn": "white"}), ("▲角=2", {"min_ply": 10}),
    ("△玉51 ▲飛5*", {"max_ply": 0}), ("▲６七金", {}), ("!▲*77 !△*33", {"either_side": True}),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pattern") / "store"
    ingest_paths(RECORDS, folder)
    return folder


# ----- the grammar ---------------------------------------------------------------------------------


@pytest.mark.parametrize("text, sfen, holds", [
    ("▲金58", "4k4/9/9/9/9/9/9/4G4/4K4 b - 1", True),
    ("▲金58", "4k4/9/9/9/9/9/9/4S4/4K4 b - 1", False),
    ("▲金/銀58", "4k4/9/9/9/9/9/9/4S4/4K4 b - 1", True),
    ("△飛2*", "4k4/7r1/9/9/9/9/9/9/4K4 b - 1", True),
    ("△飛2*", "4k4/6r2/9/9/9/9/9/9/4K4 b - 1", False),
    ("▲*77", "4k4/9/9/9/9/9/2+P6/9/4K4 b - 1", True),
    ("▲と77", "4k4/9/9/9/9/9/2+P6/9/4K4 b - 1", True),
    ("▲歩77", "4k4/9/9/9/9/9/2+P6/9/4K4 b - 1", False),
    ("▲龍11 ▲竜11", "+R3k4/9/9/9/9/9/9/9/4K4 b - 1", False),  # 1a is 11: this dragon is on 9a
    ("▲竜91", "+R3k4/9/9/9/9/9/9/9/4K4 b - 1", True),
    ("・55", "4k4/9/9/9/9/9/9/9/4K4 b - 1", True),
    ("!▲玉59", "4k4/9/9/9/9/9/9/9/4K4 b - 1", False),
    ("▲持角 △持なし", "4k4/9/9/9/9/9/9/9/4K4 b B 1", True),
    ("▲持歩3", "4k4/9/9/9/9/9/9/9/4K4 b 2P 1", False),
    ("▲持歩3", "4k4/9/9/9/9/9/9/9/4K4 b 3P 1", True),
    ("▲飛=2", "4k4/9/9/9/9/9/9/1+R5R1/4K4 b - 1", True),
    ("▲飛=2", "4k4/9/9/9/9/9/9/7R1/4K4 b R 1", True),
    ("▲飛=2", "4k4/9/9/9/9/9/9/7R1/4K4 b - 1", False),
    ("△角<1", "4k4/9/9/9/9/9/9/9/4K4 b 2B 1", True),
])
def test_each_form_of_condition_means_what_a_player_means(text, sfen, holds):
    assert parse_pattern(text).holds(Position.from_sfen(sfen)) is holds


@pytest.mark.parametrize("text, says", [
    ("▲金Z8", "'▲金Z8': 'Z8' is not a square"),
    ("▲", "'▲': expected a piece and a square after ▲"),
    ("▲象58", "'▲象58': unknown piece '象'"),
    ("▲金50", "'▲金50': '50' is not a square (two digits 1-9"),
    ("▲金5", "'▲金5': '5' is not a square"),
    ("▲金581", "'▲金581': '581' is not a square"),
    ("▲金58 ・58", "'・58' contradicts '▲金58': no piece on 5h can meet both"),
    ("▲金58 ▲銀58", "'▲銀58' contradicts '▲金58'"),
    ("▲金58 !▲金58", "'!▲金58' contradicts '▲金58'"),
    ("▲持なし ▲持角", "'▲持角' contradicts '▲持なし'"),
    ("▲飛=2 ▲飛=1", "'▲飛=1' contradicts '▲飛=2'"),
    ("▲竜=1", "material counts an unpromoted kind"),
    ("▲持と", "a hand holds an unpromoted kind"),
    ("金58", "'金58': a condition starts with ▲ or △"),
    ("", "an empty pattern"),
    ("   ", "an empty pattern"),
])
def test_a_condition_that_cannot_be_read_or_held_is_named(text, says):
    with pytest.raises(PatternError) as raised:
        parse_pattern(text)
    assert says in str(raised.value)


def test_the_text_of_a_pattern_reads_back_as_the_same_pattern():
    for text, _ in CASES:
        pattern = parse_pattern(text)
        assert parse_pattern(str(pattern)) == pattern
        assert parse_pattern(str(pattern.mirrored())) == pattern.mirrored()
        assert parse_pattern(str(pattern.exchanged())) == pattern.exchanged()


# ----- placements against a replay -------------------------------------------------------------------


def _read_back(rows, ply: int):
    """The board, hands and material the placements give at ``ply``."""
    board, hands, material = [0] * 81, [[0] * 16, [0] * 16], {}
    for place, piece, count, first, last in zip(*rows):
        if first <= ply < last:
            if place < 81:
                board[place] = piece
            elif place == HAND_PLACE:
                hands[piece >> 4][piece & 15] = count
            else:
                material[piece] = count
    return board, hands, material


def test_placements_give_back_every_position_of_real_games(store):
    connection = Store(store).connect()
    lines = connection.execute(
        "SELECT g.start_sfen, list(m.usi ORDER BY m.ply) FILTER (WHERE m.usi IS NOT NULL) "
        "FROM games g LEFT JOIN moves m ON m.game = g.game AND m.line = 0 "
        "GROUP BY g.game, g.start_sfen ORDER BY g.game").fetchall()
    assert len(lines) > 150
    checked = 0
    for start_sfen, usi_moves in lines:
        position = Position.from_sfen(start_sfen)
        codes = [move_code(Move.from_usi(u)) for u in usi_moves or []]
        rows = placements(position, codes)
        for ply in range(len(codes) + 1):
            if ply:
                position.push(Move.from_usi(usi_moves[ply - 1]))
            board, hands, material = _read_back(rows, ply)
            assert board == position.board
            assert [h[1:8] for h in hands] == [h[1:8] for h in position.hands]
            for colour in (0, 1):
                for kind in HAND_TYPES:
                    owned = position.hands[colour][kind] + sum(
                        1 for c in position.board if c and c >> 4 == colour
                        and UNPROMOTED[c & 15] == kind)
                    assert material[kind + 16 * colour] == owned
            checked += 1
    assert checked > 10_000


# ----- the store's answer against brute force ------------------------------------------------------


@pytest.mark.parametrize("text, options", CASES)
def test_the_store_finds_what_replaying_every_game_finds(store, text, options):
    search = PatternSearch.of(text, **options)
    found = find_pattern(store, search)
    expected = find_by_replay(store, search)
    assert {m["game"]: (m["ply"], m["plies"]) for m in found["matches"]} == expected
    assert found["games"] == len(expected)


def test_a_game_is_listed_once_and_counts_a_repetition_of_the_pattern(store):
    found = find_pattern(store, PatternSearch.of("▲玉59"))["matches"]
    assert len({m["game"] for m in found}) == len(found)
    assert all(m["plies"] >= 1 for m in found) and any(m["plies"] > 10 for m in found)


@pytest.mark.parametrize("filters", [GameFilter(player="羽生"), GameFilter(decided=True),
                                     GameFilter(handicap="香落ち"),
                                     GameFilter(date_from="2015-01-01")])
def test_filters_keep_their_games_only(store, filters):
    search = PatternSearch.of("▲持角")
    found = find_pattern(store, search, filters=filters)
    assert {m["game"]: (m["ply"], m["plies"]) for m in found["matches"]} == \
        find_by_replay(store, search, filters=filters)


def test_pages_are_slices_of_the_whole_answer_sorted_like_search(store):
    search = PatternSearch.of("▲金58")
    whole = find_pattern(store, search)
    dates = [m["date"] or "" for m in whole["matches"] if m["date"]]
    assert dates == sorted(dates, reverse=True)
    pages = [m for offset in range(0, whole["games"], 7)
             for m in find_pattern(store, search, limit=7, offset=offset)["matches"]]
    assert pages == whole["matches"]


def test_what_was_played_next_counts_each_game_once(store):
    found = find_pattern(store, PatternSearch.of("▲飛2* ・27", max_ply=6))
    assert sum(m["games"] for m in found["next_moves"]) <= found["games"]
    assert found["next_moves"][0]["games"] >= found["next_moves"][-1]["games"]
    assert {"usi", "games", "black_wins", "white_wins", "draws", "black_score"} <= \
        set(found["next_moves"][0])


def test_a_store_written_before_pattern_search_says_how_to_bring_it_up_to_date(store, tmp_path):
    old = tmp_path / "old"
    shutil.copytree(store, old)
    manifest = json.loads((old / "manifest.json").read_text())
    (old / "manifest.json").write_text(json.dumps({**manifest, "format": 5}))
    with pytest.raises(ValueError, match=r"format 5\) and pattern search needs the placements"
                                         r".*kifudb relabel"):
        find_pattern(old, PatternSearch.of("▲玉28"))


# ----- the doors ---------------------------------------------------------------------------------------


def test_the_command_line_in_text_json_and_csv(store):
    runner = CliRunner()
    text = runner.invoke(main, ["pattern", "--store", str(store), "▲玉88", "▲金78", "▲銀77"])
    assert text.exit_code == 0, text.output
    assert "pattern: ▲玉88 ▲金78 ▲銀77" in text.output and "games reached it" in text.output
    answer = json.loads(runner.invoke(main, ["pattern", "--store", str(store), "▲玉88 ▲金78",
                                             "--format", "json", "--limit", "3"]).output)
    assert answer["games"] > 3 and len(answer["matches"]) == 3
    assert {"game", "ply", "plies"} <= set(answer["matches"][0])
    csv = runner.invoke(main, ["pattern", "--store", str(store), "▲持角", "--format", "csv",
                               "--limit", "2", "--turn", "white"]).output.splitlines()
    assert csv[0].startswith("game,ply,plies,date") and len(csv) == 3
    bad = runner.invoke(main, ["pattern", "--store", str(store), "▲金58", "・58"])
    assert bad.exit_code != 0 and "'・58' contradicts '▲金58'" in bad.output
    assert "Traceback" not in bad.output
    none = runner.invoke(main, ["pattern", "--store", str(store), "▲玉11", "--player", "羽生"])
    assert none.exit_code == 0 and "no game reached it (in the games of the filters)" in none.output


def test_the_python_api(store):
    db = kifudb.open(store)
    found = db.pattern("▲玉88", "▲金78", "▲銀77", limit=2)
    assert found.pattern == "▲玉88 ▲金78 ▲銀77" and found.games > 2
    assert found.matches.columns[:3] == ["game", "ply", "plies"] and found.matches.height == 2
    assert db.pattern("▲玉88 ▲金78 ▲銀77", player="羽生").games <= found.games
    with pytest.raises(ValueError, match="turn must be one of black, white"):
        db.pattern("▲玉88", turn="sente")


def test_the_http_api(store):
    from fastapi.testclient import TestClient

    from kifudb.http import app

    with TestClient(app(store, timeout=60)) as client:
        answer = client.get("/pattern", params={"q": "▲玉88 ▲金78", "limit": 2}).json()
        assert answer["games"] > 2 and len(answer["matches"]) == 2
        assert "/" not in answer["matches"][0]["path"]  # a file name, not the server's path
        bad = client.get("/pattern", params={"q": "▲玉88 ・88"})
        assert bad.status_code == 400 and "contradicts" in bad.json()["error"]["message"]
        assert client.get("/pattern", params={"q": "▲玉88", "turn": "sente"}).status_code == 422
