"""What to tell a user of an error raised while reading a store: the one wording of a damaged
store for every door (the command line, the dashboard, the HTTP API to come).

A ``StoreError`` says it itself; a DuckDB or Arrow error (also wrapped by SQLAlchemy) that names
one of the store's batch files is worded by ``store.folder.damage_message``; one that names no
file (a corrupt page inside a Parquet file) has the store's files checked (``store.check``) to
name the damaged batch and file. Anything else is not the store's: None.

    >>> import tempfile
    >>> diagnose(ValueError("a bug"), tempfile.mkdtemp()) is None
    True
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

from kifudb.store.manifest import StoreError

#: the libraries whose errors may come from the store's files
LIBRARIES = ("duckdb", "_duckdb", "duckdb_engine", "sqlalchemy", "pyarrow")


def causes(error: BaseException) -> list:
    """``error`` and what it wraps (SQLAlchemy's ``orig``, ``__cause__``, ``__context__``)."""
    chain, seen = [], set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        chain.append(error)
        error = getattr(error, "orig", None) or error.__cause__ or error.__context__
    return chain


def first_damage(root) -> Optional[str]:
    """The first damaged file of the store at ``root`` (``store.check.check_store`` reads every
    file whole), as a message; None if the store is sound."""
    from kifudb.store.check import check_store

    report = check_store(root)
    if report.manifest_problem is not None and (Path(root) / "manifest.json").exists():
        return report.manifest_problem
    if not report.damaged:
        return None
    first, more = report.damaged[0], len(report.damaged) - 1
    return (f"store damaged: batch {first.batch}, file {first.file}: {first.reason}"
            + (f" (and {more} more damaged file{'s' if more > 1 else ''})" if more else "")
            + f". Run `kifudb check --repair --store {Path(root).resolve()}` to drop the "
              f"damaged batches and read their record files again.")


def diagnose(error: BaseException, root, check: Optional[bool] = None,
             checker: Callable = first_damage) -> Optional[str]:
    """The message for ``error`` raised reading the store at ``root`` (None: the store its
    message names), or None if it is not the store's. ``check``: look at the store's files when the error names none (None: when it
    came from a store library); ``checker(root)`` does the looking (the dashboard caches it)."""
    from kifudb.store.folder import damage_message

    chain = causes(error)
    root = Path(root).resolve() if root is not None else None
    worded = next((c for c in chain if isinstance(c, StoreError)), None)
    if worded is not None and str(worded).startswith("store damaged"):
        return str(worded)
    for cause in reversed(chain):  # DuckDB's own error first: SQLAlchemy's adds its SQL
        named = damage_message(cause, root)
        if named is not None:
            return named
    if check is None:
        check = worded is not None or any(isinstance(c, OSError) and c.errno == 28 or
                                          type(c).__module__.split(".")[0] in LIBRARIES
                                          for c in chain)
    found = checker(root) if check and root is not None else None
    if found is not None:
        return found
    if worded is not None:  # not damage: a foreign store, a full disk, an unreadable manifest…
        return str(worded)
    full = next((c for c in chain if isinstance(c, OSError) and c.errno == 28), None)
    if full is not None:
        return f"the disk is full: {full.strerror} ({full.filename or root})"
    return None
