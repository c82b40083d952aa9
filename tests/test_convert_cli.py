"""``kifudb convert`` and ``kifudb export`` on real records (data/samples, tests/fixtures): every
file written reads back as the game it came from; what cannot be written is said and the rest
goes on.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kifudb.ingest.read import read_path
from kifudb.ingest.validate import validate_record
from kifudb.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"
RECORDS = SAMPLES / "records"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def fingerprints(path) -> list:
    return [validate_record(r).fingerprint for r in read_path(path).records]


def test_convert_mirrors_the_folders_and_numbers_the_games_of_a_file(tmp_path):
    source = tmp_path / "in"
    shutil.copytree(RECORDS, source / "records")
    shutil.copy(SAMPLES / "games.usi", source)
    result = run("convert", source, "--to", "kif", "--output", tmp_path / "out")
    # the illegal_move.kif game and the last game of games.usi stop at an illegal move: they
    # are written up to it (issue 29: they were left out, with their legal moves)
    assert result.exit_code == 0, result.output
    assert ("illegal_move.kif: move 3 '２一角成(88)' cannot be played (bad_geometry: the bishop "
            "on 8h cannot move to 2a): written up to move 2") in result.output
    assert "games.usi game 13: move 3 '8h2a+' cannot be played" in result.output
    written = sorted(p.relative_to(tmp_path / "out").as_posix()
                     for p in (tmp_path / "out").rglob("*"))
    assert "records/habu-fujii-2006.kif" in written and "games-12.kif" in written
    assert "games-13.kif" in written and "records/illegal_move.kif" in written
    # the same game as JKF and KIF side by side: each name says which it came from
    assert {"records/ryuou201409020101.jkf.kif", "records/ryuou201409020101.kif.kif"} <= set(
        written) and "records/ryuou201409020101.kif" not in written
    assert f"{len([p for p in written if p.endswith('.kif')])} games written as KIF" in \
        result.output
    assert "2 games up to an illegal move" in result.output
    for number, fingerprint in enumerate(fingerprints(SAMPLES / "games.usi")[:12], start=1):
        assert fingerprints(tmp_path / "out" / f"games-{number}.kif") == [fingerprint]
    assert fingerprints(tmp_path / "out" / "records" / "habu-fujii-2006.kif") == \
        fingerprints(RECORDS / "habu-fujii-2006.kif")


def test_convert_says_what_the_format_leaves_out(tmp_path):
    fork = ROOT / "tests/fixtures/records/kifu-for-js/packages/Kifu-for-JS/examples/files/kif/fork.kif"
    result = run("convert", fork, "--to", "csa", "-o", tmp_path)
    assert result.exit_code == 0, result.output
    assert "1 game written as CSA" in result.output
    assert "CSA cannot hold, so left out: the variations of 1 game" in result.output
    assert fingerprints(tmp_path / "fork.csa") == fingerprints(fork)


def test_convert_writes_cp932_and_says_which_character_it_lacks(tmp_path):
    kif = RECORDS / "habu-fujii-2006.kif"
    result = run("convert", kif, "--to", "kif", "-o", tmp_path, "--encoding", "cp932")
    assert result.exit_code == 0, result.output
    data = (tmp_path / "habu-fujii-2006.kif").read_bytes()
    assert data.decode("cp932").startswith("#KIF version=2.0 encoding=Shift_JIS\n")
    assert fingerprints(tmp_path / "habu-fujii-2006.kif") == fingerprints(kif)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "odd.kif").write_text("先手：🐉\n手合割：平手\n   1 ７六歩(77)\n",
                                             encoding="utf-8")
    (tmp_path / "in" / "plain.kif").write_text("先手：羽生\n   1 ７六歩(77)\n", encoding="utf-8")
    result = run("convert", tmp_path / "in", "--to", "usi", "-o", tmp_path / "out",
                 "--encoding", "cp932")
    assert result.exit_code == 1
    assert "odd.kif: not written: cp932 has no character '🐉' (U+1F409, line 1" in result.output
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["plain.usi"]


def test_convert_never_writes_over_its_source(tmp_path):
    shutil.copy(RECORDS / "habu-fujii-2006.kif", tmp_path)
    before = (tmp_path / "habu-fujii-2006.kif").read_bytes()
    result = run("convert", tmp_path / "habu-fujii-2006.kif", "--to", "kif", "-o", tmp_path)
    assert result.exit_code == 1 and "is the source file itself" in result.output
    assert (tmp_path / "habu-fujii-2006.kif").read_bytes() == before


def test_convert_of_nothing_stops_before_writing(tmp_path):
    result = run("convert", tmp_path / "none", "--to", "kif", "-o", tmp_path / "out")
    assert result.exit_code == 2 and "no such file or folder" in result.output
    assert not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    from kifudb.store.writer import ingest_paths

    folder = tmp_path_factory.mktemp("export") / "store"
    ingest_paths([str(RECORDS)], folder)
    return folder


def stored_fingerprints(store) -> dict:
    import sqlalchemy as sa

    from kifudb.store.engine import fetch, games

    return {row["game"]: row["fingerprint"]
            for row in fetch(store, sa.select(games.c.game, games.c.fingerprint))}


def test_export_writes_each_game_as_it_was_read(store, tmp_path):
    result = run("export", "--store", store, "--to", "kif", "-o", tmp_path)
    assert result.exit_code == 1  # one stored game stops at an illegal move
    assert "game 8: not written: move 3 '２一角成(88)' could not be played" in result.output
    known = stored_fingerprints(store)
    files = sorted(tmp_path.glob("*.kif"))
    assert len(files) == len(known) - 1
    for path in files:
        game = int(path.name.split("-", 1)[0])
        assert fingerprints(path) == [known[game]], path.name


def test_export_chooses_games_by_player_position_and_label(store, tmp_path):
    output = tmp_path / "habu.csa"
    result = run("export", "--store", store, "--to", "csa", "-o", output, "--player", "羽生",
                 "--moves", "7g7f 3c3d 2g2f")
    assert result.exit_code == 0, result.output
    assert "3 games written as CSA" in result.output
    read = read_path(output)
    assert len(read.records) == 3 and read.records[0].headers["N+"] == "羽生善治"
    result = run("export", "--store", store, "--to", "usi", "-o", tmp_path / "yagura.usi",
                 "--label", "矢倉")
    assert result.exit_code == 0 and "2 games written as USI" in result.output
    result = run("export", "--store", store, "--to", "kif", "-o", tmp_path / "x",
                 "--player", "nobody at all")
    assert result.exit_code == 0 and "no game of the store fits the filters" in result.output


def test_export_refuses_what_a_format_cannot_do(store, tmp_path):
    result = run("export", "--store", store, "--to", "kif", "-o", tmp_path / "all.kif")
    assert result.exit_code == 2 and "a KIF file holds one game" in result.output
    result = run("export", "--store", store, "--to", "hcpe", "-o", tmp_path / "t.hcpe",
                 "--moves", "7g7f")
    assert result.exit_code == 2 and "not a position" in result.output
    result = run("export", "--store", store, "--to", "kif", "-o", tmp_path, "--dedupe")
    assert result.exit_code == 2 and "--dedupe go with --to hcpe or psv" in result.output


def test_export_training_data_has_one_record_per_position(store, tmp_path):
    result = run("export", "--store", store, "--to", "hcpe", "-o", tmp_path / "t.hcpe",
                 "--decided")
    assert result.exit_code == 0, result.output
    size = (tmp_path / "t.hcpe").stat().st_size
    assert size and size % 38 == 0 and f"({size:,} bytes)" in result.output


def test_convert_keeps_a_patterns_files_below_its_first_folder(tmp_path):
    source = tmp_path / "in"
    (source / "a" / "b").mkdir(parents=True)
    shutil.copy(RECORDS / "habu-fujii-2006.kif", source / "a" / "b")
    shutil.copy(RECORDS / "20091203.ki2", source / "a")
    result = run("convert", f"{source}/**/*.ki*", "--to", "jkf", "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    written = sorted(p.relative_to(tmp_path / "out").as_posix()
                     for p in (tmp_path / "out").rglob("*.jkf"))
    assert written == ["a/20091203.jkf", "a/b/habu-fujii-2006.jkf"]
    assert fingerprints(tmp_path / "out" / "a" / "b" / "habu-fujii-2006.jkf") == \
        fingerprints(RECORDS / "habu-fujii-2006.kif")
