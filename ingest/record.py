"""The plain data a reader hands to the replay: a ``GameRecord`` with its moves as written.

Readers only understand the *layout* of a format (headers, move lines, comments, times,
variations, endings), and build the record through ``ingest.builder.RecordBuilder``; they do not
decide what a move means. Each move keeps its text as written and
the notation to read it with (``csa``, ``kif``, ``ki2``, ``usi``, ``jkf``); the replay parses it
against the position it is played in, so that 同, KI2's 右/左 and CSA's promoted codes are settled
by the rules engine, and a bad move is reported where it stands.

    >>> record = GameRecord(source="game.kif", index=0, format="kif", encoding="cp932")
    >>> record.moves.append(MoveRecord("７六歩(77)", line=12, notation="kif", seconds=2))
    >>> record.moves[0].text, record.start_sfen[:9]
    ('７六歩(77)', 'lnsgkgsnl')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from core.position import STARTING_SFEN

from core.findings import ERROR, WARNING, INFO, Finding  # noqa: F401 (the readers' vocabulary)


@dataclass(slots=True)
class MoveRecord:
    """One move as the record writes it.

    ``text`` is the move as written (``７六歩(77)``, ``+7776FU``, ``7g7f``, or for JKF the move
    object as compact JSON); ``notation`` says how to read it. ``seconds`` is the time the move
    took and ``total_seconds`` the mover's total so far, when the record gives them.
    ``comments`` are the comment lines that follow the move; ``bookmark`` a KIF ``&`` line.
    """

    text: str
    line: Optional[int] = None
    notation: str = "usi"
    seconds: Optional[float] = None
    total_seconds: Optional[float] = None
    comments: list = field(default_factory=list)
    bookmark: Optional[str] = None

    def __init__(self, text: str, line: Optional[int] = None, notation: str = "usi",
                 seconds: Optional[float] = None, total_seconds: Optional[float] = None,
                 comments: Optional[list] = None, bookmark: Optional[str] = None) -> None:
        # written out: a reader makes one a move, and this is a fifth faster than the
        # generated one (which calls ``list`` for the comments)
        self.text = text
        self.line = line
        self.notation = notation
        self.seconds = seconds
        self.total_seconds = total_seconds
        self.comments = [] if comments is None else comments
        self.bookmark = bookmark


@dataclass
class Variation:
    """An alternative line: its first move replaces ply ``start_ply`` of its parent line.

    ``parent`` is None for a branch off the main line, else the index (in
    ``GameRecord.variations``) of the variation it branches from. ``line`` is where it starts.
    """

    start_ply: int
    moves: list = field(default_factory=list)
    parent: Optional[int] = None
    line: Optional[int] = None
    ending: Optional["DeclaredEnding"] = None


@dataclass
class DeclaredEnding:
    """How the record says the game ended, as written (``投了``, ``%TORYO``, ``まで…``).

    ``word`` is the terminal word or CSA code; ``mover`` is the colour (0 Black, 1 White) whose
    turn it was when the ending was recorded, if known; ``winner`` and ``reason`` are filled by
    ``ingest.result`` from the word and the replay.
    """

    word: str
    line: Optional[int] = None
    mover: Optional[int] = None
    seconds: Optional[float] = None
    summary: str = ""  # the KIF/KI2 "まで…" line, if any
    winner: Optional[str] = None


@dataclass
class GameRecord:
    """Everything a record says about one game, in the form the replay needs."""

    source: str
    index: int
    format: str
    encoding: str
    headers: dict = field(default_factory=dict)
    start_sfen: str = STARTING_SFEN
    handicap: Optional[str] = None
    moves: list = field(default_factory=list)
    variations: list = field(default_factory=list)
    comments: list = field(default_factory=list)
    ending: Optional[DeclaredEnding] = None
    findings: list = field(default_factory=list)
    first_line: Optional[int] = None

    def add(self, severity: str, code: str, message: str, line=None, ply=None, text="") -> Finding:
        """Record a finding about this game and return it."""
        finding = Finding(severity, code, message, line, ply, text)
        self.findings.append(finding)
        return finding


def read_safely(read, text, source: str, encoding: str, fmt: str, label: str) -> list:
    """Run ``read(text) -> [GameRecord]`` the way every reader must: on decoded text (a leftover
    byte-order mark and CR line ends removed), never raising (an exception becomes a
    ``reader_error`` finding) and never returning nothing (``no_game``)::

        >>> [r.findings[0].code for r in read_safely(lambda t: [], "", "x.kif", "utf-8", "kif", "KIF")]
        ['no_game']
    """
    def single(code: str, message: str) -> list:
        record = GameRecord(source=source, index=0, format=fmt, encoding=encoding)
        record.add(ERROR, code, message)
        return [record]

    if not isinstance(text, str):
        return single("no_game", f"expected decoded text, not {type(text).__name__}")
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    try:
        games = read(text)
    except Exception as error:  # a safety net: reading must never stop a whole ingest
        return single("reader_error", f"the {label} reader failed: {type(error).__name__}: {error}")
    return games or single("no_game", "no game in the text (it is empty or holds only comments)")
