"""The guarded door for analysts' SQL: one read-only statement, on a database that may read
only the store's own Parquet files, within a time and a memory limit.

``run_sql`` uses a database per store (and memory limit) that may read only the store's Parquet
files (``allowed_paths`` plus ``enable_external_access=false``, configuration locked) and
accepts one read-only statement::

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
  ``pragma_table_info``, ``pg_settings`` …: their values hold absolute paths — the allowed
  Parquet files, the secret and extension folders — and the machine's memory), those that run
  SQL given as text (``query``, ``query_table``: the check could not see into it), and those
  that build one value whose size an argument sets (``repeat``, ``lpad``, ``rpad``,
  ``list_resize``, ``bitstring``, ``range``/``generate_series`` as values — as tables they are
  fine —, ``printf``/``format`` unless their format is a constant with small widths). DuckDB
  builds such a value outside its memory accounting and cannot interrupt it:
  ``repeat('x', 1500000000)`` takes 3 GB and 7 s whatever ``memory_limit`` says.
- **Files**: the database may open no file but the store's own Parquet files
  (``enable_external_access=false`` also stops extension installs and loads, and reads of
  ``~/.duckdb``), and it writes none: ``temp_directory`` is empty, so nothing spills to disk
  (an operator that would spill fails with the memory limit instead).
- **Memory** (``memory_limit``, default ``DEFAULT_MEMORY_LIMIT`` = 1 GB): DuckDB's limit for its
  buffers — hash tables, sorts, aggregates, materialized results. It is set before the
  configuration is locked, so each limit has its own database per store, and it is shared by
  the queries that run at the same time on that database; a query that needs more fails with
  "needs more than 1 GB of memory". Values computed row by row (a long concatenation, say) are
  not counted; the refused functions above are the cheap ways to make them huge.
- **Time** (``timeout``, default ``DEFAULT_TIMEOUT`` = 30 s, per query, including fetching the
  rows): a ``threading.Timer`` interrupts the query's connection; it stops at DuckDB's next
  check, within milliseconds for scans, joins and sorts.
- **What is shown**: the store's folder in error messages and in string results (the views'
  SQL in ``duckdb_views()``, ``sqlite_master``, ``information_schema.views``) reads ``STORE``.

The defaults suit an interactive tool; ``kifudb sql --timeout SECONDS --memory-limit SIZE``
raises them (``None`` here means no limit).
"""

from __future__ import annotations

import functools
import json
import os
import re
import threading
from typing import NamedTuple, Optional

import duckdb

from kifudb.store.engine import LOCK, Handle, as_store, remember
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

_SQL_DATABASES: dict = {}  # (store root, memory limit) -> Handle, most recently built last


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
_FORMATTERS = frozenset({"printf", "format"})
_WIDE_SPEC = re.compile(r"\d{4,}|\*|\{[^{}]*\{")  # a width of 1000 or more, or one from an argument
_SPECS = re.compile(r"%[^a-zA-Z%]*[a-zA-Z%]|\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}")


_SHOWS = "it shows the database's settings or the machine"
_RUNS_TEXT = "it runs SQL given as text, which cannot be checked"


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


# ----- the database and the query --------------------------------------------------------------


def _sql_database(store: Store, memory: Optional[int] = None) -> duckdb.DuckDBPyConnection:
    """The analysts' database of a store: its views, readable files limited to the store's
    Parquet files, no temporary files, ``memory`` bytes at most (None: DuckDB's default),
    configuration locked."""
    stamp = store.stamp()
    key = (store.root, memory)
    with LOCK:
        handle = _SQL_DATABASES.get(key)
        if handle is not None and handle.stamp == stamp:
            return handle.database
        manifest = store.manifest()
        database = duckdb.connect(config={"autoinstall_known_extensions": False,
                                          "autoload_known_extensions": False})
        if memory is not None:
            database.execute(f"SET memory_limit = '{int(memory)}B'")
        database.execute("SET temp_directory = ''")  # nothing spills to disk
        for statement in store.view_statements(manifest):
            database.execute(statement)
        files = [f for table in TABLES for f in store.table_files(table, manifest)]
        database.execute("SET allowed_paths = $1", [files])
        database.execute("SET enable_external_access = false")
        database.execute("SET lock_configuration = true")
        remember(_SQL_DATABASES, key, Handle(stamp, None, database, set(), {}, {}))
        return database


def _hide(value, root: str):
    """``value`` with the store's folder (``root``, ending in a slash) written ``STORE/``
    (strings, and inside lists, dicts)."""
    if isinstance(value, str):
        return value.replace(root, "STORE/") if root in value else value
    if isinstance(value, (list, tuple)):
        return type(value)(_hide(v, root) for v in value)
    if isinstance(value, dict):
        return {_hide(k, root): _hide(v, root) for k, v in value.items()}
    return value


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
    query = check_sql(text)
    if limit is not None:
        limit = _count(limit, "limit", minimum=0)
    if timeout is not None:
        timeout = _seconds(timeout)
    memory = None if memory_limit is None else memory_size(memory_limit)
    store = as_store(store)
    root = os.path.join(str(store.root), "")
    for attempt in (0, 1):
        stamp = store.stamp()
        stopped = threading.Event()
        try:
            with _sql_database(store, memory).cursor() as cursor:
                def stop():
                    stopped.set()
                    cursor.interrupt()
                timer = threading.Timer(timeout, stop) if timeout is not None else None
                if timer is not None:
                    timer.start()
                try:
                    cursor.execute(query)
                    columns = [d[0] for d in cursor.description or ()]
                    rows = cursor.fetchall() if limit is None else cursor.fetchmany(limit + 1)
                finally:
                    if timer is not None:
                        timer.cancel()
                        timer.join()  # its thread lets go of the cursor before the cursor closes
            break
        except duckdb.Error as error:
            if stopped.is_set():
                raise SqlError(f"stopped after {timeout:g} s: the time limit; raise it with "
                               f"--timeout", limit="time") from None
            if isinstance(error, duckdb.OutOfMemoryException) and memory is not None:
                first = str(error).splitlines()[0] if str(error) else "out of memory"
                raise SqlError(f"needs more than {_size_text(memory)} of memory: "
                               f"{_hide(first, root)}; raise the limit with --memory-limit",
                               limit="memory") from None
            if attempt == 0 and store.stamp() != stamp:
                continue  # the store changed under the query (a compaction): once more
            damage = damage_message(error, store.root)
            if damage is not None:  # not the query's fault: the store's
                raise StoreDamaged(_hide(damage, root)) from None
            raise SqlError(_hide(str(error), root)) from None
    truncated = limit is not None and len(rows) > limit
    rows = rows[:limit] if truncated else rows
    return SqlResult(_hide(columns, root), [_hide(r, root) for r in rows], truncated)


def _count(value, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer of at least {minimum}, not {value!r}")
    return value
