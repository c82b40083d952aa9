"""The guarded door for analysts' SQL: one read-only statement, run in a child process that may
read only the store's own Parquet files, within a time and a memory limit the operating system
enforces.

``run_sql`` checks the statement here, then runs it in a process of ``store.sql_child`` (kept
for the next query unless a limit stopped it)::

    >>> import tempfile
    >>> run_sql(tempfile.mkdtemp(), "SELECT count(*) AS games FROM games").rows
    [(0,)]

The guards, in the order a query meets them:

- **One read-only statement** (``check_sql``): DuckDB's own parser says what the statement is;
  anything but a query (COPY, ATTACH, INSTALL, LOAD, PRAGMA, SET, CREATE, EXPLAIN, CALL …) is
  refused.
- **What it may call** (``check_sql`` on the parsed statement, ``json_serialize_sql``): refused
  are the functions and system views that show the database's settings or the machine
  (``current_setting``, ``duckdb_settings()``, ``duckdb_extensions()``, ``duckdb_secrets()``,
  ``which_secret``, ``duckdb_databases()``, ``duckdb_memory()``, ``pragma_*`` but
  ``pragma_table_info``, ``pg_settings`` …: their values hold absolute paths and the machine's
  memory), those that read files by name (``read_*``, ``parquet_*`` — ``parquet_metadata``'s
  ``file_name`` —, ``glob``, ``sniff_csv``, ``FROM 'file.parquet'``: the store is read through
  its views), those that run SQL given as text (``query``, ``query_table``: the check could
  not see into it), and those that build one value whose size an argument sets (``repeat``,
  ``lpad``, ``rpad``, ``list_resize``, ``bitstring``, ``range``/``generate_series`` as values
  — as tables they are fine —, ``printf``/``format`` unless their format is a constant with
  small widths): the memory limit would stop them, but these say why at once.
- **Where it runs**: a child process (``store.sql_child``) whose working folder holds
  ``STORE``, a link to the store: the views read ``STORE/batches/…``, so no answer, file name
  or view definition (``duckdb_views()``, ``sqlite_master``, ``information_schema.views``)
  holds the store's absolute path, whatever a query does with it (``reverse``, ``hex`` …).
- **Files**: the database may open no file but the store's own Parquet files
  (``allowed_paths`` plus ``enable_external_access=false``, configuration locked; no extension
  installs or loads), and it writes none: ``temp_directory`` is empty, so nothing spills to
  disk (an operator that would spill fails with the memory limit instead).
- **Memory** (``memory_limit``, default ``DEFAULT_MEMORY_LIMIT`` = 1 GB): DuckDB's limit for its
  buffers, and the child's address space (``RLIMIT_AS``) capped at that plus
  ``sql_child.address_space``'s margin for DuckDB itself, so that what DuckDB does not count —
  a value built row by row, nine nested ``replace('x', 'x', 'xxxxxxxxxx')`` — fails too: "needs
  more than 16 MB of memory". The answer (pickled rows) may be no larger than the limit.
- **Time** (``timeout``, default ``DEFAULT_TIMEOUT`` = 30 s, per query, including fetching the
  rows): the child is killed at the deadline (and kills itself ``sql_child.GRACE`` seconds
  later should this process be gone), whatever DuckDB is doing.
- **What is shown**: a path the query named whole is written ``STORE/`` in error messages and
  results.

A query costs a few milliseconds more than in this process (the rows cross a pipe); the first
of a process starts its child (about a second: Python and DuckDB load). The defaults suit an
interactive tool; ``kifudb sql --timeout SECONDS --memory-limit SIZE`` raises them (``None``
here means no limit).
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from typing import NamedTuple, Optional

import duckdb

from kifudb.store import sql_child
from kifudb.store.engine import as_store
from kifudb.store.folder import Store, StoreDamaged, damage_message
from kifudb.store.schema import TABLES

__all__ = ["run_sql", "check_sql", "SqlError", "SqlResult", "memory_size", "DEFAULT_TIMEOUT",
           "DEFAULT_MEMORY_LIMIT"]

#: seconds a query may run (``run_sql(timeout=…)``, ``kifudb sql --timeout``)
DEFAULT_TIMEOUT = 30.0
#: memory DuckDB may use for a store's queries (``run_sql(memory_limit=…)``,
#: ``kifudb sql --memory-limit``); decimal units as DuckDB reads them (1 GB = 10⁹ bytes)
DEFAULT_MEMORY_LIMIT = "1GB"
_MIN_MEMORY = 16 * 10 ** 6  # below this DuckDB cannot open the views


class SqlError(ValueError):
    """A query ``run_sql`` refuses or DuckDB cannot run, with the reason. ``limit`` is "time" or
    "memory" when a limit stopped it (None otherwise)."""

    def __init__(self, message: str, limit: Optional[str] = None):
        super().__init__(message)
        self.limit = limit


class SqlResult(NamedTuple):
    """What ``run_sql`` returns: column names, rows (tuples), and whether rows were cut off."""

    columns: list
    rows: list
    truncated: bool


_READ_ONLY = "only a single read-only query is allowed (SELECT, WITH, FROM, VALUES, DESCRIBE, " \
             "SHOW, SUMMARIZE)"

# ----- what a query may call -------------------------------------------------------------------

#: the catalog functions a query may use (the other ``duckdb_*`` show settings, files, memory)
_CATALOG = frozenset({"duckdb_tables", "duckdb_views", "duckdb_columns", "duckdb_schemas",
                      "duckdb_types", "duckdb_functions", "duckdb_keywords", "duckdb_constraints",
                      "duckdb_indexes", "duckdb_sequences", "duckdb_dependencies",
                      "pragma_table_info"})
#: functions that show the settings or the machine (with every ``duckdb_*``/``pragma_*`` not in
#: ``_CATALOG``, and the system views and macros built on them)
_SETTINGS = frozenset({"current_setting", "getenv", "which_secret", "user_agent",
                       "get_block_size"})
#: functions that run SQL given as a string, which the check cannot see into
_TEXT_SQL = frozenset({"query", "query_table", "json_execute_serialized_sql"})
#: functions whose one result has the size an argument gives, built outside DuckDB's memory
#: accounting and not interruptible (``range`` and ``generate_series`` only as values)
_UNBOUNDED = frozenset({"repeat", "lpad", "rpad", "list_resize", "array_resize", "bitstring"})
_LIST_MAKERS = frozenset({"range", "generate_series"})
#: the functions that read, list or describe files by name (``parquet_metadata``'s
#: ``file_name``, ``read_parquet``'s ``filename``, ``glob``'s ``file`` …): the store is read
#: through its views
_FILE_READERS = ("read_", "parquet_", "sniff_csv", "glob", "seq_scan", "arrow_scan",
                 "pandas_scan", "python_", "iceberg_", "delta_")
_FORMATTERS = frozenset({"printf", "format"})
_WIDE_SPEC = re.compile(r"\d{4,}|\*|\{[^{}]*\{")  # a width of 1000 or more, or one from an argument
_SPECS = re.compile(r"%[^a-zA-Z%]*[a-zA-Z%]|\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}")


_SHOWS = "it shows the database's settings or the machine"
_RUNS_TEXT = "it runs SQL given as text, which cannot be checked"
_READS_FILES = ("it reads files by name, which is disabled by configuration here (it would "
                "show where they are): the store is read through its views (games, positions, "
                "moves, sources, findings, files …)")


def _hidden(kind: str, name: str) -> Optional[str]:
    """Why a function or system view that shows the settings or runs SQL text is refused."""
    return _named(name) or _system_hidden().get((kind, name))


def _named(name: str) -> Optional[str]:
    if name in _TEXT_SQL:
        return _RUNS_TEXT
    if name in _SETTINGS or (name.startswith(("duckdb_", "pragma_")) and name not in _CATALOG):
        return _SHOWS
    return None


@functools.lru_cache(maxsize=1)
def _system_hidden() -> dict:
    """The system's views and macros that read a refused function (``pg_settings`` reads
    ``duckdb_settings()``, ``histogram_values`` reads ``query_table``), to a fixed point:
    (kind, name) -> why, kind as ``_references`` says it."""
    with duckdb.connect() as connection:
        bodies = connection.execute(
            "SELECT 'table', view_name, sql FROM duckdb_views() WHERE internal UNION ALL "
            "SELECT CASE function_type WHEN 'macro' THEN 'function' ELSE 'table function' END, "
            "function_name, macro_definition FROM duckdb_functions() "
            "WHERE function_type IN ('macro', 'table_macro') AND macro_definition IS NOT NULL"
        ).fetchall()
    words = {(kind, name.lower()): set(re.findall(r"[a-z_][a-z0-9_]*", body.lower()))
             for kind, name, body in bodies}
    hidden: dict = {}
    while True:
        grown = {}
        for key, used in words.items():
            if key in hidden:
                continue
            reasons = {_named(w) if w != key[1] else None for w in used}
            # a table macro's name may also be an aggregate's (histogram): followed only into
            # what reads tables
            reasons |= {why for (kind, name), why in hidden.items() if name in used and (
                kind != "table function" or key[0] != "function")}
            reasons.discard(None)
            if reasons:
                grown[key] = _RUNS_TEXT if _RUNS_TEXT in reasons else _SHOWS
        if not grown:
            return hidden
        hidden.update(grown)


def _references(node, table_function: bool = False):
    """(kind, name, node) of every function and table a parsed statement names: kind is
    "function", "table function" or "table"."""
    if isinstance(node, list):
        for item in node:
            yield from _references(item)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("type")
    if kind == "TABLE_FUNCTION":
        for key, value in node.items():
            yield from _references(value, table_function=key == "function")
        return
    if isinstance(node.get("function_name"), str):
        yield ("table function" if table_function else "function",
               node["function_name"].lower(), node)
    elif kind in ("BASE_TABLE", "SHOW_REF") and node.get("table_name"):
        yield "table", node["table_name"].strip('"').lower(), node
    for value in node.values():
        yield from _references(value)


def _constant_text(node) -> Optional[str]:
    """The first argument of a parsed function call when it is a string constant."""
    arguments = node.get("arguments") or node.get("children") or []
    if not arguments:
        return None
    first = arguments[0]
    first = first.get("expression", first) if isinstance(first, dict) else None
    if not isinstance(first, dict) or first.get("class") != "CONSTANT":
        return None
    value = first.get("value") or first.get("literal") or {}
    text = value.get("text", value.get("value"))
    return text if isinstance(text, str) else None


def _refusal(kind: str, name: str, node: dict) -> Optional[str]:
    """Why a query may not call this, or None."""
    hidden = _hidden(kind, name)
    if hidden:
        return hidden
    if name.startswith(_FILE_READERS) or (kind == "table" and any(c in name for c in "/.\\")):
        return _READS_FILES  # a table named by a file's name (FROM 'x.parquet') too
    if name in _UNBOUNDED or (kind == "function" and name in _LIST_MAKERS):
        return ("it builds a value of any size an argument asks for, which no memory limit "
                "can stop" + (" (as a table, FROM range(n), it is fine)"
                               if name in _LIST_MAKERS else ""))
    if name in _FORMATTERS:
        spec = _constant_text(node)
        if spec is None or any(_WIDE_SPEC.search(s) for s in _SPECS.findall(spec)):
            return ("it takes a constant format with widths below 1000 here (a wider one "
                    "builds a value no memory limit can stop)")
    return None


@functools.lru_cache(maxsize=1)
def _parser() -> duckdb.DuckDBPyConnection:
    return duckdb.connect(config={"enable_external_access": False,
                                  "autoinstall_known_extensions": False,
                                  "autoload_known_extensions": False})


def _parse_tree(query: str) -> dict:
    try:
        with _parser().cursor() as cursor:
            tree = json.loads(cursor.execute("SELECT json_serialize_sql($1)",
                                             [query]).fetchone()[0])
    except duckdb.Error as error:  # a DuckDB without its json extension, say
        raise SqlError(f"cannot check the query: {error}") from None
    if tree.get("error"):
        raise SqlError(f"cannot check the query: {tree.get('error_message')}: {_READ_ONLY}")
    return tree


def check_sql(text: str) -> str:
    """The one read-only statement of ``text``, or ``SqlError`` saying why it is refused.
    DuckDB's own parser decides what the statement is and which functions it calls.

    >>> check_sql("SELECT 1;")
    'SELECT 1;'
    >>> check_sql("DROP VIEW games")
    Traceback (most recent call last):
    ...
    kifudb.store.sql.SqlError: DROP statements are not allowed: only a single read-only query is allowed (SELECT, WITH, FROM, VALUES, DESCRIBE, SHOW, SUMMARIZE)
    >>> check_sql("SELECT current_setting('temp_directory')")
    Traceback (most recent call last):
    ...
    kifudb.store.sql.SqlError: current_setting is refused: it shows the database's settings or the machine
    """
    if not isinstance(text, str) or not text.strip():
        raise SqlError(f"empty query: {_READ_ONLY}")
    try:
        statements = duckdb.extract_statements(text)
    except duckdb.Error as error:
        raise SqlError(f"cannot parse the query: {error}") from None
    if len(statements) != 1:
        raise SqlError(f"{len(statements)} statements given: {_READ_ONLY}")
    statement = statements[0]
    if statement.type != duckdb.StatementType.SELECT:
        raise SqlError(f"{statement.type.name} statements are not allowed: {_READ_ONLY}")
    query = statement.query.strip()
    for kind, name, node in _references(_parse_tree(query)):
        reason = _refusal(kind, name, node)
        if reason == _READS_FILES and kind != "table" and _constant_text(node) is not None:
            name = f"{name}('{_constant_text(node)}')"  # which file (run_sql masks the store)
        if reason:
            raise SqlError(f"{name} is refused: {reason}")
    return query


# ----- the limits ------------------------------------------------------------------------------

_UNITS = {"": 1, "b": 1, "kb": 10 ** 3, "mb": 10 ** 6, "gb": 10 ** 9, "tb": 10 ** 12,
          "kib": 2 ** 10, "mib": 2 ** 20, "gib": 2 ** 30, "tib": 2 ** 40}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b|b)?\s*", re.IGNORECASE)


def memory_size(value) -> int:
    """Bytes from a size: an int (bytes) or text such as "1GB", "512 MB", "2GiB" (DuckDB's
    units: KB/MB/GB decimal, KiB/MiB/GiB binary).

    >>> memory_size("1GB"), memory_size("512 MiB"), memory_size(2 * 10 ** 9)
    (1000000000, 536870912, 2000000000)
    """
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"not a memory size: {value!r} (expected e.g. 1GB or 512MB)")
    if isinstance(value, str):
        match = _SIZE.fullmatch(value)
        if not match:
            raise ValueError(f"not a memory size: {value!r} (expected e.g. 1GB or 512MB)")
        value = int(float(match[1]) * _UNITS[(match[2] or "").lower()])
    if value < _MIN_MEMORY:
        raise ValueError(f"a memory limit of at least 16 MB is needed, not {value} bytes")
    return value


def _size_text(size: int) -> str:
    for unit, factor in (("TB", 10 ** 12), ("GB", 10 ** 9), ("MB", 10 ** 6)):
        if size >= factor:
            return f"{size / factor:.3g} {unit}"
    return f"{size} bytes"


def _seconds(value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"timeout must be a number of seconds above 0, not {value!r}")
    return float(value)


# ----- the query, in a child process ------------------------------------------------------------

#: the name of the store's folder as the child's DuckDB sees it (a link in its working folder)
_LINK = "STORE"


class _Child:
    """A process of ``store.sql_child`` with its private working folder (where ``STORE`` links
    to the store being asked) and its address-space limit for ``memory``."""

    def __init__(self, memory: Optional[int]):
        self.memory = memory
        self.folder = tempfile.mkdtemp(prefix="kifudb-sql-")
        address = "" if memory is None else str(sql_child.address_space(memory))
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from kifudb.store.sql_child import main; main()", address],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            cwd=self.folder, env={**os.environ, **sql_child.ENVIRONMENT})
        self.killed = threading.Event()

    def kill(self) -> None:
        self.killed.set()
        self.process.kill()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            stream.close()
        shutil.rmtree(self.folder, ignore_errors=True)  # the link, not the store

    def ask(self, root: str, request: dict, timeout: Optional[float]) -> tuple:
        """The child's answer to ``request`` on the store at ``root``: ``("rows", columns,
        rows)``, ``("memory", why)``, ``("error", message)``, ``("time",)`` (killed at the
        deadline) or ``("large",)`` (an answer larger than the memory limit, not read)."""
        link = os.path.join(self.folder, _LINK)
        if os.path.islink(link):
            os.remove(link)
        os.symlink(root, link)
        timer = threading.Timer(_START, self.kill)  # the start and the views
        timer.start()
        try:
            sql_child.write_frame(self.process.stdin, pickle.dumps(request))
            frame = sql_child.read_frame(self.process.stdout)
            if frame == b"":  # the query starts: its deadline runs from here
                timer.cancel()
                timer.join()
                if timeout is not None:
                    timer = threading.Timer(timeout, self.kill)
                    timer.start()
                frame = sql_child.read_frame(self.process.stdout, self.memory)
        except OverflowError:
            return ("large",)
        except (BrokenPipeError, OSError):
            frame = None
        finally:
            timer.cancel()
            timer.join()
        if frame is not None:
            return pickle.loads(frame)
        if self.killed.is_set():
            return ("time",)
        code = self.process.wait()
        how = f"signal {-code}" if code < 0 else f"exit status {code}"
        if self.memory is not None:
            return ("memory", f"the query's process stopped ({how}) at its address-space limit")
        return ("error", f"the query's process stopped ({how})")


#: seconds a query's process may take to start and make the views (the query's own deadline
#: runs after)
_START = 120
#: processes kept for the next queries, per memory limit and store
_IDLE: dict = {}
_KEEP = 2
_CHILDREN_LOCK = threading.Lock()


def _ask_child(root: str, request: dict, timeout: Optional[float],
               memory: Optional[int]) -> tuple:
    """``_Child.ask`` on an idle process for ``memory`` (or a new one); a process that was
    killed, ran out of memory or died is not used again."""
    with _CHILDREN_LOCK:
        idle = _IDLE.get((memory, root), [])
        child = None
        while idle and child is None:
            child = idle.pop()
            if child.process.poll() is not None:
                child.close()
                child = None
    child = child or _Child(memory)
    answer = ("error", "the query was not run")
    try:
        answer = child.ask(root, request, timeout)
    finally:
        with _CHILDREN_LOCK:
            kept = _IDLE.setdefault((memory, root), [])
            if answer[0] in ("rows", "error") and child.process.poll() is None \
                    and len(kept) < _KEEP:
                kept.append(child)
                child = None
        if child is not None:
            child.close()
    return answer


@atexit.register
def _close_children() -> None:
    with _CHILDREN_LOCK:
        for children in _IDLE.values():
            for child in children:
                child.close()
        _IDLE.clear()


def _hide(value, root: str):
    """``value`` with the store's folder (``root``, ending in a slash) written ``STORE/``
    (strings, and inside lists, dicts): a path a query was given whole."""
    if isinstance(value, str):
        return value.replace(root, "STORE/") if root in value else value
    if isinstance(value, (list, tuple)):
        return type(value)(_hide(v, root) for v in value)
    if isinstance(value, dict):
        return {_hide(k, root): _hide(v, root) for k, v in value.items()}
    return value


def _request(store: Store, root: str, query: str, limit, timeout, memory) -> dict:
    """What the child needs: the views and files of the latest commit, with the store's folder
    written ``STORE/`` (the link in the child's folder)."""
    manifest = store.manifest()
    quoted = root.replace("'", "''")  # as ``folder.sql_string`` writes it in the views
    statements = [s.replace(quoted, f"{_LINK}/") for s in store.view_statements(manifest)]
    files = [f"{_LINK}/{f[len(root):]}" for table in TABLES
             for f in store.table_files(table, manifest)]
    return {"key": (root, store.stamp(), manifest.get("batches")), "statements": statements,
            "files": files, "memory": memory, "query": query, "limit": limit,
            "timeout": timeout}


def run_sql(store, text: str, limit: Optional[int] = 1000,
            timeout: Optional[float] = DEFAULT_TIMEOUT,
            memory_limit=DEFAULT_MEMORY_LIMIT) -> SqlResult:
    """Run one read-only query on ``store``'s views, within ``timeout`` seconds and
    ``memory_limit`` (bytes, or text such as "1GB"; None for no limit) — the guards are in the
    module's description. At most ``limit`` rows are returned (None: all); ``SqlError`` for a
    refused or failing query, with ``limit`` set to "time" or "memory" when a limit stopped it.

    >>> import tempfile
    >>> run_sql(tempfile.mkdtemp(), "SELECT count(*) FROM range(1000000000000)", timeout=0.2)
    Traceback (most recent call last):
    ...
    kifudb.store.sql.SqlError: stopped after 0.2 s: the time limit; raise it with --timeout
    """
    store = as_store(store)
    root = os.path.join(str(store.root), "")
    try:
        query = check_sql(text)
    except SqlError as error:  # a path named in the query, written STORE/
        raise SqlError(_hide(str(error), root)) from None
    if limit is not None:
        limit = _count(limit, "limit", minimum=0)
    if timeout is not None:
        timeout = _seconds(timeout)
    memory = None if memory_limit is None else memory_size(memory_limit)
    for attempt in (0, 1):
        stamp = store.stamp()
        answer = _ask_child(root, _request(store, root, query, limit, timeout, memory),
                            timeout, memory)
        kind = answer[0]
        if kind == "rows":
            break
        if kind == "time":
            raise SqlError(f"stopped after {timeout:g} s: the time limit; raise it with "
                           f"--timeout", limit="time")
        if kind == "large":
            raise SqlError(f"the answer is larger than the memory limit ({_size_text(memory)}): "
                           f"ask for fewer rows (--limit) or columns, or raise --memory-limit",
                           limit="memory")
        if kind == "memory" and memory is not None:
            raise SqlError(f"needs more than {_size_text(memory)} of memory: "
                           f"{_hide(answer[1], root)}; raise the limit with --memory-limit",
                           limit="memory")
        message = answer[1]
        if attempt == 0 and store.stamp() != stamp:
            continue  # the store changed under the query (a compaction): once more
        damage = damage_message(Exception(message), store.root)
        if damage is not None:  # not the query's fault: the store's
            raise StoreDamaged(_hide(damage, root))
        raise SqlError(_hide(message, root))
    _, columns, rows = answer
    truncated = limit is not None and len(rows) > limit
    rows = rows[:limit] if truncated else rows
    return SqlResult(_hide(columns, root), [_hide(r, root) for r in rows], truncated)


def _count(value, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer of at least {minimum}, not {value!r}")
    return value
