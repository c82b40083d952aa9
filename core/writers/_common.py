"""What the writers share: the lines of a ``Kifu`` replayed, the order KIF and KI2 write the
variations in, the headers in each format's words, times, and KIF's ``まで…`` summary line.

    >>> from kifudb.core.kifu import Kifu, KifuMove, KifuVariation, KifuEnding
    >>> kifu = Kifu(moves=[KifuMove(u) for u in "7g7f 3c3d 2g2f".split()],
    ...             variations=[KifuVariation(2, [KifuMove("8c8d")]), KifuVariation(3, [KifuMove("6g6f")])],
    ...             ending=KifuEnding("投了", "black", "resign"))
    >>> order, marks = variation_order(kifu)
    >>> order, sorted(marks[None])
    ([1, 0], [2, 3])
    >>> summary(kifu, None, 3)
    'まで3手で先手の勝ち'
    >>> clock(75), clock(3723.5)
    (' 1:15', '62:03.5')
"""

from __future__ import annotations

from functools import lru_cache
from typing import Optional
from unicodedata import east_asian_width

from kifudb.core.handicap import EVEN
from kifudb.core.kifu import Kifu, ending_word
from kifudb.core.pieces import SIDE_KANJI
from kifudb.core.position import Position

#: (KIF's key, CSA's key): the headers both formats name (JKF uses KIF's keys).
HEADER_KEYS = (("先手", "N+"), ("後手", "N-"), ("下手", "N+"), ("上手", "N-"), ("棋戦", "$EVENT"),
               ("場所", "$SITE"), ("開始日時", "$START_TIME"), ("終了日時", "$END_TIME"),
               ("持ち時間", "$TIME_LIMIT"), ("戦型", "$OPENING"))
_CSA_OF_KIF = {kif: csa for kif, csa in HEADER_KEYS}
#: the English keys some records use (CSA one-line files, USI notes), as CSA's
_CSA_OF_ENGLISH = {"black": "N+", "white": "N-", "event": "$EVENT", "date": "$START_TIME"}
#: headers every writer says its own way (the start position, the format's version and
#: encoding), never copied from the record
_OWN = frozenset(("#KIF", "#KI2", "version", "encoding", "手合割", "手合", "手数＝"))


def is_handicap(kifu: Kifu) -> bool:
    """True when the game starts from a standard handicap (KIF then says 下手/上手)."""
    return kifu.handicap not in (None, EVEN)


def headers_in(kifu: Kifu, fmt: str) -> list:
    """The headers of ``kifu`` in the words of ``fmt`` (``kif`` for KIF, KI2 and JKF, or
    ``csa``), in their order, each name once; what the format cannot say is left out (see
    ``left_out_headers``).

    >>> k = Kifu(headers=[("N+", "A"), ("black", "A"), ("$EVENT", "E"), ("$NOTE", "n")])
    >>> headers_in(k, "kif"), headers_in(Kifu(headers=[("先手", "A"), ("表題", "T")]), "csa")
    ([('先手', 'A'), ('棋戦', 'E'), ('$NOTE', 'n')], [('N+', 'A')])
    """
    return [(name, value) for _, name, value in _kept(kifu, fmt)]


def _kept(kifu: Kifu, fmt: str) -> list:
    """``(name in the record, name in fmt, value)`` of each header ``fmt`` says."""
    black, white = side_names(kifu)
    out, seen = [], set()
    for written, value in kifu.headers:
        if written in _OWN:
            continue
        name = _CSA_OF_ENGLISH.get(written, written)
        if fmt == "csa":
            name = _CSA_OF_KIF.get(name, name)
            if not (name in ("N+", "N-") or name.startswith("$")):
                continue
        elif name == "N+":
            name = black
        elif name == "N-":
            name = white
        else:
            name = next((kif for kif, csa in HEADER_KEYS if csa == name), name)
        if name not in seen:
            seen.add(name)
            out.append((written, name, " ".join(value.split("\n")).strip()))
    return out


