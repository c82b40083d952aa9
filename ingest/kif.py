"""Read KIF / KIFU records (柿木形式, one numbered move a line) into ``GameRecord``s, never raising.

The reader only knows the layout: headers, the start position (手合割 or a board diagram), move
texts with their line numbers and times, comments, bookmarks, variations and the declared ending.
It recognises the lines and hands what they say to ``ingest.builder.RecordBuilder``, which owns
the rules every format shares (a header given twice, which start position wins, where a comment
goes, a second ending, moves after the ending, a variation's parent). What a move means is the replay's question (``core.notation.kif.parse_kif_move``), so each move is
kept as written, without its number, time and branch mark::

    >>> text = '''#KIF version=2.0 encoding=UTF-8
    ... 開始日時：2014/10/16 03:21:41
    ... 手合割：平手
    ... 先手：sente
    ... 手数----指手---------消費時間--
    ... *before the first move
    ...    1 ７六歩(77)   ( 0:02/00:00:02)+
    ... *after the first move
    ... &bookmark
    ...    2 ３四歩(33)   ( 1:02:03/01:02:03)
    ...    3 投了         ( 0:05/00:00:07)
    ... まで2手で後手の勝ち
    ...
    ... 変化：1手
    ...    1 ２六歩(27)   ( 0:01/00:00:01)
    ...    2 中断         ( 0:00/00:00:00)
    ... '''
    >>> [game] = read_kif(text, source="demo.kif", encoding="utf-8")
    >>> list(game.headers)
    ['#KIF', '開始日時', '手合割', '先手']
    >>> [(m.text, m.line, m.seconds, m.total_seconds) for m in game.moves]
    [('７六歩(77)', 7, 2, 2), ('３四歩(33)', 10, 3723, 3723)]
    >>> game.comments, game.moves[0].comments, game.moves[0].bookmark
    (['before the first move'], ['after the first move'], 'bookmark')
    >>> game.ending
    DeclaredEnding(word='投了', line=11, mover=0, seconds=5, summary='まで2手で後手の勝ち', winner=None)
    >>> v = game.variations[0]
    >>> v.start_ply, v.parent, v.line, [m.text for m in v.moves], v.ending.word
    (1, None, 14, ['２六歩(27)'], '中断')
    >>> game.findings
    []

Nothing is dropped without a word: a line the reader cannot place becomes a ``Finding``
(``unparsable_line``), a wrong move number a ``move_number_mismatch``, and reading goes on::

    >>> [game] = read_kif("1 ７六歩(77)\\nhello world\\n3 ３四歩(33)\\n")
    >>> [(f.code, f.line, f.ply) for f in game.findings]
    [('unparsable_line', 2, None), ('move_number_mismatch', 3, 2)]
    >>> len(game.moves)
    2

Layout decisions (where the format leaves room):

* Headers (``key：value``, full- or half-width colon) keep key and value as written (without
  surrounding blanks), in order; a key written twice with another value keeps the first
  (``duplicate_header``). ``#KIF version=…`` is kept as header ``#KIF``; other ``#`` lines are
  skipped, as the format says.
* 手合割 gives the start position (``core.handicap``); a board diagram (``core.notation.bod``) overrides
  it (Kifu for Windows writes 平手 above tsume diagrams). ``GameRecord.handicap`` is the KIF name
  of the start position when it is a standard handicap, else None. A diagram's ``手数＝N …``
  line (the position after move N) sets the SFEN move number and is kept as header ``手数＝``.
* ``*`` lines are comments of the move before them (before the first move: ``GameRecord.comments``;
  ``**`` engine lines keep one ``*``). ``&`` lines are the bookmark of the move before them; a
  bookmark on the start position goes to ``GameRecord.comments`` as written (``&…``), with an
  ``info`` finding, as ``GameRecord`` has no field for it.
* A terminal word (投了, 中断, 詰み …) on a numbered line is the ``DeclaredEnding`` of its line (the
  main line or a variation); ``mover`` is the side to move then. A ``まで…`` line is its
  ``summary``, or makes the ending when there was no terminal word (``ending_from_summary``).
* A board diagram whose first move line is numbered N > 1 is the position after move N - 1 (its
  SFEN move number is N; move numbers and ``変化`` headers count from there); when it names no side
  to move, an even N makes it White's move (``side_from_move_number``), as bioshogi reads it.
* ``変化：N手`` (also written ``変化：N手目``, ``変化:N手``, with blanks, or with a note after the
  number) starts a ``Variation`` whose first move replaces ply N of the most recent line that
  marked ply N with ``+`` (Kifu for Windows writes a branch's alternatives depth first, each line's
  branches from the last ply back); files without ``+`` marks (Shogidokoro) use the most recent
  line that has a move N.
* Several games one after another: ``#KIF``, the ``手数----`` line, a diagram, or a header that
  starts a record (開始日時, 手合割, 先手 … ``GAME_START_KEYS``) after the moves of a game starts
  the next game; a trailing block of such headers with no moves is merged back into the game
  before it, and any other header after the moves stays with its game (``header_after_moves``).
* KI2 lines (``▲７六歩 △３四歩``) in a KIF file are read as KI2 moves (and KIF lines in a KI2
  file as KIF moves), with one ``mixed_notation`` finding; ``ingest.ki2`` shares this engine.

Finding codes: ``unparsable_line``, ``move_number_mismatch``, ``bad_time``, ``duplicate_header``,
``unknown_handicap``, ``bad_start_position`` (and ``assumed_side_to_move``, from ``core.notation.bod``),
``side_from_move_number``,
``unknown_ending``, ``duplicate_ending``, ``moves_after_ending``, ``move_count_mismatch`` (a
``まで N手`` that is not the number of moves), ``bad_variation``, ``empty_variation``,
``missing_branch_mark``, ``duplicate_bookmark``, ``bookmark_at_start``, ``comment_placement``,
``header_after_moves``, ``mixed_notation``, ``no_game`` and ``reader_error`` (a safety net).
"""

