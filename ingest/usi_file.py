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

import re
from dataclasses import dataclass, field
from sys import intern
from typing import Iterator, Optional, TextIO

from kifudb.core.kifu import ENDING_WORDS
from kifudb.core.notation.usi import parse_position_line
from kifudb.core.position import SfenError


@dataclass
class UsiGame:
    """One game of a USI file: where it stands, what the comment above it says, and its moves."""

    line: int
    note: str
    start_sfen: str = ""
    moves: list = field(default_factory=list)
    error: Optional[str] = None
    #: the line as written (stripped)
    text: str = ""


def read_usi_games(stream: TextIO) -> Iterator[UsiGame]:
    """Yield the games of a stream of USI lines (``startpos …``, ``sfen …``, ``position …``)."""
    return _games(stream, parse_position_line)


_MOVES_WORD = re.compile(r"(?<!\S)moves(?!\S)")
_WORD = re.compile(r"\S+")


def _lazy_position(text: str) -> tuple:
    """``parse_position_line`` with the moves as an iterator of their texts: a line of a
    million moves is never split into a list of a million words at once."""
    found = _MOVES_WORD.search(text)
    if found is None:
        return parse_position_line(text)
    start, _ = parse_position_line(text[:found.start()])
    return start, (word.group() for word in _WORD.finditer(text, found.end()))


def _lines(text: str) -> Iterator[str]:
    """The lines of ``text``, without splitting it into a list of them."""
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", start)
        if end < 0:
            end = size
        yield text[start:end]
        start = end + 1


def _games(stream, parse) -> Iterator[UsiGame]:
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
            start, moves = parse(text)
        except SfenError as error:
            yield UsiGame(number, note, error=str(error), text=text)
            continue
        yield UsiGame(number, note, start, moves, text=text)


def is_game_line(text: str) -> bool:
    """True if a (stripped) line is meant as a USI game: ``startpos …``, ``sfen …``,
    ``position …`` or a bare SFEN (its board has eight ``/``), whether or not it reads.

    >>> is_game_line("startpos moves 7g7f"), is_game_line("9/9/9/9/9/9/9/9/9 b - 1")
    (True, True)
    >>> is_game_line("hello world"), is_game_line("startposition")
    (False, False)
    """
    word = text.split(None, 1)[0] if text else ""
    return word in ("startpos", "sfen", "position") or word.count("/") == 8


def read_usi(text: str, source: str = "", encoding: str = "") -> list:
    """The games of a USI/SFEN text as ``GameRecord``s (format ``usi``), one a line; never
    raises. A game line that does not read is a game with an error (``unparsable_line``); a line
    that is no game line at all is skipped with a warning on the game before it (the first game,
    when it comes before them all), and ``#`` notes above it go on to the next game.

    >>> [len(r.moves) for r in read_usi("startpos moves 7g7f 3c3d\\nposition startpos\\n")]
    [2, 0]
    >>> [game] = read_usi("position startpos moves 7g7f 3c3d resign\\n")
    >>> len(game.moves), game.ending.word, game.ending.mover   # Black, to move, resigned
    (2, 'resign', 0)

A bare SFEN (no ``sfen`` word) is a game too, of no moves when it has none::

    >>> [(len(r.moves), r.start_sfen) for r in read_usi("4k4/9/9/9/9/9/9/9/4K4 w G 5\\n")]
    [(0, '4k4/9/9/9/9/9/9/9/4K4 w G 5')]
    >>> read_usi("sfen moves 7g7f\\n")[0].findings[0].code
    'unparsable_line'
    >>> [(r.index, r.first_line, [(f.code, f.line) for f in r.findings])
    ...  for r in read_usi("hello\\nstartpos moves 7g7f\\nworld\\nstartpos\\n")]
    [(0, 2, [('unparsable_line', 1), ('unparsable_line', 3)]), (1, 4, [])]
    """
    from kifudb.ingest.record import read_safely

    return read_safely(lambda clean: _read(clean, source, encoding), text, source, encoding,
                       "usi", "USI")


