"""Ingest on a Dask cluster (``store.cluster``): the same store as ``--jobs 1`` and ``--jobs 2``
from a LocalCluster and from a scheduler and workers started as processes, a worker killed
during an ingest, an unreachable scheduler, a worker that cannot write the store."""

import contextlib
import json
import os
import shutil
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
from kifudb.store.folder import Store
from kifudb.store.schema import TABLES
from kifudb.store.writer import ingest_paths

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "tests" / "fixtures" / "records"
SAMPLES = ROOT / "data" / "samples"
DASK = Path(sys.executable).parent / "dask"


def content(root) -> dict:
    """Every table of a store, every row (batch numbers included) as a sorted list."""
    connection = Store(root).connect()
    out = {}
    for table, schema in TABLES.items():
        columns = ", ".join(f'"{f.name}"' for f in schema)
        for view in {f"{table}_all", "retired_all" if table == "retired" else table}:
            out[view] = connection.execute(f"SELECT {columns} FROM {view} ORDER BY ALL").fetchall()
    return out


def corpus(folder: Path, copies: int = 1) -> Path:
    """The fixture records (and the samples, which repeat some of their games) ``copies`` times
    over: every game read from several files, which the workers read apart."""
    for n in range(copies):
        shutil.copytree(RECORDS, folder / f"records{n}")
        shutil.copytree(SAMPLES, folder / f"samples{n}")
    return folder


def leftovers(root: Path) -> list:
    """What an ingest left in the store's tmp folder (nothing once it is over)."""
    tmp = root / "tmp"
    return sorted(os.listdir(tmp)) if tmp.is_dir() else []


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The corpus, ingested by one process in batches of 3000 positions, then once more after
    one file changed: the stores every other way of ingesting must give."""
    base = tmp_path_factory.mktemp("cluster")
    records = corpus(base / "corpus")
    stores = {}
    for jobs in (1, 2):
        root = base / f"jobs{jobs}"
        ingest_paths([records], root, jobs=jobs, batch_positions=3000)
        stores[jobs] = content(root)
    return base, records, stores


@pytest.fixture(scope="module")
def local():
    """A LocalCluster of two worker processes, by its address (``local:2`` starts one per run)."""
    import logging

    from distributed import LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.ERROR)
    yield cluster.scheduler_address
    cluster.close()


def change_one_file(records: Path) -> None:
    """A changed file: its earlier source is retired and it is read again."""
    target = records / "samples0" / "games.usi"
    target.write_bytes(target.read_bytes().split(b"\n", 1)[1])


@pytest.mark.slow
def test_local_cluster_gives_the_store_of_jobs_1_and_2(reference, local, tmp_path):
    base, records, stores = reference
    assert stores[1] == stores[2]
    root = tmp_path / "local"
    report = ingest_paths([records], root, cluster=local, batch_positions=3000)
    assert report.games_added == 177 and report.games_known > 100 and len(report.batches) > 2
    assert content(root) == stores[1]
    assert leftovers(root) == []
    # again: every file unchanged is skipped on the workers, nothing is committed
    again = ingest_paths([records], root, cluster=local, batch_positions=3000)
    assert again.files_skipped == again.files_seen and again.batches == []
    assert content(root) == stores[1]


@pytest.mark.slow
def test_a_changed_file_is_replaced_as_by_one_process(local, tmp_path):
    records = corpus(tmp_path / "corpus")
    one, cluster = tmp_path / "one", tmp_path / "cluster"
    ingest_paths([records], one, batch_positions=3000)
    ingest_paths([records], cluster, cluster=local, batch_positions=3000)
    change_one_file(records)
    first = ingest_paths([records], one, batch_positions=3000)
    second = ingest_paths([records], cluster, cluster=local, batch_positions=3000)
    assert first.files_replaced == second.files_replaced == 1
    assert (second.files_read, second.games_read) == (first.files_read, first.games_read)
    stored = content(one)
    assert stored["retired_all"] and content(cluster) == stored


@pytest.mark.slow
def test_the_command_line_with_local_workers(reference, tmp_path):
    base, records, stores = reference
    jobs = CliRunner().invoke(main, ["ingest", str(records), "--store", str(tmp_path / "j"),
                                     "--jobs", "2", "--no-compact"])
    cluster = CliRunner().invoke(main, ["ingest", str(records), "--store", str(tmp_path / "c"),
                                        "--cluster", "local:2", "--no-compact", "--progress"])
    assert jobs.exit_code == cluster.exit_code == 0, cluster.output
    # a bar over the files, moved as the cluster finishes them
    assert "ingest:" in cluster.stderr and "file/s" in cluster.stderr, cluster.stderr
    assert "games " in cluster.stderr
    assert content(tmp_path / "j") == content(tmp_path / "c")
    # the same summary line, but for the time it took
    assert jobs.stdout.split(" added in ")[0] == cluster.stdout.split(" added in ")[0]
    assert "177 new" in cluster.output


def test_another_cluster_on_dasks_port_is_not_said(tmp_path):
    """Dask's default port (8787) held, as another cluster of the machine holds it: the
    ingest's own local cluster takes a free port and writes nothing to standard error (it
    warned, and the README's example failed beside a running ingest)."""
    import socket

    holder = socket.socket()
    with contextlib.suppress(OSError):  # held already: the case itself
        holder.bind(("", 8787))
        holder.listen()
    try:
        done = subprocess.run([Path(sys.executable).parent / "kifudb", "ingest", SAMPLES,
                               "--cluster", "local:1", "--store", tmp_path / "store"],
                              capture_output=True, text=True, cwd=ROOT)
    finally:
        holder.close()
    assert done.returncode == 0 and "18 new" in done.stdout, done.stdout + done.stderr
    assert done.stderr == ""


