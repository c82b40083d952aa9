"""The kifudb command on the bundled sample games and on bad input."""

from pathlib import Path

from click.testing import CliRunner

from kifudb.core import Position
from kifudb.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples" / "games.usi"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_replay_reports_every_sample_game():
    result = run("replay", SAMPLES)
    assert result.exit_code == 0, result.output
    assert result.output.count("verdict:") == 13
    assert "sennichite at ply 72, draw" in result.output
    assert "checkmate at ply 118, white wins" in result.output
    assert "black may declare" in result.output
    assert "illegal move at ply 3 (8h2a+): bad_geometry" in result.output
    assert "13 games, 1800 moves replayed, 12 fully legal, 1 with an illegal move" in result.output


def test_replay_goes_on_after_a_broken_line(tmp_path):
    path = tmp_path / "mixed.usi"
    path.write_text("startpos moves 7g7f 3c3d\nsfen not a position\n"
                    "startpos moves 7g7f 7g7f\nstartpos moves 2g2f\n", encoding="utf-8")
    result = run("replay", path)
    assert result.exit_code == 0
    assert "bad_start_position: SFEN board needs 9 ranks separated by '/', not 1" in result.output
    assert "illegal move at ply 2 (7g7f): no_piece" in result.output
    assert "4 games, 4 moves replayed, 2 fully legal, 2 with an illegal move" in result.output


def test_replay_of_a_missing_file_says_so(tmp_path):
    result = run("replay", tmp_path / "nothing.usi")
    assert "cannot read" in result.output


def test_perft_moves_and_key():
    assert "perft(3) = 25470" in run("perft", 3).output
    moves = run("moves", "4k4/9/9/9/9/9/9/9/4K4 b G 1").output.split()
    assert "G*5b" in moves and len(moves) == len(Position.from_sfen("4k4/9/9/9/9/9/9/9/4K4 b G 1").legal_moves())
    assert run("key").output.split()[0] == str(Position().key())


def test_bad_sfen_is_a_clear_error():
    result = run("moves", "lnsgkgsnl/1r5b1 b - 1")
    assert result.exit_code == 2
    assert "needs 9 ranks" in result.output


def test_moves_in_every_notation():
    sfen = "4k4/9/9/9/9/9/9/3G1G3/4K4 b G 1"
    ki2 = run("moves", sfen, "--notation", "ki2").output.split()
    assert "▲５七金右" in ki2 and "▲５七金左" in ki2 and "▲５七金打" in ki2
    western = run("moves", sfen, "-n", "western").output.split()
    assert {"G4h-5g", "G6h-5g", "G*5g"} <= set(western)
    assert "+0057KI" in run("moves", sfen, "-n", "csa").output.split()
    assert "５七金打" in run("moves", sfen, "-n", "kif").output.split()


def test_the_fourth_small_ingest_merges_the_batches(tmp_path):
    """Each ingest of a small folder commits one batch; four of the smallest tier merge into
    one (store.tiers), and the command says so. (Folders none of whose games another of them
    describes better: such a game's merged row is one more batch, store.writer.reconcile.)"""
    store = tmp_path / "store"
    records = ROOT / "tests" / "fixtures" / "records"
    folders = [records / name for name in ("shogihome", "shogi-kifu-converter", "tsshogi",
                                           "sunfish4")]
    outputs = [run("ingest", folder, "--store", store).output for folder in folders]
    assert not any("merge" in output for output in outputs[:3])
    assert "1 merge of batches of the same size in " in outputs[3]
    assert "the store has 1 batch\n" in outputs[3]


def test_ingest_the_samples_then_nothing_to_do(tmp_path):
    store = tmp_path / "store"
    first = run("ingest", ROOT / "data" / "samples", "--store", store)
    assert first.exit_code == 0, first.output
    assert "18 files read" in first.output and "store " in first.output
    assert "18 games, 2438 positions" in first.output
    again = run("ingest", ROOT / "data" / "samples", "--store", store, "--compact")
    assert "0 files read (18 unchanged, skipped" in again.output
    assert "18 games, 2438 positions" in again.output
    explored = run("explore", "--store", store, "--format", "json")
    assert explored.exit_code == 0 and "7g7f" in explored.output


def test_dashboard_needs_a_store(tmp_path):
    # the server itself is started through this command by tests/test_dashboard_e2e.py
    result = CliRunner().invoke(main, ["dashboard", "--store", str(tmp_path / "none")])
    assert result.exit_code == 1
    assert "no store at" in result.output and "kifudb ingest" in result.output


def test_game_shows_one_stored_game(tmp_path):
    import json

    fork = "tests/fixtures/records/kifu-for-js/packages/Kifu-for-JS/examples/files/kif/fork.kif"
    store = str(tmp_path / "store")
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", fork, "data/samples/records/denou3-1.ki2",
                                "--store", store]).exit_code == 0
    text = runner.invoke(main, ["game", "2", "--store", store])
    assert text.exit_code == 0, text.output
    assert "▲菅井竜也五段 vs △習甦 · 2014-03-15 · 第３回電王戦第１局" in text.output
    assert "▲ castles: 片美濃囲い (25), *美濃囲い (33)" in text.output
    assert "98  ▲２二角成" not in text.output and "  1  ▲７六歩" in text.output
    nested = runner.invoke(main, ["game", "1", "--store", store]).output
    assert "変化 3 from ply 3 (off 変化 2): ２六歩(27)" in nested
    data = json.loads(runner.invoke(main, ["game", "1", "--store", store, "--format", "json",
                                           "--sfens"]).output)
    assert [m["usi"] for m in data["moves"]] == ["7g7f", "3c3d", "2g2f"]
    assert len(data["sfens"]) == 4 and {v["line"] for v in data["variations"]} == set(range(1, 8))
    missing = runner.invoke(main, ["game", "99", "--store", store])
    assert missing.exit_code == 1 and "no game 99" in missing.output


def test_findings_counts_obey_the_path_as_the_list_does(fixtures_store):
    """``kifudb stats findings --path``: the counts by code count the findings listed."""
    import json

    def answer(*path):
        result = run("stats", "findings", "--store", fixtures_store, *path, "--limit", "100000",
                     "--format", "json")
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    assert answer("--path", "/etc/passwd") == {"by_code": [], "offset": 0, "limit": 100000,
                                               "findings": []}
    everything = answer()
    some = answer("--path", "illegal")
    assert 0 < len(some["findings"]) < len(everything["findings"])
    assert sum(row["count"] for row in some["by_code"]) == len(some["findings"])
