"""The store: ingest of real records, idempotent re-ingest, changed files, one game from many
files, compaction, and an ingest killed with SIGKILL at random moments."""

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kifudb.store.folder import Store, StoreDamaged
from kifudb.store.writer import ingest_paths

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "tests" / "fixtures" / "records"
KIF = RECORDS / "kifu-for-js/packages/json-kifu-format/test/files/kif/ryuou201409020101.kif"
JKF = RECORDS / "kifu-for-js/packages/json-kifu-format/test/files/jkf/ryuou201409020101.jkf"


def counts(store):
    c = store.connect()
    return {t: c.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("games", "sources", "moves", "positions", "findings", "files")}


def check_consistent(store):
    """Every stored game has all its positions and moves; every source names a stored game."""
    c = store.connect()
    assert c.execute("SELECT count(*) FROM sources WHERE game NOT IN (SELECT game FROM games_all)"
                     ).fetchone()[0] == 0
    bad = c.execute("""SELECT g.game FROM games_all g LEFT JOIN
                       (SELECT game, count(*) n FROM positions_all GROUP BY game) p USING (game)
                       WHERE coalesce(p.n, 0) != (CASE WHEN g.start_sfen = '' THEN 0
                                                  ELSE g.moves + 1 END)""").fetchall()
    assert bad == []
    keys = [k for (k,) in c.execute("SELECT key FROM positions_all").fetchall()]
    assert len(keys) == len(set(zip(keys, range(len(keys)))))


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("store")
    report = ingest_paths([RECORDS], root, jobs=2)
    assert report.files_read == report.files_seen > 200
    return Store(root)


def test_ingest_real_records(store):
    n = counts(store)
    # 177 games: among the fixtures, 10 records of 2 to 6 moves repeat another's moves but name
    # another date or other players: they are other games, not more sources of one
    assert n["games"] == 177 and n["sources"] == 278 and n["files"] == 246
    c = store.connect()
    # positions = moves + 1 for every game, and a game from many files is stored once
    assert n["positions"] == c.execute("SELECT sum(moves + 1) FROM games").fetchone()[0]
    assert c.execute("SELECT count(DISTINCT (fingerprint, date, black, white)) FROM games"
                     ).fetchone()[0] == n["games"]
    check_consistent(store)
    # the positions file is sorted by key
    keys = [k for (k,) in c.execute("SELECT key FROM positions_all").fetchall()]
    assert keys == sorted(keys)
    # handicap games and their results are stored
    row = c.execute("SELECT handicap, winner, reason FROM games JOIN sources USING (game) "
                    "WHERE path LIKE '%20081220kyoochi.kif'").fetchone()
    assert row[0] == "香落ち" and row[2] == "resign"


def test_reingest_is_a_no_op(store):
    before = (store.manifest(), counts(store))
    report = ingest_paths([RECORDS], store.root)
    assert report.files_skipped == report.files_seen and report.files_read == 0
    assert (store.manifest(), counts(store)) == before


def test_one_game_many_files(tmp_path):
    report = ingest_paths([KIF, JKF], tmp_path)
    assert (report.games_read, report.games_added, report.games_known) == (2, 1, 1)
    c = Store(tmp_path).connect()
    assert c.execute("SELECT count(*) FROM games").fetchone()[0] == 1
    assert sorted(f for (f,) in c.execute("SELECT format FROM sources").fetchall()) == ["jkf", "kif"]


def test_changed_file_replaces_its_games(tmp_path):
    folder = tmp_path / "records"
    folder.mkdir()
    record = folder / "game.kif"
    shutil.copyfile(KIF, record)
    store = Store(tmp_path / "store")
    ingest_paths([folder], store.root)
    first = store.connect().execute("SELECT game, moves FROM games").fetchall()
    text = KIF.read_bytes().decode("cp932")
    shortened = text[:text.index("  50 ")] + "  50 投了\n"
    record.write_bytes(shortened.encode("cp932"))
    report = ingest_paths([folder], store.root)
    assert report.files_replaced == 1 and report.games_added == 1
    c = store.connect()
    now = c.execute("SELECT game, moves FROM games").fetchall()
    assert len(now) == 1 and now[0][1] == 49 and now != first
    assert c.execute("SELECT count(*) FROM sources").fetchone()[0] == 1
    assert c.execute("SELECT count(*) FROM files").fetchone()[0] == 1
    # putting the old content back brings the old game back without storing it twice
    shutil.copyfile(KIF, record)
    report = ingest_paths([folder], store.root)
    assert (report.games_added, report.games_known) == (0, 1)
    assert store.connect().execute("SELECT game, moves FROM games").fetchall() == first
    check_consistent(store)


