"""Read CSA game records (V1, V2, V2.1, V2.2, V3.0) into ``GameRecord``s, never raising.

The reader only knows the layout of the format: headers, the start position, move texts with
their line numbers, times, comments and the ``%`` ending. It recognises the statements and hands
what they say to ``ingest.builder.RecordBuilder``, which owns the rules every format shares (a
header given twice, settling the start, where a time or comment goes, a second ending, moves
after the ending). What a move means is the replay's
question (``core.notation.csa.parse_csa_move``), so a move is kept exactly as written::

    >>> text = '''V2.2
    ... N+Sente
    ... N-Gote
    ... $EVENT:example
    ... PI82HI
    ... -
    ... -3334FU,T3
    ... '** 120 +7776FU
    ... +7776FU
    ... T12.5
    ... %TORYO
    ... '''
    >>> [game] = read_csa(text, source="example.csa", encoding="utf-8")
    >>> game.headers["version"], game.headers["black"], game.headers["$EVENT"]
    ('V2.2', 'Sente', 'example')
    >>> game.start_sfen, game.handicap
    ('lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1', '飛車落ち')
    >>> [(m.text, m.line, m.seconds, m.comments) for m in game.moves]
    [('-3334FU', 7, 3, ['** 120 +7776FU']), ('+7776FU', 9, 12.5, ())]
    >>> game.ending
    DeclaredEnding(word='%TORYO', line=11, mover=1, seconds=None, summary='', winner=None)

Nothing is dropped without a word: a line the reader cannot place becomes a ``Finding``
(``unparsable_line``; ``bad_start_position`` for broken ``P`` lines) on its game, and reading goes on::

    >>> [game] = read_csa("PI\\n+\\n+7776FU\\nhello\\n%TORYO\\n-3334FU\\n")
    >>> [(f.code, f.line) for f in game.findings]
    [('unparsable_line', 4), ('moves_after_ending', 6)]
    >>> len(game.moves), game.ending.word
    (2, '%TORYO')

Layout decisions (where the CSA documents leave room):

* ``,`` joins several statements on one line (``+2726FU,T12``, ``N+a,N-b``). After a comment
  statement only ``,'`` starts a new statement, so a comment may contain commas; after ``N`` or
  ``$`` lines only a comma followed by something that starts a statement splits.
* A comment (the text after ``'``, trailing blanks removed) goes to the move it follows; before
  the first move, and after the ``%`` ending (``DeclaredEnding`` has no comments), to
  ``GameRecord.comments``. ``'CSA encoding=…`` (V3.0) and Kifu for Windows' ``'encoding=…`` before
  the first move are header ``encoding``, not comments.
* Headers keep the keys as written (``N+``, ``N-``, ``$EVENT``, ``$TIME+`` …) and add ``black``,
  ``white`` and ``version``. A key written twice with different values keeps the first and
  reports the second (``duplicate_header``). ``version`` and ``encoding`` carry over to the
  later games of a file (V3.0 writes them once, before the first record).
* ``GameRecord.handicap`` is the KIF name of the start position when it is a standard handicap
  (from ``PI`` with removed pieces or from a ``P1``..``P9`` board), else None.
* A move-like line that is not exactly ``[+-]DDDDXX`` is still kept as a move (with an error
  finding) so that the plies after it keep their numbers; the replay reports it where it stands.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Optional

from kifudb.core.pieces import (BLACK, WHITE, CSA_CODES, CSA_TYPES, FULL_SET, HAND_TYPES, UNPROMOTED,
                         piece, piece_colour, piece_type, square)
from kifudb.core.position import sfen_of, STARTING_SFEN, Position
from kifudb.core.notation._common import bounded_store
from kifudb.core.kifu import ENDING_WORDS
from kifudb.core.numbers import ascii_digits
from kifudb.ingest.builder import Dialect, RecordBuilder
from kifudb.ingest.record import GameRecord, ERROR, WARNING, read_safely
from kifudb.ingest.csa1 import read_csa1, looks_like_csa1

__all__ = ["read_csa", "looks_like_csa", "read_csa1", "looks_like_csa1", "ENDINGS"]

#: The special moves (終局) of CSA V2.2 and V3.0.
ENDINGS = frozenset(ENDING_WORDS["csa"])

#: What CSA calls the things the builder checks (``ingest.builder``): a second ``%`` line is an
#: ``unparsable_line``, and a comment after the ending belongs to the game.
DIALECT = Dialect("csa", ENDINGS, "the special moves of CSA V2.2/V3.0",
                  second_ending="unparsable_line", comments_after_ending="game")
_PIECE_CODES = frozenset(CSA_TYPES)
_SQUARES = [f"{f}{r}" for f in range(1, 10) for r in range(1, 10)]
#: Every from- and to-square pair a CSA move can name ("7776", "0055"): one set lookup per move.
_SQUARE_PAIRS = frozenset(a + b for a in ["00"] + _SQUARES for b in _SQUARES)
_EVEN_BOARD = Position().board[:]  # the even-game start, 81 piece codes
#: move lines (``[+-]DDDDXX``) already read: the moves most games play are checked once (one
#: lookup of the line, whose hash the replay's lookup of the move text reuses)
_MOVE_LINES: dict[str, bool] = {}


def _starts_statement(text: str) -> bool:
    """True if ``text`` (a piece of a comma-joined line) begins like a CSA statement."""
    if not text:
        return False
    c, d = text[0], text[1:2]
    if c == "'":
        return True
    if c == "+" or c == "-":
        return d == "" or ascii_digits(d)
    if c == "%":
        return d.isalpha() or d in ("+", "-")
    if c == "T":
        return d.isdigit()
    if c == "N":
        return d in ("+", "-")
    if c == "$":
        return d.isalpha()
    if c == "P":
        return d != "" and d in "123456789I+-"
    if c == "V":
        return d.isdigit()
    return False


def _split_statements(line: str) -> list:
    """The statements of a comma-joined line (``+2726FU,T12`` -> ``['+2726FU', 'T12']``)."""
    parts = line.split(",")
    out = [parts[0]]
    for part in parts[1:]:
        head = out[-1].lstrip()[:1]
        stripped = part.lstrip()
        if head == "'":
            split = stripped[:1] == "'"
        elif head in ("N", "$"):
            split = _starts_statement(stripped)
        else:
            split = True
        if split:
            out.append(part)
        else:
            out[-1] += "," + part
    return out


def _parse_seconds(text: str):
    """``12`` -> 12, ``12.345`` -> 12.345; None if ``text`` is not a plain decimal number."""
    if ascii_digits(text):
        return int(text)
    whole, dot, fraction = text.partition(".")
    if dot and ascii_digits(whole) and ascii_digits(fraction):
        return float(text)
    return None


_ROW_SQUARES = [tuple(square(file, rank) for file in range(9, 0, -1)) for rank in range(1, 10)]


@lru_cache(maxsize=4096)
def _row_cells(text: str) -> tuple:
    """The nine piece codes of a ``P1``..``P9`` row's text, file 9 first, and what is wrong with it.

    >>> _row_cells("-KY-KE * -KI-OU * +TO * -KY")
    ((18, 19, 0, 23, 24, 0, 9, 0, 18), None)
    """
    cells = []
    i, n = 0, len(text)
    problem = None
    while i < n:
        c = text[i]
        if c == " ":
            i += 1
        elif c == "*":
            cells.append(0)
            i += 1
        elif c == "+" or c == "-":
            t = CSA_TYPES.get(text[i + 1:i + 3])
            if t is None:
                problem = problem or f"unknown piece {text[i:i + 3]!r}"
                cells.append(0)
            else:
                cells.append(piece(WHITE if c == "-" else BLACK, t))
            i += 3
        else:
            problem = problem or f"unexpected {c!r} (a cell is ' * ' or a side and piece: +FU)"
            i += 1
    if len(cells) != 9:
        problem = problem or f"{len(cells)} squares instead of 9"
    return (tuple(cells) + (0,) * 9)[:9], problem  # missing squares are empty


class _Game:
    """One game of a CSA text while its statements are read: the builder that makes its
    ``GameRecord``, and the start position the ``P`` lines draw until the first move settles it
    (``board``: 81 piece codes or None until PI, a row or a piece list; ``hands``; ``side``)."""

    def __init__(self, source: str, index: int, encoding: str, first_line: int):
        self.b = RecordBuilder(source, index, "csa", encoding, DIALECT, first_line)
        self.record = self.b.record
        self.board: Optional[list] = None  # None until PI, a P1..P9 row or a P+/P- list
        self.hands = [[0] * 8, [0] * 8]
        self.position_line: Optional[int] = None
        self.rows_seen: dict = {}  # rank -> line
        self.side: Optional[int] = None

    def bad_position(self, message: str, line: Optional[int], text: str) -> None:
        self.b.add(ERROR, "bad_start_position", message, line, text=text)

    def start_board(self) -> list:
        if self.board is None:
            self.board = [0] * 81
        return self.board

    # ----- statements ---------------------------------------------------------------------------

    def statement(self, s: str, line: int) -> None:
        """One statement (a line, or a piece of a comma-joined one): handed to the method of its
        kind; one that is none is reported (``unparsable_line``), a signless move is kept."""
        c = s[0]
        if c == "+" or c == "-":
            if len(s) == 1:
                self.side_line(s, line)
            elif ascii_digits(s[1:2]):
                self.move(s, line)
            else:
                self.b.add(WARNING, "unparsable_line", "not a CSA statement: a line starting with "
                           "+ or - is a move (+7776FU) or the side to move (+ alone)", line, text=s)
        elif c == "T":
            self.time(s, line)
        elif c == "'":
            self.comment(s, line)
        elif c == "%":
            self.ending(s, line)
        elif c == "P" and s[1:2] != "" and s[1:2] in "I+-123456789":
            self.position(s, line)
        elif c == "N":
            if s[1:2] in ("+", "-") and len(s) >= 2:
                name = s[2:]
                if self.b.header(s[:2], name, line, s):
                    self.b.header("black" if s[1] == "+" else "white", name.strip(), line, s)
            else:
                self.b.add(WARNING, "unparsable_line", "not a CSA statement: N must be followed "
                           "by + or - and the player's name (N+NAKAHARA)", line, text=s)
        elif c == "$":
            key, colon, value = s.partition(":")
            if colon and len(key) > 1:
                self.b.header(key, value, line, s)
            else:
                self.b.add(WARNING, "unparsable_line", "a game-information line needs a key and a "
                           "colon ($EVENT:...)", line, text=s)
        elif c == "V" and s[1:2].isdigit():
            self.b.header("version", s, line, s)
        elif len(s) == 6 and s[:4] in _SQUARE_PAIRS and s[4:] in _PIECE_CODES:
            self.b.add(WARNING, "unparsable_line", "a move without its side sign (+ or -); kept "
                       "as a move", line, self.b.current.ply, s)
            self.move(s, line, checked=True)
        else:
            self.b.add(WARNING, "unparsable_line", "not a CSA statement (expected V, N, $, P, "
                       "+, -, T, %, ' or /)", line, text=s)

    def comment(self, text: str, line: int) -> None:
        """A ``'`` statement: its text (trailing blanks removed) is a comment for the builder;
        ``'CSA encoding=…`` or ``'encoding=…`` before the moves is header ``encoding``."""
        body = text[1:].rstrip()
        record = self.record
        if not record.moves and record.ending is None \
                and (body.startswith("CSA encoding=") or body.startswith("encoding=")):
            self.b.header("encoding", body.partition("=")[2].strip(), line, text)
            return
        self.b.comment(body, line)

    def side_line(self, s: str, line: int) -> None:
        """``+`` or ``-`` alone: the side to move at the start. Given twice differently it is
        reported (``bad_start_position``), after the moves began too (``unparsable_line``)."""
        if self.b.settled:
            self.b.start_too_late("a side-to-move line", line, s)
            return
        if self.side is not None and self.side != (s == "-"):
            self.bad_position("the side to move is given twice, differently; the last one is "
                              "used", line, s)
        self.side = BLACK if s == "+" else WHITE

    def move(self, s: str, line: int, checked: bool = False) -> None:
        """A move statement for the builder (the first one settles the start). Unless ``checked``
        says it is ``[+-]DDDDXX``, its shape is checked: a bad one is still kept as a move so that
        the plies after it keep their numbers (``unparsable_line``, an error)."""
        b = self.b
        if not b.settled:
            self.settle(line, s)
        if not checked and not (len(s) == 7 and s[1:5] in _SQUARE_PAIRS and s[5:] in _PIECE_CODES):
            b.add(ERROR, "unparsable_line", "not a CSA move (expected a sign, from- and to-square "
                  "and piece code, e.g. +7776FU); kept as a move so the replay reports it at its "
                  "ply", line, b.current.ply, s)
        b.move(s, line)

    def time(self, s: str, line: int) -> None:
        """A ``T`` statement: the seconds of the move or ending before it, for the builder; one
        that is not a number is reported (``unparsable_line``)."""
        value = s[1:]
        seconds = _parse_seconds(value)
        if seconds is None:
            self.b.add(WARNING, "unparsable_line", "a time line is T and a number of seconds "
                       "(T12, or T12.345 in V3.0)", line, text=s)
            return
        self.b.time(seconds, line, s)

    def ending(self, s: str, line: int) -> None:
        """A ``%`` statement: the declared ending, for the builder (which reports a second one
        and a word CSA does not define); ``%`` and no word is reported (``unparsable_line``)."""
        self.settle(line)
        if s not in ENDINGS:
            word = s[1:].lstrip("+-")
            if not (word and word.replace("_", "").isalpha() and word.isascii() and word.isupper()):
                self.b.add(WARNING, "unparsable_line", "% must be followed by a special move "
                           "(%TORYO, %CHUDAN ...)", line, text=s)
                return
        self.b.end(s, line, text=s)

    # ----- the start position -------------------------------------------------------------------

    def position(self, s: str, line: int) -> None:
        """A ``P`` line (``PI``, ``P1``..``P9``, ``P+``/``P-``) drawing the start position; after
        the moves began it is reported (``unparsable_line``)."""
        if self.b.settled:
            self.b.start_too_late("a start-position line", line, s)
            return
        kind = s[1:2]
        if self.position_line is None:
            self.position_line = line
        if kind == "I":
            self.handicap_line(s, line)
        elif kind in ("+", "-"):
            self.piece_list(s, line)
        else:
            self.board_row(s, line)

    def handicap_line(self, s: str, line: int) -> None:
        """``PI`` and the pieces the handicap removes from the even start (``PI82HI22KA``)."""
        if self.board is not None and any(self.board):
            self.bad_position("PI after other start-position lines; the even start replaces "
                              "them", line, s)
        self.board = _EVEN_BOARD[:]
        rest = s[2:].strip()
        board = self.board
        for i in range(0, len(rest), 4):
            group = rest[i:i + 4]
            t = CSA_TYPES.get(group[2:])
            if len(group) != 4 or not ascii_digits(group[:2]) or "0" in group[:2] or t is None:
                self.bad_position(f"{group!r} is not a square and piece to remove (PI82HI22KA)",
                                  line, s)
                continue
            sq = square(int(group[0]), int(group[1]))
            if piece_type(board[sq]) != t:
                self.bad_position(f"PI removes {group[2:]} from {group[:2]}, but the even start "
                                  f"has {CSA_CODES[piece_type(board[sq])] or 'nothing'} there", line, s)
                continue
            board[sq] = 0

    def board_row(self, s: str, line: int) -> None:
        """``P1``..``P9``: one rank of the board, file 9 first."""
        rank = int(s[1]) - 1
        if rank in self.rows_seen:
            self.bad_position(f"P{rank + 1} is given again (first on line "
                              f"{self.rows_seen[rank]}); the new row replaces it", line, s)
        self.rows_seen[rank] = line
        board = self.start_board()
        cells, problem = _row_cells(s[2:])
        if problem:
            self.bad_position(f"board row P{rank + 1}: {problem}; unreadable squares are left "
                              f"empty", line, s)
        for sq, code in zip(_ROW_SQUARES[rank], cells):
            board[sq] = code

    def piece_list(self, s: str, line: int) -> None:
        """``P+``/``P-``: pieces one side has on squares or (``00``) in hand; ``00AL`` the rest."""
        colour = BLACK if s[1] == "+" else WHITE
        board = self.start_board()
        rest = s[2:].strip()
        for i in range(0, len(rest), 4):
            group = rest[i:i + 4]
            where, code = group[:2], group[2:]
            if len(group) != 4 or not ascii_digits(where) or (where[0] == "0") != (where[1] == "0"):
                self.bad_position(f"{group!r} is not a square and piece (P+63TO, P-00KA, P-00AL)",
                                  line, s)
                continue
            if where == "00" and code == "AL":
                self.all_to_hand(colour)
                continue
            t = CSA_TYPES.get(code)
            if t is None:
                self.bad_position(f"unknown piece {code!r} in {group!r}", line, s)
                continue
            if where == "00":
                if t not in HAND_TYPES:
                    self.bad_position(f"{code} cannot be in hand (only FU KY KE GI KI KA HI)",
                                      line, s)
                    continue
                self.hands[colour][t] += 1
                continue
            sq = square(int(where[0]), int(where[1]))
            if board[sq]:
                self.bad_position(f"{where} is already taken by {'+-'[piece_colour(board[sq])]}"
                                  f"{CSA_CODES[piece_type(board[sq])]}; {group} is not placed", line, s)
                continue
            board[sq] = piece(colour, t)

    def all_to_hand(self, colour: int) -> None:
        """``00AL``: every piece not on the board nor in a hand goes to ``colour``'s hand."""
        counts = [0] * 9
        for code in self.start_board():
            if code:
                counts[UNPROMOTED[piece_type(code)]] += 1
        for t in HAND_TYPES:
            left = FULL_SET[t] - counts[t] - self.hands[BLACK][t] - self.hands[WHITE][t]
            if left > 0:
                self.hands[colour][t] += left

    def settle(self, line: int, first_move: str = "") -> None:
        """Hand the builder the start position the ``P`` lines drew, at the first move
        (``first_move``) or ending, or at the end. What CSA requires and the record left out is
        reported (``bad_start_position``): no side-to-move line (the first move's sign, else
        Black, is used), no position at all (the even start), missing board rows."""
        b = self.b
        if b.settled:
            return
        if self.side is None:
            first = first_move[:1]
            if self.board is not None or first_move:
                where = self.position_line or line
                b.add(WARNING, "bad_start_position", "no side-to-move line (+ or -) after the "
                      "start position; " + ("the first move's sign is used"
                                            if first in ("+", "-") else "Black is assumed"), where)
            self.side = WHITE if first == "-" else BLACK
        if self.board is not None:  # P lines drew a start: the record is a game's
            b.recognise()
        else:
            record = self.record
            if first_move or record.ending is not None or record.headers:
                b.add(WARNING, "bad_start_position", "no start position (PI, P1..P9 or P+/P-); "
                      "the even start is assumed", line)
            self.board = _EVEN_BOARD
        if self.rows_seen and len(self.rows_seen) < 9:
            missing = ", ".join(f"P{r + 1}" for r in range(9) if r not in self.rows_seen)
            self.bad_position(f"board rows missing ({missing}); those ranks are left empty",
                              self.position_line, "")
        if self.board == _EVEN_BOARD and self.side == BLACK and not any(map(any, self.hands)):
            sfen = STARTING_SFEN  # the usual start, without writing it again
        else:
            sfen = sfen_of(self.board, self.hands, self.side)
        b.start(sfen, line=self.position_line, check=True)

    def finish(self, carried: dict) -> GameRecord:
        """Close the game; ``carried`` passes ``version`` and ``encoding`` on to later games."""
        self.settle(self.record.first_line or 1)
        record = self.b.finish()
        for key in ("version", "encoding"):
            if key in record.headers:
                carried[key] = record.headers[key]
            elif key in carried:
                record.headers[key] = carried[key]
        return record


