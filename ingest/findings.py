"""The capped list of one game's findings (``Findings``): no damage in a record can make its
findings outgrow the input.

It is a ``list`` subclass, so it stays interpreted (mypyc compiles ``ingest.record``, whose
records hold it, and a compiled class cannot extend ``list``); ``ingest.record`` hands it on.
"""

from __future__ import annotations

from typing import Optional

from kifudb.core.findings import INFO, WARNING, Finding

#: At most this many findings of one code and message on one line of a record are kept ...
PER_LINE = 1
#: ... and at most this many of one code and severity in one game; the others are counted
#: (``Findings``).
PER_GAME = 100


class Findings(list):
    """The findings of one game: a list that caps what it keeps, so that no damage can make the
    findings outgrow the input (a line of a million ``▲`` is one finding, not a million).

    ``add`` keeps the first ``PER_LINE`` findings that say the same (code and message) on a line,
    and the first ``PER_GAME`` of a code and severity in the game (so an error is never hidden
    behind warnings: a game with an error stays invalid); each further one is counted in one
    ``too_many_findings`` finding (for its line, or for the game) whose message says how many
    there were. It is a warning, an info when only infos were left out::

        >>> findings = Findings()
        >>> for column in range(1_000_000):
        ...     _ = findings.add(Finding(WARNING, "unparsable_line", "a mark without a move", 3))
        >>> [str(f) for f in findings]  # doctest: +NORMALIZE_WHITESPACE
        ['warning unparsable_line (line 3): a mark without a move',
         'warning too_many_findings (line 3): … and 999,999 more unparsable_line findings on this line']

    Appending directly (``append``, ``extend``, ``+=``) keeps everything: those paths are for
    findings known to be few. ``copy`` keeps the counts, ``add_all`` adds many through ``add``.
    """

    # the counts are made at the first ``add``: a game without findings pays nothing for them
    #: (code, severity) -> findings kept; (line, code, message) -> findings kept
    _codes: Optional[dict[tuple[str, str], int]] = None
    _lines: Optional[dict[tuple[int, str, str], int]] = None
    #: (line or None, code) -> [the too_many_findings summary, how many were left out]
    _over: Optional[dict[tuple[Optional[int], str], list]] = None

    def add(self, finding: Finding) -> Finding:
        """Keep ``finding`` or count it (see the class docstring); returns it either way."""
        codes, lines = self._counts()
        code, line = finding.code, finding.line
        kind = (code, finding.severity)
        kept = codes.get(kind, 0)
        if kept >= PER_GAME:
            self._more(None, code, finding.severity, 1)
            return finding
        if line is not None:
            key = (line, code, finding.message)
            on_line = lines.get(key, 0)
            if on_line >= PER_LINE:
                self._more(line, code, finding.severity, 1)
                return finding
            lines[key] = on_line + 1
        codes[kind] = kept + 1
        self.append(finding)
        return finding

    def add_all(self, findings) -> None:
        """``add`` each of ``findings``; the counts of another ``Findings`` are carried over."""
        if not findings:  # (the usual case: a game's replay found nothing)
            return
        over = getattr(findings, "_over", None) or {}
        summaries = {id(entry[0]) for entry in over.values()}
        for finding in findings:
            if id(finding) not in summaries:
                self.add(finding)
        for (line, code), (summary, count) in over.items():
            self._more(line, code, summary.severity, count)

    def _counts(self) -> tuple[dict[tuple[str, str], int], dict[tuple[int, str, str], int]]:
        """The counts by code and by line, made at the first ``add``."""
        codes, lines = self._codes, self._lines
        if codes is None or lines is None:
            codes, lines = self._codes, self._lines = {}, {}
            self._over = {}
        return codes, lines

    def _more(self, line: Optional[int], code: str, severity: str, count: int) -> None:
        """Count ``count`` findings of ``code`` left out on ``line`` (None: in the game)."""
        self._counts()
        over = self._over
        if over is None:
            over = self._over = {}
        key = (line, code)
        entry = over.get(key)
        if entry is None:
            entry = over[key] = [Finding(INFO, "too_many_findings", "", line), 0]
            self.append(entry[0])
        summary = entry[0]
        entry[1] += count
        if severity != INFO:
            summary.severity = WARNING
        where = "in this game" if line is None else "on this line"
        plural = "s" if entry[1] > 1 else ""
        summary.message = f"… and {entry[1]:,} more {code} finding{plural} {where}"

    def copy(self) -> "Findings":
        """A copy that goes on counting where this one stands (its summaries are its own)."""
        new = Findings()
        if self._codes is None or self._lines is None:
            list.extend(new, self)
            return new
        new._codes, new._lines = dict(self._codes), dict(self._lines)
        new._over = over = {}
        clones = {}
        for key, (summary, count) in (self._over or {}).items():
            clone = Finding(summary.severity, summary.code, summary.message, summary.line,
                            summary.ply, summary.text)
            clones[id(summary)] = clone
            over[key] = [clone, count]
        list.extend(new, (clones.get(id(f), f) for f in self))
        return new
