"""What to tell a user of an error raised while reading a store: the one wording of a damaged
store for every door (the command line, the SQL door, the dashboard, the HTTP API).

A ``StoreError`` says it itself. A DuckDB or Arrow error (also wrapped by SQLAlchemy, or only
its text, as the SQL door's child process hands it back) is the store's when it names one of the
store's batch files, or when it is what a Parquet file whose bytes are not those written makes
DuckDB say without naming the file (``CORRUPT``: "Out of buffer", "TProtocolException: Invalid
data", "Parquet metadata is corrupt" …): the store's files are then checked against the digests
their batches were sealed with (``locate``, at most once a minute per commit) to name the
damaged one. Anything else is not the store's: None.

    >>> import tempfile
    >>> diagnose(ValueError("a bug"), tempfile.mkdtemp()) is None
    True
    >>> print(damaged_file("/s", "b000001", "games.parquet", "Out of buffer"))
    store damaged: batch b000001, file games.parquet: Out of buffer. Run `kifudb check --repair --store /s` to drop the damaged batches and read their record files again.
"""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path
from typing import Callable, Optional

from kifudb.store.manifest import StoreError

#: the libraries whose errors may come from the store's files
LIBRARIES = ("duckdb", "_duckdb", "duckdb_engine", "sqlalchemy", "pyarrow")

#: what DuckDB says, without naming the file, of a Parquet file whose bytes are not those written
#: (found flipping single bits in the store's files: its thrift decoder's errors, a page or
#: footer whose sizes, encodings or compressed bytes do not hold together)
CORRUPT = re.compile(
    "|".join((r"Out of buffer", r"TProtocolException", r"don't know what type",
              r"invalid TType", r"Variable-length int over", r"bit ?width", r"bitpacked",
              r"Payload value bigger than allowed", r"Corrupted file", r"likely corrupted",
              r"metadata is corrupt", r"Footer length error", r"No magic bytes",
              r"Could not read enough bytes", r"Prefetch registered for bytes outside",
              r"converted type", r"Decompression failure", r"decompression failed",
              r"dictionary page header", r"data page header", r"missing its metadata",
              r"Malformed Parquet", r"Invalid string encoding")), re.IGNORECASE)

#: seconds a ``locate`` answer is kept for the same commit
LOCATE_SECONDS = 60.0


def damaged_file(root, batch: str, name: str, reason: str, more: int = 0) -> str:
    """The one wording of a damaged batch file (``more``: other damaged files found)."""
    return (f"store damaged: batch {batch}, file {name}: {reason}"
            + (f" (and {more} more damaged file{'s' if more > 1 else ''})" if more else "")
            + f". Run `kifudb check --repair --store {root}` to drop the damaged batches and "
              f"read their record files again.")


def causes(error: BaseException) -> list:
    """``error`` and what it wraps (SQLAlchemy's ``orig``, ``__cause__``, and ``__context__``
    unless ``raise … from None`` put it aside)."""
    chain, seen = [], set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        chain.append(error)
        context = None if error.__suppress_context__ else error.__context__
        error = getattr(error, "orig", None) or error.__cause__ or context
    return chain


def damage_message(error: BaseException, root=None) -> Optional[str]:
    """The "store damaged" message of a DuckDB or Arrow error (or its text) that names one of
    the batch files of the store at ``root`` (None: whichever store the path in the error
    belongs to), or that is one of ``CORRUPT`` (the store at ``root`` is then checked:
    ``locate``); else None."""
    from kifudb.store.schema import TABLES

    text = str(error)
    if text.startswith("Permission Error"):  # a file a query may not read: not damage
        return None
    root = Path(root).resolve() if root is not None else None
    folder = "STORE|" + (re.escape(str(root)) if root is not None else r"/[^'\"\n]+?")
    match = re.search(f"({folder})/batches/(b\\d{{6}})/((\\w+)(-\\d+-[0-9a-f]+)?\\.parquet)", text)
    if match is not None and match.group(4) in TABLES:
        if root is None:
            root = Path(match.group(1))
        reason = text.splitlines()[0].replace(str(root), "STORE")
        return damaged_file(root, match.group(2), match.group(3), reason)
    if root is not None and CORRUPT.search(text):
        return locate(root)
    return None


_LOCATED: dict = {}  # store root -> (manifest stamp, when, message)
_LOCK = threading.Lock()


def locate(root) -> Optional[str]:
    """``first_damage(root)``, kept ``LOCATE_SECONDS`` for the same commit: a server answering
    many requests on a damaged store checks its files once a minute at most."""
    from kifudb.store.folder import Store

    root = Path(root).resolve()
    stamp = Store(root).stamp()
    with _LOCK:
        known = _LOCATED.get(root)
    if known is not None and known[0] == stamp and time.monotonic() - known[1] < LOCATE_SECONDS:
        return known[2]
    found = first_damage(root)
    with _LOCK:
        _LOCATED[root] = (stamp, time.monotonic(), found)
        while len(_LOCATED) > 8:
            _LOCATED.pop(next(iter(_LOCATED)))
    return found


def first_damage(root) -> Optional[str]:
    """The first damaged file of the store at ``root`` as a message, None if it is sound: each
    batch's files checked against their digests (``store.check.check_store`` with ``read``
    False; a batch written before digests is read whole)."""
    from kifudb.store.check import check_store

    report = check_store(root, read=False)
    if report.manifest_problem is not None and (Path(root) / "manifest.json").exists():
        return report.manifest_problem
    if not report.damaged:
        return None
    first = report.damaged[0]
    return damaged_file(Path(root).resolve(), first.batch, first.file, first.reason,
                        len(report.damaged) - 1)


def diagnose(error: BaseException, root, check: Optional[bool] = None,
             checker: Callable = first_damage) -> Optional[str]:
    """The message for ``error`` raised reading the store at ``root`` (None: the store its
    message names), or None if it is not the store's. ``check``: look at the store's files when
    the error names none (None: when it came from a store library); ``checker(root)`` does the
    looking (the dashboard caches it)."""
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