def read_csa(text: object, source: str = "", encoding: str = "") -> list:
    """The games of a CSA text (several when ``/`` lines separate them); never raises.

    ``text`` is already decoded; ``source`` and ``encoding`` are copied into each record.
    A text with no game at all gives one record with a ``no_game`` finding.

    >>> games = read_csa("PI\\n+\\n+7776FU\\n%TORYO\\n/\\nPI\\n+\\n+2726FU\\n-8384FU\\n")
    >>> [(g.index, g.first_line, len(g.moves), g.ending and g.ending.mover) for g in games]
    [(0, 1, 1, 1), (1, 6, 2, None)]
    """
    return read_safely(lambda clean: _read(clean, source, encoding), text, source, encoding,
                       "csa", "CSA")


def _read(text: str, source: str, encoding: str) -> list:
    games: list = []
    carried: dict = {}
    game: Optional[_Game] = None
    b: Optional[RecordBuilder] = None  # the game's builder, once its start is settled
    pairs, codes, known = _SQUARE_PAIRS, _PIECE_CODES, _MOVE_LINES
    lines = text.split("\n")
    lines.append("")  # every line has one after it
    rows = enumerate(lines, start=1)
    for number, raw in rows:
        line = raw.strip()
        if not line:
            continue
        if b is not None:
            # the commonest lines once the moves began: a move (+7776FU) and the time line after
            # it (T12), a move and its time (+7776FU,T12), a time, a comment. Recognised here and
            # handed to the builder as the statements of the general path below would be.
            c = line[0]
            if c == "+" or c == "-":
                if line in known or (line[1:5] in pairs and line[5:7] in codes):
                    if len(line) == 7:
                        if line not in known:
                            bounded_store(known, line, True)
                        after = lines[number]  # the next line
                        if after[:1] == "T":
                            seconds = after[1:].rstrip()
                            if ascii_digits(seconds):
                                b.move(line, number, None, int(seconds))
                                next(rows)  # the time line is read
                                continue
                        b.move(line, number)
                        continue
                    if line[7:9] == ",T" and ascii_digits(line[9:]):
                        b.move(line[:7], number, None, int(line[9:]))
                        continue
            elif c == "T":
                if ascii_digits(line[1:]):
                    b.time(int(line[1:]), number, line)
                    continue
            elif c == "'":
                b.comment(line[1:], number)
                continue
        if line == "/":
            if game is not None:
                games.append(game.finish(carried))
                game = b = None
            continue
        if game is None:
            game = _Game(source, len(games), encoding, number)
        if line[0] == "'":
            game.comment(line, number)
        elif "," in line and _starts_statement(line):
            for part in _split_statements(line):
                part = part.strip()
                if part:
                    game.statement(part, number)
        else:
            game.statement(line, number)
        if b is None and game.b.settled:
            b = game.b
    if game is not None:
        games.append(game.finish(carried))
    if not games:
        record = GameRecord(source=source, index=0, format="csa", encoding=encoding)
        record.add(ERROR, "no_game", "no CSA game in the text (it is empty or only '/' lines)")
        games.append(record)
    return games