def test_an_unreachable_scheduler_writes_nothing(tmp_path):
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        result = CliRunner().invoke(main, ["ingest", str(SAMPLES), "--store",
                                           str(tmp_path / "store"), "--cluster",
                                           "tcp://127.0.0.1:9"])
    assert result.exit_code == 1
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in result.output
    assert "Nothing was written" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "store").exists()
    wrong = CliRunner().invoke(main, ["ingest", str(SAMPLES), "--store", str(tmp_path / "s"),
                                      "--cluster", "local:none"])
    assert wrong.exit_code == 1 and "local:N needs a number of workers" in wrong.output
    assert not (tmp_path / "s").exists()


class Processes:
    """A ``dask scheduler`` and ``dask worker`` processes, as an operator starts them."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.file = folder / "scheduler.json"
        self.workers: list = []
        self.scheduler = subprocess.Popen(
            [DASK, "scheduler", "--scheduler-file", self.file, "--port", "0", "--no-dashboard",
             "--host", "127.0.0.1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while not self.file.exists() or not self.file.read_text().strip():
            assert time.monotonic() < deadline and self.scheduler.poll() is None
            time.sleep(0.1)
        self.address = json.loads(self.file.read_text())["address"]

    def worker(self) -> subprocess.Popen:
        """One worker process with one thread and no nanny (a kill is a kill)."""
        worker = subprocess.Popen(
            [DASK, "worker", self.address, "--nthreads", "1", "--no-nanny",
             "--no-dashboard", "--host", "127.0.0.1", "--local-directory",
             self.folder / f"w{len(self.workers)}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        self.workers.append(worker)
        return worker

    def client(self, workers: int):
        from distributed import Client

        client = Client(self.address)
        client.wait_for_workers(workers, timeout=60)
        return client

    def close(self):
        for process in self.workers + [self.scheduler]:
            if process.poll() is None:
                process.terminate()
        for process in self.workers + [self.scheduler]:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.fixture
def processes(tmp_path):
    started = Processes(tmp_path)
    yield started
    started.close()


@pytest.mark.slow
def test_a_scheduler_and_workers_started_as_processes(reference, processes, tmp_path):
    base, records, stores = reference
    for _ in range(2):
        processes.worker()
    processes.client(2).close()
    root = tmp_path / "store"
    ingest_paths([records], root, cluster=str(processes.file), batch_positions=3000)
    assert content(root) == stores[1]
    other = tmp_path / "by-address"
    ingest_paths([records], other, cluster=processes.address, batch_positions=3000)
    assert content(other) == stores[1]


@pytest.mark.slow
def test_a_worker_killed_during_an_ingest(processes, tmp_path):
    """Its tasks run again on the other worker; its partial piece is never committed."""
    records = corpus(tmp_path / "corpus", copies=3)
    one = tmp_path / "one"
    ingest_paths([records], one, batch_positions=3000)
    victim, _ = processes.worker(), processes.worker()
    client = processes.client(2)
    address = next(a for a, pid in client.run(os.getpid).items() if pid == victim.pid)
    root = tmp_path / "store"
    outcome = {}

    def run():
        try:
            outcome["report"] = ingest_paths([records], root, cluster=processes.address,
                                             batch_positions=3000)
        except BaseException as error:  # shown by the assertion below
            outcome["error"] = error

    ingesting = threading.Thread(target=run)
    ingesting.start()
    deadline = time.monotonic() + 60
    while not client.processing(workers=[address]).get(address):
        assert time.monotonic() < deadline and ingesting.is_alive(), outcome
        time.sleep(0.01)
    victim.send_signal(signal.SIGKILL)
    killed_during = ingesting.is_alive()
    ingesting.join(timeout=120)
    client.close()
    assert killed_during and "error" not in outcome, outcome
    assert victim.wait(timeout=10) == -signal.SIGKILL
    assert content(root) == content(one)
    assert leftovers(root) == []


def read_only_view(folder: Path) -> list:
    """The command prefix that runs a program in a mount namespace where ``folder`` is
    read-only (a worker whose share of the store is not writable), or None if this system has
    no unprivileged mount namespaces."""
    prefix = ["unshare", "--map-root-user", "--mount", "sh", "-c",
              'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"', folder]
    try:
        probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return prefix if probe.returncode == 0 else None


@pytest.mark.slow
def test_a_worker_that_cannot_write_the_store_stops_the_ingest_before_any_work(processes,
                                                                                tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    prefix = read_only_view(shared)
    if prefix is None:
        pytest.skip("no unprivileged mount namespaces (unshare) to give a worker a read-only view")
    worker = subprocess.Popen(
        [*prefix, DASK, "worker", processes.address, "--nthreads", "1", "--no-nanny",
         "--no-dashboard", "--host", "127.0.0.1", "--local-directory", tmp_path / "w"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    processes.workers.append(worker)
    processes.client(1).close()
    store = shared / "store"
    result = CliRunner().invoke(main, ["ingest", str(SAMPLES), "--store", str(store),
                                       "--cluster", processes.address])
    assert result.exit_code == 1, result.output
    assert "must be on a filesystem every Dask worker shares and may write" in result.output
    assert "it cannot write in" in result.output and "Read-only file system" in result.output
    assert "worker tcp://127.0.0.1:" in result.output and "Nothing was read" in result.output
    assert not store.exists()  # not even the empty store it would have been
