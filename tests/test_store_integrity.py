"""Corruption that nobody notices (issue 26), on a store each test builds from ``data/samples``:

- a single flipped bit anywhere in a positions, games or moves file (data page or footer) is
  found by ``kifudb check`` (each batch's mark holds the size and SHA-256 digest of its files:
  before, 12 of 18 random flips passed as sound, 6 of them changing answers);
- search, explore and the SQL door on a flipped store say "store damaged" naming the file and
  the repair, never a traceback, "Out of buffer" or "Parquet metadata is corrupt" (a store
  written before digests too: DuckDB's errors that name no file are traced to the file);
- ``check --repair`` treats a file whose digest is wrong as a missing one: the store is sound
  again and answers as before;
- a store written before digests opens and checks ("no digest");
- a store folder that may not be written: ``ingest``, ``ingest --compact``, ``check --repair``
  and ``relabel`` say so in one line.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from test_cluster import read_only_view  # tests run as root: permissions stop nothing
from kifudb.cli import main
from kifudb.store.check import check_store
from kifudb.store.writer import ingest_paths

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"
#: the tables whose files are flipped, and how many flips each (half data pages, half footer)
TABLES = ("positions", "games", "moves")
FLIPS = 8
QUESTIONS = (["search", "--moves", "7g7f 3c3d", "--format", "json"],
             ["explore", "--moves", "7g7f"],
             ["sql", "SELECT sum(hash(key)), sum(hash(ply)), count(*) FROM positions"])


@pytest.fixture(scope="module")
def sample_store(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("integrity") / "store"
    report = ingest_paths([str(SAMPLES)], folder)
    assert report.games_added > 10 and report.batches == ["b000001"]
    return folder


def ask(folder: Path, question: list):
    result = CliRunner().invoke(main, [*question, "--store", str(folder)])
    return result.exit_code, result.output, result.exception


def answers(folder: Path) -> list:
    """What the questions answer, game ids left out (a repair reads games again, with new
    ids)."""
    found = []
    for question in QUESTIONS:
        code, output, _ = ask(folder, question)
        assert code == 0, output
        if question[0] == "search":
            rows = json.loads(output)["hits"]
            output = sorted(json.dumps({k: v for k, v in row.items() if k != "game"},
                                       sort_keys=True, ensure_ascii=False) for row in rows)
        found.append(output)
    return found


def footer_start(path: Path) -> int:
    data = path.read_bytes()
    return len(data) - 8 - int.from_bytes(data[-8:-4], "little")


def flips(folder: Path, seed: int = 26) -> list:
    """``(file name, offset, bit)``: seeded single-bit flips, half in data pages, half in the
    footer, of each of ``TABLES``."""
    rng = random.Random(seed)
    chosen = []
    for table in TABLES:
        path = folder / "batches" / "b000001" / f"{table}.parquet"
        start, size = footer_start(path), path.stat().st_size
        for i in range(FLIPS):
            offset = rng.randrange(4, start) if i % 2 == 0 else rng.randrange(start, size)
            chosen.append((path.name, offset, rng.randrange(8)))
    return chosen


def flipped(source: Path, folder: Path, name: str, offset: int, bit: int) -> Path:
    """A copy of the store at ``source`` with one bit of one of its files flipped."""
    shutil.copytree(source, folder)
    path = folder / "batches" / "b000001" / name
    data = bytearray(path.read_bytes())
    data[offset] ^= 1 << bit
    path.write_bytes(bytes(data))
    return folder


def unseal(folder: Path) -> None:
    """Make the store one written before digests: its batches' marks without them."""
    for mark in folder.glob("batches/*/batch.json"):
        written = json.loads(mark.read_text())
        mark.write_text(json.dumps({k: v for k, v in written.items()
                                    if k not in ("files", "digest")}))


@pytest.mark.slow
def test_every_flipped_bit_is_found_by_check(sample_store, tmp_path):
    assert check_store(sample_store).sound
    chosen = flips(sample_store)
    assert len(chosen) == FLIPS * len(TABLES)
    for n, (name, offset, bit) in enumerate(chosen):
        folder = flipped(sample_store, tmp_path / f"s{n}", name, offset, bit)
        report = check_store(folder)
        assert not report.sound and [d.file for d in report.damaged] == [name], \
            (name, offset, bit, report.damaged)
        result = CliRunner().invoke(main, ["check", "--store", str(folder)])
        assert result.exit_code == 1 and f"damaged: batch b000001, file {name}: " in \
            result.output, result.output
        shutil.rmtree(folder)


@pytest.mark.slow
def test_queries_on_a_flipped_store_say_store_damaged(sample_store, tmp_path):
    """Whether DuckDB would fail on the flip or answer wrongly, every question says which file
    is damaged and the repair."""
    for n, (name, offset, bit) in enumerate(flips(sample_store, seed=3)[::3]):
        folder = flipped(sample_store, tmp_path / f"s{n}", name, offset, bit)
        for question in QUESTIONS:
            code, output, error = ask(folder, question)
            assert code == 1 and isinstance(error, SystemExit), (question, output)
            assert output.startswith(f"Error: store damaged: batch b000001, file {name}: "), \
                (question, output)
            assert f"kifudb check --repair --store {folder.resolve()}" in output
            assert output.count("\n") == 1 and "Traceback" not in output
        shutil.rmtree(folder)


