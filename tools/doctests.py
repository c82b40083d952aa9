"""The doctests of the ``kifudb`` package, imported by their import names (a pytest plugin).

The project card's folders (``core/``, ``ingest/`` …) are subpackages of ``kifudb``
(``[tool.setuptools.package-dir]`` in ``pyproject.toml``), so pytest's own doctest collector,
which names a module by its folders (``core.game``), would import a second copy of each module
under a name that is not installed. Here each file of those folders is imported as
``kifudb.core.game``, the module everything else uses.

A module compiled by mypyc keeps no docstrings, so ``--doctest-modules`` finds nothing in it.
For each source of ``core._native.COMPILED`` whose module loaded compiled, this collector takes
the docstrings from the ``.py`` (module, classes, functions, methods, as ``doctest`` would) and
runs their examples in the compiled module's namespace: the same examples check both builds.
The root ``conftest.py`` registers it (``pytest_plugins``).
"""

from __future__ import annotations

import ast
import doctest
import importlib
from pathlib import Path
from typing import Optional

import pytest
from _pytest.doctest import DoctestItem, DoctestModule, _get_checker, _get_runner, get_optionflags

from kifudb.core import _native
from tools import build_native

#: folder -> import name, as ``pyproject.toml`` maps them (``core`` -> ``kifudb.core``)
PACKAGE_DIRS = {(build_native.ROOT / folder).resolve(): name
                for name, folder in build_native.PACKAGE_DIRS.items()}
_COMPILED = {(_native.ROOT / path).resolve() for path in _native.COMPILED}


def import_name(path: Path) -> Optional[str]:
    """The import name of a source file of the package (``core/game.py`` ->
    ``kifudb.core.game``), or None for a file outside it."""
    path = path.resolve()
    for folder, name in PACKAGE_DIRS.items():
        if path.is_relative_to(folder):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            return ".".join([name, *parts])
    return None


class PackageDoctests(DoctestModule):
    """The doctests of one module of the package, imported by its import name."""

    def _getobj(self):
        return importlib.import_module(import_name(self.path))


def _docstrings(tree: ast.Module, prefix: str):
    """``(qualified name, docstring, line)`` of the module and every class and function in it."""
    found = []
    doc = ast.get_docstring(tree, clean=False)
    if doc:
        found.append((prefix, doc, 0))

    def visit(node, name):
        for child in node.body:
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                qualified = f"{name}.{child.name}"
                text = ast.get_docstring(child, clean=False)
                if text:
                    found.append((qualified, text, child.body[0].lineno - 1))
                if isinstance(child, ast.ClassDef):
                    visit(child, qualified)

    visit(tree, prefix)
    return found


class CompiledDoctests(pytest.File):
    """The doctests of one compiled module's source."""

    def collect(self):
        name = import_name(self.path)
        module = importlib.import_module(name)
        tree = ast.parse(self.path.read_text(encoding="utf-8"))
        parser = doctest.DocTestParser()
        runner = _get_runner(verbose=False, optionflags=get_optionflags(self.config),
                             checker=_get_checker(),
                             continue_on_failure=False)
        for qualified, text, line in _docstrings(tree, name):
            test = parser.get_doctest(text, dict(module.__dict__), qualified, str(self.path), line)
            if test.examples:
                yield DoctestItem.from_parent(self, name=qualified, runner=runner, dtest=test)


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path: Path, parent):
    collected = yield
    name = import_name(file_path) if file_path.suffix == ".py" else None
    if name is None or not parent.config.getoption("doctestmodules"):
        return collected
    # the package's files hold no tests: a file named on the command line is no test module
    # (pytest would import ``core/pieces.py`` as ``core.pieces``)
    kept = [c for c in collected if not isinstance(c, pytest.Module)]
    if not any(isinstance(c, DoctestModule) for c in collected):  # ``__main__.py``, a page
        return kept
    if file_path.resolve() in _COMPILED and _native.is_compiled(importlib.import_module(name)):
        return kept + [CompiledDoctests.from_parent(parent, path=file_path)]
    return kept + [PackageDoctests.from_parent(parent, path=file_path)]
