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



#: the games every position of which ``analysed_store`` has analysed: eight decided games of
#: the 28th World Computer Shogi Championship (CSA, tests/fixtures/records/apery-wcsc28)
ANALYSED_GAMES = sorted((ROOT / "tests" / "fixtures" / "records" / "apery-wcsc28" / "kifu")
                        .glob("*.csa"))[:8]
#: the engine and limit of ``analysed_store``
ANALYSED_ENGINE, ANALYSED_LIMIT = "fairy-stockfish", "nodes=300"


@pytest.fixture(scope="session")
def analysed_store(tmp_path_factory) -> Path:
    """A store of ``ANALYSED_GAMES`` with every position analysed by the real engine
    (Debian's fairy-stockfish at nodes=300, two lines: ``kifudb.analysis.run``), read only."""
    from kifudb.analysis.run import analyse
    from kifudb.store.writer import ingest_paths

    folder = tmp_path_factory.mktemp("analysed") / "store"
    ingest_paths([str(p) for p in ANALYSED_GAMES], folder)
    report = analyse(folder, ANALYSED_ENGINE, ANALYSED_LIMIT, multipv=2, jobs=2)
    assert report.analysed > 500 and not report.failed, report.lines()
    return folder
