"""The one record builder of every reader: readers recognise the lines (or JSON objects) of their
format and hand what they found to a ``RecordBuilder``, which owns the rules the formats share.

It plays the part of python-chess's ``GameBuilder`` in ``chess.pgn.read_game(handle,
Visitor=GameBuilder)``: the reader only tokenizes; the builder sets the headers, settles the start
position, appends moves with their times and comments, keeps the declared ending, opens and closes
variations and collects the findings. A reader calls, in the order the record gives them:

=================================  ================================================================
``header(key, value)``             a header; a second, different value keeps the first
``start(sfen, name, side)``        settle the start position: a board, else a handicap name,
                                   else the even start (also done by the first move, ending or
                                   variation, and by ``finish``, if the reader has not)
``move(text, line, …)``            a move, with its times and comments, on the current line
``time(seconds, line)``            the time of the last move or ending (CSA's ``T`` lines)
``comment(body, line)``            a comment on what came before it
``bookmark(name, line, raw)``      a KIF ``&`` bookmark on the last move
``end(word, line, …)``             the declared ending of the current line
``begin_variation(ply, line)``     open a variation and read into it (``end_variation`` goes back)
``stated_moves(n, line, …)``       a move count the record states (KIF ``まで N手``, csa1 header)
``result(word, line, winner)``     a result stated instead of an ending (csa1)
``add(severity, code, message)``   any finding of the reader's own (kept capped: the record's
                                   ``ingest.record.Findings``)
``recognise()``                    the reader read a board (or a line its format defines as a
                                   game's: a USI position line, a csa1 header)
``finish()``                       the ``GameRecord``, with what is reported at the end
=================================  ================================================================

What makes a record a game, for every format: something the reader recognised as part of one —
a header of the game (``record_header``: the keys the formats define, not a format's version
or encoding line), a board (``recognise``), a move, an ending the format defines (or a KIF
``まで…`` summary; ``result``), or a variation. A record with none of them (random bytes that
sniffed like a format, a line of junk between two games) has ``GameRecord.recognised`` False:
it is no game, and ``ingest.record.keep_games`` passes its findings and comments on to the game
beside it, or makes the file's one ``no_game`` finding when no record is a game::

    >>> junk = RecordBuilder("x.kif", 0, "kif", "utf-8", Dialect("kif", frozenset(), "none"))
    >>> junk.header("\x07\ufffd", "?"), junk.header("#KIF", "version=2.0"), junk.end("12", 3)
    (True, True, DeclaredEnding(word='12', line=3, mover=0, seconds=None, summary='', winner=None))
    >>> junk.finish().recognised
    False

The formats name some findings differently (a second CSA ``%`` line is an ``unparsable_line``, a
second JKF special a ``second_ending``); a reader gives the builder its ``Dialect`` for that::

    >>> DEMO = Dialect("usi", frozenset({"resign"}), "the demo endings")
    >>> b = RecordBuilder("demo.txt", 0, "usi", "utf-8", DEMO)
    >>> b.header("black", "A"), b.header("black", "B", line=2)
    (True, False)
    >>> b.comment("about the start", 3)
    >>> b.move("7g7f", 4, seconds=2).text
    '7g7f'
    >>> b.comment("after 7g7f", 5)
    >>> b.end("resign", 6).mover        # White was to move after one move
    1
    >>> b.move("3c3d", 7).line          # a move after the ending is kept, and said once
    7
    >>> v = b.begin_variation(1, line=8)
    >>> b.move("2g2f", 9).notation
    'usi'
    >>> b.end_variation()
    >>> record = b.finish()
    >>> record.comments, record.moves[0].comments, record.variations[0].moves[0].text
    (['about the start'], ['after 7g7f'], '2g2f')
    >>> [(f.code, f.line, f.ply) for f in record.findings]
    [('duplicate_header', 2, None), ('moves_after_ending', 7, 2)]
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Optional, Union

from kifudb.core.handicap import EVEN, canonical_name, handicap_name, handicap_sfen
from kifudb.core.pieces import BLACK, SIDES_NAMED, WHITE
from kifudb.core.position import STARTING_SFEN, Position, SfenError
from kifudb.ingest.record import (DeclaredEnding, GameRecord, MoveRecord, Variation, ERROR, WARNING,
                           INFO)

__all__ = ["RecordBuilder", "Dialect", "Line", "quote", "OTHER"]

#: KIF's 手合割 for "a set-up position": a board diagram must give it.
OTHER = "その他"
#: The header keys that belong to a game (KIF, KI2 and JKF write the same keys; CSA's are added
#: by ``record_header``), beside any key that starts with a side's name (先手省略名, 後手段級 …).
RECORD_HEADERS = frozenset({
    "開始日時", "終了日時", "対局日", "棋戦", "棋戦詳細", "表題", "戦型", "持ち時間", "秒読み",
    "消費時間", "場所", "掲載", "備考", "手合割", "手合", "作品番号", "作品名", "作者", "発表誌",
    "発表年月", "出典", "手数", "完全性", "分類", "受賞", "図", "初期局面", "対局ID", "記録ID",
    "振り駒", "封じ手手数", "昼食休憩", "夕食休憩", "昼休前消費時間", "N+", "N-", "black",
    "white", "event", "date",
})
_MAX_TEXT = 200  # a finding quotes at most this much of a line


def quote(text: str) -> str:
    """``text`` cut to what a finding quotes (200 characters and an ellipsis)."""
    return text if len(text) <= _MAX_TEXT else text[:_MAX_TEXT] + "…"


def _pending(line: "Line") -> list:
    """The comments waiting for ``line``'s first move, as a list (made at the first)."""
    pending = line.pending
    if not isinstance(pending, list):
        pending = line.pending = []
    return pending


