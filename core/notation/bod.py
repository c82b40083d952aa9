"""Read and write the board diagram (BOD, 局面図) that KIF and KI2 records use for a start position.

A diagram is White's hand, a file header, a bordered 9x9 board (``v`` marks White's pieces,
``・`` an empty square, one-character promoted forms と 杏 圭 全 馬 龍/竜), Black's hand and
an optional side-to-move line. Handicap diagrams say 上手 (White) and 下手 (Black)::

    >>> lines = '''後手の持駒：飛　金三　銀三　桂二　香四　歩十三
    ...   ９ ８ ７ ６ ５ ４ ３ ２ １
    ... +---------------------------+
    ... | ・ ・ ・ ・ 馬 ・ ・v桂 ・|一
    ... | ・ ・ ・ ・ ・ ・ ・v玉 ・|二
    ... | ・ ・ ・ ・ ・ ・v歩v歩 ・|三
    ... | ・ ・ ・ ・ ・ ・ ・v金v歩|四
    ... | ・ ・ ・ ・ 歩 ・ ・ ・ 歩|五
    ... | ・ ・ ・ ・ ・ ・ ・ ・ ・|六
    ... | ・ ・ ・ ・ ・ ・ ・ ・ ・|七
    ... | ・ ・ ・ ・ ・ ・ ・ ・ ・|八
    ... | ・ ・ ・ ・ ・ ・ ・ ・ ・|九
    ... +---------------------------+
    ... 先手の持駒：飛　角　銀　桂
    ... 先手：
    ... 手数----指手---------消費時間--'''.split("\\n")
    >>> sfen, findings, consumed = read_bod(lines, 3)
    >>> sfen, findings, consumed
    ('4+B2n1/7k1/6pp1/7gp/4P3P/9/9/9/9 b RBSNr3g3s2n4l13p 1', [], 14)

Nothing is guessed silently: a partial board (a corner of a tsume problem), a missing row or an
unknown piece gives a ``bad_start_position`` finding with its line number::

    >>> sfen, findings, _ = read_bod(["+------+", "| ・v玉|一", "| ・ 歩|三", "+------+"], 10)
    >>> sfen
    '8k/9/8P/9/9/9/9/9/9 b - 1'
    >>> [(f.severity, f.line) for f in findings]
    [('warning', 10)]

``bod_text`` writes a diagram the way Kifu for Windows does (``read_bod`` reads it back).

Side to move: a ``先手番``/``下手番`` or ``後手番``/``上手番`` line says it. Without one, a
diagram labelled 先手/後手 has Black to move, and one labelled 上手/下手 has 上手 (White) to move,
as in a handicap game: Kifu for Windows writes ``下手番`` when 下手 is to move (fixture
``9fu.kif``), and leaves the line out otherwise; ``read_bod`` reports that assumption (``info``).
"""

from __future__ import annotations

from typing import Final, Optional

from kifudb.core.numbers import MAX_DIGITS, ascii_digits
from kifudb.core.pieces import (BLACK, WHITE, HAND_TYPES, HAND_ORDER, KANJI_SHORT, KANJI_TYPES,
                         FILE_DIGITS_FULL, RANK_KANJI, COLOUR_NAMES, SIDE_KANJI)
from kifudb.core.position import sfen_of, Position, SfenError
from kifudb.core.findings import Finding, ERROR, WARNING, INFO

__all__ = ["read_bod", "bod_text", "BoardDiagram", "is_bod_line"]

#: One-character piece names of the diagram (and of KIF's compact forms).
PIECES = {name: t for name, t in KANJI_TYPES.items() if len(name) == 1}
_HAND_PIECES = {name: t for name, t in PIECES.items() if t in HAND_TYPES}
_EMPTY = frozenset("・･·")
_WHITE_MARKS = frozenset("vV")
_BLACK_MARKS = frozenset(" \u3000^+")
_RANKS: Final = {ch: i for i, ch in enumerate(RANK_KANJI) if i}
_DIGITS: Final[dict[str, int]] = {}
for _i in range(1, 10):
    _DIGITS[str(_i)] = _DIGITS[FILE_DIGITS_FULL[_i]] = _i