def left_out_headers(kifu: Kifu, fmt: str) -> list:
    """The headers (in KIF's words) that ``headers_in(kifu, "kif")`` says and
    ``headers_in(kifu, fmt)`` cannot.

    >>> left_out_headers(Kifu(headers=[("下手", "A"), ("作者", "B"), ("先手", "C")]), "csa")
    ['作者', '先手']
    """
    said = {written for written, _, _ in _kept(kifu, fmt)}
    return [name for written, name, _ in _kept(kifu, "kif") if written not in said]


def children(kifu: Kifu) -> dict:
    """line (None: the main line) -> the indexes of the variations that branch off it."""
    kids: dict = {}
    for index, variation in enumerate(kifu.variations):
        kids.setdefault(variation.parent, []).append(index)
    return kids


def variation_order(kifu: Kifu) -> tuple:
    """``(order, marks)``: the variations in the order KIF and KI2 write them (Kifu for
    Windows' order: after a line, its branches from its last ply back, each followed at once by
    its own), and for each line the plies a ``+`` marks in KIF (a variation follows that
    branches there: off it, or a later alternative of the same move)."""
    kids = children(kifu)
    order: list = []
    marks: dict = {None: set()}
    stack = [None]
    while stack:
        line = stack.pop()
        marks.setdefault(line, set())
        mine = sorted(kids.get(line, ()), key=lambda v: -kifu.variations[v].start_ply)
        for previous, index in zip([None] + mine, mine):
            start = kifu.variations[index].start_ply
            if previous is not None and kifu.variations[previous].start_ply == start:
                marks.setdefault(previous, set()).add(start)  # the next alternative
            else:
                marks[line].add(start)
        stack.extend(reversed(mine))
        if line is not None:
            order.append(line)
    return order, marks


@lru_cache(maxsize=256)
def _parsed(sfen: str) -> Position:
    return Position.from_sfen(sfen)


def position_of(sfen: str) -> Position:
    """A new ``Position`` of ``sfen`` (start positions repeat: each is parsed once)."""
    return _parsed(sfen).copy()


def start_position(kifu: Kifu, index: Optional[int], path: Optional[list] = None) -> Position:
    """The position before the first move of line ``index`` (None: the main line), with its
    last move known (for 同); ``path`` is ``kifu.path(index)`` when the caller has it."""
    position = position_of(kifu.start_sfen)
    if index is None:
        return position
    if path is None:
        path = kifu.path(index)
    for kifu_move in path[:kifu.variations[index].start_ply - 1]:
        position.push(kifu_move.move)
    return position


