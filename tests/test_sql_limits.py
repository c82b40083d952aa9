"""``kifudb sql``'s limits hold for any query (issue 26): a value built row by row, outside
DuckDB's memory accounting (nine nested ``replace``), is stopped by the child process's
address-space limit or killed at the deadline, and no function shows the store's absolute path,
however transformed. Real stores, real child processes; memory is read from ``/proc``."""

from __future__ import annotations

import base64
import os
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from kifudb.cli_store import sql as sql_command
from kifudb.store import sql
from kifudb.store.folder import Store
from kifudb.store.writer import ingest_paths

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "tests" / "fixtures" / "records"

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"),
                                reason="reads memory from Linux's /proc")


def nested_replace(levels: int, tail: str = "") -> str:
    """A string of 10**levels x's, built by ``levels`` nested replaces (each multiplies by
    ten: no function the check refuses)."""
    text = "'x'"
    for _ in range(levels):
        text = f"replace({text}, 'x', 'xxxxxxxxxx')"
    return text + tail


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("sql-limits") / "store"
    report = ingest_paths([str(RECORDS / "tsshogi"), str(RECORDS / "apery-wcsc28")], folder)
    assert report.games_added > 5
    return folder


def _kib(pid, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _descendants(pid: int) -> list:
    children = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if parent == pid:
                children.append(int(entry))
    return children + [d for c in children for d in _descendants(c)]


class PeakMemory:
    """The peak resident memory while the block runs: this process's growth (its high-water
    mark, reset first) and the largest of its child processes' high-water marks."""

    def __enter__(self):
        with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
            refs.write("5")  # resets VmHWM
        self.start = _kib("self", "VmRSS")
        self.children = 0
        self._done = threading.Event()
        self._watch = threading.Thread(target=self._sample)
        self._watch.start()
        return self

    def _sample(self):
        while not self._done.wait(0.005):
            for pid in _descendants(os.getpid()):
                self.children = max(self.children, _kib(pid, "VmHWM"))

    def __exit__(self, *exc):
        self._done.set()
        self._watch.join()
        self.own = _kib("self", "VmHWM") - self.start
        return False


GB = 10 ** 9


@pytest.mark.slow
def test_a_value_built_row_by_row_is_stopped_by_the_memory_limit(store_dir):
    """Nine nested replaces build a 1 GB string (2.3 GB at its peak) that DuckDB neither counts
    nor interrupts: under a 16 MB limit the child's address space stops it, with the memory
    limit's message, well below a gigabyte of memory anywhere."""
    with PeakMemory() as peak:
        with pytest.raises(sql.SqlError, match=r"needs more than 16 MB of memory: .*raise the "
                                               r"limit with --memory-limit") as stopped:
            sql.run_sql(store_dir, f"SELECT length({nested_replace(9)})", timeout=600,
                        memory_limit="16MB")
    assert stopped.value.limit == "memory"
    assert peak.own < GB / 4, peak.own
    assert peak.children < GB, peak.children
    # the next query runs (in a new child)
    assert sql.run_sql(store_dir, "SELECT count(*) > 0 FROM games", memory_limit="16MB").rows \
        == [(True,)]


@pytest.mark.slow
def test_a_value_built_row_by_row_is_killed_at_the_deadline(store_dir):
    """Without a memory limit, the deadline kills the query's process: the gigabytes it was
    building never reach this process (before, DuckDB went on for 6.7 s and 2.3 GB here)."""
    with PeakMemory() as peak:
        with pytest.raises(sql.SqlError, match=r"stopped after 1 s: the time limit; raise it "
                                               r"with --timeout") as stopped:
            sql.run_sql(store_dir, f"SELECT length({nested_replace(9)})", timeout=1,
                        memory_limit=None)
    assert stopped.value.limit == "time"
    assert peak.own < GB / 4, peak.own


@pytest.mark.slow
def test_an_answer_larger_than_the_memory_limit_is_not_taken(store_dir):
    """Three million rows (DuckDB streams them within 16 MB) are more than a 16 MB answer:
    refused, not read; the first thousand are fine."""
    query = "SELECT i FROM range(3000000) t(i)"
    with pytest.raises(sql.SqlError, match="memory") as refused:
        sql.run_sql(store_dir, query, limit=None, memory_limit="16MB", timeout=600)
    assert refused.value.limit == "memory"
    assert len(sql.run_sql(store_dir, query, memory_limit="16MB", timeout=600).rows) == 1000


@pytest.mark.slow
def test_sql_command_stops_the_chain_with_one_line(store_dir):
    result = CliRunner().invoke(sql_command, [f"SELECT length({nested_replace(9)})",
                                              "--timeout", "600", "--memory-limit", "16MB",
                                              "--store", str(store_dir)])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: query refused or failed: needs more "
                                                   "than 16 MB of memory: ")