_KANJI_NUMBERS: Final = {ch: i for i, ch in enumerate(RANK_KANJI)}
#: (prefix, colour, handicap labels) of the hand lines.
_HAND_LINES: Final = tuple((names[colour] + word, colour, handicap == 1)
                           for word in ("の持駒", "の持ち駒")
                           for handicap, names in enumerate(SIDE_KANJI) for colour in (WHITE, BLACK))
#: a side-to-move line (``先手番`` …) -> (colour, handicap labels)
TURN_LINES: Final = {names[colour] + "番": (colour, handicap == 1)
                      for handicap, names in enumerate(SIDE_KANJI) for colour in (BLACK, WHITE)}
_HAND_PREFIXES: Final = tuple(prefix for prefix, _, _ in _HAND_LINES)
_MAX_TEXT = 200


def _quote(text: str) -> str:
    return text if len(text) <= _MAX_TEXT else text[:_MAX_TEXT] + "…"


def _is_border(s: str) -> bool:
    return len(s) >= 3 and s[0] == "+" and s[-1] == "+" and s.count("-") == len(s) - 2


def _column_header(s: str) -> Optional[list]:
    """The files of a ``９ ８ … １`` header line (at least two, consecutive, descending)."""
    files: list[int] = []
    for ch in s:
        if ch == " " or ch == "\u3000":
            continue
        f = _DIGITS.get(ch)
        if f is None or (files and f != files[-1] - 1):
            return None
        files.append(f)
    return files if len(files) >= 2 else None


def is_bod_line(line: str) -> bool:
    """True if ``line`` starts (or is part of) a board diagram: a hand line, the file header,
    a border, a board row or a side-to-move line.

    >>> is_bod_line("後手の持駒：なし"), is_bod_line("  ９ ８ ７ ６ ５ ４ ３ ２ １"), is_bod_line("先手：x")
    (True, True, False)
    """
    s = line.strip()
    if not s:
        return False
    c = s[0]
    if c == "|" or c == "+":
        return c == "|" or _is_border(s)
    if c in "先後上下":
        return s in TURN_LINES or s.startswith(_HAND_PREFIXES)
    if s.startswith("手数＝") or s.startswith("手数="):
        return True
    return _column_header(s) is not None


def _hand_count(text: str) -> Optional[int]:
    """The count written after a piece in a hand: '' (1), 二 … 十八, or digits."""
    if not text:
        return 1
    if len(text) > MAX_DIGITS:
        return None
    if ascii_digits(text):
        return int(text)
    if all(ch in _DIGITS for ch in text):
        return int("".join(str(_DIGITS[ch]) for ch in text))
    if "十" in text:
        tens, _, units = text.partition("十")
        t = 1 if not tens else _KANJI_NUMBERS.get(tens) if len(tens) == 1 else None
        u = 0 if not units else _KANJI_NUMBERS.get(units) if len(units) == 1 else None
        if t is None or u is None:
            return None
        return t * 10 + u
    if len(text) == 1 and text in _KANJI_NUMBERS:
        return _KANJI_NUMBERS[text]
    return None


