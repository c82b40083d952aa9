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
from typing import Final, Optional, Union

from kifudb.core.position import STARTING_SFEN

from kifudb.core.findings import ERROR, WARNING, INFO, Finding  # noqa: F401 (the readers' vocabulary)
from kifudb.ingest.findings import PER_GAME, PER_LINE, Findings  # noqa: F401 (the readers' too)

#: the comments of a move that has none (shared: never appended to)
NO_COMMENTS: Final[tuple] = ()


@dataclass(slots=True)
class MoveRecord:
    """One move as the record writes it.

    ``text`` is the move as written (``７六歩(77)``, ``+7776FU``, ``7g7f``, or for JKF the move
    object as compact JSON); ``notation`` says how to read it. ``seconds`` is the time the move
    took and ``total_seconds`` the mover's total so far, when the record gives them.
    ``comments`` are the comment lines that follow the move (a list; the shared empty tuple
    ``NO_COMMENTS`` while there is none, so that a move costs no list of its own: the builder
    puts a list there at the first comment); ``bookmark`` a KIF ``&`` line.
    """

    text: str
    line: Optional[int] = None
    notation: str = "usi"
    seconds: Optional[float] = None
    total_seconds: Optional[float] = None
    comments: Union[list, tuple] = field(default_factory=list)
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
        self.comments = NO_COMMENTS if comments is None else comments
        self.bookmark = bookmark

    def __reduce__(self) -> tuple:
        """Pickled (and copied) by its fields: a compiled record is made again by ``__init__``."""
        comments = self.comments if isinstance(self.comments, list) else None
        return MoveRecord, (self.text, self.line, self.notation, self.seconds, self.total_seconds,
                            comments, self.bookmark)


@dataclass(slots=True)
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

    def __reduce__(self) -> tuple:
        """Pickled by its fields (see ``MoveRecord.__reduce__``)."""
        return Variation, (self.start_ply, self.moves, self.parent, self.line, self.ending)


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

    def __reduce__(self) -> tuple:
        """Pickled by its fields (see ``MoveRecord.__reduce__``)."""
        return DeclaredEnding, (self.word, self.line, self.mover, self.seconds, self.summary,
                                self.winner)


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
    findings: list = field(default_factory=Findings)
    first_line: Optional[int] = None
    #: False when the reader recognised nothing a game record is made of in it (no header, board,
    #: move or ending: ``ingest.builder``): it is no game, and ``read_safely`` passes its findings
    #: and comments on to a game beside it
    recognised: bool = True

    def __reduce__(self) -> tuple:
        """Pickled by its fields (see ``MoveRecord.__reduce__``), moves and findings too::

            >>> import pickle
            >>> record = GameRecord("x.kif", 0, "kif", "utf-8", ending=DeclaredEnding("投了"))
            >>> record.moves.append(MoveRecord("７六歩(77)", 1, "kif", comments=["good"]))
            >>> _ = record.add(WARNING, "bad_time", "not a time", 1)
            >>> copy = pickle.loads(pickle.dumps(record))
            >>> copy == record, type(copy.findings).__name__
            (True, 'Findings')
        """
        return GameRecord, (self.source, self.index, self.format, self.encoding, self.headers,
                            self.start_sfen, self.handicap, self.moves, self.variations,
                            self.comments, self.ending, self.findings, self.first_line,
                            self.recognised)

    def add(self, severity: str, code: str, message: str, line=None, ply=None, text="") -> Finding:
        """Record a finding about this game (capped: ``Findings``) and return it."""
        return self.capped().add(Finding(severity, code, message, line, ply, text))

    def move_comment_count(self) -> int:
        """How many comments the main-line moves carry."""
        count = 0
        move: MoveRecord
        for move in self.moves:
            count += len(move.comments)
        return count

    def capped(self) -> Findings:
        """``findings`` as a ``Findings`` (made one if a plain list was put there)."""
        findings = self.findings
        if not isinstance(findings, Findings):
            self.findings = Findings()
            self.findings.add_all(findings)
            findings = self.findings
        return findings


