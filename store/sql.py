"""The guarded door for analysts' SQL: one read-only statement, on a database that may read
only the store's own Parquet files.

``run_sql`` uses a database per store that may read only the store's Parquet files
(``allowed_paths`` plus ``enable_external_access=false``, configuration locked) and accepts one
read-only statement::

    >>> import tempfile
    >>> run_sql(tempfile.mkdtemp(), "SELECT count(*) AS games FROM games").rows
    [(0,)]
"""

from __future__ import annotations

from typing import NamedTuple, Optional

import duckdb

from store.engine import LOCK, Handle, as_store, remember
from store.folder import Store
from store.schema import TABLES

__all__ = ["run_sql", "check_sql", "SqlError", "SqlResult"]

_SQL_DATABASES: dict = {}  # store root -> Handle, most recently built last



class SqlError(ValueError):
    """A query ``run_sql`` refuses or DuckDB cannot run, with the reason."""


class SqlResult(NamedTuple):
    """What ``run_sql`` returns: column names, rows (tuples), and whether rows were cut off."""

    columns: list
    rows: list
    truncated: bool


_READ_ONLY = "only a single read-only query is allowed (SELECT, WITH, FROM, VALUES, DESCRIBE, " \
             "SHOW, SUMMARIZE)"


def check_sql(text: str) -> str:
    """The one read-only statement of ``text``, or ``SqlError`` saying why it is refused.
    DuckDB's own parser decides what the statement is.

    >>> check_sql("SELECT 1;")
    'SELECT 1;'
    >>> check_sql("DROP VIEW games")
    Traceback (most recent call last):
    ...
    store.sql.SqlError: DROP statements are not allowed: only a single read-only query is allowed (SELECT, WITH, FROM, VALUES, DESCRIBE, SHOW, SUMMARIZE)
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
    return statement.query.strip()


def _sql_database(store: Store) -> duckdb.DuckDBPyConnection:
    """The analysts' database of a store: its views, readable files limited to the store's
    Parquet files, configuration locked."""
    stamp = store.stamp()
    with LOCK:
        handle = _SQL_DATABASES.get(store.root)
        if handle is not None and handle.stamp == stamp:
            return handle.database
        manifest = store.manifest()
        database = duckdb.connect(config={"autoinstall_known_extensions": False,
                                          "autoload_known_extensions": False})
        for statement in store.view_statements(manifest):
            database.execute(statement)
        files = [f for table in TABLES for f in store.table_files(table, manifest)]
        database.execute("SET allowed_paths = $1", [files])
        database.execute("SET enable_external_access = false")
        database.execute("SET lock_configuration = true")
        remember(_SQL_DATABASES, store.root, Handle(stamp, None, database, set()))
        return database


def run_sql(store, text: str, limit: Optional[int] = 1000) -> SqlResult:
    """Run one read-only query on ``store``'s views. Two guards: ``check_sql`` lets through
    only a single query (DuckDB's parser says which statement it is: no COPY, ATTACH, INSTALL,
    PRAGMA, SET, CREATE …), and the database it runs on may open no file but the store's own
    Parquet files, with its configuration locked. At most ``limit`` rows are returned (None:
    all); ``SqlError`` for a refused or failing query."""
    query = check_sql(text)
    if limit is not None:
        limit = _count(limit, "limit", minimum=0)
    store = as_store(store)
    for attempt in (0, 1):
        stamp = store.stamp()
        try:
            with _sql_database(store).cursor() as cursor:
                cursor.execute(query)
                columns = [d[0] for d in cursor.description or ()]
                rows = cursor.fetchall() if limit is None else cursor.fetchmany(limit + 1)
            break
        except duckdb.Error as error:
            if attempt == 0 and store.stamp() != stamp:
                continue  # the store changed under the query (a compaction): once more
            raise SqlError(str(error)) from None
    truncated = limit is not None and len(rows) > limit
    return SqlResult(columns, rows[:limit] if truncated else rows, truncated)



def _count(value, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer of at least {minimum}, not {value!r}")
    return value