_STRONG = ("PI", "P1", "P+", "P-", "N+", "N-", "$", "V2", "V3", "'CSA encoding")


def looks_like_csa(text: object) -> bool:
    """True if the first 40 non-empty lines read like CSA: mostly CSA statements, and at least
    one of a move (``+7776FU``), a start position, a player name, a version or a ``$`` line.

    >>> looks_like_csa("V2.2\\nPI\\n+\\n+7776FU\\n"), looks_like_csa("手合割：平手\\n１ ７六歩(77)\\n")
    (True, False)
    >>> looks_like_csa("1 2003/09/08 a b 2 2 e o\\n7776FU3334FU\\n")
    False
    """
    if not isinstance(text, str):
        return False
    seen = statements = known = 0
    strong = False
    pairs, codes = _SQUARE_PAIRS, _PIECE_CODES
    for raw in text[:16384].lstrip("\ufeff").split("\n", 80):
        line = raw.strip()
        if not line:
            continue
        seen += 1
        if seen > 40:
            break
        c = line[0]
        if c == "'":
            strong = strong or line.startswith("'CSA encoding")
            continue
        statements += 1
        if "," in line:
            s = line.split(",", 1)[0].strip()
            c = s[:1]
        else:
            s = line
        if c == "+" or c == "-":  # a move or the side to move
            if len(s) == 1:
                known += 1
            elif len(s) == 7 and s[1:5] in pairs and s[5:] in codes:
                known += 1
                strong = True
        elif c == "T":  # a time
            value = s[1:]
            if (value.isdigit() and value.isascii()) or _parse_seconds(value) is not None:
                known += 1
        elif c == "%" or c == "/":
            if s in ENDINGS or s == "/":
                known += 1
        elif s.startswith(_STRONG) or (c == "P" and s[1:2] in "23456789" and len(s) > 2) or (
                c == "V" and s[1:2].isdigit()):
            known += 1
            strong = True
        if strong and known >= 20:  # at most 40 statements: the answer cannot change
            return True
    return strong and statements > 0 and known * 2 >= statements