from __future__ import annotations

import re
from sys import intern
from typing import Final, Optional, Tuple, Union

from kifudb.core.kifu import ENDING_WORDS
from kifudb.core.numbers import MAX_DIGITS, ascii_digits
from kifudb.core.pieces import BLACK, WHITE, FILE_DIGITS_FULL, RANK_KANJI, SIDES_NAMED
from kifudb.core.notation.bod import TURN_LINES, BoardDiagram, is_bod_line
from kifudb.ingest.builder import Dialect, Line, RecordBuilder
from kifudb.ingest.record import GameRecord, WARNING, INFO, read_safely

__all__ = ["read_kif", "looks_like_kif", "TERMINAL_WORDS", "ending_from_summary", "read_lines"]

#: Words that end a line of play when written in place of a move.
TERMINAL_WORDS: Final = frozenset(ENDING_WORDS["kif"])
#: What KIF and KI2 call the things the builder checks (``ingest.builder``).
DIALECT: Final = Dialect("kif", TERMINAL_WORDS, "the terminal words of KIF")
KI2_MARKS = "▲△☗☖▼▽"
#: Characters a move text may start with (a destination, 同, or a KI2 mark).
_MOVE_START: Final = frozenset("123456789" + FILE_DIGITS_FULL[1:] + RANK_KANJI[1:] + "同仝" + KI2_MARKS)
_KI2_START: Final = frozenset(KI2_MARKS)
_ASCII_DIGITS: Final = frozenset("0123456789")
_SPACES: Final = " \u3000\t"

#: A numbered move line as ``move_line`` reads it: the number, the move and its time.
MoveLine = Tuple[int, str, Union[int, float, None], Union[int, float, None], bool]
_NO_MOVE_LINE: Final[MoveLine] = (-1, "", None, None, False)


def move_line(line: str) -> MoveLine:
    """``(number, move, seconds, total, plus)`` of a numbered KIF move line, or number -1 when
    the line is not one (``_loose_kif_line`` reads what is almost one)::

        >>> move_line("   1 ７六歩(77)   ( 0:02/00:00:02)+")
        (1, '７六歩(77)', 2, 2, True)
        >>> move_line("  12 同　銀(79)   ( 1:02:03.5/01:02:03.5)")
        (12, '同　銀(79)', 3723.5, 3723.5, False)
        >>> move_line("3 投了"), move_line("3 ７六歩 x")[0]
        ((3, '投了', None, None, False), -1)

    The grammar, read left to right without going back (so in one pass): blanks; the number
    (ASCII digits); blanks or tabs; the move: an optional 同 (or 仝) with the blanks after it,
    then characters up to a blank or ``(``, then an optional ``(…)`` (the from-square); blanks
    (also tabs and U+3000); an optional time ``( [h:]m:s/[h:]m:s)`` (seconds may have a
    fraction, blanks around the fields); blanks; an optional ``+`` (a variation follows); white
    space to the end. A time that does not fit leaves the line no move line, as does anything
    else after the move.
    """
    n = len(line)
    i = _skip(line, 0, False)
    end, written = _digits(line, i)
    if written < 0 or end == n or not (line[end] == " " or line[end] == "\t"):
        return _NO_MOVE_LINE
    i = end
    while i < n and (line[i] == " " or line[i] == "\t"):
        i += 1
    start = i
    if i < n and (line[i] == "同" or line[i] == "仝"):  # 同 and its blanks, when a move follows
        after = i + 1
        while after < n and (line[after] == " " or line[after] == "\u3000"):
            after += 1
        if _move_end(line, after) > after:
            i = after
    end = _move_end(line, i)
    if end == i:
        return _NO_MOVE_LINE
    i = end
    if i < n and line[i] == "(":
        close = line.find(")", i + 1)
        if close >= 0:
            i = close + 1
    text = line[start:i]
    i = _skip(line, i, True)
    seconds: Union[int, float, None] = None
    total: Union[int, float, None] = None
    if i < n and line[i] == "(":
        i, seconds, total = _time(line, i)
        if i < 0:
            return _NO_MOVE_LINE
        i = _skip(line, i, True)
    plus = i < n and line[i] == "+"
    if plus:
        i += 1
    if i < n and not line[i:].isspace():
        return _NO_MOVE_LINE
    return written, text, seconds, total, plus


