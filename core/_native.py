"""Compiled or interpreted: which build of the engine this process runs.

The modules of ``COMPILED`` are plain Python, and ``make`` also compiles them with mypyc
(``tools/build_native.py``) when a C compiler is there: the extension modules land beside the
sources, and Python imports them in preference. The same source then runs as machine code.
They are the engine (``core``), the hot readers of ``ingest`` (the KIF and CSA readers, the
record builder and its records, the replay) and the labeller (``labels``, but for the players'
names and the shapes).

``choose()`` runs first thing in ``import kifudb.core`` (and ``kifudb.ingest`` imports
``kifudb.core`` first)
and keeps the interpreted source when

- ``KIFUDB_PURE`` is set (to anything but ``0``): ``make test-pure`` runs the tests so, or
- the build is out of date: a source of ``COMPILED`` differs from the one compiled (the build
  records each source's SHA-256 in ``BUILD_RECORD``), so an edit never runs as stale machine code.

by putting a finder first on ``sys.meta_path`` that loads those modules from their ``.py``.
``status()`` says which build is loaded (``kifudb --version``)::

    >>> status().split(":")[0] in ("compiled", "interpreted")
    True
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Optional, Sequence

#: The folder that holds ``core/`` and ``ingest/``: the repository (``core/`` is ``kifudb.core``,
#: mapped in ``pyproject.toml``), or an installed ``kifudb`` package (its ``core/`` subfolder).
ROOT = Path(__file__).resolve().parent.parent
#: The modules mypyc compiles (one shared library, ``kifudb.core.compiled__mypyc``), as source
#: paths under ``ROOT``:
#: the engine, the readers' hot path (``Findings``, a ``list`` subclass, stays interpreted) and
#: the labeller (``labels``: castles, openings, techniques and notes).
COMPILED = (
    "core/pieces.py", "core/numbers.py", "core/tables.py", "core/key.py", "core/move.py", "core/position.py",
    "core/game.py", "core/handicap.py", "core/impasse.py", "core/placement.py",
    "core/notation/_common.py", "core/notation/_japanese.py", "core/notation/errors.py",
    "core/notation/usi.py", "core/notation/kif.py", "core/notation/ki2.py",
    "core/notation/csa.py", "core/notation/jkf.py", "core/notation/western.py",
    "core/notation/written.py", "core/notation/bod.py",
    "ingest/record.py", "ingest/builder.py", "ingest/kif.py", "ingest/csa.py",
    "ingest/headers.py", "ingest/result.py", "ingest/validate.py", "ingest/evaluation.py",
    "labels/vocabulary.py", "labels/attacks.py", "labels/techniques.py", "labels/classify.py",
)
#: What the build wrote: ``{"extension_suffix": ..., "sources": {path: sha256}}``.
BUILD_RECORD = ROOT / "core" / "compiled.json"
PURE_VARIABLE = "KIFUDB_PURE"

_reason: Optional[str] = None  # why the interpreted source runs, once ``choose`` decided


def module_name(path: str) -> str:
    """The import name of a source of ``COMPILED``::

        >>> module_name("core/notation/kif.py")
        'kifudb.core.notation.kif'
    """
    return "kifudb." + path[:-len(".py")].replace("/", ".")


class SourceOnly:
    """A meta-path finder that loads the modules it names from their ``.py`` files."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = frozenset(names)

    def find_spec(self, fullname: str, path: Optional[Sequence[str]] = None,
                  target: object = None) -> Optional[importlib.machinery.ModuleSpec]:
        if fullname not in self.names:
            return None
        leaf = fullname.rpartition(".")[2] + ".py"
        for folder in path or ():
            source = os.path.join(folder, leaf)
            if os.path.isfile(source):
                return importlib.util.spec_from_file_location(fullname, source)
        return None


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def built_sources() -> Optional[dict]:
    """The sources of the build in place, ``{path: sha256}``; None when there is none (or it was
    made for another Python)."""
    try:
        record = json.loads(BUILD_RECORD.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if record.get("extension_suffix") != importlib.machinery.EXTENSION_SUFFIXES[0]:
        return None
    return record.get("sources")


def stale_sources(sources: dict) -> list:
    """The paths of ``COMPILED`` whose source is not the one compiled."""
    stale = []
    for path in COMPILED:
        try:
            if sources.get(path) != _digest(ROOT / path):
                stale.append(path)
        except OSError:
            stale.append(path)
    return stale


def choose() -> None:
    """Keep the interpreted source when asked to or when the build is missing or out of date."""
    global _reason
    if _reason is not None or any(isinstance(f, SourceOnly) for f in sys.meta_path):
        return
    sources = built_sources()
    if os.environ.get(PURE_VARIABLE, "0") not in ("", "0"):
        _reason = f"{PURE_VARIABLE} is set"
    elif sources is None:
        _reason = "not built (no C compiler, or `make` not run)"
    else:
        stale = stale_sources(sources)
        if not stale:
            return
        _reason = f"the build is older than {stale[0]}; `make native` compiles it again"
    sys.meta_path.insert(0, SourceOnly([module_name(p) for p in COMPILED]))


def is_compiled(module: object) -> bool:
    """True if ``module`` was loaded from an extension module (machine code)."""
    filename = getattr(module, "__file__", None) or ""
    return filename.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def status() -> str:
    """``compiled: N of M modules (mypyc)`` or ``interpreted: why``."""
    modules = [importlib.import_module(module_name(p)) for p in COMPILED]
    if any(is_compiled(m) for m in modules):
        loaded = [m for m in modules if is_compiled(m)]
        return f"compiled: {len(loaded)} of {len(COMPILED)} modules (mypyc)"
    return f"interpreted: {_reason or 'the extension modules did not load'}"