@pytest.mark.slow
def test_duckdb_errors_that_name_no_file_are_traced_to_it(sample_store, tmp_path):
    """A store written before digests has nothing to verify: a flip that makes DuckDB say
    "Out of buffer" or "TProtocolException" (no file named) is traced by reading the files."""
    rng = random.Random(7)
    path = sample_store / "batches" / "b000001" / "moves.parquet"
    data, found = path.read_bytes(), None
    for _ in range(400):  # a flip whose error names no file
        offset, bit = rng.randrange(4, len(data) - 8), rng.randrange(8)
        spoilt = bytearray(data)
        spoilt[offset] ^= 1 << bit
        probe = tmp_path / "probe.parquet"
        probe.write_bytes(bytes(spoilt))
        try:
            duckdb.sql(f"SELECT sum(hash(usi)) FROM '{probe}'").fetchall()
        except duckdb.Error as error:
            if str(probe) not in str(error):
                found = offset, bit, str(error).splitlines()[0]
                break
    assert found is not None
    folder = flipped(sample_store, tmp_path / "store", "moves.parquet", *found[:2])
    unseal(folder)
    code, output, _ = ask(folder, ["sql", "SELECT sum(hash(usi)) FROM moves"])
    assert code == 1 and "store damaged: batch b000001, file moves.parquet" in output, \
        (found, output)
    assert "query refused or failed" not in output and "Traceback" not in output


@pytest.mark.slow
def test_repair_drops_a_flipped_batch_and_the_store_answers_as_before(sample_store, tmp_path):
    before = answers(sample_store)
    for n, (name, offset, bit) in enumerate(flips(sample_store, seed=5)[1::8]):
        folder = flipped(sample_store, tmp_path / f"s{n}", name, offset, bit)
        repaired = CliRunner().invoke(main, ["check", "--repair", "--store", str(folder)])
        assert repaired.exit_code == 0, repaired.output
        assert "repaired: batch b000001 dropped" in repaired.output
        assert "read again: 18 record files" in repaired.output, repaired.output
        assert check_store(folder).sound and check_store(folder).unsealed == []
        assert answers(folder) == before, (name, offset, bit)


def test_a_store_written_before_digests_opens_and_checks(sample_store, tmp_path):
    folder = tmp_path / "store"
    shutil.copytree(sample_store, folder)
    unseal(folder)
    result = CliRunner().invoke(main, ["check", "--store", str(folder)])
    assert result.exit_code == 0, result.output
    assert "no digest: 1 batch written before digests (b000001)" in result.output
    assert "sound: every file matches the manifest\n" in result.output
    assert ask(folder, QUESTIONS[0])[0] == 0


def test_a_damaged_mark_is_damage(sample_store, tmp_path):
    """A digest in the mark changed (a flipped bit there) is seen: the mark's own digest."""
    folder = tmp_path / "store"
    shutil.copytree(sample_store, folder)
    mark = folder / "batches" / "b000001" / "batch.json"
    text = mark.read_text()
    digest = json.loads(text)["files"]["games.parquet"]["sha256"]
    mark.write_text(text.replace(digest, ("0" if digest[0] != "0" else "1") + digest[1:]))
    report = check_store(folder)
    assert [d.file for d in report.damaged] == ["batch.json"], report.damaged
    assert "store damaged: batch b000001, file batch.json" in ask(folder, QUESTIONS[1])[1]


def test_batch_files_carry_page_checksums(sample_store, tmp_path):
    """pyarrow verifies them (``kifudb check`` reads with it); DuckDB does not."""
    path = sample_store / "batches" / "b000001" / "positions.parquet"
    data = bytearray(path.read_bytes())
    data[1000] ^= 0x10
    spoilt = tmp_path / "positions.parquet"
    spoilt.write_bytes(bytes(data))
    with pytest.raises(OSError, match="CRC"):
        pq.read_table(spoilt, page_checksum_verification=True)
    duckdb.sql(f"SELECT sum(hash(key)) FROM '{spoilt}'").fetchall()  # no error: not verified


# ----- a store folder that may not be written ---------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    ["ingest", str(SAMPLES / "games.usi")],
    ["ingest", str(SAMPLES / "games.usi"), "--compact"],
    ["check", "--repair"],
    ["relabel"],
])
def test_a_read_only_store_is_one_clear_line(sample_store, tmp_path, command):
    folder = tmp_path / "store"
    if command[:2] == ["check", "--repair"]:  # a damaged store: the repair must write
        flipped(sample_store, folder, "games.parquet", 100, 0)
    else:
        shutil.copytree(sample_store, folder)
    prefix = read_only_view(folder)
    if prefix is None:
        pytest.skip("no unprivileged mount namespaces (unshare) for a read-only store")
    before = sorted((p.relative_to(folder), p.stat().st_size) for p in folder.rglob("*"))
    run = subprocess.run([*prefix, sys.executable, "-m", "kifudb", *command, "--store",
                          str(folder)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    said = (run.stdout + run.stderr).strip()
    assert run.returncode == 1, said
    assert re.fullmatch(rf"Error: cannot write the store {re.escape(str(folder))}: Read-only "
                        rf"file system \([^\n]*\); [^\n]*The store is unchanged[^\n]*", said), said
    assert sorted((p.relative_to(folder), p.stat().st_size) for p in folder.rglob("*")) == before
    # readers never write: the same store answers
    reader = subprocess.run([*prefix, sys.executable, "-m", "kifudb", "explore", "--store",
                             str(folder)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    if command[0] != "check":
        assert reader.returncode == 0, reader.stdout + reader.stderr