def _move_end(line: str, i: int) -> int:
    """The index after the characters at ``i`` that are neither white space nor ``(``."""
    n = len(line)
    while i < n:
        c = ord(line[i])
        if c == 40 or c <= 0x3000 and chr(c).isspace():  # 40: "("; no space is above U+3000
            break
        i += 1
    return i


def _skip(line: str, i: int, wide: bool) -> int:
    """The index after the blanks at ``i`` (``wide``: tabs and U+3000 too)."""
    n = len(line)
    while i < n:
        c = ord(line[i])
        if not (c == 32 or wide and (c == 9 or c == 0x3000)):  # " ", "\t", U+3000
            break
        i += 1
    return i


def _digits(line: str, i: int) -> Tuple[int, int]:
    """``(end, value)`` of the ASCII digits at ``i``; value -1 when there are none, or more
    than ``MAX_DIGITS`` (``core.numbers``)."""
    n = len(line)
    start = i
    value = 0
    while i < n:
        digit = ord(line[i]) - 48
        if digit < 0 or digit > 9:
            break
        value = value * 10 + digit if i - start < MAX_DIGITS else -1
        i += 1
    return i, value if i > start else -1


def _clock_at(line: str, i: int) -> Tuple[int, Union[int, float]]:
    """``(end, seconds)`` of a clock ``[h:]m:s[.f]`` at ``i``, with the blanks around it; end
    -1 if there is none."""
    n = len(line)
    while i < n and line[i] == " ":
        i += 1
    end, minutes = _digits(line, i)
    if minutes < 0 or end == n or line[end] != ":":
        return -1, 0
    hours = 0
    i = end + 1
    end, seconds = _digits(line, i)
    if seconds < 0:
        return -1, 0
    if end < n and line[end] == ":":  # hours:minutes:seconds
        hours, minutes = minutes, seconds
        i = end + 1
        end, seconds = _digits(line, i)
        if seconds < 0:
            return -1, 0
    value: Union[int, float]
    if end + 1 < n and line[end] == "." and _digits(line, end + 1)[0] > end + 1:
        end = _digits(line, end + 1)[0]
        value = minutes * 60 + _number(line[i:end]) + hours * 3600
    else:
        value = minutes * 60 + seconds + hours * 3600
    while end < n and line[end] == " ":
        end += 1
    return end, value


def _time(line: str, i: int) -> Tuple[int, Union[int, float], Union[int, float]]:
    """``(end, seconds, total)`` of a time ``( [h:]m:s / [h:]m:s )`` at ``i`` (which holds
    ``(``); end -1 if there is none."""
    n = len(line)
    i, seconds = _clock_at(line, i + 1)
    if i < 0 or i == n or line[i] != "/":
        return -1, 0, 0
    i, total = _clock_at(line, i + 1)
    if i < 0 or i == n or line[i] != ")":
        return -1, 0, 0
    return i + 1, seconds, total


_KI2_MOVES = re.compile(rf"[{KI2_MARKS}][^{KI2_MARKS}]*")
_FULL_DIGITS = str.maketrans(FILE_DIGITS_FULL, "0123456789")


def _number(text: str) -> Union[int, float]:
    """A time field: int when whole, else float."""
    if "." in text:
        value = float(text)
        return int(value) if value.is_integer() else value
    return int(text)


def _clock(text: str):
    """Seconds of ``[h:]m:s`` (any number of colon-separated fields), or None."""
    total: Union[int, float] = 0
    fields = text.strip().split(":")
    if not 1 < len(fields) <= 4:
        return None
    for field in fields:
        field = field.strip()
        if not ascii_digits(field.replace(".", "", 1)):
            return None
        total = total * 60 + _number(field)
    return total


def _side_named(text: str, before: str) -> Optional[int]:
    """The colour named just before ``before`` in ``text`` (``先手の反則負け`` -> BLACK)."""
    at = text.find(before)
    if at < 0:
        return None
    head = text[:at]
    for name, colour in SIDES_NAMED:
        if head.endswith(name):
            return colour
    return None


