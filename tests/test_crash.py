"""Crash consistency: SIGKILL at random points of an ingest, a compaction and a relabelling, and
a full disk on a small tmpfs. Whatever happens, the store opens, ``kifudb check`` finds it sound,
it holds exactly what its last commit says, and the next run completes the work to the store a
clean run gives. (The ingest's own SIGKILL test is ``test_store.py``'s.)"""

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kifudb.store.check import check_store
from kifudb.store.folder import Store, StoreError
from kifudb.store.relabel import relabel
from kifudb.store.writer import ingest_paths

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "tests" / "fixtures" / "records"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

pytestmark = pytest.mark.slow

TABLES = ("games", "sources", "moves", "positions", "findings", "files", "labels")


def counts(store: Store) -> dict:
    connection = store.connect()
    return {t: connection.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}


def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    for i in range(3):  # copies: more files and batches for the same games
        shutil.copytree(RECORDS / "apery-wcsc28", folder / f"copy{i}")
        shutil.copytree(RECORDS / "kifu-for-js", folder / f"js{i}")
    return folder


def kill_repeatedly(script: str, store: Store, seed: int, times: int = 6) -> int:
    """Run ``script`` (Python, the store folder as argv[1]) and SIGKILL it at a random moment,
    ``times`` times; after each kill the store must be sound. Returns how many runs were
    killed before they ended."""
    rng = random.Random(seed)
    kills = 0
    for _ in range(times):
        process = subprocess.Popen([sys.executable, "-c", script, str(store.root)], env=ENV,
                                   cwd=ROOT, stdout=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.05, 1.2))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            kills += 1
        process.wait()
        report = check_store(store)
        assert report.sound, report.damaged
        counts(store)  # every view answers
    return kills


COMPACT_LOOP = """
import sys
from kifudb.store.folder import Store
store = Store(sys.argv[1])
while True:
    with store.writing():
        store.compact()
"""

MERGE_LOOP = """
import sys
from kifudb.store.folder import Store
store = Store(sys.argv[1])
while True:
    with store.writing():
        batches = store.manifest()["batches"]
        store.merge(batches[:2])
"""

RELABEL_LOOP = """
import sys
from kifudb.store.relabel import relabel
while True:
    relabel(sys.argv[1])
"""


def test_sigkill_during_compaction_loses_nothing(tmp_path):
    store = Store(tmp_path / "store")
    ingest_paths([corpus(tmp_path)], store.root, batch_positions=1000)
    before = counts(store)
    assert len(store.manifest()["batches"]) >= 3
    assert kill_repeatedly(COMPACT_LOOP, store, seed=1) >= 1
    assert counts(store) == before
    report = ingest_paths([tmp_path / "corpus"], store.root)
    assert report.files_read == 0 and counts(store) == before


def test_sigkill_during_merges_loses_nothing(tmp_path):
    store = Store(tmp_path / "store")
    ingest_paths([corpus(tmp_path)], store.root, batch_positions=1000)
    before = counts(store)
    assert len(store.manifest()["batches"]) >= 2
    assert kill_repeatedly(MERGE_LOOP, store, seed=3) >= 1
    assert counts(store) == before


def test_sigkill_during_relabel_keeps_one_set_of_labels(tmp_path):
    store = Store(tmp_path / "store")
    ingest_paths([corpus(tmp_path)], store.root)
    before = counts(store)
    assert kill_repeatedly(RELABEL_LOOP, store, seed=2) >= 1
    assert counts(store) == before  # old labels or new ones, never both, never none
    relabel(store.root)
    assert counts(store) == before


def _mount_tmpfs(folder: Path, size: str) -> bool:
    folder.mkdir()
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                            capture_output=True)
    return result.returncode == 0


def test_a_full_disk_leaves_the_last_commit_whole(tmp_path):
    disk = tmp_path / "disk"
    if not _mount_tmpfs(disk, "4m"):
        pytest.skip("this machine does not allow mounting a tmpfs (not root, or no "
                    "CAP_SYS_ADMIN); the full-disk path is also tested with a failing write "
                    "in test_store_safety.py")
    try:
        store = Store(disk / "store")
        ingest_paths([RECORDS / "apery-wcsc28"], store.root)
        before = counts(store)
        filler = disk / "filler"
        with open(filler, "wb") as stream:  # leave only a little room
            try:
                while True:
                    stream.write(b"\0" * 65536)
                    stream.flush()
            except OSError:
                pass
        os.truncate(filler, max(0, filler.stat().st_size - 40_000))
        with pytest.raises(StoreError, match="the disk is full"):
            ingest_paths([RECORDS / "kifu-for-js", RECORDS / "shogihome"], store.root)
        assert counts(store) == before and check_store(store).sound
        import duckdb
        analysts = duckdb.connect(str(store.root / "kifudb.duckdb"), read_only=True)
        assert analysts.execute("SELECT count(*) FROM games").fetchone()[0] == before["games"]
        analysts.close()
        filler.unlink()
        ingest_paths([RECORDS / "kifu-for-js", RECORDS / "shogihome"], store.root)
        assert counts(store)["games"] > before["games"] and check_store(store).sound
        assert not [p for p in store.root.iterdir() if p.name.endswith((".tmp", ".wal"))]
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)
