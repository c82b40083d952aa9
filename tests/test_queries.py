"""Position search, the opening explorer, read-only SQL and their commands, on a store built from
the real records of ``tests/fixtures/records`` and ``data/samples/games.usi``.

Every answer is checked against a brute force: each stored game's main line (the ``moves``
table) is replayed from its start position with ``core.game.Game``, and the keys of the
positions it reaches are collected in Python.
"""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from kifudb.analytics import queries
from kifudb.analytics.filters import GameFilter
from kifudb.store import sql
from kifudb.analytics.position_input import (position_from_diagram, position_from_game,
                                      position_from_moves, position_from_sfen)
from kifudb.store.folder import Store
from kifudb.core.game import Game
from kifudb.core.move import Move
from kifudb.core.position import STARTING_SFEN, Position
from kifudb.core.notation.bod import bod_text
from kifudb.ingest.decode import decode
from kifudb.ingest.read import read_path
from kifudb.store.writer import ingest_paths
from kifudb.ingest.validate import validate_record
from kifudb.cli_store import explore as explore_command
from kifudb.cli_store import search as search_command
from kifudb.cli_store import sql as sql_command

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "tests" / "fixtures" / "records"
SAMPLES = ROOT / "data" / "samples" / "games.usi"


# ----- the store and the brute force -------------------------------------------------------------


class Corpus:
    """The brute force: every game of the store replayed in Python."""

    def __init__(self, store: Store):
        connection = store.connect()
        columns = ["game", "start_sfen", "moves", "black", "white", "date", "event", "handicap",
                   "winner", "reason"]
        self.games = {row[0]: dict(zip(columns, row)) for row in connection.execute(
            f"SELECT {', '.join(columns)} FROM games").fetchall()}
        lines = defaultdict(list)
        for game, usi in connection.execute(
                "SELECT game, usi FROM moves WHERE line = 0 AND usi IS NOT NULL "
                "ORDER BY game, ply").fetchall():
            lines[game].append(usi)
        self.paths = defaultdict(set)
        for game, path in connection.execute("SELECT game, path FROM sources").fetchall():
            self.paths[game].add(path)
        connection.close()
        self.lines = {g: lines.get(g, []) for g in self.games}
        self.occurrences = defaultdict(set)     # key -> {(game, ply)}
        self.next_moves = {}                    # (game, ply) -> usi or None
        self.keys = {}                          # (game, ply) -> key
        for game, line in self.lines.items():
            replay = Game(self.games[game]["start_sfen"])
            for usi in line:
                assert replay.play_usi(usi) is None, (game, usi)
            for ply, key in enumerate(replay.keys):
                self.occurrences[key].add((game, ply))
                self.keys[game, ply] = key
                self.next_moves[game, ply] = line[ply] if ply < len(line) else None

    def position(self, game: int, ply: int) -> Position:
        position = Position.from_sfen(self.games[game]["start_sfen"])
        for usi in self.lines[game][:ply]:
            position.push(Move.from_usi(usi))
        return position

    def explore(self, key: int, keep=lambda info: True) -> dict:
        """{usi: (count, black, white, draw, other, latest date)} counting games."""
        per_move = defaultdict(set)
        for game, ply in self.occurrences.get(key, ()):
            usi = self.next_moves[game, ply]
            if usi is not None and keep(self.games[game]):
                per_move[usi].add(game)
        found = {}
        for usi, games in per_move.items():
            winners = [self.games[g]["winner"] for g in games]
            dates = [self.games[g]["date"] for g in games if self.games[g]["date"] is not None]
            black, white, draw = (winners.count(w) for w in ("black", "white", "draw"))
            found[usi] = (len(games), black, white, draw, len(games) - black - white - draw,
                          max(dates).isoformat() if dates else None)
        return found


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("store")
    report = ingest_paths([str(RECORDS), str(SAMPLES)], folder)
    assert report.games_added > 100
    return folder


@pytest.fixture(scope="module")
def corpus(store_dir) -> Corpus:
    return Corpus(Store(store_dir))


def long_games(corpus: Corpus, plies: int, start: str = STARTING_SFEN) -> list:
    return sorted(g for g, info in corpus.games.items()
                  if info["start_sfen"] == start and len(corpus.lines[g]) >= plies)


def pairs(hits) -> set:
    return {(h["game"], h["ply"]) for h in hits}


# ----- the brute force itself --------------------------------------------------------------------


def test_every_stored_game_replays_to_its_move_count(corpus):
    assert all(len(corpus.lines[g]) == info["moves"] for g, info in corpus.games.items())
    assert sum(len(line) + 1 for line in corpus.lines.values()) == len(corpus.keys)


# ----- search ------------------------------------------------------------------------------------