def ending_from_summary(text: str, to_move: Optional[int]):
    """``(word, mover)`` of a ``まで…`` summary line written without a terminal word before it.

    ``to_move`` is the side to move after the moves. Results and reasons map to the terminal
    words ``ingest.result`` knows; a plain ``…の勝ち`` keeps the word ``まで``::

        >>> ending_from_summary("まで64手で千日手", 0), ending_from_summary("まで77手で先手の勝ち", 1)
        (('千日手', 0), ('まで', 1))
        >>> ending_from_summary("まで3手で後手の反則勝ち", 1), ending_from_summary("まで2手で先手の反則負け", 0)
        (('反則勝ち', 1), ('反則負け', 0))
        >>> ending_from_summary("まで3手で時間切れにより先手の勝ち", 1), ending_from_summary("まで61手詰", 1)
        (('時間切れ', 1), ('詰み', 1))
    """
    for word in ("反則勝ち", "反則負け"):
        if word in text:
            side = _side_named(text, "の" + word)
            return word, to_move if side is None else side
    if "時間切れ" in text or "切れ負け" in text:
        winner = _side_named(text, "の勝ち")
        if winner is not None:
            return "時間切れ", winner ^ 1
        loser = _side_named(text, "の負け")
        return "時間切れ", to_move if loser is None else loser
    if "入玉" in text or "宣言" in text:
        winner = _side_named(text, "の勝ち")
        return "入玉勝ち", to_move if winner is None else winner
    for key, word in (("千日手", "千日手"), ("持将棋", "持将棋"), ("中断", "中断"),
                      ("封じ手", "封じ手"), ("投了", "投了"), ("不詰", "不詰"), ("詰", "詰み")):
        if key in text:
            return word, to_move
    return "まで", to_move


class _Branch:
    """What KIF's layout adds to a ``Line`` of the builder while it is read: its place in the
    stack of lines a variation may branch from, and the last reported offset of the move
    numbers."""

    __slots__ = ("line", "depth", "stacked", "offset")

    def __init__(self, line: Line, depth: int) -> None:
        self.line = line
        self.depth = depth  # its index in ``_Game.stack``
        self.stacked = True  # False once a variation branching below it took it off the stack
        self.offset = 0  # last reported (written number - ply), to report each change once


