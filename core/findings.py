"""``Finding``: something wrong or notable in a record or a board diagram — where, what, and why.

Readers, the replay and the board-diagram reader collect findings instead of raising, so one bad
line never costs the rest of a file::

    >>> str(Finding(ERROR, "nifu", "black already has a pawn on file 2", line=12, ply=9, text="P*2e"))
    "error nifu (line 12, ply 9) 'P*2e': black already has a pawn on file 2"
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

ERROR, WARNING, INFO = "error", "warning", "info"


@dataclass(slots=True)
class Finding:
    """Something wrong or notable in a record: where (line, ply), what (code), and why."""

    severity: str
    code: str
    message: str
    line: Optional[int] = None
    ply: Optional[int] = None
    text: str = ""

    def __str__(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.ply is not None:
            where.append(f"ply {self.ply}")
        quoted = f" {self.text!r}" if self.text else ""
        return f"{self.severity} {self.code} ({', '.join(where) or 'file'}){quoted}: {self.message}"
