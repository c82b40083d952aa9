"""Read CSA game records (V1, V2, V2.1, V2.2, V3.0) into ``GameRecord``s, never raising.

The reader only knows the layout of the format: headers, the start position, move texts with
their line numbers, times, comments and the ``%`` ending. What a move means is the replay's
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
    [('-3334FU', 7, 3, ['** 120 +7776FU']), ('+7776FU', 9, 12.5, [])]
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

from core.handicap import handicap_name
from core.pieces import BLACK, WHITE, CSA_CODES, FULL_SET, HAND_TYPES, unpromoted
from core.position import sfen_of, STARTING_SFEN, Position, SfenError
from ingest.record import DeclaredEnding, GameRecord, MoveRecord, ERROR, WARNING, read_safely
from ingest.csa1 import read_csa1, looks_like_csa1

__all__ = ["read_csa", "looks_like_csa", "read_csa1", "looks_like_csa1", "ENDINGS"]

#: The special moves (終局) of CSA V2.2 and V3.0.
ENDINGS = frozenset({
    "%TORYO", "%CHUDAN", "%SENNICHITE", "%TIME_UP", "%ILLEGAL_MOVE", "%+ILLEGAL_ACTION",
    "%-ILLEGAL_ACTION", "%JISHOGI", "%KACHI", "%HIKIWAKE", "%MATTA", "%TSUMI", "%FUZUMI",
    "%ERROR", "%MAX_MOVES",
})

_CODE_TYPES = {code: t for t, code in enumerate(CSA_CODES) if code}
_PIECE_CODES = frozenset(_CODE_TYPES)
_SQUARES = [f"{f}{r}" for f in range(1, 10) for r in range(1, 10)]
#: Every from- and to-square pair a CSA move can name ("7776", "0055"): one set lookup per move.
_SQUARE_PAIRS = frozenset(a + b for a in ["00"] + _SQUARES for b in _SQUARES)
_EVEN_BOARD = Position().board[:]  # the even-game start, 81 piece codes
_MAX_TEXT = 200  # a finding quotes at most this much of the line


def _digits(text: str) -> bool:
    """True if ``text`` is one or more ASCII digits (``str.isdigit`` alone accepts '²')."""
    return text.isascii() and text.isdigit()


def _quote(text: str) -> str:
    return text if len(text) <= _MAX_TEXT else text[:_MAX_TEXT] + "…"


def _starts_statement(text: str) -> bool:
    """True if ``text`` (a piece of a comma-joined line) begins like a CSA statement."""
    if not text:
        return False
    c, d = text[0], text[1:2]
    if c == "'":
        return True
    if c == "+" or c == "-":
        return d == "" or _digits(d)
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
    if _digits(text):
        return int(text)
    whole, dot, fraction = text.partition(".")
    if dot and _digits(whole) and _digits(fraction):
        return float(text)
    return None


def _sfen(board: list, hands: list, side: int) -> str:
    return sfen_of(board, hands, side)


@lru_cache(maxsize=4096)
def _check_sfen(sfen: str) -> Optional[str]:
    """None if ``Position`` accepts the SFEN, else its complaint (start positions repeat)."""
    try:
        Position.from_sfen(sfen)
    except SfenError as error:
        return str(error)
    return None


_ROW_SQUARES = [tuple((8 - k) * 9 + rank for k in range(9)) for rank in range(9)]  # file 9 first


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
            t = _CODE_TYPES.get(text[i + 1:i + 3])
            if t is None:
                problem = problem or f"unknown piece {text[i:i + 3]!r}"
                cells.append(0)
            else:
                cells.append(t + (16 if c == "-" else 0))
            i += 3
        else:
            problem = problem or f"unexpected {c!r} (a cell is ' * ' or a side and piece: +FU)"
            i += 1
    if len(cells) != 9:
        problem = problem or f"{len(cells)} squares instead of 9"
    return (tuple(cells) + (0,) * 9)[:9], problem  # missing squares are empty


class _Game:
    """The state of one game while its lines are read."""

    def __init__(self, source: str, index: int, encoding: str, first_line: int):
        self.record = GameRecord(source=source, index=index, format="csa", encoding=encoding,
                                 first_line=first_line)
        self.board: Optional[list] = None  # None until PI, a P1..P9 row or a P+/P- list
        self.hands = [[0] * 8, [0] * 8]
        self.position_line: Optional[int] = None
        self.rows_seen: dict = {}  # rank -> line
        self.side: Optional[int] = None
        self.settled = False  # True once the first move, time or ending fixed the start
        self.first_side = BLACK
        self.after_ending: list = []  # plies of moves written after the ending
        self.timed = None  # the MoveRecord or DeclaredEnding the next T line belongs to

    # ----- helpers ------------------------------------------------------------------------------

    def add(self, severity, code, message, line, text="", ply=None):
        self.record.add(severity, code, message, line=line, ply=ply, text=_quote(text))

    def bad_position(self, message, line, text):
        self.add(ERROR, "bad_start_position", message, line, text)

    def start_board(self) -> list:
        if self.board is None:
            self.board = [0] * 81
        return self.board

    # ----- statements ---------------------------------------------------------------------------

    def comment(self, text: str, line: int) -> None:
        body = text[1:].rstrip()
        record = self.record
        if not record.moves and record.ending is None:
            if body.startswith("CSA encoding=") or body.startswith("encoding="):
                self.header("encoding", body.partition("=")[2].strip(), line, text)
                return
            record.comments.append(body)
        elif record.ending is not None and not self.after_ending:
            record.comments.append(body)
        else:
            record.moves[-1].comments.append(body)

    def header(self, key: str, value: str, line: int, text: str) -> bool:
        """Set a header; False (and a finding) if it already has another value."""
        headers = self.record.headers
        old = headers.get(key)
        if old is None:
            headers[key] = value
        elif old != value:
            self.add(WARNING, "duplicate_header",
                     f"{key} is given again ({value!r}); the first value {old!r} is kept", line, text)
            return False
        return True

    def statement(self, s: str, line: int) -> None:
        c = s[0]
        if c == "+" or c == "-":
            if len(s) == 1:
                self.side_line(s, line)
            elif _digits(s[1:2]):
                self.move(s, line)
            else:
                self.add(WARNING, "unparsable_line",
                         "not a CSA statement: a line starting with + or - is a move "
                         "(+7776FU) or the side to move (+ alone)", line, s)
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
                if self.header(s[:2], name, line, s):
                    self.header("black" if s[1] == "+" else "white", name.strip(), line, s)
            else:
                self.add(WARNING, "unparsable_line", "not a CSA statement: N must be followed "
                         "by + or - and the player's name (N+NAKAHARA)", line, s)
        elif c == "$":
            key, colon, value = s.partition(":")
            if colon and len(key) > 1:
                self.header(key, value, line, s)
            else:
                self.add(WARNING, "unparsable_line",
                         "a game-information line needs a key and a colon ($EVENT:...)", line, s)
        elif c == "V" and s[1:2].isdigit():
            self.header("version", s, line, s)
        elif len(s) == 6 and s[:4] in _SQUARE_PAIRS and s[4:] in _PIECE_CODES:
            self.add(WARNING, "unparsable_line", "a move without its side sign (+ or -); kept "
                     "as a move", line, s, ply=len(self.record.moves) + 1)
            self.move(s, line, checked=True)
        else:
            self.add(WARNING, "unparsable_line", "not a CSA statement (expected V, N, $, P, "
                     "+, -, T, %, ' or /)", line, s)

    def side_line(self, s: str, line: int) -> None:
        if self.settled:
            self.add(ERROR, "unparsable_line", "a side-to-move line after the moves began",
                     line, s)
            return
        if self.side is not None and self.side != (s == "-"):
            self.bad_position("the side to move is given twice, differently; the last one is "
                              "used", line, s)
        self.side = BLACK if s == "+" else WHITE

    def move(self, s: str, line: int, checked: bool = False) -> None:
        if not self.settled:
            self.settle(line, s)
        record = self.record
        if not checked and not (len(s) == 7 and s[1:5] in _SQUARE_PAIRS and s[5:] in _PIECE_CODES):
            self.add(ERROR, "unparsable_line", "not a CSA move (expected a sign, from- and "
                     "to-square and piece code, e.g. +7776FU); kept as a move so the replay "
                     "reports it at its ply", line, s, ply=len(record.moves) + 1)
        move = MoveRecord(s, line, "csa")
        record.moves.append(move)
        self.timed = move
        if record.ending is not None:
            self.after_ending.append(len(record.moves))

    def time(self, s: str, line: int) -> None:
        value = s[1:]
        seconds = int(value) if value.isdigit() and value.isascii() else _parse_seconds(value)
        if seconds is None:
            self.add(WARNING, "unparsable_line", "a time line is T and a number of seconds "
                     "(T12, or T12.345 in V3.0)", line, s)
            return
        target = self.timed
        if target is None:
            self.add(WARNING, "unparsable_line", "a time line that follows no move", line, s)
        elif target.seconds is not None:
            self.add(WARNING, "unparsable_line", f"a second time line for the same move "
                     f"(it took {target.seconds} s); the first is kept", line, s)
        else:
            target.seconds = seconds

    def ending(self, s: str, line: int) -> None:
        self.settle(line)
        record = self.record
        if record.ending is not None:
            self.add(WARNING, "unparsable_line", f"a second ending after {record.ending.word} "
                     f"(line {record.ending.line}); the first is kept", line, s)
            self.timed = None
            return
        if s not in ENDINGS:
            word = s[1:].lstrip("+-")
            if not (word and word.replace("_", "").isalpha() and word.isascii() and word.isupper()):
                self.add(WARNING, "unparsable_line", "% must be followed by a special move "
                         "(%TORYO, %CHUDAN ...)", line, s)
                return
            self.add(WARNING, "unknown_ending", "not one of the special moves of CSA V2.2/V3.0; "
                     "kept as the ending as written", line, s)
        mover = self.first_side ^ (len(record.moves) & 1)
        record.ending = DeclaredEnding(s, line=line, mover=mover)
        self.timed = record.ending

    # ----- the start position -------------------------------------------------------------------

    def position(self, s: str, line: int) -> None:
        if self.settled:
            self.add(ERROR, "unparsable_line", "a start-position line after the moves began",
                     line, s)
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
        if self.board is not None and any(self.board):
            self.bad_position("PI after other start-position lines; the even start replaces "
                              "them", line, s)
        self.board = _EVEN_BOARD[:]
        rest = s[2:].strip()
        board = self.board
        for i in range(0, len(rest), 4):
            group = rest[i:i + 4]
            t = _CODE_TYPES.get(group[2:])
            if len(group) != 4 or not _digits(group[:2]) or "0" in group[:2] or t is None:
                self.bad_position(f"{group!r} is not a square and piece to remove (PI82HI22KA)",
                                  line, s)
                continue
            sq = (int(group[0]) - 1) * 9 + int(group[1]) - 1
            if board[sq] & 15 != t:
                self.bad_position(f"PI removes {group[2:]} from {group[:2]}, but the even start "
                                  f"has {CSA_CODES[board[sq] & 15] or 'nothing'} there", line, s)
                continue
            board[sq] = 0

    def board_row(self, s: str, line: int) -> None:
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
        colour = BLACK if s[1] == "+" else WHITE
        board = self.start_board()
        rest = s[2:].strip()
        for i in range(0, len(rest), 4):
            group = rest[i:i + 4]
            where, code = group[:2], group[2:]
            if len(group) != 4 or not _digits(where) or (where[0] == "0") != (where[1] == "0"):
                self.bad_position(f"{group!r} is not a square and piece (P+63TO, P-00KA, P-00AL)",
                                  line, s)
                continue
            if where == "00" and code == "AL":
                self.all_to_hand(colour)
                continue
            t = _CODE_TYPES.get(code)
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
            sq = (int(where[0]) - 1) * 9 + int(where[1]) - 1
            if board[sq]:
                self.bad_position(f"{where} is already taken by {'+-'[board[sq] >> 4]}"
                                  f"{CSA_CODES[board[sq] & 15]}; {group} is not placed", line, s)
                continue
            board[sq] = t + 16 * colour

    def all_to_hand(self, colour: int) -> None:
        """``00AL``: every piece not on the board nor in a hand goes to ``colour``'s hand."""
        counts = [0] * 9
        for code in self.board:
            if code:
                counts[unpromoted(code & 15)] += 1
        for t in HAND_TYPES:
            left = FULL_SET[t] - counts[t] - self.hands[BLACK][t] - self.hands[WHITE][t]
            if left > 0:
                self.hands[colour][t] += left

    def settle(self, line: int, first_move: str = "") -> None:
        """Fix the start position: at the first move (``first_move``) or ending, or at the end."""
        if self.settled:
            return
        self.settled = True
        record = self.record
        if self.side is None:
            first = first_move[:1]
            if self.board is not None or first_move:
                where = self.position_line or line
                self.add(WARNING, "bad_start_position", "no side-to-move line (+ or -) after "
                         "the start position; " + ("the first move's sign is used"
                                                   if first in ("+", "-") else "Black is assumed"),
                         where)
            self.side = WHITE if first == "-" else BLACK
        self.first_side = self.side
        if self.board is None:
            if first_move or record.ending is not None or record.headers:
                self.add(WARNING, "bad_start_position", "no start position (PI, P1..P9 or "
                         "P+/P-); the even start is assumed", line)
            self.board = _EVEN_BOARD
        if self.rows_seen and len(self.rows_seen) < 9:
            missing = ", ".join(f"P{r + 1}" for r in range(9) if r not in self.rows_seen)
            self.bad_position(f"board rows missing ({missing}); those ranks are left empty",
                              self.position_line, "")
        if self.board == _EVEN_BOARD and self.side == BLACK and not any(map(any, self.hands)):
            record.start_sfen = STARTING_SFEN
            return
        sfen = _sfen(self.board, self.hands, self.side)
        record.start_sfen = sfen
        problem = _check_sfen(sfen)
        if problem:
            self.bad_position(f"the start position is not a legal setup: {problem}",
                              self.position_line, "")
        name = handicap_name(sfen)
        if name is not None and name != "平手":
            record.handicap = name

    def finish(self, carried: dict) -> GameRecord:
        """Close the game; ``carried`` passes ``version`` and ``encoding`` on to later games."""
        record = self.record
        if not self.settled:
            self.settle(record.first_line or 1)
        if self.after_ending:
            first = self.after_ending[0]
            move = record.moves[first - 1]
            self.add(WARNING, "moves_after_ending",
                     f"{len(self.after_ending)} move(s) follow the ending {record.ending.word} "
                     f"(line {record.ending.line}); kept as moves", move.line, move.text, ply=first)
        for key in ("version", "encoding"):
            if key in record.headers:
                carried[key] = record.headers[key]
            elif key in carried:
                record.headers[key] = carried[key]
        return record


