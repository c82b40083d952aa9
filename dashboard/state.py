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
import gc
import os
from pathlib import Path

import streamlit as st

from kifudb.store import DEFAULT_STORE
from kifudb.store.diagnose import LIBRARIES, causes, diagnose, first_damage
from kifudb.store.folder import Store, StoreError

#: Answers kept per function and stamp (a page asks a few dozen questions at most).
_ENTRIES = 512
#: Whether the server's long-lived objects are frozen out of the garbage collector yet.
_FROZEN = []


def freeze_once() -> None:
    """After the server's first run: its modules, the store's engine and the first answers
    (long-lived all) are moved out of the garbage collector's way (``gc.freeze``), so that a
    collection during a later run walks only what that run made."""
    if not _FROZEN:
        gc.collect()
        gc.freeze()
        _FROZEN.append(True)


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
    from kifudb.dashboard.display import plain

    st.error(plain(problem), icon=":material/block:")
    if problem.startswith("store damaged"):
        st.caption("To drop the damaged batches and read their record files again:")
        st.code(f"kifudb check --repair --store {store_root()}", language="bash")


def failure(error: BaseException) -> str | None:
    """What to tell the user of an error raised while a page read the store, or None if it is
    not the store's (a bug, shown as such): ``store.diagnose``'s wording, the store's files
    checked at most once per commit when the error names none."""
    root = store_root()
    message = diagnose(error, root, checker=lambda _: _checked(str(root), stamp()))
    if message is not None:
        return message if "--repair" in message or not message.startswith("store damaged") \
            else f"{message} Run `kifudb check --repair --store {root}`."
    chain = causes(error)
    if not any(type(c).__module__.split(".")[0] in LIBRARIES for c in chain):
        return None
    first = (str(chain[-1]).strip().splitlines() or [type(chain[-1]).__name__])[0]
    return (f"The store at {root} could not answer: {first}. `kifudb check --store {root}` "
            f"verifies its files; a store written by another version of kifudb must be "
            f"ingested again into a new folder.")


def said(error: Exception) -> None:
    """Say a store's problem on the page (``failure``), or raise ``error`` again if it is not
    the store's (Streamlit's stop and rerun pass through too: they are not the store's)."""
    problem = failure(error)
    if problem is None:
        raise error
    show_problem(problem)


def fragment(function):
    """``st.fragment`` of ``function``, a part of a page that runs again alone, whose store's
    problems are said on the page as the app says them (Streamlit shows an exception raised in
    a fragment itself, past the app's handler)."""
    @functools.wraps(function)
    def guarded(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - said, or raised again
            said(error)

    return st.fragment(guarded)


@st.cache_data(show_spinner="Checking the store's files…", max_entries=8)
def _checked(root: str, stamp) -> str | None:
    """``store.diagnose.first_damage``, once per commit: it verifies every file's digest (and
    reads whole the files of batches written before digests)."""
    return first_damage(root)


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
