"""The answer of ``kifudb stats findings --format json`` and of ``GET /stats/findings``, defined
here once (as ``analytics.explorer`` defines the explorer's): what validation found in the
stored records, counted by code (``by_code``: the counts of every finding in scope), then a
page of the findings themselves (``offset``, ``limit``, ``findings``: each a ``FINDING``).
The HTTP API names the files, not the server's paths (``names_only``).

    >>> import tempfile
    >>> from kifudb.store.writer import ingest_paths
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["data/samples"], folder)
    >>> answer = findings_answer(folder, severity="error", limit=1)
    >>> list(answer) == list(FINDINGS_ANSWER), list(answer["findings"][0]) == list(FINDING)
    (True, True)
    >>> answer["by_code"], answer["offset"], answer["limit"], len(answer["findings"])
    ([{'code': 'bad_geometry', 'severity': 'error', 'count': 2}], 0, 1, 1)
    >>> names_only(answer)["findings"][0]["path"] == Path(answer["findings"][0]["path"]).name
    True
    >>> import shutil; shutil.rmtree(folder)
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from kifudb.analytics import stats

__all__ = ["FINDING", "FINDINGS_ANSWER", "findings_answer", "names_only"]

#: The fields of a finding, in order.
FINDING = ("game", "path", "index", "severity", "code", "line", "ply", "text", "message")
#: The fields of the answer, in order.
FINDINGS_ANSWER = ("by_code", "offset", "limit", "findings")


def findings_answer(store, code: Optional[str] = None, severity: Optional[str] = None,
                    path: Optional[str] = None, offset: int = 0, limit: int = 50) -> dict:
    """The findings of ``code`` and ``severity`` in the files whose path holds ``path`` (None:
    all): their counts by code, and the page ``offset``, ``limit`` of them (see the module)."""
    rows = stats.findings(store, code=code, severity=severity, path=path, limit=limit,
                          offset=offset)
    return {"by_code": stats.finding_counts(store, "code", severity, code, path=path),
            "offset": offset, "limit": limit,
            "findings": [{name: row[name] for name in FINDING} for row in rows]}


def names_only(answer: dict) -> dict:
    """The answer with each finding's file named, not its path (the HTTP API's way: a server
    does not show its folders)."""
    return {**answer, "findings": [{**row, "path": Path(row["path"]).name}
                                   for row in answer["findings"]]}
