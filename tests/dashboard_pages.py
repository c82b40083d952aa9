"""What the dashboard's AppTest tests share: the app, the store they open (``KIFUDB_STORE``, the
``dashboard_store`` fixture of ``conftest.py``), plain DuckDB over it for the independent
answers, and opening a page as a link does. A test module takes them with
``from dashboard_pages import APP, db, page, run, store_env, table``."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from kifudb.store.folder import Store

APP = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")


@pytest.fixture(autouse=True)
def store_env(monkeypatch, dashboard_store):
    monkeypatch.setenv("KIFUDB_STORE", str(dashboard_store))


@pytest.fixture(scope="module")
def db(dashboard_store):
    """Plain DuckDB over the store's views: the independent answers."""
    connection = Store(dashboard_store).connect()
    yield connection
    connection.close()


def run(at) -> AppTest:
    """Run the app (``at``, or the app of a widget just set or clicked); no exception."""
    at = at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def page(view: str, /, **params) -> AppTest:
    """The page ``views/VIEW.py`` opened with URL parameters ``params`` (a link)."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({k: str(v) for k, v in params.items()})
    run(at)  # the entry page: the sidebar, then the default page
    at.switch_page(f"views/{view}.py")
    return run(at)


def table(at: AppTest, prefix: str):
    """The data of the table whose key starts with ``prefix``."""
    return next(d.value for d in at.dataframe if d.key and d.key.startswith(prefix))