def read_safely(read, text, source: str, encoding: str, fmt: str, label: str) -> list:
    """Run ``read(text) -> [GameRecord]`` the way every reader must: on decoded text (a leftover
    byte-order mark and CR line ends removed), never raising (an exception becomes a
    ``reader_error`` finding), keeping only games (``keep_games``) and never returning nothing
    (``no_game``)::

        >>> [r.findings[0].code for r in read_safely(lambda t: [], "", "x.kif", "utf-8", "kif", "KIF")]
        ['no_game']
    """
    def single(code: str, message: str) -> list:
        record = GameRecord(source=source, index=0, format=fmt, encoding=encoding,
                            recognised=False)
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
    if not games:
        return single("no_game", "no game in the text (it is empty or holds only comments)")
    return keep_games(games, label)


def keep_games(records: list, label: str) -> list:
    """The records that are games (``GameRecord.recognised``), numbered from 0 in file order.

    What the others hold is not dropped: their findings go to the game before them (to the
    first game, ahead of its own, when none is before), and so do their comments (with a
    ``comment_placement`` finding). With no game at all, the result is one record (not a game
    either) with one ``no_game`` finding that counts what was read and where it starts::

        >>> junk = GameRecord("x.usi", 0, "usi", "utf-8", recognised=False)
        >>> _ = junk.add(WARNING, "unparsable_line", "not a game line", line=1, text="hello")
        >>> game = GameRecord("x.usi", 1, "usi", "utf-8", first_line=2)
        >>> [(r.index, [(f.code, f.line) for f in r.findings]) for r in keep_games([junk, game], "USI")]
        [(0, [('unparsable_line', 1)])]
        >>> [f.message for f in keep_games([junk], "USI")[0].findings]  # doctest: +NORMALIZE_WHITESPACE
        ['no game: the USI reader recognised no header, board, move or ending (1 finding:
          unparsable_line 1; the first on line 1: not a game line)']
    """
    if all(record.recognised for record in records):
        return records
    games = [record for record in records if record.recognised]
    if not games:
        return [_no_game(records, label)]
    waiting: list = []  # the records before the first game
    previous = None
    for record in records:
        if record.recognised:
            if waiting:
                findings = Findings()
                for other in waiting:
                    findings.add_all(other.findings)
                findings.add_all(record.capped())
                record.findings = findings
                record.comments[:0] = _passed_comments(waiting, record, "after")
                waiting = []
            previous = record
        elif previous is None:
            waiting.append(record)
        else:
            previous.capped().add_all(record.findings)
            previous.comments += _passed_comments([record], previous, "before")
    for index, game in enumerate(games):
        game.index = index
    return games


def _passed_comments(records: list, game: GameRecord, where: str) -> list:
    """The comments of ``records`` (no games), each said with a finding on ``game``."""
    comments = []
    for record in records:
        for body in record.comments:
            comments.append(body)
            game.add(INFO, "comment_placement", f"a comment outside any game; kept with the game "
                     f"{where} it", record.first_line, text=body[:200])
    return comments


def _no_game(records: list, label: str) -> GameRecord:
    """One record (not a game) for a text whose records are none: its ``no_game`` finding
    counts the findings and comments they had, and names the first finding."""
    first = records[0]
    merged = Findings()
    comments = 0
    for record in records:
        merged.add_all(record.findings)
        comments += len(record.comments)
    counts: dict = {}
    for (code, _), count in (merged._codes or {}).items():
        counts[code] = counts.get(code, 0) + count
    for (_, code), (_, count) in (merged._over or {}).items():
        counts[code] = counts.get(code, 0) + count
    counts.pop("too_many_findings", None)
    message = f"no game: the {label} reader recognised no header, board, move or ending"
    said = []
    if counts:
        total = sum(counts.values())
        listed = ", ".join(f"{code} {count:,}" for code, count in counts.items())
        said.append(f"{total:,} finding{'s' if total > 1 else ''}: {listed}")
    if comments:
        said.append(f"{comments:,} comment{'s' if comments > 1 else ''}")
    head = next((f for f in merged if f.code != "too_many_findings"), None)
    if head is not None:
        where = f" on line {head.line}" if head.line is not None else ""
        said[0] += f"; the first{where}: {head.message}"
    if said:
        message += f" ({'; '.join(said)})"
    record = GameRecord(source=first.source, index=0, format=first.format,
                        encoding=first.encoding, recognised=False)
    record.add(ERROR, "no_game", message, head.line if head else None,
               text=head.text if head else "")
    return record
