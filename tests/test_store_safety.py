"""The store under faults it must survive: a folder without a manifest, debris that is not its
own, a name already on disk, a long game, a full disk, a compaction under a long-lived
connection, a store inside the folder being ingested (issue "Nothing lost, no way in")."""

import json
import os
import shutil
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from kifudb.store.folder import (SUPERSEDED_GRACE, Store, StoreDamaged, StoreError,
                                 remove_marked)
from kifudb.store.writer import ingest_paths

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples" / "games.usi"
#: a record that is not among the samples
KIF = (ROOT / "tests" / "fixtures" / "records" / "shogihome" / "src" / "command" / "usi-csa-bridge"
       / "e2e" / "scenario" / "2" / "record.kifu")


def games(store: Store) -> int:
    return store.connect().execute("SELECT count(*) FROM games").fetchone()[0]


def test_a_folder_without_manifest_is_refused_and_left_as_it_is(tmp_path):
    store = tmp_path / "store"
    ingest_paths([SAMPLES], store)
    (store / "manifest.json").unlink()  # deleted, or the wrong --store
    (store / "tmp").mkdir(exist_ok=True)
    (store / "tmp" / "notes.txt").write_text("mine")
    before = sorted(p.relative_to(store) for p in store.rglob("*"))
    with pytest.raises(StoreError, match="not a kifudb store .* check --repair"):
        ingest_paths([KIF], store)
    assert sorted(p.relative_to(store) for p in store.rglob("*")) == before


def test_a_folder_of_other_files_is_not_made_a_store(tmp_path):
    (tmp_path / "my_records.txt").write_text("keep me")
    with pytest.raises(StoreError, match="not empty"):
        ingest_paths([SAMPLES], tmp_path)
    assert sorted(os.listdir(tmp_path)) == [".lock", "my_records.txt"]


def test_only_its_own_debris_is_removed(tmp_path):
    store = Store(tmp_path / "store")
    ingest_paths([SAMPLES], store.root)
    stranger_tmp = store.root / "tmp" / "someone_elses"
    stranger_tmp.mkdir(parents=True)
    (stranger_tmp / "data.bin").write_bytes(b"x")
    stranger_batch = store.root / "batches" / "b000009"
    stranger_batch.mkdir()
    (stranger_batch / "games.parquet").write_bytes(b"not ours")
    # the debris of an interrupted commit of this store: marked, never committed
    with store.writing():
        ours = store._new_folder(store.manifest(), "b000002")
    (store.root / "kifudb.duckdb.0123456789abcdef0123456789abcdef.tmp").write_bytes(b"")
    (store.root / "kifudb.duckdb.0123456789abcdef0123456789abcdef.tmp.wal").write_bytes(b"")
    report = ingest_paths([KIF], store.root)
    assert not ours.exists()
    assert stranger_tmp.exists() and (stranger_batch / "games.parquet").read_bytes() == b"not ours"
    assert not list(store.root.glob("kifudb.duckdb.*.tmp*"))
    # a name that exists on disk is never reused
    assert report.batches == ["b000010"]
    assert games(store) == 14


def test_a_folder_whose_writer_was_killed_making_it_is_removed(tmp_path):
    """A writer killed in ``Store._new_folder`` leaves an empty folder, or one holding only its
    unfinished mark; one killed while it removes a marked folder leaves the mark: the next
    writer removes them all, and still leaves a folder that holds anything else."""
    store = Store(tmp_path / "store")
    ingest_paths([SAMPLES], store.root)
    tmp = store.root / "tmp"
    empty, unfinished, stranger = (tmp / f"{n:032x}" for n in (1, 2, 3))
    for folder in (empty, unfinished, stranger):
        folder.mkdir(parents=True)
    (unfinished / "batch.json.tmp").write_text('{"store_id": "', encoding="utf-8")
    (stranger / "data.bin").write_bytes(b"x")
    with store.writing():
        half = store._new_folder(store.manifest(), "b000002")
    (half / "games.parquet").write_bytes(b"half written")
    ingest_paths([KIF], store.root)
    assert sorted(tmp.iterdir()) == [stranger]
    assert (stranger / "data.bin").read_bytes() == b"x"


def test_a_marked_folder_is_removed_mark_last_and_nothing_writes_into_it_after(tmp_path,
                                                                              monkeypatch):
    store = Store(tmp_path / "store")
    ingest_paths([SAMPLES], store.root)
    with store.writing():
        folder = store._new_folder(store.manifest(), "b000002")
    (folder / "games.parquet").write_bytes(b"x")
    (folder / "spill").mkdir()
    (folder / "spill" / "0.block").write_bytes(b"y")
    removed = []
    unlink = os.unlink
    monkeypatch.setattr(os, "unlink", lambda path, **at: removed.append(os.path.basename(path))
                        or unlink(path, **at))
    remove_marked(folder)
    assert removed[-1] == "batch.json" and not folder.exists()
    assert list((store.root / "tmp").iterdir()) == []
    with pytest.raises(FileNotFoundError):  # a worker still writing by its name
        (folder / "positions.parquet").write_bytes(b"z")


