"""Fixtures shared by several test modules."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def dashboard_store(tmp_path_factory) -> Path:
    """A store of the real records (``tests/fixtures/records`` and the sample games), for the
    dashboard's tests (read only: build another one to write)."""
    from kifudb.store.writer import ingest_paths

    folder = tmp_path_factory.mktemp("dashboard") / "store"
    report = ingest_paths([str(ROOT / "tests" / "fixtures" / "records"),
                           str(ROOT / "data" / "samples" / "games.usi")], folder)
    assert report.games_added > 100 and report.findings > 0
    return folder


@pytest.fixture(scope="session")
def fixtures_store(tmp_path_factory) -> Path:
    """A store of every record file of ``tests/fixtures`` (read only: build another one to
    write)."""
    from kifudb.store.writer import ingest_paths

    folder = tmp_path_factory.mktemp("fixtures") / "store"
    ingest_paths([str(ROOT / "tests" / "fixtures")], folder)
    return folder

