"""``ingest --cluster`` when the cluster fails (issue 26): a bad address or too many local
workers is one line, a worker stopped with SIGSTOP has its work moved to the other worker
within a deadline, a scheduler killed mid-run is one line and the store keeps its last commit,
and after a lost scheduler or a killed client the next run gives the store of an uninterrupted
one (issue 31). Real schedulers and workers, as processes on 127.0.0.1
(``test_cluster.Processes``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import dask
import pytest
from click.testing import CliRunner

from kifudb.cli import main
from kifudb.store.cluster import MAX_LOCAL_WORKERS, ClusterError, check_address
from kifudb.store.folder import Store
from kifudb.store.schema import TABLES
from kifudb.store.writer import ingest_paths
from test_cluster import Processes, content, corpus, leftovers  # noqa: F401 (the helpers)

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"
KIFUDB = Path(sys.executable).parent / "kifudb"


@pytest.fixture
def processes(tmp_path):
    started = Processes(tmp_path)
    yield started
    for worker in started.workers:  # a stopped worker would not hear a SIGTERM
        if worker.poll() is None:
            worker.send_signal(signal.SIGCONT)
    started.close()


def ingest_command(tmp_path, address: str):
    return CliRunner().invoke(main, ["ingest", str(SAMPLES), "--store", str(tmp_path / "store"),
                                     "--cluster", address])


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:", "tcp://127.0.0.1:abc",
                                     "tcp://[::1", "tcp://127.0.0.1:70000", "tcp://:8786",
                                     ":abc", "[::1", "127.0.0.1:8786"])
def test_a_malformed_address_is_one_line(tmp_path, address):
    """Before, ``tcp://127.0.0.1:`` and ``tcp://[::1`` gave 64 lines of ValueError."""
    result = ingest_command(tmp_path, address)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: --cluster {address}: "), lines
    assert "tcp://HOST:PORT" in lines[0] and "local:N" in lines[0] and "\\n" not in lines[0]
    assert not (tmp_path / "store").exists()


def test_local_workers_have_a_bound(tmp_path):
    """Before, ``local:99999999999`` grew to 5.3 GB before starting a worker."""
    result = ingest_command(tmp_path, "local:99999999999")
    assert result.exit_code == 1
    assert result.output.strip() == (
        f"Error: --cluster local:99999999999: at most local:{MAX_LOCAL_WORKERS} here (4 worker "
        f"processes per CPU); for more, start a dask scheduler and workers and give "
        f"tcp://HOST:PORT")
    assert not (tmp_path / "store").exists()
    assert 8 <= MAX_LOCAL_WORKERS <= 256
    check_address(f"local:{MAX_LOCAL_WORKERS}")  # the bound itself is fine
    with pytest.raises(ClusterError, match="at most"):
        check_address(f"local:{MAX_LOCAL_WORKERS + 1}")


def _holding(client, address: str) -> bool:
    return bool(client.processing(workers=[address]).get(address))


@pytest.mark.slow
def test_a_stopped_worker_has_its_work_moved(processes, tmp_path, capfd):
    """A worker stopped (SIGSTOP) while it reads a piece: past the piece's deadline the client
    says which worker, takes it off the cluster, and the other worker does its work; the store
    is the one-process store. Before, the client waited forever, saying nothing."""
    records = corpus(tmp_path / "corpus", copies=2)
    one = tmp_path / "one"
    ingest_paths([records], one, batch_positions=3000)
    victim, _ = processes.worker(), processes.worker()
    client = processes.client(2)
    address = next(a for a, pid in client.run(os.getpid).items() if pid == victim.pid)
    root = tmp_path / "store"
    outcome = {}

    def run():
        try:
            with dask.config.set({"kifudb.cluster.piece-timeout": "3s"}):
                outcome["report"] = ingest_paths([records], root, cluster=processes.address,
                                                 batch_positions=3000)
        except BaseException as error:  # shown by the assertion below
            outcome["error"] = error

    ingesting = threading.Thread(target=run)
    ingesting.start()
    deadline = time.monotonic() + 60
    while not _holding(client, address):
        assert time.monotonic() < deadline and ingesting.is_alive(), outcome
        time.sleep(0.01)
    victim.send_signal(signal.SIGSTOP)
    stopped_during = ingesting.is_alive()
    ingesting.join(timeout=300)
    hung = ingesting.is_alive()
    victim.send_signal(signal.SIGCONT)
    client.close()
    assert stopped_during and not hung and "error" not in outcome, outcome
    said = capfd.readouterr().err
    assert f"Dask worker {address} has not finished piece " in said, said
    assert "it is taken off the cluster and its work goes to the 1 other" in said
    assert content(root) == content(one)
    assert leftovers(root) == []