def test_compaction_keeps_what_counts(tmp_path):
    folder = tmp_path / "records"
    shutil.copytree(RECORDS / "csa-rs", folder)
    store = Store(tmp_path / "store")
    ingest_paths([folder], store.root)
    ingest_paths([RECORDS / "apery-wcsc28"], store.root)
    before = counts(store)
    with store.writing():
        store.compact()
    assert len(store.manifest()["batches"]) == 1 and counts(store) == before
    check_consistent(store)


def rows(store) -> dict:
    """Every row of every view, as sorted lists (what a store holds, whatever its batches and
    their numbers)."""
    c = store.connect()
    return {table: sorted(map(repr, c.execute(
        f"SELECT * {'' if table in ('moves', 'positions') else 'EXCLUDE (batch)'} FROM {table}")
        .fetchall())) for table in ("games", "sources", "moves", "positions", "findings",
                                    "files", "labels")}


def test_merges_keep_every_row_and_bound_the_batches(tmp_path):
    """Many small batches merge tier by tier (store.tiers) into a few; the views hold exactly
    what one big batch holds, and a file changed later still retires its old rows."""
    folder = tmp_path / "records"
    shutil.copytree(RECORDS / "apery-wcsc28", folder)
    one = Store(tmp_path / "one")
    ingest_paths([folder], one.root, batch_positions=10**9)
    tiered = Store(tmp_path / "tiered")
    report = ingest_paths([folder], tiered.root, batch_positions=100)
    assert len(report.batches) >= 16 and report.merged
    sizes = [len(tiered.connect().execute(f"SELECT * FROM read_parquet('{f}')").fetchall())
             for f in tiered.table_files("positions")]
    assert len(sizes) < len(report.batches)
    from kifudb.store.tiers import FANOUT, TOP, tier
    levels = [tier(n, 100) for n in sizes]
    assert all(levels.count(level) < FANOUT for level in levels if level < TOP)
    assert rows(tiered) == rows(one)
    # the analysts' database, refreshed once when the ingest let its lock go, shows them all
    import duckdb
    analysts = duckdb.connect(str(tiered.root / "kifudb.duckdb"), read_only=True)
    assert analysts.execute("SELECT count(*) FROM positions").fetchone()[0] == len(
        rows(one)["positions"])
    analysts.close()
    # the merged batches' positions are sorted by key, as every batch's are
    for f in tiered.table_files("positions"):
        keys = [k for (k,) in tiered.connect().execute(
            f"SELECT key FROM read_parquet('{f}')").fetchall()]
        assert keys == sorted(keys)
    # a file changed after the merges: its old rows (now in a merged batch) no longer count
    changed = sorted(folder.rglob("*.csa"))[0]
    changed.write_bytes(changed.read_bytes().replace(b"%TORYO", b"%CHUDAN"))
    for store in (one, tiered):
        ingest_paths([folder], store.root, batch_positions=100)
    assert rows(tiered) == rows(one)
    check_consistent(tiered)


