"""The store the dashboard reads, and answers cached until its next commit.

The store folder comes from ``KIFUDB_STORE`` (default ``store.DEFAULT_STORE``). Every
question goes through ``stored``: a function ``f(store, *args)`` of ``analytics`` becomes
``f(*args)`` whose answers are kept by ``st.cache_data`` under its arguments (plain values, and
the hashable ``analytics.filters.GameFilter`` of the sidebar) and the store's **manifest
stamp** (inode, size and mtime of ``manifest.json``), so every answer is computed once per
commit and an ingest is seen on the next click.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import streamlit as st

from store import DEFAULT_STORE
from store.folder import Store, StoreError, damage_message

#: Answers kept per function and stamp (a page asks a few dozen questions at most).
_ENTRIES = 512


def store_root() -> Path:
    """The store folder: ``$KIFUDB_STORE`` or the default ``data/store``."""
    return Path(os.environ.get("KIFUDB_STORE") or DEFAULT_STORE).resolve()


def store() -> Store:
    return Store(store_root())


def stamp():
    """What changes when the store commits (``Store.stamp``: None if it has no manifest yet)."""
    return store().stamp()


def store_problem() -> str | None:
    """Why the store cannot be read (missing, or written by another kifudb), else None."""
    current = store()
    if not current.manifest_path.exists():
        return (f"No store at `{current.root}`. Fill one with `kifudb ingest PATH... --store "
                f"{current.root}` (or `make demo`), or point `KIFUDB_STORE` at a store folder.")
    try:
        current.manifest()
    except (StoreError, ValueError) as error:  # StoreDamaged: a manifest of the wrong shape
        return str(error) if str(error).startswith("store damaged") else \
            f"The store at `{current.root}` cannot be read: {error}"
    return None


def require_store() -> Store:
    """The store, or an error on the page and nothing more (the page stops)."""
    problem = store_problem()
    if problem:
        show_problem(problem)
        st.stop()
    return store()


def show_problem(problem: str) -> None:
    """A store's problem on the page, as text (it may quote paths and the store's errors),
    with the command that checks and repairs a damaged store."""
    from dashboard.display import plain

    st.error(plain(problem), icon=":material/block:")
    if problem.startswith("store damaged"):
        st.caption("To drop the damaged batches and read their record files again:")
        st.code(f"kifudb check --repair --store {store_root()}", language="bash")


#: The libraries whose errors come from reading the store's files.
_STORE_LIBRARIES = ("duckdb", "_duckdb", "duckdb_engine", "sqlalchemy", "pyarrow")


def failure(error: BaseException) -> str | None:
    """What to tell the user of an error raised while a page read the store, or None if it is
    not the store's (a bug, shown as such). A damaged store is named as ``kifudb check``
    names it: the batch and file, and why; errors wrapped by SQLAlchemy are unwrapped, and
    one that names no file (a corrupt page inside a Parquet file) has the store's files
    checked to find it."""
    chain, seen = [], set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        chain.append(error)
        error = getattr(error, "orig", None) or error.__cause__ or error.__context__
    root = store_root()
    worded = next((c for c in chain if isinstance(c, StoreError)), None)
    if worded is not None and str(worded).startswith("store damaged"):
        return str(worded)
    for cause in reversed(chain):  # DuckDB's own error first: SQLAlchemy's adds its SQL
        named = damage_message(cause, root)
        if named is not None:
            return _repair_hint(named)
    if worded is None and not any(isinstance(c, OSError) or type(c).__module__.split(".")[0]
                                  in _STORE_LIBRARIES for c in chain):
        return None
    found = _checked(str(root), stamp())
    if found is not None:
        return found
    if worded is not None:  # not damage: a foreign store, an unreadable manifest…
        return str(worded)
    first = (str(chain[-1]).strip().splitlines() or [type(chain[-1]).__name__])[0]
    return (f"The store at {root} could not answer: {first}. `kifudb check --store {root}` "
            f"verifies its files; a store written by another version of kifudb must be "
            f"ingested again into a new folder.")


def _repair_hint(message: str) -> str:
    return message if "--repair" in message else \
        f"{message} Run `kifudb check --repair --store {store_root()}`."


@st.cache_data(show_spinner="Checking the store's files…", max_entries=8)
def _checked(root: str, stamp) -> str | None:
    """The first damaged file of the store (``store.check.check_store``, which reads every
    file whole: only after a read failed, once per commit), as a message; None if sound."""
    from store.check import check_store

    report = check_store(root)
    if report.manifest_problem is not None:
        return report.manifest_problem
    if not report.damaged:
        return None
    first = report.damaged[0]
    more = len(report.damaged) - 1
    return (f"store damaged: batch {first.batch}, file {first.file}: {first.reason}"
            + (f" (and {more} more damaged file{'s' if more > 1 else ''})" if more else "")
            + f". Run `kifudb check --repair --store {root}` to drop the damaged batches and "
              f"read their record files again.")


@st.cache_data(show_spinner=False, max_entries=_ENTRIES)
def _answer(name: str, root: str, stamp, args: tuple, kwargs: tuple, _function):
    """The cached call: ``name`` tells the functions apart, ``root`` and ``stamp`` the stores
    and their commits; ``_function`` (not hashed) is the function itself."""
    return _function(root, *args, **dict(kwargs))


def stored(function):
    """``function(store, *args, **kwargs)`` as ``function(*args, **kwargs)`` on the dashboard's
    store, cached until the store's next commit. Arguments must be plain values (text, numbers,
    tuples, dates) or a ``GameFilter``; exceptions are not cached."""
    name = f"{function.__module__}.{function.__qualname__}"

    @functools.wraps(function)
    def call(*args, **kwargs):
        return _answer(name, str(store_root()), stamp(), args, tuple(sorted(kwargs.items())),
                       function)
    return call