class _Game:
    """One game of a KIF or KI2 text while its lines are read: the builder that makes its
    ``GameRecord``, and what only KIF's layout knows (the 手合割 and board diagram read so far,
    the lines a ``変化`` may branch from, whether the moves have begun)."""

    def __init__(self, source: str, index: int, encoding: str, fmt: str, first_line: int,
                 started_by: Optional[str] = None) -> None:
        self.b = RecordBuilder(source, index, fmt, encoding, DIALECT, first_line)
        self.record = self.b.record
        self.fmt = fmt
        self.kif_format = not fmt.lower().startswith("ki2")
        self.diagram: Optional[BoardDiagram] = None
        self.handicap: Optional[str] = None
        self.handicap_line: Optional[int] = None
        self.current = _Branch(self.b.main, 0)
        self.stack = [self.current]  # the lines a variation may branch from, oldest first
        #: ply -> the lines that marked it with "+", not yet taken by a variation, in the order
        #: read (so the last one still stacked is the most recent)
        self.marked: dict[int, list[_Branch]] = {}
        self.in_moves = False  # True once a move, ending, まで or 変化 was read
        self.uses_marks = False
        self.mixed_reported = False
        self.started_by = started_by  # the kind of line that started this game, if not the first
        #: what the written move numbers add to the plies (a diagram's game numbered from N)
        self.numbering = 0

    def empty(self) -> bool:
        """True if the game has nothing but headers (and findings)."""
        r = self.record
        return (not r.moves and not r.variations and r.ending is None and not r.comments
                and (self.diagram is None or not self.diagram.started))

    def settle(self, first: int = 0, line: Optional[int] = None) -> None:
        """Hand the builder the start position read so far (at the first move, ending, まで or
        変化 line, or at the end): the board diagram if it has a board (its findings join the
        record), else the 手合割, with the diagram's side-to-move line if any.

        ``first`` is the number written on the first move line (on ``line``): a diagram's game
        whose moves are numbered from N > 1 is a position after move N - 1 (as Kifu for Windows
        and bioshogi write it). Its move numbers and variation headers count from there
        (``numbering``), and when the diagram names no side to move, the number says it: an
        even N is White's move (``side_from_move_number``, info)."""
        b = self.b
        if b.settled:
            return
        diagram = self.diagram
        sfen = side = None
        if diagram is not None:
            if diagram.has_board:
                turn = None
                if first > 1 and diagram.move_number in (1, first):
                    named = diagram.turn
                    if named is None and not diagram.handicap_labels:
                        turn = WHITE if first % 2 == 0 else BLACK
                        if turn == WHITE:
                            b.add(INFO, "side_from_move_number", f"the diagram names no side to "
                                  f"move; its first move is numbered {first}, so White moves "
                                  "first", line)
                    if (named if named is not None else turn) == (BLACK if first % 2 else WHITE):
                        diagram.move_number = first
                        self.numbering = self.current.offset = first - 1
                sfen = diagram.sfen(turn)
                if any(diagram.board):  # a board with pieces: the record is a game's
                    b.recognise()
            else:
                if diagram.started:
                    diagram.sfen()  # reports the missing board
                side = diagram.turn
            _take_findings(self.record, diagram)
        b.start(sfen, self.handicap, side, name_line=self.handicap_line)

    def header(self, key: str, value: str, number: int, raw: str) -> None:
        """A ``key：value`` line (or ``#KIF …``) for the builder; after the moves it is reported
        (``header_after_moves``); the first 手合割 names the start position, unless the start is
        settled already (``unparsable_line``)."""
        b = self.b
        if self.in_moves:
            b.add(INFO, "header_after_moves", "a header line after the moves", number, text=raw)
        new = key not in self.record.headers
        b.header(key, value, number, raw)
        if key == "手合割" and new:
            if b.settled:
                b.start_too_late("手合割", number, raw)
            else:
                self.handicap = value.strip(_SPACES) or None
                self.handicap_line = number

    def _ply_check(self, branch: _Branch, written: int, ply: int, number: int, raw: str) -> None:
        offset = written - ply
        if offset != branch.offset:
            branch.offset = offset
            if offset:
                self.b.add(WARNING, "move_number_mismatch", f"the line is numbered {written}, but "
                           f"it is ply {ply}", number, ply, raw)

    def _notation(self, notation: str, number: int, raw: str) -> None:
        """A move line of the other notation (KIF in KI2 or KI2 in KIF): said once a game."""
        if not self.mixed_reported:
            self.mixed_reported = True
            self.b.add(INFO, "mixed_notation", f"a {notation.upper()} move line in a "
                       f"{self.fmt.upper()} record; read as {notation.upper()}", number, text=raw)

    def kif_move(self, fields: MoveLine, number: int, raw: str) -> None:
        """A numbered line (``move_line``'s fields): its move, or its terminal word, with its
        time goes to the builder; a number that is not the ply is reported
        (``move_number_mismatch``), so is a time that is not one (``bad_time``); a ``+`` marks
        the ply for a variation. The hot path: keep it lean."""
        written, text, seconds, total, plus = fields
        if not self.in_moves:
            self.settle(written, number)
            self.in_moves = True
        branch = self.current
        line = branch.line
        ply = line.start + len(line.moves)
        if written - ply != branch.offset:
            self._ply_check(branch, written, ply, number, raw)
        if seconds is None and ":" in text:
            text, seconds, total = self._loose_time(text, number, raw)
            if not text:
                self.b.add(WARNING, "unparsable_line", "a numbered line with a time but no move",
                           number, ply, raw)
                return
        if text[0] not in _MOVE_START:  # no terminal word starts like a move
            self.b.end(text, number, seconds, raw)
            return
        if not self.kif_format:
            self._notation("kif", number, raw)
        self.b.move(text, number, "kif", seconds, total, None, raw)
        if plus:
            self.marked.setdefault(ply, []).append(branch)
            self.uses_marks = True

    def _loose_time(self, text: str, number: int, raw: str):
        """Split a time written in an unexpected way off the move text."""
        colon = text.find(":")
        start = text.rfind("(", 0, colon)
        if start < 0:
            start = max(text.rfind(" ", 0, colon), text.rfind("\u3000", 0, colon)) + 1
        move, clock = text[:start].rstrip(_SPACES), text[start:].strip("()+ \u3000")
        parts = [_clock(p) for p in clock.split("/")]
        if parts[0] is None or len(parts) > 2 or (len(parts) == 2 and parts[1] is None):
            self.b.add(WARNING, "bad_time", f"the time {clock!r} is not ( m:ss/h:mm:ss); the move "
                       "is kept without it", number, text=raw)
            return move, None, None
        return move, parts[0], parts[1] if len(parts) == 2 else None

    def ki2_moves(self, s: str, number: int) -> None:
        """A KI2 line: one or more moves, each starting with ▲/△ (☗☖▼▽), for the builder; a
        mark without a move is reported (``unparsable_line``), a word that is no move is the
        line's ending."""
        if not self.in_moves:
            self.settle()
            self.in_moves = True
        b = self.b
        # a line of thousands of moves (hostile: real lines hold a few) keeps one text of each
        alike = intern if len(s) > 512 else str
        for found in _KI2_MOVES.finditer(s):
            text = alike(found.group().rstrip(_SPACES))
            body = text[1:].strip(_SPACES)
            if not body:
                b.add(WARNING, "unparsable_line", "a move mark (▲/△) without a move", number,
                      b.current.ply, s)
                continue
            if body[0] not in _MOVE_START:
                b.end(body, number, None, s)
                continue
            if self.kif_format:
                self._notation("ki2", number, s)
            b.move(text, number, "ki2", None, None, None, s)

    def summary(self, s: str, number: int) -> None:
        """A ``まで…`` line: the summary of the current line's ending, or its ending when it had
        none (``ending_from_summary``). Its move count is checked (``move_count_mismatch``);
        a second ``まで`` line is reported (``duplicate_ending``)."""
        self.settle()
        self.in_moves = True
        b = self.b
        digits = _leading_digits(s[2:].translate(_FULL_DIGITS))
        if ascii_digits(digits):
            b.stated_moves(int(digits) - self.numbering, number, "the summary", s)
        elif digits:  # thousands of digits: no number of moves (``core.numbers``)
            b.add(WARNING, "move_count_mismatch", f"the summary's move count has {len(digits):,} "
                  f"digits: no number of moves", number, b.current.ply - 1, s)
        ending = b.current.ending
        if ending is not None:
            if ending.summary:
                b.add(WARNING, "duplicate_ending", "a second まで line; the first is kept",
                      number, text=s)
            else:
                ending.summary = s
            return
        played = b.current.ply - 1
        word, mover = ending_from_summary(s, b.first_turn ^ (played & 1))
        b.end(word, number, None, s, summary=s, mover=mover)

    def variation(self, s: str, number: int) -> None:
        """A ``変化：N手`` line: the builder opens a variation at ply N, from the line
        ``_branch_point`` finds; a header it cannot read is reported (``unparsable_line``)."""
        self.settle()
        self.in_moves = True
        rest = s[2:].lstrip(" \u3000\t：:").translate(_FULL_DIGITS)
        digits = _leading_digits(rest)
        if not ascii_digits(digits) or not _variation_tail(rest[len(digits):]):
            self.b.add(WARNING, "unparsable_line", "not a variation header like 変化：12手; the "
                       "moves after it stay in the current line", number, text=s)
            return
        ply = int(digits) - self.numbering
        parent = self._branch_point(ply, number, s)
        self.current = _Branch(self.b.begin_variation(ply, number, parent.line), len(self.stack))
        self.current.offset = self.numbering
        self.stack.append(self.current)

    def _branch_point(self, ply: int, number: int, s: str) -> _Branch:
        """The line a variation at ``ply`` branches from (the most recent that marked ``ply``
        with ``+``, else the most recent with a move ``ply``: ``missing_branch_mark``, else the
        main line: ``bad_variation``); pops the lines above it. Each line is pushed and popped
        once, and a mark is taken once: the lines of a record cost linear time, however many
        variations it has."""
        marked = self.marked.get(ply)
        while marked:
            branch = marked.pop()
            if branch.stacked:
                self._cut(branch.depth)
                return branch
        stack = self.stack
        for depth in range(len(stack) - 1, -1, -1):
            branch = stack[depth]
            if branch.line.has_ply(ply):
                self._cut(depth)
                if self.uses_marks:
                    self.b.add(INFO, "missing_branch_mark", f"no move {ply} before it is marked "
                               "with '+'; the variation branches from the most recent line that "
                               f"has a move {ply}", number, ply, s)
                return branch
        self._cut(0)
        main = stack[0]
        if ply != main.line.ply:
            self.b.add(WARNING, "bad_variation", f"no line before it has a move {ply}; kept as a "
                       "variation of the main line", number, ply, s)
        return main

    def _cut(self, depth: int) -> None:
        """Take the lines above ``depth`` off the stack (a variation branches below them)."""
        stack = self.stack
        for branch in stack[depth + 1:]:
            branch.stacked = False
        del stack[depth + 1:]

    def finish(self) -> GameRecord:
        """Settle the start if nothing did, and let the builder close the record."""
        self.settle()
        return self.b.finish()