def test_merged_and_compacted_placements_are_sorted_a_range_at_a_time(tmp_path, monkeypatch):
    """A merge or a compaction sorts a batch's placements a range of (place, piece) at a time
    (store.sorting; here of at most 500 rows, in row groups of 1,000): the file holds every
    row once, sorted whole, in whole row groups but the last, and pattern search answers as on
    a store of one batch."""
    import pyarrow.parquet as pq

    from kifudb.analytics.pattern import PatternSearch, find_pattern
    from kifudb.store import folder as store_folder, sorting

    monkeypatch.setattr(sorting, "SORT_ROWS", 500)
    monkeypatch.setattr(store_folder, "ROW_GROUP", 1000)
    one = Store(tmp_path / "one")
    ingest_paths([RECORDS / "apery-wcsc28"], one, batch_positions=10**9)
    expected = sorted(one.connect().execute(
        "SELECT game, place, piece, count, from_ply, to_ply FROM placements").fetchall())
    tiered = Store(tmp_path / "tiered")
    tiered.rewrite_in_child = False  # the merges in this process, with the sizes above
    report = ingest_paths([RECORDS / "apery-wcsc28"], tiered, batch_positions=100)
    assert report.merged
    for store in (tiered, "compacted"):
        if store == "compacted":
            with tiered.writing():
                tiered.compact()
            store = tiered
        largest = max(store.table_files("placements"),
                      key=lambda f: pq.ParquetFile(f).metadata.num_rows)
        table = pq.read_table(largest)
        assert table.num_rows > 5 * 500
        columns = [table.column(c).to_pylist() for c in ("place", "piece", "game", "from_ply")]
        assert list(zip(*columns)) == sorted(zip(*columns))
        groups = [pq.ParquetFile(largest).metadata.row_group(i).num_rows
                  for i in range(pq.ParquetFile(largest).metadata.num_row_groups)]
        assert set(groups[:-1]) == {1000} and 0 < groups[-1] <= 1000
        assert sorted(store.connect().execute(
            "SELECT game, place, piece, count, from_ply, to_ply FROM placements").fetchall()
        ) == expected
        for text in ("▲玉88 ▲金78", "▲持歩3", "△飛82"):
            search = PatternSearch.of(text)
            found = find_pattern(store, search)
            assert found["games"] and found == find_pattern(one, search)


def test_positions_split_by_key_range_answer_the_same(tmp_path):
    """A writer that splits each batch's positions into files of at most 200 (store.partitions)
    gives the rows, searches and explorer answers of a store of one file per batch; a second
    split and a lost range are named."""
    from kifudb.analytics.queries import explore, occurrences, search
    from kifudb.core import Position
    from kifudb.store import partitions
    from kifudb.store.check import check_store
    plain = Store(tmp_path / "plain")
    ingest_paths([RECORDS / "apery-wcsc28"], plain)
    split = Store(tmp_path / "split", partition_rows=200)
    ingest_paths([RECORDS / "apery-wcsc28"], split, batch_positions=400)
    names = [Path(f).name for f in split.table_files("positions")]
    assert any(partitions.parse(n)[0] >= 2 for n in names), names  # merges split further
    assert rows(split) == rows(plain) and check_store(split).sound
    for key in [k for (k,) in plain.connect().execute(
            "SELECT DISTINCT key FROM positions USING SAMPLE 30 ROWS").fetchall()] + [
            Position().key()]:
        assert occurrences(split, key) == occurrences(plain, key)
        assert search(split, key) == search(plain, key)
        assert explore(split, key) == explore(plain, key)
    stray = next(Path(f) for f in split.table_files("positions")
                 if Path(f).name != "positions.parquet")
    shutil.copy(stray, stray.parent / "positions.parquet")  # by hand: a second split
    assert any("two splits" in d.reason for d in check_store(split).damaged)
    (stray.parent / "positions.parquet").unlink()
    lost = Path(split.table_files("positions")[-1])
    lost.unlink()
    report = check_store(split)
    assert [d.file for d in report.damaged] == [lost.name]
    with pytest.raises(StoreDamaged, match=f"file {lost.name}: the file is missing"):
        split.connect()


def test_repair_never_adopts_a_merge_and_its_inputs(tmp_path):
    """A lost manifest is rebuilt from the batches on disk: the inputs a merge replaced (kept a
    day for running queries) hold the same rows again and are left out."""
    store = Store(tmp_path / "store")
    ingest_paths([RECORDS / "apery-wcsc28"], store.root, batch_positions=100)
    before = rows(store)
    on_disk = len(list((store.root / "batches").iterdir()))
    assert on_disk > len(store.manifest()["batches"])  # the replaced batches are still there
    store.manifest_path.unlink()
    from kifudb.store.check import check_store, repair_store
    repair_store(store, check_store(store))
    assert rows(store) == before


