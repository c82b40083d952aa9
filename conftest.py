"""What the doctests of the doors share: ``sample_store``, a store of ``data/samples`` (built once
per session, as ``kifudb ingest data/samples`` builds it), and ``db``, a
``kifudb.open(sample_store)``, in the namespace of the doctests of ``kifudb.api`` and
``kifudb.http`` (the examples of the Python and HTTP APIs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _pytest.doctest import DoctestItem

ROOT = Path(__file__).resolve().parent
#: the doctests of the package run on its modules by their import names (the compiled ones
#: against the compiled code)
pytest_plugins = ("tools.doctests",)
#: the modules whose doctests run on the sample store
_ON_SAMPLES = ("kifudb.api", "kifudb.http")


@pytest.fixture(scope="session")
def sample_store(tmp_path_factory) -> Path:
    """A store of the sample records (read only)."""
    from kifudb.store.writer import ingest_paths

    folder = tmp_path_factory.mktemp("samples") / "store"
    ingest_paths([str(ROOT / "data" / "samples")], folder)
    return folder


@pytest.fixture(autouse=True)
def _sample_namespace(request, doctest_namespace):
    if isinstance(request.node, DoctestItem) and request.node.name.startswith(_ON_SAMPLES):
        import kifudb

        folder = request.getfixturevalue("sample_store")
        doctest_namespace["sample_store"] = str(folder)
        doctest_namespace["db"] = kifudb.open(folder)