def sample_positions(corpus: Corpus) -> list:
    """(game, ply) of the sample: the start, plies 1..20 of several games, handicap starts,
    deep middle-game positions."""
    chosen = [(g, ply) for g in long_games(corpus, 80)[:6] for ply in range(0, 21)]
    handicaps = sorted(g for g, info in corpus.games.items()
                       if info["handicap"] and info["handicap"] != "平手"
                       and info["start_sfen"] != STARTING_SFEN)
    chosen += [(g, ply) for g in handicaps for ply in (0, 1, 2) if ply <= len(corpus.lines[g])]
    chosen += [(g, len(corpus.lines[g]) // 2) for g in long_games(corpus, 100)]
    chosen += [(g, len(corpus.lines[g])) for g in long_games(corpus, 60)[:5]]  # final positions
    return chosen


def test_search_finds_exactly_the_brute_force_occurrences(store_dir, corpus):
    sample = sample_positions(corpus)
    assert len(sample) > 150
    keys = {corpus.keys[g, p] for g, p in sample}
    assert len(keys) > 100
    for key in keys:
        assert pairs(queries.search(store_dir, key)) == corpus.occurrences[key], hex(key)


def test_search_by_position_equals_search_by_key(store_dir, corpus):
    game = long_games(corpus, 40)[0]
    position = corpus.position(game, 40)
    assert queries.search(store_dir, position) == queries.search(store_dir, position.key())
    assert (game, 40) in pairs(queries.search(store_dir, position))


def test_search_rows_carry_the_game_and_the_next_move(store_dir, corpus):
    key = Position().key()
    hits = queries.search(store_dir, key)
    assert len(hits) == len(corpus.occurrences[key]) > 50
    for hit in hits:
        info = corpus.games[hit["game"]]
        assert (hit["black"], hit["white"], hit["event"], hit["winner"], hit["reason"]) == (
            info["black"], info["white"], info["event"], info["winner"], info["reason"])
        assert hit["date"] == (info["date"].isoformat() if info["date"] else None)
        assert hit["path"] == min(corpus.paths[hit["game"]])
        assert hit["next_move"] == corpus.next_moves[hit["game"], hit["ply"]]
        assert hit["mirrored"] is False


def test_search_order_and_limit(store_dir):
    hits = queries.search(store_dir, Position())
    dated = [h["date"] for h in hits if h["date"] is not None]
    assert dated == sorted(dated, reverse=True)
    assert all(h["date"] is None for h in hits[len(dated):])  # undated games last
    assert queries.search(store_dir, Position(), limit=7) == hits[:7]
    assert queries.search(store_dir, Position(), limit=7, offset=14) == hits[14:21]
    assert queries.search(store_dir, Position(), offset=len(hits) - 2) == hits[-2:]
    with pytest.raises(ValueError, match="limit"):
        queries.search(store_dir, Position(), limit=0)
    with pytest.raises(ValueError, match="offset"):
        queries.search(store_dir, Position(), offset=-1)


def test_occurrences_count_what_search_lists(store_dir, corpus):
    for position in (Position(), corpus.position(long_games(corpus, 30)[1], 30)):
        for mirror in (False, True):
            hits = queries.search(store_dir, position, mirror=mirror)
            assert queries.occurrences(store_dir, position, mirror=mirror) == {
                "occurrences": len(hits), "games": len({h["game"] for h in hits})}
    assert queries.occurrences(store_dir, 12345) == {"occurrences": 0, "games": 0}


def test_search_of_an_unknown_position_is_empty(store_dir):
    assert queries.search(store_dir, position_from_sfen("4k4/9/9/9/9/9/9/9/4K4 b - 1")) == []
    assert queries.search(store_dir, 12345) == []


def test_transpositions_are_found_from_every_move_order(store_dir, corpus):
    a = position_from_moves("7g7f 3c3d 2g2f")
    b = position_from_moves("2g2f 3c3d 7g7f")
    assert a == b and a.key() == b.key()
    hits = pairs(queries.search(store_dir, a))
    orders = defaultdict(set)
    for game, ply in hits:
        orders[tuple(corpus.lines[game][:ply])].add(game)
    assert ("7g7f", "3c3d", "2g2f") in orders and ("2g2f", "3c3d", "7g7f") in orders
    assert hits == corpus.occurrences[a.key()]


def test_transpositions_anywhere_in_the_corpus(store_dir, corpus):
    """Keys reached by different move sequences (not only at ply 3) are found in full."""
    transposed = [key for key, where in corpus.occurrences.items()
                  if len({tuple(corpus.lines[g][:p]) for g, p in where}) > 1
                  and len({p for _, p in where}) == 1 and min(p for _, p in where) >= 4]
    assert len(transposed) >= 3
    for key in transposed[:20]:
        assert pairs(queries.search(store_dir, key)) == corpus.occurrences[key]


def test_handicap_start_finds_every_game_with_that_start(store_dir, corpus):
    lance = position_from_sfen("lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1")
    expected = {(g, 0) for g, info in corpus.games.items()
                if info["start_sfen"] == lance.sfen()}
    assert len(expected) >= 3  # the same handicap read from CSA, KIF and USI files
    assert pairs(queries.search(store_dir, lance)) == expected


def test_repeated_position_gives_one_row_per_occurrence(store_dir, corpus):
    repeated = [(key, where) for key, where in corpus.occurrences.items()
                if len(where) > len({g for g, _ in where})]
    assert repeated, "the corpus has sennichite games"
    key, where = repeated[0]
    assert pairs(queries.search(store_dir, key)) == where


# ----- mirror ------------------------------------------------------------------------------------


def test_mirror_search_finds_the_original_games(store_dir, corpus):
    game = long_games(corpus, 30)[1]
    original = corpus.position(game, 30)
    mirrored = original.mirror()
    assert mirrored != original and mirrored.mirror() == original
    assert mirrored.key() == Position.from_sfen(mirrored.sfen()).key()
    hits = queries.search(store_dir, mirrored, mirror=True)
    assert {(h["game"], h["ply"]) for h in hits if h["mirrored"]} == \
        corpus.occurrences[original.key()]
    assert {(h["game"], h["ply"]) for h in hits if not h["mirrored"]} == \
        corpus.occurrences.get(mirrored.key(), set())
    assert pairs(queries.search(store_dir, mirrored)) == \
        corpus.occurrences.get(mirrored.key(), set())
    with pytest.raises(ValueError, match="mirror"):
        queries.search(store_dir, original.key(), mirror=True)


def test_symmetric_position_is_found_once(store_dir, corpus):
    symmetric = [(g, 0) for g, info in corpus.games.items()
                 if Position.from_sfen(info["start_sfen"]).mirror().key()
                 == corpus.keys[g, 0]]
    assert symmetric, "handicap starts such as 八枚落ち are symmetric"
    position = corpus.position(*symmetric[0])
    hits = queries.search(store_dir, position, mirror=True)
    assert pairs(hits) == corpus.occurrences[position.key()]
    assert not any(h["mirrored"] for h in hits)


# ----- explorer ----------------------------------------------------------------------------------


def explored(store_dir, position, min_count: int = 1, **filters) -> dict:
    found = queries.explore(store_dir, position, filters=GameFilter(**filters),
                            min_count=min_count)
    return {m["move"]: (m["count"], m["black_wins"], m["white_wins"], m["draws"], m["other"],
                        m["latest_date"]) for m in found}


def explorer_positions(corpus) -> list:
    game = long_games(corpus, 40)[0]
    handicap = next(g for g, info in corpus.games.items()
                    if info["handicap"] == "香落ち" and corpus.lines[g])
    return [Position(), position_from_moves("7g7f 3c3d"), position_from_moves("7g7f 3c3d 2g2f"),
            position_from_moves("2g2f 8c8d"), corpus.position(handicap, 0),
            corpus.position(game, 12), corpus.position(game, 40)]


def test_explorer_counts_and_results_match_the_brute_force(store_dir, corpus):
    for position in explorer_positions(corpus):
        expected = corpus.explore(position.key())
        assert expected, position.sfen()
        assert explored(store_dir, position) == expected


def test_explorer_at_the_start(store_dir, corpus):
    moves = queries.explore(store_dir, Position())
    counts = [m["count"] for m in moves]
    assert counts == sorted(counts, reverse=True)
    first = next(m for m in moves if m["move"] == "7g7f")
    assert (first["kif"], first["ki2"]) == ("７六歩(77)", "▲７六歩")
    games_at_start = {g for g, _ in corpus.occurrences[Position().key()]
                      if corpus.next_moves[g, 0] is not None}
    assert sum(counts) == len(games_at_start)


def test_explorer_ki2_text_uses_the_previous_move(store_dir):
    position = position_from_moves("7g7f 3c3d 8h2b+")
    moves = {m["move"]: m for m in queries.explore(store_dir, position)}
    assert (moves["3a2b"]["kif"], moves["3a2b"]["ki2"]) == ("同　銀(31)", "△同　銀")
    assert queries.explore(store_dir, position.key())[0]["ki2"] is None  # a bare key: no text


def test_explorer_counts_a_repetition_once_per_game(store_dir, corpus):
    repeated = [(key, where) for key, where in corpus.occurrences.items()
                if len(where) > len({g for g, _ in where})
                and any(corpus.next_moves[w] for w in where)]
    key, where = repeated[0]
    found = explored(store_dir, key)
    assert found == corpus.explore(key)
    for usi, row in found.items():
        assert row[0] == len({g for g, p in where if corpus.next_moves[g, p] == usi})


def test_explorer_filters_match_the_brute_force(store_dir, corpus):
    players = defaultdict(int)
    for info in corpus.games.values():
        for name in (info["black"], info["white"]):
            if name:
                players[name] += 1
    player = max(players, key=players.get)
    fragment = player[1:-1].swapcase() if len(player) > 3 else player.upper()
    event = next(info["event"] for info in corpus.games.values()
                 if info["event"] and len(info["event"]) > 6)
    dates = sorted(info["date"] for info in corpus.games.values() if info["date"])
    date_from, date_to = dates[len(dates) // 4], dates[3 * len(dates) // 4]

    def contains(value, needle):
        return value is not None and needle.lower() in value.lower()
    cases = [
        ({"player": fragment}, lambda i: contains(i["black"], fragment)
         or contains(i["white"], fragment)),
        ({"event": event[2:-2].upper()}, lambda i: contains(i["event"], event[2:-2])),
        ({"handicap": "平手"}, lambda i: i["handicap"] == "平手"),
        ({"date_from": date_from}, lambda i: i["date"] is not None and i["date"] >= date_from),
        ({"date_from": date_from.isoformat(), "date_to": date_to.isoformat()},
         lambda i: i["date"] is not None and date_from <= i["date"] <= date_to),
    ]
    for position in explorer_positions(corpus)[:4]:
        for filters, keep in cases:
            assert explored(store_dir, position, **filters) == \
                corpus.explore(position.key(), keep), filters
        everything = corpus.explore(position.key())
        assert explored(store_dir, position, min_count=2) == \
            {usi: row for usi, row in everything.items() if row[0] >= 2}
    assert any(explored(store_dir, Position(), **filters) for filters, _ in cases)


def test_explorer_rejects_bad_filter_values(store_dir):
    with pytest.raises(ValueError, match="date_from: not a date"):
        queries.explore(store_dir, Position(), filters=GameFilter(date_from="yesterday"))
    with pytest.raises(ValueError, match="min_count"):
        queries.explore(store_dir, Position(), min_count=0)
    with pytest.raises(ValueError, match="player must be text"):
        queries.explore(store_dir, Position(), filters=GameFilter(player=3))


@pytest.mark.parametrize("field", ["player", "event", "handicap"])
def test_filter_values_are_data_not_sql(store_dir, corpus, field):
    """Quotes, comments and LIKE wildcards in a filter value match those characters literally
    (names with '_' exist in the corpus; none has a quote or '%')."""
    def keep(value):
        def matches(info):
            if field == "handicap":
                return info["handicap"] == value
            names = (info["black"], info["white"]) if field == "player" else (info["event"],)
            return any(n is not None and value.lower() in n.lower() for n in names)
        return matches
    for value in ("x' OR 1=1 --", "'; DROP VIEW games; --", "%", "_", "\\", "平手' OR '1'='1"):
        if field == "handicap":  # no handicap has such a name: refused before any query
            with pytest.raises(ValueError, match="unknown handicap"):
                GameFilter(handicap=value)
            continue
        expected = corpus.explore(Position().key(), keep(value))
        assert explored(store_dir, Position(), **{field: value}) == expected, value
        if "'" in value or value == "%":
            assert expected == {}
    assert explored(store_dir, Position(), player="_")  # a real match, literally
    assert sql.run_sql(store_dir, "SELECT count(*) FROM games").rows[0][0] > 100


# ----- one game and position input --------------------------------------------------------------


def test_position_from_game_matches_the_replay(store_dir, corpus):
    for game in long_games(corpus, 50)[:3] + [g for g, i in corpus.games.items()
                                             if i["handicap"] == "香落ち"][:1]:
        for ply in (0, 1, 17, len(corpus.lines[game])):
            position = position_from_game(store_dir, game, ply)
            assert position.key() == corpus.keys[game, ply]
            assert (game, ply) in pairs(queries.search(store_dir, position))
    last = max(corpus.games)
    with pytest.raises(ValueError, match=f"no game {last + 1}"):
        position_from_game(store_dir, last + 1, 0)
    game = long_games(corpus, 50)[0]
    n = len(corpus.lines[game])
    with pytest.raises(ValueError, match=f"ply must be 0 to {n}"):
        position_from_game(store_dir, game, n + 1)


def test_game_info_and_moves(store_dir, corpus):
    game = long_games(corpus, 50)[0]
    info = queries.game_info(store_dir, game)
    assert info["game"] == game and info["start_sfen"] == corpus.games[game]["start_sfen"]
    assert {s["path"] for s in info["sources"]} == corpus.paths[game]
    assert isinstance(info["headers"], dict)
    moves = queries.game_moves(store_dir, game)
    assert [m["usi"] for m in moves if m["usi"]] == corpus.lines[game]
    assert [m["ply"] for m in moves] == list(range(1, len(moves) + 1))
    assert queries.game_info(store_dir, max(corpus.games) + 1) is None
    assert queries.game_moves(store_dir, max(corpus.games) + 1) == []


@pytest.mark.parametrize("name", ["Kifu-for-JS/examples/files/kif/fork.kif",
                                  "json-kifu-format/test/files/kif/doh_branch.kifu"])
def test_variations_are_stored_replayed_with_their_branch_points(tmp_path, name):
    path = str(RECORDS / "kifu-for-js" / "packages" / name)
    [record] = read_path(path).records
    validated = validate_record(record)
    assert any(v.parent is not None for v in record.variations)  # nested variations
    ingest_paths([path], tmp_path)
    stored = queries.game_variations(tmp_path, 1)
    for number, variation in enumerate(record.variations, start=1):
        rows = [r for r in stored if r["line"] == number]
        assert [r["text"] for r in rows] == [m.text for m in variation.moves]
        assert {r["parent"] for r in rows} == {0 if variation.parent is None
                                               else variation.parent + 1}
        replayed = [m.usi() for m in validated.variations[number - 1]]
        assert replayed, f"variation {number} replays"
        assert [r["usi"] for r in rows] == replayed + [None] * (len(rows) - len(replayed))


def test_game_variations_are_the_moves_off_the_main_line(store_dir):
    connection = Store(store_dir).connect()
    game, lines = connection.execute("SELECT game, count(DISTINCT line) FROM moves WHERE line > 0 "
                                     "GROUP BY game ORDER BY 2 DESC, game LIMIT 1").fetchone()
    assert lines >= 2
    found = queries.game_variations(store_dir, game)
    assert [(m["line"], m["ply"], m["text"]) for m in found] == connection.execute(
        "SELECT line, ply, text FROM moves WHERE game = ? AND line > 0 ORDER BY line, ply",
        [game]).fetchall()
    assert len({m["line"] for m in found}) == lines
    assert queries.game_variations(store_dir, 1 + connection.execute(
        "SELECT max(game) FROM games").fetchone()[0]) == []


def test_moves_in_every_notation_reach_the_same_position():
    usi = position_from_moves("7g7f 3c3d 8h2b+ 3a2b B*4e")
    assert position_from_moves("▲７六歩 △３四歩 ▲２二角成 △同　銀 ▲４五角") == usi
    assert position_from_moves("７六歩(77) ３四歩(33) ２二角成(88) 同　銀(31) ４五角打") == usi
    assert position_from_moves("76歩 34歩 22角成 同銀 45角打") == usi
    assert position_from_moves("7g7f △３四歩 ２二角成(88) 同銀 B*4e") == usi  # mixed
    kif_lines = """手数----指手---------消費時間--
   1 ７六歩(77)   ( 0:01/00:00:01)
   2 ３四歩(33)   ( 0:02/00:00:02)
   3 ２二角成(88)   ( 0:01/00:00:02)
   4 同　銀(31)   ( 0:01/00:00:03)
   5 ４五角打   ( 0:01/00:00:03)
"""
    assert position_from_moves(kif_lines) == usi
    assert position_from_moves("position startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e") == usi
    handicap = "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"
    assert position_from_moves("3c3d", start=handicap).turn == 0


@pytest.mark.parametrize("text, message", [
    ("7g7f 3c3d 7f7e 4c4d 7e7d 7c7d 8h3c", r"move 7 \(8h3c\): illegal: .*\[bad_geometry\]"),
    ("7g7f 7g7f", r"move 2 \(7g7f\): illegal"),
    ("7g7f xyz", r"move 2 \(xyz\): not a move"),
    ("▲７六歩 ▲３四歩", r"move 2 \(▲３四歩\): .*\[wrong_turn\]"),
    ("７六歩(77) ３四歩(34)", r"move 2 \(３四歩\(34\)\): .*\[no_piece\]"),
    ("76歩 34歩 P*5e", r"move 3 \(P\*5e\): illegal: .*\[not_in_hand\]"),
    ("7g7f 3c3d 投了", r"move 3 \(投了\): not a move"),
])
def test_bad_moves_name_the_move_and_the_reason(text, message):
    with pytest.raises(ValueError, match=message):
        position_from_moves(text)


def test_bad_sfen_says_what_is_wrong():
    with pytest.raises(ValueError, match="bad SFEN: .*9 ranks"):
        position_from_sfen("lnsgkgsnl/9 b - 1")
    with pytest.raises(ValueError, match="bad SFEN: empty"):
        position_from_sfen("  ")


def test_diagram_from_a_real_kif_file(store_dir, corpus):
    path = RECORDS / "kifu-for-js/packages/Kifu-for-JS/examples/files/kif/hashimoto-sos.kif"
    position = position_from_diagram(decode(path.read_bytes()).text)
    games = [g for g, info in corpus.games.items() if str(path) in corpus.paths[g]]
    assert len(games) == 1
    assert position.key() == corpus.keys[games[0], 0]
    assert (games[0], 0) in pairs(queries.search(store_dir, position))


def test_diagram_round_trip_and_errors():
    position = position_from_moves("7g7f 3c3d 8h2b+ 3a2b")
    assert position_from_diagram(bod_text(position)) == position
    broken = "\n".join(line for i, line in enumerate(bod_text(position).splitlines()) if i != 5)
    with pytest.raises(ValueError, match="bad board diagram"):
        position_from_diagram(broken)
    with pytest.raises(ValueError, match="no board diagram"):
        position_from_diagram("先手：羽生\n後手：谷川")


# ----- SQL ---------------------------------------------------------------------------------------


def test_sql_reads_the_views(store_dir, corpus):
    result = sql.run_sql(store_dir, "SELECT count(*) AS n FROM positions p "
                             "WHERE p.game IN (SELECT game FROM games)")
    assert result.columns == ["n"] and result.rows == [(len(corpus.keys),)]
    assert not result.truncated
    limited = sql.run_sql(store_dir, "SELECT game FROM games ORDER BY game", limit=5)
    assert limited.truncated and len(limited.rows) == 5
    assert sql.run_sql(store_dir, "DESCRIBE games").rows[0][0] == "game"
    assert sql.run_sql(store_dir, "WITH x AS (SELECT 1 AS a) SELECT a FROM x").rows == [(1,)]
    assert sql.run_sql(store_dir, "SHOW TABLES").rows


@pytest.mark.parametrize("text, kind", [
    ("INSERT INTO games SELECT * FROM games", "INSERT"),
    ("CREATE TABLE t AS SELECT 1", "CREATE"),
    ("COPY games TO '/tmp/kifudb_games.csv'", "COPY"),
    ("ATTACH '/tmp/kifudb_other.duckdb'", "ATTACH"),
    ("INSTALL httpfs", "LOAD"),
    ("PRAGMA version", "PRAGMA"),
    ("SET enable_external_access = true", "SET"),
    ("DROP VIEW games", "DROP"),
    ("EXPLAIN ANALYZE SELECT 1", "EXPLAIN"),
    ("CALL pragma_version()", "CALL"),
    ("SELECT 1; DROP VIEW games", "2 statements"),
])
def test_sql_refuses_everything_but_one_query(store_dir, text, kind):
    with pytest.raises(sql.SqlError, match=kind):
        sql.run_sql(store_dir, text)


def test_sql_cannot_touch_files_outside_the_store(store_dir, tmp_path):
    target = tmp_path / "secret.csv"
    target.write_text("a\n1\n")
    for text in (f"SELECT * FROM read_csv('{target}')", f"SELECT * FROM glob('{tmp_path}/*')",
                 f"SELECT * FROM read_text('{store_dir / 'manifest.json'}')"):
        with pytest.raises(sql.SqlError, match="disabled by configuration"):
            sql.run_sql(store_dir, text)
    before = sorted((p, p.stat().st_size) for p in store_dir.rglob("*.parquet"))
    with pytest.raises(sql.SqlError):
        sql.run_sql(store_dir, f"COPY (SELECT 1) TO '{before[0][0]}'")
    assert sorted((p, p.stat().st_size) for p in store_dir.rglob("*.parquet")) == before


def test_sql_errors_are_clear(store_dir):
    with pytest.raises(sql.SqlError, match="cannot parse"):
        sql.run_sql(store_dir, "SELEC 1")
    with pytest.raises(sql.SqlError, match="nosuch"):
        sql.run_sql(store_dir, "SELECT * FROM nosuch")
    with pytest.raises(sql.SqlError, match="empty query"):
        sql.run_sql(store_dir, "  ")


# ----- the engine sees new commits; threads ---------------------------------------------------


def test_new_commits_are_seen(tmp_path):
    folder = tmp_path / "store"
    ingest_paths([str(SAMPLES)], folder)
    start = Position()
    before = queries.search(folder, start)
    assert sql.run_sql(folder, "SELECT count(*) FROM games").rows == [(13,)]
    ingest_paths([str(RECORDS / "apery-wcsc28" / "kifu")], folder)
    after = queries.search(folder, start)
    assert len(after) > len(before) and pairs(before) <= pairs(after)
    assert sql.run_sql(folder, "SELECT count(*) FROM games").rows[0][0] > 13
    assert sum(m["count"] for m in queries.explore(folder, start)) == len(after)


def test_compaction_is_seen(tmp_path):
    """A compaction deletes the batch files the cached views read: the next query rebuilds."""
    folder = tmp_path / "store"
    ingest_paths([str(SAMPLES)], folder)
    ingest_paths([str(RECORDS / "apery-wcsc28" / "kifu")], folder)
    store = Store(folder)
    assert len(store.manifest()["batches"]) == 2
    before = queries.search(folder, Position())
    explored_before = queries.explore(folder, Position())
    counted = sql.run_sql(folder, "SELECT count(*) FROM positions").rows
    with store.writing():
        store.compact()
    assert len(store.manifest()["batches"]) == 1
    assert queries.search(folder, Position()) == before
    assert queries.explore(folder, Position()) == explored_before
    assert sql.run_sql(folder, "SELECT count(*) FROM positions").rows == counted


def test_concurrent_queries_agree(store_dir):
    expected = queries.search(store_dir, Position())
    results, errors = [], []

    def work():
        try:
            for _ in range(5):
                results.append(queries.search(store_dir, Position()) == expected)
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(results) == 20 and all(results)


# ----- the commands ------------------------------------------------------------------------------


def run(command, *args):
    return CliRunner().invoke(command, [str(a) for a in args])


def test_search_command_json(store_dir, corpus):
    result = run(search_command, "--moves", "7g7f 3c3d 2g2f", "--format", "json",
                 "--store", store_dir)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    key = position_from_moves("7g7f 3c3d 2g2f").key()
    assert int(data["position"]["key"], 16) == key
    assert {(h["game"], h["ply"]) for h in data["hits"]} == corpus.occurrences[key]
    text = run(search_command, "--moves", "7g7f 3c3d 2g2f", "--store", store_dir)
    assert text.exit_code == 0 and f"{len(data['hits'])} occurrences" in text.output


def test_search_command_by_game_ply_and_mirror(store_dir, corpus):
    game = long_games(corpus, 30)[1]
    result = run(search_command, "--game", game, "--ply", 30, "--mirror", "--format", "json",
                 "--store", store_dir)
    assert result.exit_code == 0, result.output
    hits = json.loads(result.output)["hits"]
    assert {(h["game"], h["ply"]) for h in hits if not h["mirrored"]} == \
        corpus.occurrences[corpus.keys[game, 30]]


def test_search_command_by_diagram(store_dir, corpus, tmp_path):
    game = long_games(corpus, 30)[0]
    diagram = tmp_path / "board.kif"
    diagram.write_text(bod_text(corpus.position(game, 30)), encoding="utf-8")
    result = run(search_command, "--diagram", diagram, "--format", "json", "--store", store_dir)
    assert result.exit_code == 0, result.output
    assert (game, 30) in {(h["game"], h["ply"]) for h in json.loads(result.output)["hits"]}


def test_explore_command_json_and_text(store_dir, corpus):
    result = run(explore_command, "--format", "json", "--store", store_dir)
    assert result.exit_code == 0, result.output
    moves = json.loads(result.output)["moves"]
    assert {m["usi"]: m["games"] for m in moves} == \
        {usi: row[0] for usi, row in corpus.explore(Position().key()).items()}
    filtered = run(explore_command, "--moves", "▲７六歩 △３四歩", "--handicap", "平手",
                   "--from", "2000-01-01", "--min-count", 2, "--format", "json",
                   "--store", store_dir)
    assert filtered.exit_code == 0, filtered.output
    assert all(m["games"] >= 2 for m in json.loads(filtered.output)["moves"])
    text = run(explore_command, "--store", store_dir)
    assert text.exit_code == 0 and "▲７六歩" in text.output


def test_sql_command(store_dir):
    result = run(sql_command, "SELECT game, black FROM games ORDER BY game LIMIT 3",
                 "--format", "json", "--store", store_dir)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["columns"] == ["game", "black"] and len(data["rows"]) == 3
    csv_out = run(sql_command, "SELECT 1 AS a, 'x,y' AS b, DATE '2024-01-02' AS d",
                  "--format", "csv", "--store", store_dir)
    assert csv_out.output == 'a,b,d\n1,"x,y",2024-01-02\n'
    text = run(sql_command, "SELECT count(*) AS n FROM games", "--store", store_dir)
    assert text.exit_code == 0 and "(1 row)" in text.output


@pytest.mark.parametrize("command, args, message", [
    (search_command, ["--sfen", "nonsense"], "Invalid value for '--sfen': bad SFEN"),
    (search_command, ["--moves", "7g7f 7g7f"], "move 2 (7g7f): illegal"),
    (search_command, ["--moves", "7g7f", "--start", "bad"], "Invalid value for '--start'"),
    (search_command, ["--game", 99999, "--ply", 0], "no game 99999 in the store"),
    (search_command, ["--game", 1], "--game needs --ply"),
    (search_command, [], "give a position"),
    (search_command, ["--sfen", "startpos", "--moves", "7g7f"], "not --sfen and --moves"),
    (search_command, ["--diagram", "/nonexistent/board.kif"], "cannot read"),
    (explore_command, ["--from", "2020-02-30"], "not a date"),
    (sql_command, ["INSERT INTO games SELECT * FROM games"], "INSERT statements are not allowed"),
    (sql_command, ["COPY games TO '/tmp/x.csv'"], "COPY statements are not allowed"),
    (sql_command, ["SELECT * FROM nosuch"], "nosuch"),
])
def test_commands_report_bad_input_without_a_traceback(store_dir, command, args, message):
    result = run(command, *args, "--store", store_dir)
    assert result.exit_code in (1, 2)
    assert isinstance(result.exception, SystemExit)
    assert message in result.output
    assert "Traceback" not in result.output


def test_commands_need_a_store(tmp_path):
    result = run(search_command, "--sfen", "startpos", "--store", tmp_path / "none")
    assert result.exit_code == 1 and "no store at" in result.output


def test_commands_are_click_commands():
    assert all(isinstance(c, click.Command) for c in (search_command, explore_command,
                                                      sql_command))
    assert (search_command.name, explore_command.name, sql_command.name) == (
        "search", "explore", "sql")


# ----- SQL: the limits, and what a query may not see ---------------------------------------------


def test_sql_time_limit(store_dir):
    started = time.perf_counter()
    with pytest.raises(sql.SqlError, match=r"stopped after 0\.5 s: the time limit; raise it "
                                           r"with --timeout") as stopped:
        sql.run_sql(store_dir, "SELECT count(*) FROM range(1000000000000)", timeout=0.5)
    assert stopped.value.limit == "time" and time.perf_counter() - started < 10
    # the database goes on answering after an interrupted query
    assert sql.run_sql(store_dir, "SELECT 1 AS one", timeout=5).rows == [(1,)]


@pytest.mark.parametrize("query", [
    "SELECT i FROM range(100000000) t(i) ORDER BY i DESC",
    "SELECT a.key, b.key, c.key FROM positions a, positions b, positions c "
    "ORDER BY a.ply + b.ply + c.ply",
    "SELECT list(i) FROM range(500000000) t(i)",
])
def test_sql_memory_limit(store_dir, tmp_path, monkeypatch, query):
    monkeypatch.chdir(tmp_path)  # DuckDB's default temp_directory is .tmp here
    with pytest.raises(sql.SqlError, match=r"needs more than 64 MB of memory: .*raise the limit "
                                           r"with --memory-limit") as stopped:
        sql.run_sql(store_dir, query, memory_limit="64MB", timeout=60)
    assert stopped.value.limit == "memory"
    assert list(tmp_path.iterdir()) == []  # nothing spilled to disk


def test_sql_limits_can_be_raised_and_are_checked(store_dir):
    assert sql.run_sql(store_dir, "SELECT count(*) FROM range(3000000)", timeout=120,
                       memory_limit="2GB").rows == [(3000000,)]
    assert sql.run_sql(store_dir, "SELECT 1", timeout=None, memory_limit=None).rows == [(1,)]
    assert sql.memory_size("1GB") == 10 ** 9 and sql.memory_size("512MiB") == 512 * 2 ** 20
    for bad in ("lots", "1 PB", "1MB", -5, True):
        with pytest.raises(ValueError):
            sql.run_sql(store_dir, "SELECT 1", memory_limit=bad)
    for bad in (0, -1, "30"):
        with pytest.raises(ValueError, match="timeout"):
            sql.run_sql(store_dir, "SELECT 1", timeout=bad)


@pytest.mark.parametrize("text", [
    "SELECT current_setting('allowed_paths')",
    "SELECT current_setting('secret_directory')",
    "SELECT current_setting('temp_directory')",
    "SELECT current_setting('home_directory')",
    "SELECT CURRENT_SETTING('memory_limit')",
    "SELECT name, value FROM duckdb_settings()",
    "SELECT * FROM main.duckdb_settings() WHERE name LIKE '%dir%'",
    "SELECT extension_name, install_path FROM duckdb_extensions()",
    "SELECT * FROM duckdb_secrets()",
    "SELECT * FROM which_secret('s3://bucket/x', 's3')",
    "SELECT * FROM duckdb_databases()",
    "SELECT * FROM duckdb_memory()",
    "SELECT * FROM duckdb_temporary_files()",
    "SELECT * FROM pragma_database_size()",
    "SELECT * FROM pragma_platform()",
    "SELECT * FROM pg_settings",
    "SELECT * FROM pg_catalog.pg_settings",
    "SELECT * FROM pragma_database_list",
    "WITH s AS (SELECT current_setting('temp_directory') AS t) SELECT * FROM s",
    "SELECT 1 WHERE EXISTS (SELECT * FROM duckdb_settings())",
    "SELECT list_transform([1], x -> current_setting('temp_directory'))",
    "SUMMARIZE SELECT current_setting('temp_directory') AS t",
    "SELECT * FROM query('SELECT current_setting(''temp_directory'')')",
    "SELECT * FROM query_table('pg_settings')",
    "SELECT * FROM histogram_values(games, black)",
])
def test_sql_refuses_what_shows_the_settings_or_the_machine(store_dir, text):
    with pytest.raises(sql.SqlError, match="is refused: it (shows the database's settings|runs "
                                           "SQL given as text)"):
        sql.run_sql(store_dir, text)


@pytest.mark.parametrize("text", [
    "SELECT repeat('x', 1500000000)",
    "SELECT length(lpad('x', 1500000000, 'y'))",
    "SELECT rpad(black, 1500000000) FROM games",
    "SELECT len(range(300000000))",
    "SELECT unnest(generate_series(1, 300000000))",
    "SELECT len(list_resize([1], 300000000))",
    "SELECT bitstring('1', 2000000000)",
    "SELECT printf('%01500000000d', 1)",
    "SELECT printf('%0*d', 1500000000, 1)",
    "SELECT printf(black, 1) FROM games",
    "SELECT format('{:>1500000000}', 'x')",
    "SELECT format('{:>{}}', 'x', 1500000000)",
])
def test_sql_refuses_values_no_limit_bounds(store_dir, text):
    with pytest.raises(sql.SqlError, match="is refused: it (builds a value|takes a constant "
                                           "format)"):
        sql.run_sql(store_dir, text)


def test_sql_keeps_what_is_harmless(store_dir):
    assert sql.run_sql(store_dir, "SELECT count(*) FROM range(3)").rows == [(3,)]
    assert sql.run_sql(store_dir, "SELECT * FROM generate_series(1, 2)").rows == [(1,), (2,)]
    assert sql.run_sql(store_dir, "SELECT printf('%.1f%%', 12.345), format('{} {}', 1, 'a')"
                       ).rows == [("12.3%", "1 a")]
    assert sql.run_sql(store_dir, "SELECT histogram(winner) IS NOT NULL FROM games").rows == [
        (True,)]
    assert sql.run_sql(store_dir, "SELECT count(*) > 0 FROM duckdb_columns() "
                       "WHERE table_name = 'games'").rows == [(True,)]


def test_sql_hides_the_store_folder(store_dir):
    root = str(Store(store_dir).root)
    for text in ("SELECT sql FROM duckdb_views() WHERE NOT internal",
                 "SELECT sql FROM sqlite_master",
                 "SELECT view_definition FROM information_schema.views",
                 "SELECT definition FROM pg_catalog.pg_views"):
        shown = [str(v) for row in sql.run_sql(store_dir, text).rows for v in row]
        assert shown and not any(root in v for v in shown), text
        assert any("STORE/batches/" in v for v in shown), text
    batch = next(iter(Store(store_dir).manifest()["batches"]))
    missing = Store(store_dir).batch_dir(batch) / "nothing.parquet"
    with pytest.raises(sql.SqlError) as failed:
        sql.run_sql(store_dir, f"SELECT * FROM read_parquet('{missing}')")
    assert root not in str(failed.value) and "STORE/batches/" in str(failed.value)


def test_sql_command_limits(store_dir):
    stopped = run(sql_command, "SELECT count(*) FROM range(1000000000000)", "--timeout", 0.5,
                  "--store", store_dir)
    assert stopped.exit_code == 1
    assert "stopped after 0.5 s: the time limit; raise it with --timeout" in stopped.output
    full = run(sql_command, "SELECT i FROM range(100000000) t(i) ORDER BY i DESC",
               "--memory-limit", "64MB", "--store", store_dir)
    assert full.exit_code == 1 and "needs more than 64 MB of memory" in full.output
    raised = run(sql_command, "SELECT count(*) AS n FROM range(10)", "--timeout", 120,
                 "--memory-limit", "2GB", "--format", "json", "--store", store_dir)
    assert raised.exit_code == 0 and json.loads(raised.output)["rows"] == [[10]]
    bad = run(sql_command, "SELECT 1", "--memory-limit", "lots", "--store", store_dir)
    assert bad.exit_code == 2 and "Invalid value for '--memory-limit'" in bad.output
    assert run(sql_command, "SELECT 1", "--timeout", 0, "--store", store_dir).exit_code == 2


# ----- a game's handicap, a JKF source (issue 19) -------------------------------------------------


def test_a_games_handicap_is_its_start_positions(store_dir, corpus):
    """The store's ``handicap`` is the start position's name (a CSA or USI record has no 手合割
    header), so the even-game filter finds every game from the even start."""
    from kifudb.core.handicap import handicap_name

    standard = {g: handicap_name(info["start_sfen"]) for g, info in corpus.games.items()
                if info["start_sfen"] and handicap_name(info["start_sfen"])}
    assert {g: corpus.games[g]["handicap"] for g in standard} == standard
    formats = {Path(p).suffix for g in standard if standard[g] == "平手" for p in corpus.paths[g]}
    assert {".csa", ".usi", ".kif", ".jkf"} <= formats
    start = position_from_sfen(STARTING_SFEN)
    key = start.key()
    even = queries.explore(store_dir, start, filters=GameFilter(handicap="平手"))
    assert {m["move"]: m["count"] for m in even} == \
        {usi: counts[0] for usi, counts in corpus.explore(key).items()}
    assert GameFilter(handicap="HIRATE") == GameFilter(handicap="平手")


def test_game_record_shows_a_jkf_source_in_kif(tmp_path):
    from kifudb.analytics.game_record import game_record

    records = ROOT / "data" / "samples" / "records"
    fork = RECORDS / "tsshogi/src/tests/testdata/jkf/sample03.jkf"  # with variations
    ingest_paths([str(records / "ryuou201409020101.jkf"), str(records / "ryuou201409020101.kif"),
                  str(fork)], tmp_path)
    ryuou = game_record(tmp_path, 1)
    assert [s["format"] for s in ryuou["info"]["sources"]] == ["kif", "jkf"]
    assert [m["text"] for m in ryuou["moves"][:3]] == ["７六歩(77)", "３四歩(33)", "２六歩(27)"]
    assert all(not m["text"].startswith("{") for m in ryuou["moves"])
    assert ryuou["moves"][0]["written"].startswith("{")
    forked = game_record(tmp_path, 2)
    assert forked["variations"] and all(not v["text"].startswith("{")
                                        for v in forked["variations"])


def test_dashboard_explorer_starts_from_the_handicap_of_the_filter(monkeypatch, dashboard_store):
    """Choosing 香落ち in the sidebar's handicap filter keeps the games that start there: the
    explorer goes to that start (before, it stayed at the even start and listed nothing)."""
    import json

    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("KIFUDB_STORE", str(dashboard_store))
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("views/explorer.py")
    at.run()
    at.sidebar.selectbox(key="f_handicap").set_value("香落ち").run()
    assert not at.exception, [e.value for e in at.exception]
    # the board to play on (the shogiboard component) is told the position it shows
    shown = [json.loads(c.proto.json_args)["sfen"] for c in at.get("component_instance")
             if '"sfen"' in c.proto.json_args]
    assert shown and shown[0].startswith("lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/"
                                         "LNSGKGSNL w - ")
    assert at.query_params.get("start") in ("香落ち", ["香落ち"])
    assert not at.info or not any("No game" in i.value for i in at.info)