def _variation_tail(text: str) -> bool:
    """True if ``text`` may follow the number of a variation header: nothing, 手 or 手目, then
    nothing or a note after a blank or a bracket (``変化：3手目``, ``変化：2手 別案``).

    >>> [_variation_tail(t) for t in ("手", " 手目", "", "手 別案", "手（本命）", "手を参照", "x")]
    [True, True, True, True, True, False, False]
    """
    text = text.lstrip(_SPACES)
    for word in ("手目", "手", ""):
        if text.startswith(word):
            rest = text[len(word):]
            return not rest or rest[0] in _SPACES or rest[0] in "（(【[「"
    return False


def _leading_digits(text: str) -> str:
    """The ASCII digits ``text`` starts with ("" if none)."""
    return text[:_digits(text, 0)[0]]


_BLANK_FROM = re.compile(r"[ \u3000]+(?=\([1-9]{2}\))")


def _loose_kif_line(s: str) -> MoveLine:
    """The fields of a numbered line ``move_line`` does not read (blanks or other text in the
    move, a time in another layout), the time left in the move; number -1 if it has no move.

    >>> _loose_kif_line("5 同銀　(79)   ( 0:00/00:00:07)")[1]
    '同銀(79)   ( 0:00/00:00:07)'
    """
    digits = _leading_digits(s)
    rest = s[len(digits):]
    if not rest[:1].isspace() or not ascii_digits(digits):
        return _NO_MOVE_LINE
    text = rest.strip()
    if "(" in text:  # 同銀　(79): a blank some writers put before the from-square
        text = _BLANK_FROM.sub("", text)
    plus = text.endswith("+")
    if plus:
        text = text[:-1].rstrip()
    if not text:
        return _NO_MOVE_LINE
    return int(digits), text, None, None, plus