def test_readers_are_not_blocked_by_a_writer(store):
    with store.writing():  # an ingest holds the writer's lock
        assert counts(store)["games"] == 177


def test_empty_store_answers_queries(tmp_path):
    assert counts(Store(tmp_path)) == {t: 0 for t in ("games", "sources", "moves", "positions",
                                                       "findings", "files")}


KILLER = """
import sys
from kifudb.store.writer import ingest_paths
ingest_paths(sys.argv[2:], sys.argv[1], batch_positions=1500)
"""


@pytest.mark.slow  # kills several ingests: 5 s or more
def test_sigkill_mid_ingest_leaves_a_sound_store(tmp_path):
    corpus = tmp_path / "corpus"
    for i in range(4):  # copies in different folders: same games, more files, more batches
        shutil.copytree(RECORDS / "apery-wcsc28", corpus / f"copy{i}")
        shutil.copytree(RECORDS / "shogihome", corpus / f"home{i}")
    store = Store(tmp_path / "store")
    rng = random.Random(4)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    kills = 0
    for attempt in range(6):
        process = subprocess.Popen([sys.executable, "-c", KILLER, str(store.root), str(corpus)],
                                   env=env, cwd=ROOT)
        time.sleep(rng.uniform(0.3, 1.5))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            kills += 1
        process.wait()
        check_consistent(store)  # whatever was committed is whole
        counts(store)
    assert kills >= 1
    report = ingest_paths([corpus], store.root)  # the next run completes the work
    assert report.files_seen == report.files_read + report.files_skipped
    clean = Store(tmp_path / "clean")
    ingest_paths([corpus], clean.root)
    assert counts(store) == counts(clean)
    fingerprints = "SELECT fingerprint FROM games ORDER BY 1"
    assert store.connect().execute(fingerprints).fetchall() == \
        clean.connect().execute(fingerprints).fetchall()
    assert not (store.root / "tmp").exists() or not any((store.root / "tmp").iterdir())


def test_a_richer_source_describes_a_known_game(tmp_path):
    usi = tmp_path / "moves.usi"
    text = (ROOT / "data/samples/games.usi").read_text(encoding="utf-8")
    usi.write_text(next(line for line in text.splitlines() if line.startswith("sfen")) + "\n",
                   encoding="utf-8")  # the first sample: 羽生–藤井 2006, as bare USI
    store = Store(tmp_path / "store")
    ingest_paths([usi], store.root)
    query = "SELECT game, black, white, date, winner FROM games"
    (game, black, white, date, winner), = store.connect().execute(query).fetchall()
    assert (black, white, date, winner) == (None, None, None, "none")
    report = ingest_paths([RECORDS / "python-shogi/data/games/habu-fujii-2006.kif"], store.root)
    assert (report.games_added, report.games_known) == (0, 1)
    (game2, black, white, date, winner), = store.connect().execute(query).fetchall()
    assert game2 == game and (black, white, str(date), winner) == ("羽生善治", "藤井猛",
                                                                   "2006-12-15", "black")
    with store.writing():
        store.compact()
    assert store.connect().execute(query).fetchall() == [(game, black, white, date, winner)]


def test_comments_and_times_reach_the_store(store):
    c = store.connect()
    path = "%kifu-for-js/packages/json-kifu-format/test/files/kif/20081220kyoochi.kif"
    game_comments, = c.execute("SELECT g.comments FROM games g JOIN sources s USING (game) "
                               "WHERE s.path LIKE ?", [path]).fetchone()
    assert game_comments.startswith("棋戦詳細：トップ棋士VS関西新鋭")  # written before the moves
    commented, timed, variations = c.execute(
        "SELECT count(comment), count(seconds), count(*) FILTER (line > 0) FROM moves").fetchone()
    assert commented > 100 and timed > 1000 and variations > 10