class BoardDiagram:
    """A board diagram read line by line: ``feed`` each line, then ``sfen()``.

    ``feed`` returns False for a line that is not part of a diagram (the caller handles it).
    Parts may come apart (a header line between the board and Black's hand is common), so a
    reader can keep feeding lines until the moves begin.
    """

    def __init__(self) -> None:
        self.board = [0] * 81
        self.hands = [[0] * 8, [0] * 8]
        self.turn: Optional[int] = None
        self.handicap_labels = False
        self.rows: dict = {}  # rank -> line number
        self.columns: Optional[list] = None
        self.width: Optional[int] = None  # files between the borders (3 dashes a file)
        self.in_board = False
        self.borders = 0
        self.first_line: Optional[int] = None
        self.board_line: Optional[int] = None
        self.hand_lines: list[Optional[int]] = [None, None]
        self.move_number = 1
        self.findings: list = []
        self._partial_reported = False

    # ----- helpers ------------------------------------------------------------------------------

    def _add(self, severity: str, message: str, line: int, text: str = "") -> None:
        self.findings.append(Finding(severity, "bad_start_position", message, line, None,
                                     _quote(text)))

    @property
    def has_board(self) -> bool:
        """True once a board row was read."""
        return bool(self.rows)

    @property
    def started(self) -> bool:
        """True once any diagram line was read."""
        return self.first_line is not None

    # ----- reading ------------------------------------------------------------------------------

    def feed(self, line: str, number: int) -> bool:
        """Read one line; True if it belongs to the diagram."""
        s = line.strip()
        if not s:
            return False
        c = s[0]
        if self.in_board:
            if c == "|":
                self._row(s, number)
                return True
            if _is_border(s):
                self.in_board = False
                return True
            self._add(ERROR, "the board ends without its bottom border (+---+)", number, line)
            self.in_board = False
        if c == "|":
            if not self.rows:
                self._add(WARNING, "a board row without the top border (+---+) before it",
                          number, line)
            self._mark(number)
            self._row(s, number)
            return True
        if c == "+":
            if not _is_border(s):
                return False
            self._mark(number)
            if self.rows:
                self._add(ERROR, "a second board in the same diagram; it replaces the first",
                          number, line)
                self.board = [0] * 81
                self.rows = {}
            self.in_board = True
            self.borders += 1
            self.board_line = number
            self.width = (len(s) - 2) // 3 if (len(s) - 2) % 3 == 0 else None
            return True
        if c in "先後上下":
            turn = TURN_LINES.get(s)
            if turn is not None:
                self._mark(number)
                if self.turn is not None and self.turn != turn[0]:
                    self._add(WARNING, "a second side-to-move line that contradicts the first; "
                              "the last one is used", number, line)
                self.turn = turn[0]
                self.handicap_labels = self.handicap_labels or turn[1]
                return True
            for prefix, colour, labels in _HAND_LINES:
                if s.startswith(prefix):
                    rest = s[len(prefix):]
                    if rest[:1] not in ("：", ":"):
                        return False
                    self._mark(number)
                    self.handicap_labels = self.handicap_labels or labels
                    self._hand(colour, rest[1:], number, line)
                    return True
            return False
        if s.startswith("手数＝") or s.startswith("手数="):
            self._mark(number)
            digits = ""
            for ch in s[3:].lstrip():
                if ch in _DIGITS or ch == "0" or ch == "０":
                    digits += str(_DIGITS.get(ch, 0))
                else:
                    break
            if ascii_digits(digits):
                self.move_number = int(digits) + 1
            else:
                self._add(WARNING, f"a 手数＝ line without a move number (of at most {MAX_DIGITS} "
                          "digits)", number, line)
            return True
        files = _column_header(s)
        if files is not None:
            self._mark(number)
            self.columns = files
            return True
        return False

    def _mark(self, number: int) -> None:
        if self.first_line is None:
            self.first_line = number

    def _hand(self, colour: int, text: str, number: int, line: str) -> None:
        if self.hand_lines[colour] is not None:
            self._add(WARNING, f"a second hand line for {COLOUR_NAMES[colour].capitalize()}; the "
                      "pieces are added", number, line)
        self.hand_lines[colour] = number
        body = text.strip()
        if body in ("", "なし", "無し"):
            return
        hand = self.hands[colour]
        for token in body.replace("\u3000", " ").replace("、", " ").split():
            kind = _HAND_PIECES.get(token[0])
            count = _hand_count(token[1:]) if kind else None
            if kind is None or count is None:
                self._add(ERROR, f"not a piece in hand: {token!r} (expected e.g. 歩十七, 角, なし)",
                          number, line)
                continue
            hand[kind] += count

    def _row(self, s: str, number: int) -> None:
        body = s[1:]
        end = body.rfind("|")
        suffix = ""
        if end >= 0:
            body, suffix = body[:end], body[end + 1:].strip()
        else:
            self._add(WARNING, "a board row without its closing '|'", number, s)
        cells = []
        white = False
        bad = []
        for ch in body:
            if ch in _WHITE_MARKS:
                white = True
            elif ch in _BLACK_MARKS:
                continue
            elif ch in _EMPTY:
                cells.append(0)
                white = False
            else:
                kind = PIECES.get(ch)
                if kind is None:
                    bad.append(ch)
                    cells.append(0)
                else:
                    cells.append(kind + 16 * WHITE if white else kind)
                white = False
        if bad:
            self._add(ERROR, f"unknown piece(s) {''.join(bad)!r} on the board; left empty",
                      number, s)
        rank = _RANKS.get(suffix[:1]) if suffix else None
        if rank is None:
            rank = (max(self.rows) if self.rows else 0) + 1
            if suffix or len(self.rows) >= 9:
                self._add(WARNING, f"a board row without a rank (一…九) after '|'; read as rank "
                          f"{rank}", number, s)
        if rank > 9:
            self._add(ERROR, "more than nine board rows; the row is ignored", number, s)
            return
        if rank in self.rows:
            self._add(ERROR, f"rank {rank} is written twice (lines {self.rows[rank]} and "
                      f"{number}); the later row is used", number, s)
        n = len(cells)
        width = len(self.columns) if self.columns else self.width or n
        if n != width or not 0 < n <= 9:
            self._add(ERROR, f"a board row with {n} squares (expected {width}); the row is "
                      "ignored", number, s)
            return
        if self.columns is not None:
            files = self.columns
        else:
            files = list(range(n, 0, -1))
        if n < 9 and not self._partial_reported:
            self._partial_reported = True
            self._add(WARNING, f"a partial board ({n} files): read as files "
                      f"{files[0]}…{files[-1]}, the other squares are empty",
                      self.board_line or number, s)
        self.rows[rank] = number
        for file, code in zip(files, cells):
            self.board[(file - 1) * 9 + rank - 1] = code

    # ----- the result ---------------------------------------------------------------------------

    def sfen(self, default_turn: Optional[int] = None) -> Optional[str]:
        """The SFEN of the diagram (None if it has no board), adding findings for missing parts
        and positions ``core`` rejects. ``default_turn`` is the side to move when no line says
        it (default: 上手 (White) for 上手/下手 diagrams, else Black)."""
        if not self.rows:
            if self.started and (self.borders or any(h is not None for h in self.hand_lines)):
                self._add(ERROR, "a board diagram without board rows", self.first_line or 0)
            return None
        if self.in_board:
            self._add(ERROR, "the board ends without its bottom border (+---+)",
                      max(self.rows.values()))
            self.in_board = False
        if len(self.rows) < 9 and not self._partial_reported:
            missing = ", ".join(RANK_KANJI[r] for r in range(1, 10) if r not in self.rows)
            self._add(WARNING, f"board rows missing ({missing}); those ranks are empty",
                      self.board_line or self.first_line or 0)
        turn = self.turn
        if turn is None:
            if default_turn is not None:
                turn = default_turn
            elif self.handicap_labels:
                turn = WHITE
                self.findings.append(Finding(
                    INFO, "assumed_side_to_move", "a 上手/下手 diagram without 上手番/下手番: "
                    "上手 (White) moves first, as in a handicap game", self.first_line))
            else:
                turn = BLACK
        sfen = sfen_of(self.board, self.hands, turn, self.move_number)
        try:
            Position.from_sfen(sfen)
        except SfenError as error:
            self._add(ERROR, f"the diagram is not a position the rules engine accepts: {error}",
                      self.board_line or 0)
        return sfen