#: Header keys that start a new game when they follow the moves of another one.
GAME_START_KEYS = frozenset({
    "開始日時", "対局日", "終了日時", "棋戦", "表題", "手合割", "先手", "後手", "上手", "下手",
    "場所", "持ち時間", "戦型", "作者", "作品名", "作品番号", "対局ID", "記録ID", "棋戦詳細",
})


def _starts_game(s: str) -> bool:
    """True if ``s`` (a stripped line) starts a game when it follows the moves of another:
    ``#KIF``/``#KI2``, the ``手数----`` line, a board diagram's hand line, file header or
    border, or a header such as 開始日時 or 手合割 (``GAME_START_KEYS``)."""
    if s.startswith(("#KIF", "#KI2", "手数--", "手数－")):
        return True
    c = s[0]
    if c == "|" or c == "+" or c in "先後上下":
        if is_bod_line(s) and s not in TURN_LINES:
            return True
    elif _column_header_line(s):
        return True
    colon = _colon(s)
    return colon > 0 and s[:colon].strip(_SPACES) in GAME_START_KEYS


def _column_header_line(s: str) -> bool:
    return s[0] in "１２３４５６７８９123456789" and is_bod_line(s) and not s.startswith("手数")


def read_lines(text: str, source: str, encoding: str, fmt: str) -> list:
    """The games of a KIF or KI2 text with ``\n`` line ends (the engine of ``read_kif`` and
    ``ingest.ki2.read_ki2``, which call it through ``ingest.record.read_safely``)."""
    games: list = []
    game: Optional[_Game] = None
    for number, line in enumerate(text.split("\n"), 1):
        if not line:
            continue
        c = line[0]
        if c == "*" or c == "&":
            if game is None:
                game = _Game(source, 0, encoding, fmt, number)
            if c == "*":
                game.b.comment(line[1:].rstrip(), number)
            else:
                game.b.bookmark(line[1:].strip(), number, line.rstrip())
            continue
        if c == "#" and not line.startswith(("#KIF", "#KI2")):
            continue
        fields = move_line(line)
        if fields[0] < 0:
            s = line.strip()
            if s[:1].isdigit() and s[0].isascii() and not is_bod_line(s):
                fields = _loose_kif_line(s)
        if fields[0] >= 0:
            if game is None:
                game = _Game(source, 0, encoding, fmt, number)
            game.kif_move(fields, number, line)
            continue
        if not s:
            continue
        c = s[0]
        if game is not None and game.in_moves and c not in _KI2_START and _starts_game(s):
            games.append(game)
            game = _Game(source, len(games), encoding, fmt, number, s)
        if game is None:
            game = _Game(source, 0, encoding, fmt, number)
        if c in _KI2_START:
            game.ki2_moves(s, number)
        elif s.startswith("まで"):
            game.summary(s, number)
        elif s.startswith("変化"):
            game.variation(s, number)
        elif c == "#":
            key, _, value = s.partition(" ")
            game.header(key, value.strip(), number, s)
        elif s.startswith(("手数--", "手数－")):
            continue
        elif _feed(game, line, number):
            if s.startswith(("手数＝", "手数=")):  # the diagram's "after move N": keep it
                game.header(s[:3], s[3:].strip(_SPACES), number, s)
            continue
        else:
            colon = _colon(s)
            if colon > 0:
                game.header(s[:colon].strip(_SPACES), s[colon + 1:].strip(_SPACES), number, s)
            else:
                game.b.add(WARNING, "unparsable_line", "not a header, comment, move, ending or "
                           "board line", number, text=line)
    if game is not None:
        games.append(game)
    return _merge_trailing(games)


def _feed(game: _Game, line: str, number: int) -> bool:
    """Give a line to the game's board diagram; True if it was a diagram line."""
    diagram = game.diagram
    if diagram is None:
        if not is_bod_line(line):
            return False
        diagram = game.diagram = BoardDiagram()
    if game.b.settled:
        return False
    fed = diagram.feed(line, number)
    if len(diagram.findings) > 64:  # a diagram of junk rows: its findings are capped now
        _take_findings(game.record, diagram)
    return fed


