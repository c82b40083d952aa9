"""Issue 29: the findings are one answer in every door (``analytics.findings``): ``kifudb stats
findings --format json`` said ``{by_code, findings}`` while ``GET /stats/findings`` said
``{by_code, offset, limit, findings}``; now both say ``FINDINGS_ANSWER``, with the same
findings (the HTTP API names the files, not the server's paths), and the CLI pages with
``--offset`` as the HTTP API does. The store: the samples (data/samples), with findings
(two errors among them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from kifudb.analytics.findings import FINDING, FINDINGS_ANSWER
from kifudb.cli import main
from kifudb.http import app
from kifudb.store.writer import ingest_paths

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def samples(tmp_path_factory) -> Path:
    store = tmp_path_factory.mktemp("samples") / "store"
    ingest_paths([str(ROOT / "data" / "samples")], store)
    return store


def _cli(samples, *options) -> dict:
    result = CliRunner().invoke(main, ["stats", "findings", "--store", str(samples),
                                       "--format", "json", *options])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.mark.parametrize("query", [{}, {"severity": "error", "limit": 1, "offset": 1}])
def test_the_findings_are_one_answer_in_the_cli_and_http(samples, query):
    options = [text for name, value in query.items() for text in (f"--{name}", str(value))]
    cli = _cli(samples, *options)
    http = TestClient(app(samples)).get("/stats/findings", params=query).json()
    assert list(cli) == list(http) == list(FINDINGS_ANSWER)
    assert [list(f) for f in cli["findings"]] == [list(FINDING)] * len(cli["findings"]) != []
    assert (cli["offset"], cli["limit"]) == (query.get("offset", 0), query.get("limit", 50))
    # the same findings: the HTTP API names the files (a server does not show its paths)
    named = [{**f, "path": Path(f["path"]).name} for f in cli["findings"]]
    assert named == http["findings"] and cli["by_code"] == http["by_code"]


def test_the_cli_pages_the_findings_as_http_does(samples):
    every = _cli(samples, "--limit", "100")["findings"]
    assert len(every) > 2
    assert _cli(samples, "--limit", "2", "--offset", "1")["findings"] == every[1:3]