def _comments(move: MoveRecord) -> list:
    """The comment list of ``move``, made at its first comment (``ingest.record.NO_COMMENTS``)."""
    comments = move.comments
    if type(comments) is not list:
        comments = move.comments = list(comments)
    return comments


def record_header(key: str) -> bool:
    """True if header ``key`` belongs to a game (``RECORD_HEADERS``, a key that starts with a
    side's name, a CSA ``$`` key such as ``$EVENT``), not to a file's layout (``#KIF``,
    ``version``, ``encoding``) nor to text that only looked like a header.

    >>> record_header("開始日時"), record_header("後手省略名"), record_header("$EVENT")
    (True, True, True)
    >>> record_header("#KIF"), record_header("version"), record_header("ｶﾞ\ufffd")
    (False, False, False)
    """
    return key in RECORD_HEADERS or key[:2] in _SIDE_NAMES or (
        key[:1] == "$" and key[1:2].isascii() and key[1:2].isupper())


_SIDE_NAMES = frozenset(name for name, _ in SIDES_NAMED)


@lru_cache(maxsize=4096)
def _setup_problem(sfen: str) -> Optional[str]:
    """None if ``Position`` accepts the SFEN, else its complaint (start positions repeat)."""
    try:
        Position.from_sfen(sfen)
    except SfenError as error:
        return str(error)
    return None


@lru_cache(maxsize=4096)
def _named(sfen: str) -> tuple:
    """``(handicap, side to move)`` of a start SFEN: the name of a standard handicap (None for
    the even start and any other position) and 0 (Black) or 1 (White)."""
    found = handicap_name(sfen) if sfen else None
    return (found if found != EVEN else None), (WHITE if sfen.split()[1:2] == ["w"] else BLACK)


@dataclass(frozen=True)
class Dialect:
    """What a format calls the things the builder checks: the rules are the same, the words
    and the finding codes are the format's (several are pinned by the files people already have).

    ``notation`` is how a move is read unless the reader says otherwise; ``endings`` the ending
    words the format defines, ``endings_name`` how a message names them. ``comments_after_ending``
    is where a comment written after the ending goes: ``"move"`` (the last move, as KIF and JKF
    attach it) or ``"game"`` (``GameRecord.comments``, as CSA does: its comments follow their
    statement, and ``DeclaredEnding`` has none).
    """

    notation: str
    endings: frozenset
    endings_name: str
    unknown_ending: str = "unknown_ending"
    second_ending: str = "duplicate_ending"
    after_ending: str = "moves_after_ending"
    comments_after_ending: str = "move"