#: The record folders of the ingests before a merge: three batches of tier 0 (no merge yet),
#: then a fourth that makes the tier full, so that its commit is followed by a merge. (None
#: holds a game another file of them gives more about: such a game's merged row is one more
#: batch, ``store.writer.reconcile``.)
BEFORE_MERGE = ("shogihome", "shogi-kifu-converter", "tsshogi")
MERGED_AFTER = "sunfish4"

#: Run on a small tmpfs of its own (``unshare``): three ingests, then a full disk but for 160 KiB
#: — room for the fourth batch (about 90 KiB), not for the merge of the four (about 190 KiB) — then
#: ``kifudb ingest`` of the fourth folder; what it said, the store after, and an ingest with
#: the space back. Printed as JSON: the mount ends with the process.
FULL_DISK_MERGE = """
import json, os, sys
from pathlib import Path
from click.testing import CliRunner
from kifudb.cli import main
from kifudb.store.check import check_store
from kifudb.store.folder import Store
from kifudb.store.writer import ingest_paths

disk, records = Path(sys.argv[1]), Path(sys.argv[2])
store = disk / "store"
for name in sys.argv[3].split(","):
    ingest_paths([records / name], store)
space = os.statvfs(disk)
with open(disk / "filler", "wb") as filler:
    filler.write(bytes(space.f_bavail * space.f_frsize - 160 * 1024))
fourth = ["ingest", str(records / sys.argv[4]), "--store", str(store)]
said = CliRunner().invoke(main, fourth)
batches = Store(store).manifest()["batches"]
sound = check_store(store).sound
games = Store(store).connect().execute("SELECT count(*) FROM games").fetchone()[0]
(disk / "filler").unlink()
again = CliRunner().invoke(main, fourth)
print(json.dumps({"code": said.exit_code, "said": said.output, "batches": batches,
                  "sound": sound, "games": games, "again": again.output,
                  "batches_after": Store(store).manifest()["batches"],
                  "sound_after": check_store(store).sound}))
"""


def on_small_disk(folder: Path, size: str) -> list:
    """The command prefix that runs a program with a tmpfs of ``size`` mounted on ``folder``
    (in a mount namespace of its own), or None if this system has no unprivileged ones."""
    prefix = ["unshare", "--map-root-user", "--mount", "sh", "-c",
              f'mount -t tmpfs -o size={size} tmpfs "$0" && exec "$@"', folder]
    try:
        probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return prefix if probe.returncode == 0 else None


@pytest.mark.slow  # five ingests and two checks: about 5 s
def test_a_full_disk_during_the_merge_says_what_was_stored(tmp_path):
    """A disk that holds the ingest's batch but not the merge that follows it: the command says
    what was committed (the batch, its games) and that only the merge failed, exits 1, and
    leaves the store sound with that batch; with space again, the next ingest does the merge.
    It said "the store is unchanged" though the batch was committed."""
    disk = tmp_path / "disk"
    disk.mkdir()
    prefix = on_small_disk(disk, "16m")
    if prefix is None:
        pytest.skip("no unprivileged mount namespaces (unshare) for a small tmpfs")
    done = subprocess.run([*prefix, sys.executable, "-c", FULL_DISK_MERGE, disk, RECORDS,
                           ",".join(BEFORE_MERGE), MERGED_AFTER], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    import json

    out = json.loads(done.stdout)
    assert out["code"] == 1, out["said"]
    summary, error = out["said"].strip().splitlines()[0], out["said"].strip().splitlines()[-1]
    assert "10 games: 10 new" in summary and "1284 positions added" in summary
    assert error.startswith("Error: the disk is full: merging batches of the same size after "
                            "the ingest failed, and only that: the ingest's batch b000004 is "
                            "committed (") and "10 new games and 1284 positions stored" in error
    assert "is as that commit left it. Free some space" in error and "unchanged" not in error
    assert len(out["said"].strip().splitlines()) <= 3  # no traceback
    assert out["batches"] == ["b000001", "b000002", "b000003", "b000004"] and out["sound"]
    assert out["games"] == 31 + 20 + 4 + 10
    assert "0 new" in out["again"] and "1 merge of batches" in out["again"]
    assert out["batches_after"] == ["b000005"] and out["sound_after"]


def test_a_merge_that_fails_after_the_commit_keeps_the_batch(tmp_path, monkeypatch):
    """The same in process, the merge's writes failing with ENOSPC: ``MergeFailed`` carries
    the ingest's report and says what was stored; the store keeps the committed batch."""
    from kifudb.store import folder
    from kifudb.store.writer import MergeFailed

    store = Store(tmp_path / "store")
    for name in BEFORE_MERGE:
        ingest_paths([RECORDS / name], store.root)

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Store, "rewrite_in_child", False)  # the merge written in this process
    monkeypatch.setattr(folder, "_copy", full)
    with pytest.raises(MergeFailed) as failed:
        ingest_paths([RECORDS / MERGED_AFTER], store.root)
    monkeypatch.undo()
    assert failed.value.report.batches == ["b000004"] and failed.value.report.games_added == 10
    assert str(failed.value).startswith("the disk is full: merging batches of the same size")
    assert "the ingest's batch b000004 is committed" in str(failed.value)
    assert Store(store.root).manifest()["batches"] == ["b000001", "b000002", "b000003", "b000004"]
    check_consistent(Store(store.root))
    assert counts(Store(store.root))["games"] == 31 + 20 + 4 + 10
    assert not [p for p in (store.root / "tmp").iterdir()]
    assert ingest_paths([RECORDS / MERGED_AFTER], store.root).merged == ["b000005"]