class LineStarts:
    """Where each line of a ``Kifu`` starts (the position before its first move, with its last
    move, and each side's time spent), kept by the line it branches from while that line is
    written (``passing``): each move is played once, however many variations branch off late
    in a long game. A line must be begun (``begin``) after the line it branches from, as the
    writers' orders have it; one that branches before that line's first move (or is begun out
    of order) is found from the start by ``Kifu.path``, as before.

    >>> from kifudb.core.kifu import KifuMove, KifuVariation
    >>> kifu = Kifu(moves=[KifuMove("7g7f", 3), KifuMove("3c3d", 5)],
    ...             variations=[KifuVariation(2, [KifuMove("8c8d", 1)])])
    >>> starts = LineStarts(kifu)
    >>> position, spent = starts.begin(None)
    >>> for ply, kifu_move in enumerate(kifu.moves, start=1):
    ...     starts.passing(None, ply, position, spent)
    ...     _ = spent_after(kifu, ply, kifu_move, spent)
    ...     position.push(kifu_move.move)
    >>> position, spent = starts.begin(0)
    >>> position.sfen()
    'lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2'
    >>> position.last_move, spent
    (Move.from_usi('7g7f'), [3, 0])
    """

    def __init__(self, kifu: Kifu) -> None:
        self.kifu = kifu
        #: line -> {ply: how many of its variations begin there, from what it keeps}
        self._wanted: dict = {}
        #: (line, ply) -> (the position before that ply, the time spent then)
        self._kept: dict = {}
        #: per variation: whether it begins from what its parent line keeps
        self._kept_for: list = []
        main_end = len(kifu.moves) + 1
        for index, variation in enumerate(kifu.variations):
            parent, start = variation.parent, variation.start_ply
            if parent is None:
                ok = 1 <= start <= main_end
            else:
                ok = 0 <= parent < index and kifu.variations[parent].start_ply <= start <= (
                    kifu.variations[parent].start_ply + len(kifu.variations[parent].moves))
            self._kept_for.append(ok)
            if ok:
                plies = self._wanted.setdefault(parent, {})
                plies[start] = plies.get(start, 0) + 1

    def begin(self, index: Optional[int]) -> tuple:
        """``(position, spent)`` before the first move of line ``index`` (None: the main
        line): a new ``Position`` and ``[black's, white's]`` seconds (as ``totals`` sums them);
        ``ValueError`` for a variation ``Kifu.path`` refuses."""
        kifu = self.kifu
        if index is None:
            return position_of(kifu.start_sfen), [0, 0]
        variation = kifu.variations[index]
        where = (variation.parent, variation.start_ply)
        kept = self._kept.get(where) if self._kept_for[index] else None
        if kept is None:  # not kept by its parent line: from the start
            path = kifu.path(index)
            first = variation.start_ply
            spent: list = [0, 0]
            for ply, kifu_move in enumerate(path[:first - 1], start=1):
                spent_after(kifu, ply, kifu_move, spent)
            return start_position(kifu, index, path), spent
        position, spent, users = kept
        if users == 1:  # the last variation that begins there
            del self._kept[where]
            return position, spent
        self._kept[where] = (position, spent, users - 1)
        return position.copy(last_move=True), spent[:]

    def passing(self, index: Optional[int], ply: int, position: Position, spent: list) -> None:
        """Line ``index`` is at ``ply`` (``position`` and ``spent`` before that ply, or after
        its last move): keep them if variations begin there."""
        wanted = self._wanted.get(index)
        if wanted:
            users = wanted.get(ply)
            if users:
                self._kept[(index, ply)] = (position.copy(last_move=True), spent[:], users)


def spent_after(kifu: Kifu, ply: int, kifu_move, spent: list) -> Optional[float]:
    """Add the time of ``kifu_move`` (ply ``ply`` of a path) to its mover's in ``spent`` (or
    take its total, when the record gives one), as ``totals`` does; the mover's total after it
    (None for a move without a time)."""
    mover = kifu.first_turn ^ ((ply - 1) & 1)
    if kifu_move.total_seconds is not None:
        spent[mover] = kifu_move.total_seconds
    elif kifu_move.seconds is not None:
        spent[mover] += kifu_move.seconds
    return None if kifu_move.seconds is None else spent[mover]


def first_ply(kifu: Kifu, index: Optional[int]) -> int:
    return 1 if index is None else kifu.variations[index].start_ply


def ending_of(kifu: Kifu, index: Optional[int]):
    return kifu.ending if index is None else kifu.variations[index].ending


def totals(kifu: Kifu, index: Optional[int], path: list) -> tuple:
    """``(times, spent)``: the mover's total time after each move of line ``index`` — as the
    record gives it, else the sum of the mover's times along ``path`` (None for a move without a
    time) — and each side's total at the end of the line."""
    spent = [0, 0]
    out = []
    first = first_ply(kifu, index)
    turn = kifu.first_turn
    for ply, kifu_move in enumerate(path, start=1):
        mover = turn ^ ((ply - 1) & 1)
        if kifu_move.total_seconds is not None:
            spent[mover] = kifu_move.total_seconds
        elif kifu_move.seconds is not None:
            spent[mover] += kifu_move.seconds
        if ply >= first:
            out.append(None if kifu_move.seconds is None else spent[mover])
    return out, spent


def number(value) -> str:
    """Seconds as text: whole ones without a decimal point (``12``, ``12.5``)."""
    if value == int(value):
        return str(int(value))
    return f"{value:.3f}".rstrip("0")