@pytest.mark.slow
def test_a_scheduler_killed_mid_run_is_one_line(processes, tmp_path):
    """Before: a 78-line FutureCancelledError, or ~36 lines of Dask tracebacks before an Error
    line holding a literal \\n. Now one line; the store keeps what it committed."""
    records = corpus(tmp_path / "corpus", copies=3)
    for _ in range(2):
        processes.worker()
    client = processes.client(2)
    root = tmp_path / "store"
    ingest = subprocess.Popen([KIFUDB, "ingest", records, "--store", root, "--cluster",
                               processes.address], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    deadline = time.monotonic() + 120
    while not any(client.processing().values()):
        assert time.monotonic() < deadline and ingest.poll() is None
        time.sleep(0.01)
    processes.scheduler.send_signal(signal.SIGKILL)
    out, err = ingest.communicate(timeout=180)
    client.close(timeout=5)
    assert ingest.returncode == 1, (out, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"Error: the Dask scheduler at {processes.address} went away: ")
    assert lines[0].endswith("; the store keeps its last commit")
    assert "Traceback" not in err + out and "\\n" not in lines[0]
    manifest = Store(root).manifest()  # the last commit, sound: every batch readable
    assert all(Store(root).batch_dir(b).is_dir() for b in manifest["batches"])
    check = subprocess.run([KIFUDB, "check", "--store", root], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def rows(root) -> dict:
    """What a store holds, whatever batches it is in: every current row of every table but the
    batch numbers (an interrupted run and the one after it commit other batches than one run
    that was not interrupted)."""
    connection = Store(root).connect()
    out = {}
    for table, schema in TABLES.items():
        columns = ", ".join(f'"{f.name}"' for f in schema if f.name != "batch")
        out[table] = connection.execute(f"SELECT {columns} FROM {table} ORDER BY ALL").fetchall()
    return out


def started_committing(root: Path, process: subprocess.Popen) -> None:
    """Wait until the ingest ``process`` has committed a batch into ``root``."""
    deadline = time.monotonic() + 120
    while not (root / "manifest.json").exists() or not Store(root).manifest()["batches"]:
        assert time.monotonic() < deadline and process.poll() is None, process.poll()
        time.sleep(0.01)


def checked(root: Path) -> None:
    check = subprocess.run([KIFUDB, "check", "--store", root], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


@pytest.mark.slow
@pytest.mark.parametrize("killed", ["client", "scheduler"])
def test_the_run_after_a_killed_client_or_scheduler_gives_the_uninterrupted_store(
        killed, tmp_path):
    """The client (``kifudb ingest``) or the scheduler killed with SIGKILL once a batch is
    committed: the store opens and passes ``kifudb check``, and the next run, on a scheduler
    and workers started again, gives the games, positions, keys and findings of a run that
    was not interrupted."""
    records = corpus(tmp_path / "corpus", copies=3)
    one = tmp_path / "one"
    ingest_paths([records], one, batch_positions=3000)
    root = tmp_path / "store"
    # the client: a process of its own, committing every 3,000 positions
    command = [sys.executable, "-c", "import sys; from kifudb.store.writer import ingest_paths; "
               "ingest_paths([sys.argv[1]], sys.argv[2], cluster=sys.argv[3], "
               "batch_positions=3000)", records, root]
    (tmp_path / "first").mkdir()
    (tmp_path / "second").mkdir()
    first = Processes(tmp_path / "first")
    try:
        for _ in range(2):
            first.worker()
        first.client(2).close()
        ingest = subprocess.Popen([*command, first.address], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, cwd=tmp_path)
        started_committing(root, ingest)
        (ingest if killed == "client" else first.scheduler).send_signal(signal.SIGKILL)
        out, err = ingest.communicate(timeout=180)
        assert ingest.returncode == (-signal.SIGKILL if killed == "client" else 1), err
    finally:
        first.close()
    committed = Store(root).manifest()["batches"]
    assert committed and rows(root) != rows(one)  # stopped half-way
    checked(root)
    second = Processes(tmp_path / "second")
    try:
        for _ in range(2):
            second.worker()
        second.client(2).close()
        again = subprocess.run([*command, second.address], capture_output=True, text=True,
                               cwd=tmp_path)
        assert again.returncode == 0, again.stdout + again.stderr
    finally:
        second.close()
    assert rows(root) == rows(one)
    checked(root)
    assert leftovers(root) == []