def test_a_game_longer_than_32767_plies_is_stored_with_the_other_files(tmp_path):
    loop = "2h5h 5a4b 5h2h 4b5a " * 10_000  # 40,000 plies: a repetition that goes on
    long = tmp_path / "records" / "long.usi"
    long.parent.mkdir()
    long.write_text(f"startpos moves {loop.strip()}\n")
    shutil.copy(SAMPLES, tmp_path / "records" / "games.usi")
    report = ingest_paths([tmp_path / "records"], tmp_path / "store")
    assert report.games_added == 14
    connection = Store(tmp_path / "store").connect()
    assert connection.execute("SELECT max(moves), max(ply) FROM games JOIN positions "
                              "USING (game)").fetchone() == (40_000, 40_000)
    assert connection.execute("SELECT max(ply) FROM moves").fetchone() == (40_000,)


def test_a_full_disk_is_said_and_the_store_keeps_its_last_commit(tmp_path, monkeypatch):
    store = Store(tmp_path / "store")
    ingest_paths([SAMPLES], store.root)
    import kifudb.store.folder as folder

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(folder.pq, "write_table", full)
    with pytest.raises(StoreError, match="the disk is full: writing batch b000002"):
        ingest_paths([KIF], store.root)
    monkeypatch.undo()
    assert Store(store.root).manifest()["batches"] == ["b000001"]
    assert not [p for p in (store.root / "tmp").iterdir()]
    assert games(Store(store.root)) == 13
    assert ingest_paths([KIF], store.root).games_added == 1


def test_the_analysts_database_is_replaced_only_when_complete(tmp_path, monkeypatch):
    store = Store(tmp_path / "store")
    ingest_paths([SAMPLES], store.root)
    database = store.root / "kifudb.duckdb"
    before = database.read_bytes()
    import kifudb.store.folder as folder

    real = folder.duckdb.connect

    def failing(path=":memory:", *args, **kwargs):
        connection = real(path, *args, **kwargs)
        if str(path).endswith(".tmp") and not kwargs.get("read_only"):
            connection.execute("SET max_temp_directory_size = '0KB'")
            connection.close()
            raise folder.duckdb.IOException("No space left on device")
        return connection

    monkeypatch.setattr(folder.duckdb, "connect", failing)
    writer = Store(store.root)
    report = ingest_paths([KIF], writer)
    monkeypatch.undo()
    assert report.games_added == 1
    assert any("kifudb.duckdb was not refreshed" in note for note in writer.notes)
    assert database.read_bytes() == before  # the old one stays, whole
    assert not list(store.root.glob("kifudb.duckdb.*.tmp*"))


def test_a_connection_outlives_a_compaction_and_the_next_ingest(tmp_path):
    store = Store(tmp_path / "store")
    ingest_paths([SAMPLES], store.root)
    ingest_paths([KIF], store.root)
    held = store.connect()
    assert held.execute("SELECT count(*) FROM games").fetchone() == (14,)
    with store.writing():
        store.compact()
    ingest_paths([ROOT / "tests" / "fixtures" / "six_formats"], store.root)
    assert held.execute("SELECT count(*) FROM games").fetchone() == (14,)
    assert held.execute("SELECT count(*) FROM positions").fetchone()[0] > 0
    # after the grace period the superseded batches go
    manifest = store.manifest()
    assert [s["batches"] for s in manifest["superseded"]] == [["b000001", "b000002"]]
    expired = [{**s, "at": s["at"] - SUPERSEDED_GRACE - 1} for s in manifest["superseded"]]
    store._write_manifest({**manifest, "superseded": expired})
    with store.writing():
        pass
    assert store.manifest()["superseded"] == []
    assert not store.batch_dir("b000001").exists() and not store.batch_dir("b000002").exists()
    assert games(Store(store.root)) >= 14


def test_a_store_inside_the_folder_being_ingested_is_not_read(tmp_path):
    folder = tmp_path / "records"
    folder.mkdir()
    shutil.copy(SAMPLES, folder / "games.usi")
    first = ingest_paths([folder], folder / "store")
    again = ingest_paths([folder], folder / "store")
    assert first.files_seen == 1 and again.files_seen == 1 and again.files_read == 0
    assert again.batches == []


