"""A game as a record writes it: ``Kifu``, the plain value the writers of ``core.writers`` take.

A ``Kifu`` holds what a record file says of one game, with its moves already replayed (each a
legal ``core.move.Move``): the headers as ``(name, value)`` pairs in the words of the record they
came from (``先手``, ``N+``, ``$EVENT`` …; each writer says them in its own), the start position,
the comments that belong to no move, the main line, the variations (each branching off the main
line or off another variation) and the declared ending::

    >>> kifu = Kifu(headers=[("先手", "羽生善治"), ("後手", "藤井猛")],
    ...             moves=[KifuMove("7g7f", seconds=3), KifuMove("3c3d", comments=["a reply"])],
    ...             variations=[KifuVariation(2, [KifuMove("8c8d")])],
    ...             ending=KifuEnding("投了", winner="black", reason="resign"))
    >>> kifu.handicap, kifu.header("先手", "N+"), [m.usi() for m in kifu.path(0)]
    ('平手', '羽生善治', ['7g7f', '8c8d'])

The ending keeps its word as written; ``ending_word`` says it in another format's words (the
side to move when it was written decides some: KIF's 反則勝ち is CSA's ``%-ILLEGAL_ACTION`` when
Black is to move, its foe White having broken a rule)::

    >>> ending_word("投了", "csa", 0), ending_word("%TORYO", "kif", 1), ending_word("反則勝ち", "csa", 0)
    ('%TORYO', '投了', '%-ILLEGAL_ACTION')
    >>> ending_word("封じ手", "csa", 0) is None   # CSA has no word for an adjourned game
    True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union, cast

from kifudb.core.handicap import handicap_name
from kifudb.core.move import Move
from kifudb.core.pieces import BLACK, WHITE
from kifudb.core.position import STARTING_SFEN

__all__ = ["Kifu", "KifuMove", "KifuVariation", "KifuEnding", "UnwritableGame", "ending_word",
           "ENDING_FORMATS"]


class UnwritableGame(ValueError):
    """A game that cannot be written as a record: a move that could not be read or played when
    it was read (a record holds legal moves only), or a start position that is none."""


@dataclass(slots=True)
class KifuMove:
    """One move of a line: ``move`` (a legal ``Move``; USI text is read with
    ``Move.from_usi``), the time it took and the mover's total so far (seconds, None when the
    record gives none), its comments (one text a comment line) and a KIF bookmark (``&…``).

    >>> KifuMove("P*5e").move
    Move.from_usi('P*5e')
    """

    move: Union[Move, str]
    seconds: Optional[float] = None
    total_seconds: Optional[float] = None
    comments: list = field(default_factory=list)
    bookmark: Optional[str] = None

    def __post_init__(self) -> None:
        if isinstance(self.move, str):
            self.move = Move.from_usi(self.move)

    def usi(self) -> str:
        """The USI text of the move."""
        return cast(Move, self.move).usi()  # a Move once made (``__post_init__``)


@dataclass(slots=True)
class KifuEnding:
    """How a line ended, as its record says: ``word`` (``投了``, ``%TORYO``, ``TORYO``, or
    KIF's ``まで`` when only a summary line says it), ``winner`` (``black``, ``white``,
    ``draw``, ``none``) and ``reason`` (``core.outcome.Reason``'s words), the time the last
    player took (seconds) and KIF's ``まで…`` summary line as written (empty if none)."""

    word: str
    winner: str = "none"
    reason: str = "unknown"
    seconds: Optional[float] = None
    summary: str = ""


@dataclass(slots=True)
class KifuVariation:
    """An alternative line: its first move replaces ply ``start_ply`` of line ``parent`` (None:
    the main line; else the index of another variation in ``Kifu.variations``, one before it)."""

    start_ply: int
    moves: list = field(default_factory=list)
    parent: Optional[int] = None
    ending: Optional[KifuEnding] = None


@dataclass
class Kifu:
    """One game, ready to be written (see the module docstring)."""

    headers: list = field(default_factory=list)
    start_sfen: str = STARTING_SFEN
    moves: list = field(default_factory=list)
    variations: list = field(default_factory=list)
    comments: list = field(default_factory=list)
    ending: Optional[KifuEnding] = None

    @property
    def handicap(self) -> Optional[str]:
        """The KIF name of the start position (``平手``, ``香落ち`` …), None when it is none of
        the standard starts."""
        return handicap_name(self.start_sfen)

    @property
    def first_turn(self) -> int:
        """The side to move at the start (``BLACK`` or ``WHITE``)."""
        fields = self.start_sfen.split()
        return WHITE if len(fields) > 1 and fields[1] == "w" else BLACK

    def header(self, *names: str) -> Optional[str]:
        """The value of the first of ``names`` the headers hold (None if none)."""
        values = dict(reversed(self.headers))  # the first of a name given twice wins
        for name in names:
            if values.get(name):
                return values[name]
        return None

    def line(self, index: Optional[int]) -> list:
        """The ``KifuMove``s of a line: the main line (None) or a variation's own moves."""
        return self.moves if index is None else self.variations[index].moves

    def path(self, index: Optional[int]) -> list:
        """Every ``KifuMove`` from the start to the end of a line: for a variation, its parent's
        moves before its branch point, then its own (raises ``ValueError`` on a variation that
        starts past the end of its parent, or whose parent is not before it)."""
        chain = []  # this line, its parent, … up to the main line (iterative: any depth)
        while index is not None:
            parent = self.variations[index].parent
            if parent is not None and not 0 <= parent < index:
                raise ValueError(f"variation {index + 1} branches from variation {parent + 1}, "
                                 f"which is not before it")
            chain.append(index)
            index = parent
        moves = list(self.moves)
        for index in reversed(chain):
            variation = self.variations[index]
            if len(moves) < variation.start_ply - 1:
                raise ValueError(f"variation {index + 1} starts at ply {variation.start_ply}, "
                                 f"past the end of the line it branches from")
            moves = moves[:variation.start_ply - 1] + variation.moves
        return moves

    def mover_after(self, plies: int) -> int:
        """The side to move after ``plies`` moves."""
        return self.first_turn ^ (plies & 1)


# ----- the words of an ending in each format ----------------------------------------------------

#: The formats ``ending_word`` speaks.
ENDING_FORMATS = ("kif", "ki2", "csa", "jkf", "usi")

#: (CSA code, KIF word, JKF special, USI word): the same ending in each format (None: it has no
#: word). A foul is said by the side that made it in CSA (``+ILLEGAL_ACTION``: Black's) and by
#: the side to move in KIF (反則負け: the side to move lost, 反則勝ち: it won) and USI; see
#: ``_illegal``. USI's words are those ``ingest.usi_file`` reads after the moves.
_TABLE = (
    ("TORYO", "投了", "TORYO", "resign"),
    ("CHUDAN", "中断", "CHUDAN", "break"),
    ("SENNICHITE", "千日手", "SENNICHITE", "rep_draw"),
    ("TIME_UP", "切れ負け", "TIME_UP", "timeout"),
    ("ILLEGAL_MOVE", "反則負け", "ILLEGAL_MOVE", "illegal"),
    ("JISHOGI", "持将棋", "JISHOGI", "jishogi"),
    ("KACHI", "入玉勝ち", "KACHI", "win"),
    ("HIKIWAKE", "引き分け", "HIKIWAKE", "draw"),
    ("TSUMI", "詰み", "TSUMI", "mate"),
    ("FUZUMI", "不詰", "FUZUMI", None),
    ("MAX_MOVES", "最大手数", None, "max_moves"),
    ("MATTA", None, "MATTA", None),
    ("ERROR", None, "ERROR", None),
    (None, "封じ手", None, None),
    (None, "不戦勝", None, None),
    (None, "不戦敗", None, None),
)
#: KIF words with the same meaning as one of the table's
_KIF_ALIASES = {"時間切れ": "切れ負け", "宣言勝ち": "入玉勝ち", "詰": "詰み"}
#: any word as written -> its row of ``_TABLE``
_ROW: dict[str, tuple] = {}
for _row in _TABLE:
    for _word in (_row[0] and "%" + _row[0], _row[0], _row[1], _row[2], _row[3]):
        if _word:
            _ROW.setdefault(_word, _row)
for _alias, _word in _KIF_ALIASES.items():
    _ROW[_alias] = _ROW[_word]
#: The fouls, which CSA and JKF say by the side that made one (``_illegal``).
_FOULS = ("+ILLEGAL_ACTION", "-ILLEGAL_ACTION")
#: USI's words for endings the other formats have no word for (a loss of the side to move, the
#: repetition states of YaneuraOu): ``ending_word`` gives none of them for another format's.
_USI_ONLY = ("lose", "rep_win", "rep_lose", "rep_sup", "rep_inf")


def _column(index: int) -> tuple:
    return tuple(row[index] for row in _TABLE if row[index])


#: Every ending word each format's reader knows, in the order of ``_TABLE``: KIF's (and KI2's)
#: terminal words, CSA's special moves (with their ``%``), JKF's specials and the words after
#: the moves of a USI game line. ``ingest.result`` says what each means.
ENDING_WORDS = {
    "kif": _column(1) + tuple(_KIF_ALIASES) + ("反則勝ち",),
    "csa": tuple("%" + code for code in _column(0) + _FOULS),
    "jkf": _column(2) + _FOULS,
    "usi": _column(3) + _USI_ONLY,
}


def _illegal(word: str, mover: int) -> Optional[int]:
    """The side that broke a rule, if ``word`` says a foul (None otherwise)."""
    word = word.lstrip("%")
    if word in ("+ILLEGAL_ACTION", "-ILLEGAL_ACTION"):
        return BLACK if word[0] == "+" else WHITE
    if word in ("反則負け", "ILLEGAL_MOVE", "illegal"):
        return mover
    if word == "反則勝ち":
        return mover ^ 1
    return None


def ending_word(word: str, fmt: str, mover: int, winner: str = "none") -> Optional[str]:
    """``word`` (an ending as any record writes it) in the words of ``fmt`` (``kif`` or
    ``ki2``: a KIF terminal word; ``csa``: a ``%`` code; ``jkf``: a special; ``usi``: the word
    after a USI line's moves), ``mover`` being the side to move when it was written; None when
    ``fmt`` has no word for it. KIF's summary word ``まで`` has none, but USI's ``lose`` and
    ``draw`` say a loss of the side to move and a draw when ``winner`` says which.

    >>> ending_word("%+ILLEGAL_ACTION", "kif", 1), ending_word("時間切れ", "jkf", 0)
    ('反則勝ち', 'TIME_UP')
    >>> ending_word("%MAX_MOVES", "jkf", 0), ending_word("CHUDAN", "csa", 1), ending_word("投了", "usi", 0)
    (None, '%CHUDAN', 'resign')
    >>> ending_word("まで", "usi", 0, "white"), ending_word("まで", "csa", 0, "white")
    ('lose', None)
    """
    if fmt not in ENDING_FORMATS:
        raise ValueError(f"no ending words for format {fmt!r}; known: {', '.join(ENDING_FORMATS)}")
    word = word.strip()
    fouled = _illegal(word, mover)
    if fouled is not None:
        if fmt in ("kif", "ki2"):
            return "反則負け" if fouled == mover else "反則勝ち"
        if fmt == "usi":
            return "illegal" if fouled == mover else None
        code = "ILLEGAL_MOVE" if fouled == mover else "+-"[fouled] + "ILLEGAL_ACTION"
        return "%" + code if fmt == "csa" else code
    row = _ROW.get(word)
    if row is None:
        if fmt == "usi":
            return {"draw": "draw", ("black", "white")[mover ^ 1]: "lose"}.get(winner)
        return None
    if fmt == "csa":
        return row[0] and "%" + row[0]
    return row[{"kif": 1, "ki2": 1, "jkf": 2, "usi": 3}[fmt]]
