"""Read files of USI position lines: one game a line, ``#`` lines just above a game
describing it.

    >>> import io
    >>> text = "# origin: example\\nstartpos moves 7g7f 3c3d\\n\\nsfen 4k4/9/9/9/9/9/9/9/4K4 b G 1 moves G*5b\\n"
    >>> [(g.line, g.note, len(g.moves)) for g in read_usi_games(io.StringIO(text))]
    [(2, 'origin: example', 2), (4, '', 1)]

A line that is not a USI position line is reported as a ``UsiGame`` with ``error`` set, and the
reading goes on with the next line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Optional, TextIO

from core.notation.usi import parse_position_line
from core.position import SfenError


@dataclass
class UsiGame:
    """One game of a USI file: where it stands, what the comment above it says, and its moves."""

    line: int
    note: str
    start_sfen: str = ""
    moves: list = field(default_factory=list)
    error: Optional[str] = None


def read_usi_games(stream: TextIO) -> Iterator[UsiGame]:
    """Yield the games of a stream of USI lines (``startpos …``, ``sfen …``, ``position …``)."""
    notes = []
    for number, raw in enumerate(stream, start=1):
        text = raw.strip()
        if not text:
            notes = []  # a blank line ends a comment that belongs to no game
            continue
        if text.startswith("#"):
            notes.append(text.lstrip("#").strip())
            continue
        note = " ".join(notes)
        notes = []
        try:
            start, moves = parse_position_line(text)
        except SfenError as error:
            yield UsiGame(number, note, error=str(error))
            continue
        yield UsiGame(number, note, start, moves)


def read_usi(text: str, source: str = "", encoding: str = "") -> list:
    """The games of a USI/SFEN text as ``GameRecord``s (format ``usi``), one a line.

    >>> [len(r.moves) for r in read_usi("startpos moves 7g7f 3c3d\\nposition startpos\\n")]
    [2, 0]
    >>> read_usi("sfen moves 7g7f\\n")[0].findings[0].code
    'unparsable_line'
    """
    import io

    from ingest.builder import Dialect, RecordBuilder
    from ingest.record import ERROR

    dialect = Dialect("usi", frozenset(), "USI's endings (it writes none)")
    records = []
    for index, game in enumerate(read_usi_games(io.StringIO(text))):
        b = RecordBuilder(source, index, "usi", encoding, dialect, game.line)
        if game.note:
            b.comment(game.note, game.line)
        if game.error:
            b.add(ERROR, "unparsable_line", game.error, game.line)
        else:
            b.start(game.start_sfen)
            for move in game.moves:
                b.move(move, game.line)
        records.append(b.finish())
    return records


def looks_like_usi(text: str) -> bool:
    """True if the first non-comment line is a USI position line."""
    for line in text.split("\n", 50)[:50]:
        line = line.strip()
        if line and not line.startswith("#"):
            return line.startswith(("startpos", "sfen ", "position "))
    return False