#: The words GUIs and engines write after the moves of a USI game line for how it ended
#: (ShogiHome's ``resign``; rsshogi's special tokens ``win``, ``draw``, ``timeout``, ``mate``,
#: ``max_moves``, ``jishogi``; YaneuraOu's repetition states ``rep_draw``, ``rep_win``,
#: ``rep_lose``, ``rep_sup``, ``rep_inf``; ``lose``, ``break``, ``illegal``): each is about the
#: side to move then, and ``ingest.result`` says what it means.
TERMINAL_WORDS = frozenset(ENDING_WORDS["usi"])


def _read(text: str, source: str, encoding: str) -> list:
    from kifudb.ingest.builder import Dialect, RecordBuilder
    from kifudb.ingest.record import ERROR, WARNING, GameRecord

    dialect = Dialect("usi", TERMINAL_WORDS, "the terminal words of USI game lines")
    records: list = []
    note = ""  # the notes of a skipped line, for the next game
    for game in _games(_lines(text), _lazy_position):
        if not is_game_line(game.text):
            if not records:  # lines before the first game: ``read_safely`` passes them on
                records.append(GameRecord(source, 0, "usi", encoding, first_line=game.line,
                                          recognised=False))
            records[-1].add(WARNING, "unparsable_line", "not a USI position line (startpos …, "
                            "sfen … or position …); skipped", game.line,
                            text=game.text[:200])
            note = " ".join(filter(None, (note, game.note)))
            continue
        b = RecordBuilder(source, len(records), "usi", encoding, dialect, game.line)
        b.recognise()
        note, game_note = "", " ".join(filter(None, (note, game.note)))
        if game_note:
            b.comment(game_note, game.line)
        if game.error:
            b.add(ERROR, "unparsable_line", game.error, game.line)
        else:
            b.start(game.start_sfen)
            # a game of thousands of moves (hostile: a real one has a few hundred) keeps one
            # text of each move
            alike = intern if len(game.text) > 8192 else str
            words = TERMINAL_WORDS
            for move in game.moves:
                if move in words:  # the game's ending, not a move (moves after it are said)
                    b.end(move, game.line, text=move)
                else:
                    b.move(alike(move), game.line)
        records.append(b.finish())
    return records


def _bare_sfen(line: str) -> bool:
    """True if ``line`` starts with a SFEN board (nine ranks of pieces and digits).

    >>> _bare_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1")
    True
    >>> _bare_sfen("a/b/c/d/e/f/g/h/i"), _bare_sfen("1/2 cup of tea")
    (False, False)
    """
    board = line.split(None, 1)[0]
    return board.count("/") == 8 and _SFEN_BOARD.fullmatch(board) is not None


_SFEN_BOARD = re.compile(r"(?:[1-9+PLNSGBRKplnsgbrk]+/){8}[1-9+PLNSGBRKplnsgbrk]+")


def looks_like_usi(text: str) -> bool:
    """True if at least half of the first 50 lines that are neither blank nor ``#`` comments
    are USI position lines (so that a junk line before them does not hide them; none in the
    first four is no USI).

    >>> looks_like_usi("startpos moves 7g7f\\n"), looks_like_usi("junk\\nstartpos\\nsfen 9/9/9/9/9/9/9/9/9 b - 1\\n")
    (True, True)
    >>> looks_like_usi("junk\\nmore junk\\nstartpos\\n"), looks_like_usi("手合割：平手\\n")
    (False, False)

A file of bare SFEN lines (a collection of positions) is USI too::

    >>> looks_like_usi("4k4/9/9/9/9/9/9/9/4K4 b G 1\\n4k4/9/9/9/9/9/9/9/4K4 w G 1\\n")
    True
    """
    games = others = 0
    start = 0
    while games + others < 50 and start < len(text):  # without splitting the whole text
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        line = text[start:min(end, start + 64)].strip()
        start = end + 1
        if line and not line.startswith("#"):
            if line.startswith(("startpos", "sfen ", "position ")) or _bare_sfen(line):
                games += 1
            else:
                others += 1
                if others == 4 and not games:
                    return False
    return games > 0 and games >= others