@pytest.mark.parametrize("manifest", ["[]", '{"format": 4, "next_game": "x", "batches": []}',
                                      '{"format": 4, "next_game": 1, "batches": [1]}', "{oops"])
def test_a_manifest_of_the_wrong_shape_is_a_clear_error(tmp_path, manifest):
    store = Store(tmp_path / "store")
    ingest_paths([SAMPLES], store.root)
    store.manifest_path.write_text(manifest)
    with pytest.raises(StoreDamaged, match="store damaged: .*manifest.json.*check --repair"):
        store.connect()
    with pytest.raises(StoreDamaged):
        ingest_paths([KIF], store.root)


def test_a_missing_or_truncated_batch_file_is_a_clear_error(tmp_path):
    store = Store(tmp_path / "store")
    ingest_paths([SAMPLES], store.root)
    labels = store.batch_dir("b000001") / "labels.parquet"
    labels.unlink()
    with pytest.raises(StoreDamaged, match="batch b000001, file labels.parquet: the file is "
                                           "missing"):
        store.connect()
    pq.write_table(pq.read_table(store.batch_dir("b000001") / "games.parquet"), labels)
    games_file = store.batch_dir("b000001") / "games.parquet"
    games_file.write_bytes(games_file.read_bytes()[:100])
    with pytest.raises(StoreDamaged, match="batch b000001, file games.parquet"):
        store.connect().execute("SELECT count(*) FROM games_all").fetchall()


def test_an_older_store_format_is_migrated_by_the_next_writer(tmp_path):
    store = Store(tmp_path / "store")
    ingest_paths([SAMPLES], store.root)
    # make it a format 3 store: 16-bit plies, no store id
    batch = store.batch_dir("b000001")
    for table in ("games", "moves", "positions", "labels"):
        data = pq.read_table(batch / f"{table}.parquet")
        schema = data.schema
        for i, field in enumerate(schema):
            if field.type == "int32" and field.name in ("moves", "first_illegal_ply", "line",
                                                        "parent", "ply"):
                schema = schema.set(i, field.with_type(__import__("pyarrow").int16()))
        pq.write_table(data.cast(schema), batch / f"{table}.parquet")
    (batch / "batch.json").unlink()
    (batch / "placements.parquet").unlink()  # a store written before pattern search
    manifest = json.loads(store.manifest_path.read_text())
    del manifest["store_id"], manifest["superseded"]
    store.manifest_path.write_text(json.dumps({**manifest, "format": 3}))
    assert games(store) == 13  # readable as it is
    writer = Store(store.root)
    ingest_paths([KIF], writer)
    assert writer.notes[0] == "store format 3 migrated to format 6"
    manifest = writer.manifest()
    assert manifest["format"] == 6 and manifest["store_id"]
    assert games(writer) == 14
    # the migration placed the older games' pieces: every game is found by pattern search
    placed = writer.connect().execute("SELECT count(DISTINCT game) FROM placements").fetchone()
    assert placed == (14,)
    time.sleep(0)  # (the superseded format-3 batch stays for the grace period)
    assert writer.batch_dir("b000001").exists()


def test_records_that_break_at_the_same_move_stay_two_games(tmp_path):
    folder = tmp_path / "records"
    folder.mkdir()
    # two different games with the same typo at ply 3 (a bishop that cannot reach 2a)
    (folder / "a.usi").write_text("startpos moves 7g7f 3c3d 8h2a+ 2b8h+ 7i8h\n")
    (folder / "b.usi").write_text("startpos moves 7g7f 3c3d 8h2a+ 8c8d 2g2f\n")
    report = ingest_paths([folder], tmp_path / "store")
    assert report.games_added == 2 and report.games_known == 0
    rows = Store(tmp_path / "store").connect().execute(
        "SELECT count(*) FROM moves WHERE text IN ('2b8h+', '8c8d')").fetchone()
    assert rows == (2,)


def test_the_same_moves_on_another_date_or_by_other_players_are_another_game(tmp_path):
    folder = tmp_path / "records"
    folder.mkdir()
    moves = "startpos moves 7g7f 3c3d 2g2f"
    (folder / "a.usi").write_text(f"# 2024-01-01 羽生善治 - 藤井聡太\n{moves}\n")
    (folder / "b.csa").write_text("V2.2\nN+羽生 善治\nN-藤井聡太\n$START_TIME:2024/01/01\nPI\n+\n"
                                  "+7776FU\n-3334FU\n+2726FU\n")  # the same game: stored once
    (folder / "c.csa").write_text("V2.2\nN+佐藤康光\nN-藤井聡太\n$START_TIME:2024/01/01\nPI\n+\n"
                                  "+7776FU\n-3334FU\n+2726FU\n")  # another game
    (folder / "d.csa").write_text("V2.2\nN+羽生善治\n$START_TIME:2025/03/01\nPI\n+\n"
                                  "+7776FU\n-3334FU\n+2726FU\n")  # another day
    report = ingest_paths([folder], tmp_path / "store")
    assert (report.games_added, report.games_known) == (3, 1)