def read_csa(text: str, source: str = "", encoding: str = "") -> list:
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
    games = []
    carried: dict = {}
    game = None
    moves = None  # the moves of the game, once its start is settled and while no ending came
    pairs, codes = _SQUARE_PAIRS, _PIECE_CODES
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        # the hot path: a plain move line (+7776FU, +7776FU,T12), time line (T12) or comment in
        # the moves of a game
        if moves is not None:
            c = line[0]
            if (c == "+" or c == "-") and line[1:5] in pairs and line[5:7] in codes:
                if len(line) == 7:
                    move = game.timed = MoveRecord(line, number, "csa")
                    moves.append(move)
                    continue
                if line[7:9] == ",T" and line[9:].isdigit() and line.isascii():
                    move = game.timed = MoveRecord(line[:7], number, "csa", int(line[9:]))
                    moves.append(move)
                    continue
            if c == "T" and line[1:].isdigit() and line.isascii() and game.timed is not None \
                    and game.timed.seconds is None:
                game.timed.seconds = int(line[1:])
                continue
            if c == "'" and moves:  # a comment on the last move (what _Game.comment does)
                moves[-1].comments.append(line[1:])
                continue
        if line == "/":
            if game is not None:
                games.append(game.finish(carried))
                game = moves = None
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
        record = game.record
        moves = record.moves if game.settled and record.ending is None else None
    if game is not None:
        games.append(game.finish(carried))
    if not games:
        record = GameRecord(source=source, index=0, format="csa", encoding=encoding)
        record.add(ERROR, "no_game", "no CSA game in the text (it is empty or only '/' lines)")
        games.append(record)
    return games


_STRONG = ("PI", "P1", "P+", "P-", "N+", "N-", "$", "V2", "V3", "'CSA encoding")


def looks_like_csa(text: str) -> bool:
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
    for raw in text[:16384].lstrip("\ufeff").split("\n", 80):
        line = raw.strip()
        if not line:
            continue
        seen += 1
        if seen > 40:
            break
        if line.startswith("'"):
            strong = strong or line.startswith("'CSA encoding")
            continue
        statements += 1
        s = line.split(",", 1)[0].strip() if "," in line else line
        c = s[:1]
        if c in ("+", "-") and (len(s) == 1 or (len(s) == 7 and s[1:5] in _SQUARE_PAIRS
                                                and s[5:] in _PIECE_CODES)):
            known += 1
            strong = strong or len(s) == 7
        elif s in ENDINGS or s == "/" or (c == "T" and _parse_seconds(s[1:]) is not None):
            known += 1
        elif s.startswith(_STRONG) or (c == "P" and s[1:2] in "23456789" and len(s) > 2) or (
                c == "V" and s[1:2].isdigit()):
            known += 1
            strong = True
        if strong and known >= 20:  # at most 40 statements: the answer cannot change
            return True
    return strong and statements > 0 and known * 2 >= statements