def clock(seconds, hours: bool = False) -> str:
    """``m:ss`` (minutes right-aligned in two places), or with ``hours`` ``hh:mm:ss``, as KIF
    writes a move's time and the total."""
    minutes, rest = divmod(seconds, 60)
    minutes = int(minutes)
    said = ("0" if rest < 10 else "") + number(rest)
    if hours:
        return f"{minutes // 60:02d}:{minutes % 60:02d}:{said}"
    return f"{minutes:>2}:{said}"


def side_names(kifu: Kifu) -> tuple:
    """What KIF calls Black and White in this game: 先手/後手, or 下手/上手 in a handicap game."""
    return SIDE_KANJI[is_handicap(kifu)]


def summary(kifu: Kifu, index: Optional[int], plies: int) -> Optional[str]:
    """KIF's ``まで…`` line for the ending of line ``index`` after ``plies`` moves, as Kifu for
    Windows words it (the record's own line when it has one and the ply count agrees); None when
    the ending has no KIF words (or there is no ending)."""
    ending = ending_of(kifu, index)
    if ending is None:
        return None
    if ending.summary.startswith(f"まで{plies}手"):
        return ending.summary
    mover = kifu.mover_after(plies)
    word = ending_word(ending.word, "kif", mover)
    names = side_names(kifu)
    winner = {"black": names[0], "white": names[1]}.get(ending.winner)
    if winner is None and word in ("投了", "詰み", "切れ負け", "入玉勝ち"):  # said by the word
        winner = names[mover if word == "入玉勝ち" else mover ^ 1]
    head = f"まで{plies}手で"
    if word in ("反則勝ち", "反則負け"):
        return f"{head}{names[mover]}の{word}"
    if word == "切れ負け" and winner:
        return f"{head}時間切れにより{winner}の勝ち"
    if word == "入玉勝ち" and winner:
        return f"{head}入玉宣言により{winner}の勝ち"
    if word in ("千日手", "持将棋", "中断", "封じ手", "不詰", "最大手数"):
        return head + word
    if word in ("投了", "詰み") and winner:
        return f"{head}{winner}の勝ち"
    if word is None and winner:  # まで as written in another record: the winner alone
        return f"{head}{winner}の勝ち"
    return None


def display_width(text: str) -> int:
    """Columns ``text`` takes in a fixed-width font (full-width characters take two)."""
    width = _WIDTHS.get(text)
    if width is None:
        width = sum(2 if east_asian_width(c) in "FWA" else 1 for c in text)
        if len(_WIDTHS) < 100_000:  # move texts are few; comments are not kept
            _WIDTHS[text] = width
    return width


_WIDTHS: dict = {}


def padded(text: str, width: int) -> str:
    """``text`` and at least one blank, filled to ``width`` columns."""
    return text + " " * max(1, width - display_width(text))


#: codec name -> how a KIF ``#KIF … encoding=`` or CSA ``'CSA encoding=`` line names it
_DECLARED = {"utf-8": "UTF-8", "utf8": "UTF-8", "cp932": "Shift_JIS", "shift_jis": "Shift_JIS",
             "sjis": "Shift_JIS", "euc-jp": "EUC-JP", "euc_jp": "EUC-JP"}


def declared_encoding(encoding: str) -> str:
    """The name a record declares ``encoding`` by (``UTF-8``, ``Shift_JIS``, ``EUC-JP``);
    ``ValueError`` for one no record format names.

    >>> declared_encoding("cp932")
    'Shift_JIS'
    """
    try:
        return _DECLARED[encoding.lower()]
    except KeyError:
        raise ValueError(f"records are written in UTF-8, Shift_JIS (cp932) or EUC-JP, not "
                         f"{encoding!r}") from None


def split_lines(comments) -> list:
    """Comment texts as single lines (a JKF comment may hold line breaks)."""
    return [line for comment in comments for line in str(comment).split("\n")]
