"""Issue 29, defect 8: ``/docs`` (and ``/redoc``) work without internet: every file the page
loads is served by the API itself (the fastapi-offline package's Swagger UI and ReDoc), and the
page names no outside address."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from kifudb.http import DOCS_FILES, app
from kifudb.store.writer import ingest_paths

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> TestClient:
    store = tmp_path_factory.mktemp("docs") / "store"
    ingest_paths([str(ROOT / "data" / "samples" / "games.usi")], store)
    return TestClient(app(store))


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_documentation_loads_only_the_apis_own_files(client, page):
    shown = client.get(page)
    assert shown.status_code == 200 and "text/html" in shown.headers["content-type"]
    assert not re.search(r"""(?:src|href|url)\s*[=:]\s*["']?(?:https?:)?//""", shown.text), \
        shown.text
    assert "cdn" not in shown.text.lower()
    loaded = re.findall(r"""(?:src|href)=["']([^"']+)["']""", shown.text)
    loaded += re.findall(r"""(?:url|spec-url)\s*[:=]\s*["']([^"']+)["']""", shown.text)
    assert any(u.endswith(".js") for u in loaded) and "/openapi.json" in loaded
    for url in loaded:
        assert url.startswith("/"), url
        answer = client.get(url)
        assert answer.status_code == 200, url
        assert len(answer.content) > (10_000 if url.endswith((".js", ".css")) else 100), url
    assert all(u.startswith(DOCS_FILES) for u in loaded if u.endswith((".js", ".css")))
    script = next(u for u in loaded if u.endswith(".js"))
    assert b"SwaggerUIBundle" in client.get(script).content if page == "/docs" else True