def _children_running(module: str) -> list:
    """The process ids of this process's children whose command line names ``module``."""
    found = []
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in children:
            try:
                command = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                continue
            if module.encode() in command:
                found.append(int(child))
    return found


def test_a_merge_processs_answer_is_read_past_what_else_it_printed(tmp_path):
    """The merge's process answers on the last line of its output that is an answer (DuckDB
    drew its progress bar on the same output before), and DuckDB draws none now."""
    from kifudb.store.rewrite import _answer

    assert _answer('100% ▕██████▏ (00:00:06.54 elapsed)\n{"name": "b000007"}\n') == \
        {"name": "b000007"}
    assert _answer('{"error": "StoreError", "message": "m"}\n 99% ▕█████▏\r\n') == \
        {"error": "StoreError", "message": "m"}
    assert _answer("100% ▕██████▏\n[1, 2]\n") == {}
    connection = Store(tmp_path / "store").connect()
    assert connection.execute("SELECT current_setting('enable_progress_bar')").fetchall() == \
        [(False,)]


def test_a_merge_whose_process_is_killed_fails_the_merge_only(tmp_path):
    """The merge after an ingest runs in a process of its own (``store.rewrite``): killed (as
    the kernel kills a process out of memory), the ingest says so, its batch stays
    committed, the store is sound, and the next ingest does the merge."""
    import threading

    from kifudb.store.check import check_store
    from kifudb.store.writer import MergeFailed

    store = Store(tmp_path / "store")
    for name in BEFORE_MERGE:
        ingest_paths([RECORDS / name], store.root)
    killed, done = [], threading.Event()

    def kill_the_merge():
        while not done.is_set() and not killed:
            for child in _children_running("kifudb.store.rewrite"):
                os.kill(child, signal.SIGKILL)
                killed.append(child)
            time.sleep(0.005)

    killer = threading.Thread(target=kill_the_merge)
    killer.start()
    try:
        with pytest.raises(MergeFailed) as failed:
            ingest_paths([RECORDS / MERGED_AFTER], store.root)
    finally:
        done.set()
        killer.join()
    assert killed and killed[0] != os.getpid()
    said = str(failed.value)
    assert said.startswith("merging into batch b000005: its process was killed by SIGKILL "
                           "(as the kernel ends a process that runs out of memory): merging "
                           "batches of the same size after the ingest failed, and only that"), said
    assert "the ingest's batch b000004 is committed" in said
    assert Store(store.root).manifest()["batches"] == ["b000001", "b000002", "b000003", "b000004"]
    assert check_store(store.root).sound
    again = ingest_paths([RECORDS / MERGED_AFTER], store.root)
    assert again.games_added == 0 and again.merged == ["b000005"]  # the killed one's debris gone
    assert Store(store.root).manifest()["batches"] == ["b000005"]