# ----- no way to the store's absolute path --------------------------------------------------------


def _forms(root: str) -> list:
    """The store's folder as a query could turn it out: as is, reversed, in hex, in base64 (of
    its three alignments), upper-cased."""
    raw = root.encode()
    return [root, root[::-1], raw.hex(), root.upper()] + [
        base64.b64encode(raw[i:]).decode()[4:-4] for i in range(3)]


def _shown(store_dir, text: str) -> str:
    try:
        return repr(sql.run_sql(store_dir, text).rows)
    except sql.SqlError as error:
        return str(error)


@pytest.mark.parametrize("source", [
    "SELECT file_name AS v FROM parquet_metadata('{file}')",
    "SELECT file_name AS v FROM parquet_schema('{file}')",
    "SELECT file_name AS v FROM parquet_file_metadata('{file}')",
    "SELECT file_name AS v FROM parquet_kv_metadata('{file}')",
    "SELECT filename AS v FROM read_parquet('{file}', filename = true)",
    "SELECT filename AS v FROM read_text('{file}')",
    "SELECT filename AS v FROM read_blob('{file}')",
    "SELECT file AS v FROM glob('{root}/**')",
    "SELECT filename AS v FROM '{file}'",
    "SELECT sql AS v FROM duckdb_views()",
    "SELECT sql AS v FROM sqlite_master",
    "SELECT view_definition AS v FROM information_schema.views",
    "SELECT definition AS v FROM pg_catalog.pg_views",
    "SELECT sql AS v FROM duckdb_tables()",
    "SELECT path AS v FROM duckdb_databases()",
    "SELECT value AS v FROM duckdb_settings()",
    "SELECT current_setting('allowed_paths')::VARCHAR AS v",
    "SELECT file AS v FROM pragma_database_list",
])
@pytest.mark.parametrize("shape", ["v", "reverse(v)", "hex(v)", "to_base64(encode(v))",
                                   "substr(v, 2)", "upper(v)"])
def test_no_query_shows_the_store_folder(store_dir, source, shape):
    """Before, ``SELECT reverse(file_name) FROM parquet_metadata(…)`` printed the store's
    folder reversed; the functions that read files by name are refused, and the views read
    ``STORE/…`` (a link in the child's folder), so nothing holds the absolute path."""
    root = str(Store(store_dir).root)
    batch = Store(store_dir).manifest()["batches"][0]
    for file in (f"{root}/batches/{batch}/games.parquet", f"STORE/batches/{batch}/games.parquet"):
        text = f"SELECT {shape} FROM ({source.format(file=file, root=root)}) LIMIT 20"
        shown = _shown(store_dir, text)
        assert not any(form.lower() in shown.lower() for form in _forms(root)), (text, shown)


def test_reading_files_by_name_is_refused(store_dir):
    root = str(Store(store_dir).root)
    with pytest.raises(sql.SqlError, match=r"parquet_metadata\('STORE/batches/b000001/games"
                                           r"\.parquet'\) is refused: it reads files by name"):
        sql.run_sql(store_dir, "SELECT reverse(file_name) FROM parquet_metadata("
                               f"'{root}/batches/b000001/games.parquet')")
    with pytest.raises(sql.SqlError, match="is refused: it reads files by name"):
        sql.run_sql(store_dir, f"SELECT * FROM '{root}/batches/b000001/games.parquet'")
    # the views still show what they read, relative to STORE
    definitions = sql.run_sql(store_dir, "SELECT sql FROM duckdb_views() WHERE NOT internal "
                                         "AND view_name = 'games_all'").rows
    assert "'STORE/batches/b000001/games.parquet'" in definitions[0][0]