def read_bod(lines, first_line_number: int = 1):
    """Read the board diagram at the start of ``lines``.

    Returns ``(sfen or None, findings, consumed_lines)``: ``consumed_lines`` counts the lines
    read as part of the diagram (it stops at the first line that is not); ``sfen`` is None when
    no board was found. Line numbers in the findings count from ``first_line_number``.
    Never raises.
    """
    diagram = BoardDiagram()
    consumed = 0
    try:
        for offset, line in enumerate(lines):
            if not isinstance(line, str):
                break
            if not line.strip():
                if diagram.in_board:
                    diagram._add(ERROR, "an empty line inside the board",
                                 first_line_number + offset)
                    diagram.in_board = False
                break
            if not diagram.feed(line, first_line_number + offset):
                break
            consumed += 1
        sfen = diagram.sfen()
    except Exception as error:  # a safety net: a diagram must never stop a whole ingest
        diagram._add(ERROR, f"the diagram reader failed: {type(error).__name__}: {error}",
                     first_line_number)
        sfen = None
    return sfen, diagram.findings, consumed


def _hand_text(hand: list) -> str:
    parts = []
    for t in HAND_ORDER:
        n = hand[t]
        if n <= 0:
            continue
        if n == 1:
            count = ""
        elif n < 10:
            count = RANK_KANJI[n]
        else:
            count = "十" + (RANK_KANJI[n - 10] if n > 10 else "")
        parts.append(KANJI_SHORT[t] + count)
    return "\u3000".join(parts) or "なし"