def _take_findings(record: GameRecord, diagram: BoardDiagram) -> None:
    """Move the findings of a board diagram into the record (where they are capped)."""
    record.capped().add_all(diagram.findings)
    diagram.findings = []


def _colon(s: str) -> int:
    """The position of the header colon (full- or half-width) in ``s``, or -1."""
    a, b = s.find("："), s.find(":")
    if a < 0:
        return b
    if b < 0:
        return a
    return min(a, b)


def _merge_trailing(games: list) -> list:
    """Finish the games; a header-only game that followed another one is merged back into it
    (its headers were written after that game's moves); indexes count the games kept."""
    out: list = []
    for game in games:
        record = game.finish()
        if game.started_by is not None and game.empty() and out:
            previous = out[-1].b
            previous.add(INFO, "header_after_moves", "header lines after the moves, with no "
                         "moves after them; kept as headers of this game",
                         line=record.first_line, text=game.started_by)
            for key, value in record.headers.items():
                previous.header(key, value, record.first_line, value)
            previous.record.capped().add_all([f for f in record.findings if f.code not in (
                "unknown_handicap", "bad_start_position")])
            continue
        record.index = len(out)
        out.append(game)
    return [game.record for game in out]


def read_kif(text: object, source: str = "", encoding: str = "", format: str = "kif") -> list:
    """The games of a KIF/KIFU text (usually one; several when a new header block follows the
    end of a game); never raises.

    ``text`` is already decoded (``ingest.decode``); ``source``, ``encoding`` and ``format``
    (what the caller detected: ``kif`` or ``kifu``) are copied into each record. An empty text
    gives one record with a ``no_game`` finding.

    >>> games = read_kif("手合割：平手\\n1 ７六歩(77)\\n2 投了\\n手合割：香落ち\\n1 ３四歩(33)\\n")
    >>> [(g.index, g.first_line, g.handicap, len(g.moves)) for g in games]
    [(0, 1, None, 1), (1, 4, '香落ち', 1)]
    """
    return read_safely(lambda clean: read_lines(clean, source, encoding, format), text, source,
                       encoding, format, "KIF")


# a destination: a file digit and a rank (kanji, or a digit as in ``▲26歩``), or 同
_KIF_SNIFF = re.compile(r"\s*[0-9]+\s+(?:[1-9１-９][一二三四五六七八九1-9１-９]|同|仝)")
_KI2_SNIFF = re.compile(rf"\s*[{KI2_MARKS}]\s*(?:[1-9１-９][一二三四五六七八九1-9１-９]|同|仝)")


_LAST_SNIFF: list = [None, None]  # the last text sniffed and its counts (KIF and KI2 both ask)


def sniff(text: object) -> tuple:
    """``(kif_lines, ki2_lines, other_signs)`` counted over the first 60 lines, up to the first
    KIF line (after it, KIF is the answer of ``looks_like_kif`` and ``looks_like_ki2``)."""
    if text is _LAST_SNIFF[0]:
        return _LAST_SNIFF[1]
    kif = ki2 = signs = 0
    if not isinstance(text, str):
        return 0, 0, 0
    body = text.lstrip("\ufeff")
    start = 0
    for _ in range(60):  # the first 60 lines, without splitting the whole text
        end = body.find("\n", start)
        line = body[start:] if end < 0 else body[start:end]
        start = end + 1
        first = line.lstrip()[:1]  # (what each pattern needs first, checked before it)
        if first in _ASCII_DIGITS and _KIF_SNIFF.match(line):
            kif += 1
            break
        elif first in _KI2_START and _KI2_SNIFF.match(line):
            ki2 += 1
        elif line.startswith(("#KIF", "手数--")):
            kif += 1
            break
        elif line.startswith("#KI2"):
            ki2 += 1
        elif line.startswith(("手合割", "先手：", "後手：", "開始日時", "上手：", "下手：")) \
                or is_bod_line(line):
            signs += 1
        if not start:  # that was the last line
            break
    _LAST_SNIFF[:] = text, (kif, ki2, signs)
    return kif, ki2, signs


def looks_like_kif(text: object) -> bool:
    """True if the first 60 lines read like KIF: a numbered move (``1 ７六歩(77)``), the
    ``手数----`` line or ``#KIF``, or KIF headers/diagram without any KI2 move.

    >>> looks_like_kif("手合割：平手\\n   1 ７六歩(77)   ( 0:16/00:00:16)\\n")
    True
    >>> looks_like_kif("▲７六歩 △３四歩\\n"), looks_like_kif("PI\\n+\\n+7776FU\\n")
    (False, False)
    """
    kif, ki2, signs = sniff(text)
    return kif > 0 or (signs > 0 and ki2 == 0)