def _check(*args):
    from click.testing import CliRunner

    from kifudb.cli import main
    return CliRunner().invoke(main, ["check", *map(str, args)])


def test_check_finds_a_truncated_file_and_repair_reads_its_records_again(tmp_path):
    store = Store(tmp_path / "store")
    ingest_paths([SAMPLES], store.root)
    ingest_paths([KIF], store.root)
    assert _check("--store", store.root).exit_code == 0
    damaged = store.batch_dir("b000002") / "moves.parquet"
    damaged.write_bytes(damaged.read_bytes()[: len(damaged.read_bytes()) // 2])
    result = _check("--store", store.root)
    assert result.exit_code == 1 and "damaged: batch b000002, file moves.parquet" in result.output
    # every command says so in one line, not with a traceback
    from click.testing import CliRunner

    from kifudb.cli import main
    found = CliRunner().invoke(main, ["sql", "--store", str(store.root),
                                      "SELECT count(*) FROM moves_all"])
    assert found.exit_code == 1 and "store damaged: batch b000002, file moves.parquet" in \
        found.output and "Traceback" not in found.output
    repaired = _check("--store", store.root, "--repair")
    assert repaired.exit_code == 0, repaired.output
    assert "batch b000002 dropped" in repaired.output and "read again: 1 record file of" in \
        repaired.output
    assert _check("--store", store.root).exit_code == 0
    assert games(Store(store.root)) == 14


def test_repair_rebuilds_a_lost_manifest_from_the_batches(tmp_path):
    store = Store(tmp_path / "store")
    ingest_paths([SAMPLES], store.root)
    ingest_paths([KIF], store.root)
    store.manifest_path.write_text("[]")
    assert _check("--store", store.root).exit_code == 1
    repaired = _check("--store", store.root, "--repair")
    assert "manifest.json rebuilt" in repaired.output, repaired.output
    assert games(Store(store.root)) == 14
    report = ingest_paths([SAMPLES, KIF], store.root)  # the store works again
    assert report.files_read == 0 and report.stale_labels


def test_an_ingest_into_a_damaged_store_says_which_file(tmp_path):
    from click.testing import CliRunner

    from kifudb.cli import main
    store = Store(tmp_path / "my store")  # a space in the path too
    ingest_paths([SAMPLES], store.root)
    damaged = store.batch_dir("b000001") / "games.parquet"
    damaged.write_bytes(damaged.read_bytes()[:200] + b"\0" * 50 + damaged.read_bytes()[-8:])
    result = CliRunner().invoke(main, ["ingest", str(KIF), "--store", str(store.root)])
    assert result.exit_code == 1, result.output
    assert "store damaged: batch b000001, file games.parquet" in result.output
    assert f"kifudb check --repair --store {store.root}" in result.output


def test_the_writers_environment_sets_how_long_replaced_batches_stay(tmp_path, monkeypatch):
    """``KIFUDB_SUPERSEDED_GRACE`` (seconds): 0 and the next writer removes what a compaction
    replaced; a value that is not a number of seconds is said, and nothing is removed."""
    from click.testing import CliRunner

    from kifudb.cli import main
    from kifudb.store.folder import GRACE_VARIABLE

    store = Store(tmp_path / "store")
    ingest_paths([SAMPLES], store.root)
    ingest_paths([KIF], store.root)
    with store.writing():
        store.compact()
    assert [s["batches"] for s in store.manifest()["superseded"]] == [["b000001", "b000002"]]
    monkeypatch.setenv(GRACE_VARIABLE, "a day")
    said = CliRunner().invoke(main, ["ingest", str(KIF), "--store", str(store.root)])
    assert said.exit_code == 1 and said.output.strip().splitlines()[-1] == (
        "Error: KIFUDB_SUPERSEDED_GRACE='a day': it is how many seconds the batches a merge "
        "replaced are kept, a number of seconds (0 or more)"), said.output
    assert store.batch_dir("b000001").exists()
    monkeypatch.setenv(GRACE_VARIABLE, "0")
    with store.writing():
        pass
    assert store.manifest()["superseded"] == []
    assert not store.batch_dir("b000001").exists() and not store.batch_dir("b000002").exists()
    assert games(Store(store.root)) == 14