class Line:
    """One line of play while it is built: the main line or a variation.

    ``moves`` is the list of the ``GameRecord`` or ``Variation`` itself; ``start`` the ply of its
    first move; ``index`` None for the main line, else the index in ``GameRecord.variations``;
    ``owner`` the record or variation that holds the ending; ``parent`` the line it branches from.
    """

    __slots__ = ("moves", "start", "index", "owner", "parent", "ending", "pending", "after")

    def __init__(self, moves: list, start: int, index: Optional[int], owner,
                 parent: Optional["Line"]) -> None:
        self.moves = moves
        self.start = start
        self.index = index
        self.owner = owner
        self.parent = parent
        self.ending: Optional[DeclaredEnding] = None
        #: (comment, line) read before the line's first move (a list then)
        self.pending: Union[tuple, list] = ()
        self.after: Optional[list] = None  # [finding, count] of the moves after the ending

    @property
    def ply(self) -> int:
        """The ply the next move of this line is."""
        return self.start + len(self.moves)

    def has_ply(self, ply: int) -> bool:
        """True if the line holds a move of ply ``ply``."""
        return self.start <= ply < self.start + len(self.moves)


class RecordBuilder:
    """Builds one ``GameRecord`` from what a reader recognised (see the module docstring).

    ``current`` is the line moves, comments and endings go to; ``first_turn`` the side to move
    at the start, once ``settled``; ``timed`` the move or ending a ``time`` belongs to.
    """

    def __init__(self, source: str, index: int, fmt: str, encoding: str, dialect: Dialect,
                 first_line: Optional[int] = None) -> None:
        self.record = GameRecord(source=source, index=index, format=fmt, encoding=encoding,
                                 first_line=first_line, recognised=False)
        self.dialect = dialect
        self.notation = dialect.notation
        self.settled = False
        self.first_turn = BLACK
        self.main = Line(self.record.moves, 1, None, self.record, None)
        self.current = self.main
        self.lines = [self.main]
        #: the MoveRecord or DeclaredEnding a time line belongs to
        self.timed: Union[MoveRecord, DeclaredEnding, None] = None

    # ----- findings -----------------------------------------------------------------------------

    def add(self, severity: str, code: str, message: str, line: Optional[int] = None,
            ply: Optional[int] = None, text: str = ""):
        """Record a finding (``text`` is quoted stripped and cut) and return it."""
        return self.record.add(severity, code, message, line, ply, quote(text.strip()))

    def recognise(self) -> None:
        """Say that the record is a game's (see the module docstring): the reader read a board,
        or a line its format defines as a game's."""
        self.record.recognised = True

    # ----- headers ------------------------------------------------------------------------------

    def header(self, key: str, value: str, line: Optional[int] = None, text: str = "") -> bool:
        """Set header ``key``. A key given again with another value keeps the first value and adds
        ``duplicate_header``; returns False then, True if the header holds ``value``."""
        record = self.record
        headers = record.headers
        old = headers.get(key)
        if not record.recognised and record_header(key):
            record.recognised = True
        if old is None:
            headers[key] = value
        elif old != value:
            self.add(WARNING, "duplicate_header", f"header {key!r} was already {old!r}; the first "
                     "value is kept", line, text=text)
            return False
        return True

    # ----- the start position -------------------------------------------------------------------

    def start(self, sfen: Optional[str] = None, name: Optional[str] = None,
              side: Optional[int] = None, line: Optional[int] = None,
              name_line: Optional[int] = None, check: bool = False) -> None:
        """Settle the start position, once (later calls do nothing).

        ``sfen`` is the position a board gives (a KIF diagram, CSA ``P`` lines, JKF ``data``), or
        ``""`` for a record whose start could not be read (the replay then plays nothing);
        ``name`` a handicap the record names (KIF 手合割 on ``name_line``, a JKF preset): a board
        wins over a name, and with neither the start is even. ``side`` (0 Black, 1 White), when
        given, is the side to move. ``check`` asks whether the board is a legal setup.

        Sets ``GameRecord.start_sfen``, ``GameRecord.handicap`` (the name of a standard handicap,
        None for the even start or any other) and ``first_turn``. Findings: ``unknown_handicap``
        (a name no handicap has: ``warning`` when the even start replaces it, ``info`` beside a
        board), ``bad_start_position`` (``その他`` without a board; with ``check``, a board that
        is no legal setup, on ``line``).
        """
        if self.settled:
            return
        self.settled = True
        if sfen is None:
            sfen = STARTING_SFEN
            if name == OTHER:
                self.add(WARNING, "bad_start_position", "手合割 その他 (other) without a board "
                         "diagram; the even start is used", name_line, text=name)
            elif name:
                try:
                    sfen = handicap_sfen(name)
                except KeyError:
                    self.add(WARNING, "unknown_handicap", f"手合割 {name!r} is not a known "
                             "handicap; the even start is used", name_line, text=name)
        elif name and name not in (OTHER, EVEN):
            try:
                canonical_name(name)
            except KeyError:
                self.add(INFO, "unknown_handicap", f"手合割 {name!r} is not a known handicap; the "
                         "board diagram gives the start position", name_line, text=name)
        if side is not None:
            fields = sfen.split()
            if len(fields) > 1:
                fields[1] = "bw"[side]
                sfen = " ".join(fields)
        record = self.record
        record.start_sfen = sfen
        record.handicap, self.first_turn = _named(sfen)
        if check and sfen:
            problem = _setup_problem(sfen)
            if problem:
                self.add(ERROR, "bad_start_position", f"the start position is not a legal setup: "
                         f"{problem}", line)

    def start_too_late(self, what: str, line: Optional[int], text: str = "") -> None:
        """A start-position line (``what``) read after the start was settled: it changes nothing
        and is reported (``unparsable_line``, an error: the record contradicts its start)."""
        self.add(ERROR, "unparsable_line", f"{what} after the moves began; the start position "
                 "is not changed", line, text=text)

    # ----- moves, times, comments ---------------------------------------------------------------

    def move(self, text: str, line: Optional[int] = None, notation: Optional[str] = None,
             seconds=None, total=None, comments: Optional[list] = None,
             raw: str = "") -> MoveRecord:
        """Append a move as written to the current line and return its ``MoveRecord``.

        ``seconds`` is the time the move took, ``total`` the mover's total; ``comments`` those the
        record gives with the move (JKF); ``raw`` the line quoted by findings (``text`` if empty).
        A move after the line's ending is kept and reported once a line, with the count
        (``Dialect.after_ending``); comments read before a variation's first move go with it
        (``comment_placement``).
        """
        current = self.current
        move = MoveRecord(text, line, notation or self.notation, seconds, total, comments)
        moves = current.moves
        if not moves or current.ending is not None:
            self._unusual(current, move, raw or text)
        moves.append(move)
        self.timed = move
        return move

    def _unusual(self, current: Line, move: MoveRecord, raw: str) -> None:
        """The rare cases of a move: the first of a line (the start is settled then, the record is
        a game's, and comments waiting for it join it), or one after the ending."""
        if not self.settled:
            self.start()
        self.record.recognised = True
        ending = current.ending
        if ending is not None:
            after = current.after
            if after is None:
                finding = self.add(WARNING, self.dialect.after_ending, "", move.line,
                                   current.ply, raw)
                after = current.after = [finding, 0]
            after[1] += 1
            at = f" (line {ending.line})" if ending.line is not None else ""
            after[0].message = (f"{after[1]} move(s) follow the ending {ending.word}{at}; kept as "
                                "moves")
        if not current.moves and current.pending:
            self._place(current, _comments(move), "a comment before the first move of a "
                        "variation; kept with that move")

    def _place(self, line: Line, comments: list, message: str) -> None:
        """Put the comments that waited for ``line``'s first move in ``comments``, saying so."""
        for body, at in line.pending:
            comments.append(body)
            self.add(INFO, "comment_placement", message, at, text=body)
        line.pending = ()

    def time(self, seconds, line: Optional[int] = None, text: str = "") -> None:
        """The time (in seconds) of the last move or ending, given on a line of its own (CSA ``T``).
        One that follows no move, or a second one, is reported (``unparsable_line``)."""
        target = self.timed
        if target is None:
            self.add(WARNING, "unparsable_line", "a time line that follows no move", line,
                     text=text)
        elif target.seconds is not None:
            self.add(WARNING, "unparsable_line", f"a second time line for the same move (it took "
                     f"{target.seconds} s); the first is kept", line, text=text)
        else:
            target.seconds = seconds

    def comment(self, body: str, line: Optional[int] = None) -> None:
        """A comment on what came before it: the last move of the current line; before the first
        move, the game (``GameRecord.comments``), or for a variation its first move; after the
        ending, where ``Dialect.comments_after_ending`` says."""
        current = self.current
        if current.ending is not None and current.after is None \
                and self.dialect.comments_after_ending == "game":
            self.record.comments.append(body)
        elif current.moves:
            _comments(current.moves[-1]).append(body)
        elif current.index is None:
            self.record.comments.append(body)
        else:
            _pending(current).append((body, line))

    def bookmark(self, name: str, line: Optional[int], raw: str) -> None:
        """A bookmark (KIF ``&name``, ``raw`` as written) on the last move of the current line.
        A second one on the same move is kept as a comment (``duplicate_bookmark``); one on the
        start position goes to ``GameRecord.comments`` as written (``bookmark_at_start``)."""
        current = self.current
        if current.moves:
            move = current.moves[-1]
            if move.bookmark is None:
                move.bookmark = name
            else:
                self.add(WARNING, "duplicate_bookmark", f"the move already has the bookmark "
                         f"{move.bookmark!r}; this one is kept as a comment", line, text=raw)
                _comments(move).append(raw)
        elif current.index is None:
            self.record.comments.append(raw)
            self.add(INFO, "bookmark_at_start", "a bookmark on the start position, kept "
                     "among the game's comments as written", line, text=raw)
        else:
            _pending(current).append((raw, line))

    # ----- endings ------------------------------------------------------------------------------

    def end(self, word: str, line: Optional[int] = None, seconds=None, text: str = "",
            summary: str = "", mover: Optional[int] = None) -> Optional[DeclaredEnding]:
        """The declared ending of the current line, as written; returns it (None if the line
        already had one: the first is kept).

        ``mover`` is the side to move then (computed from the start and the moves unless given);
        ``summary`` a KIF ``まで…`` line the ending was read from (its word is the reader's, not
        checked). Findings: ``Dialect.unknown_ending`` (a word the format does not define; kept),
        ``Dialect.second_ending``.
        """
        if not self.settled:
            self.start()
        current = self.current
        dialect = self.dialect
        if summary or word in dialect.endings:
            self.record.recognised = True
        else:
            self.add(WARNING, dialect.unknown_ending, f"{word!r} is not one of "
                     f"{dialect.endings_name}; kept as the declared ending as written", line,
                     text=text)
        old = current.ending
        if old is not None:
            at = f" (line {old.line})" if old.line is not None else ""
            self.add(WARNING, dialect.second_ending, f"a second ending after {old.word}{at}; the "
                     "first is kept", line, text=text)
            self.timed = None
            return None
        if mover is None:
            mover = self.first_turn ^ ((current.ply - 1) & 1)
        ending = DeclaredEnding(word, line, mover, seconds, summary)
        current.ending = current.owner.ending = ending
        self.timed = ending
        return ending

    def result(self, word: str, line: Optional[int], winner: str) -> DeclaredEnding:
        """A result the record states instead of an ending (csa1's header): who won
        (``black``, ``white``, ``draw``), not how nor on whose move."""
        ending = DeclaredEnding(word, line, winner=winner)
        self.main.ending = self.record.ending = ending
        self.record.recognised = True
        return ending

    def stated_moves(self, count: int, line: Optional[int], what: str, text: str = "") -> None:
        """A number of moves the record states (``what``: "the summary", "the header") for the
        current line; a different one than the line has is reported (``move_count_mismatch``)."""
        played = self.current.ply - 1
        if count != played:
            self.add(WARNING, "move_count_mismatch", f"{what} says {count} moves, but the line "
                     f"has {played}", line, played, text)

    # ----- variations ---------------------------------------------------------------------------

    def begin_variation(self, start_ply: int, line: Optional[int] = None,
                        parent: Optional[Line] = None) -> Line:
        """Open a variation whose first move replaces ply ``start_ply`` of ``parent`` (the current
        line if None) and read into it; returns its ``Line``."""
        if not self.settled:
            self.start()
        if parent is None:
            parent = self.current
        record = self.record
        record.recognised = True
        variation = Variation(start_ply=start_ply, parent=parent.index, line=line)
        record.variations.append(variation)
        new = Line(variation.moves, start_ply, len(record.variations) - 1, variation, parent)
        self.lines.append(new)
        self.current = new
        self.timed = None
        return new

    def end_variation(self) -> None:
        """Close the current variation: reading goes on in the line it branches from."""
        self.current = self.current.parent or self.main
        self.timed = None

    # ----- the end ------------------------------------------------------------------------------

    def finish(self) -> GameRecord:
        """Settle what is left and return the record: a variation without moves nor ending
        (``empty_variation``); comments that waited for a variation's first move that never came
        go to ``GameRecord.comments`` (``comment_placement``)."""
        if not self.settled:
            self.start()
        record = self.record
        for variation in record.variations:
            if not variation.moves and variation.ending is None:
                self.add(WARNING, "empty_variation", f"a variation from ply "
                         f"{variation.start_ply} without moves", variation.line,
                         variation.start_ply)
        for line in self.lines:
            if line.pending:
                self._place(line, record.comments, "a comment in a variation without moves; "
                            "kept among the game's comments")
        return record
