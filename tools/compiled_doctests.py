"""The doctests of compiled modules, run against the compiled module (a pytest plugin).

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

import pytest
from _pytest.doctest import DoctestItem, DoctestModule, _get_checker, _get_runner, get_optionflags

from core import _native

_SOURCES = {(_native.ROOT / path).resolve(): _native.module_name(path) for path in _native.COMPILED}


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
        name = _SOURCES[self.path.resolve()]
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
    name = _SOURCES.get(file_path.resolve())
    if name is None or not parent.config.getoption("doctestmodules"):
        return collected
    if not _native.is_compiled(importlib.import_module(name)):
        return collected
    kept = [c for c in collected if not isinstance(c, DoctestModule)]
    return kept + [CompiledDoctests.from_parent(parent, path=file_path)]