def bod_text(position, handicap: bool = False) -> str:
    """The diagram of ``position`` (a ``Position`` or an SFEN), as Kifu for Windows writes it.

    ``handicap=True`` labels the sides 上手/下手 (and writes ``下手番`` when Black is to move);
    otherwise 先手/後手, with ``後手番`` when White is to move.

    >>> text = bod_text("4k4/9/9/9/9/9/9/9/4K4 w G2p 1")
    >>> print(text)
    後手の持駒：歩二
      ９ ８ ７ ６ ５ ４ ３ ２ １
    +---------------------------+
    | ・ ・ ・ ・v玉 ・ ・ ・ ・|一
    | ・ ・ ・ ・ ・ ・ ・ ・ ・|二
    | ・ ・ ・ ・ ・ ・ ・ ・ ・|三
    | ・ ・ ・ ・ ・ ・ ・ ・ ・|四
    | ・ ・ ・ ・ ・ ・ ・ ・ ・|五
    | ・ ・ ・ ・ ・ ・ ・ ・ ・|六
    | ・ ・ ・ ・ ・ ・ ・ ・ ・|七
    | ・ ・ ・ ・ ・ ・ ・ ・ ・|八
    | ・ ・ ・ ・ 玉 ・ ・ ・ ・|九
    +---------------------------+
    先手の持駒：金
    後手番
    >>> read_bod(text.split("\\n"))[0]
    '4k4/9/9/9/9/9/9/9/4K4 w G2p 1'
    """
    if isinstance(position, str):
        position = Position.from_sfen(position)
    bottom, top = SIDE_KANJI[handicap]
    out = [f"{top}の持駒：{_hand_text(position.hands[WHITE])}",
           "  " + " ".join(FILE_DIGITS_FULL[f] for f in range(9, 0, -1)),
           "+" + "-" * 27 + "+"]
    for rank in range(9):
        cells = []
        for file in range(8, -1, -1):
            code = position.board[file * 9 + rank]
            if not code:
                cells.append(" ・")
            else:
                cells.append(("v" if code >> 4 else " ") + KANJI_SHORT[code & 15])
        out.append("|" + "".join(cells) + "|" + RANK_KANJI[rank + 1])
    out.append("+" + "-" * 27 + "+")
    out.append(f"{bottom}の持駒：{_hand_text(position.hands[BLACK])}")
    if handicap:
        if position.turn == BLACK:
            out.append("下手番")
    elif position.turn == WHITE:
        out.append("後手番")
    return "\n".join(out)
