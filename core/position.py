"""``Position``: the board, both hands and the side to move; move checking, generation and play.

    >>> pos = Position()
    >>> pos.illegality(Move.from_usi("7g7f")) is None
    True
    >>> pos.illegality(Move.from_usi("7g7e"))
    IllegalMove(code='bad_geometry', message='the pawn on 7g cannot move to 7e')
    >>> pos.push_usi("7g7f"), pos.push_usi("3c3d")
    (Move.from_usi('7g7f'), Move.from_usi('3c3d'))
    >>> pos.sfen()
    'lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3'
    >>> len(pos.legal_moves())
    39
    >>> pos.pop(), pos.pop()
    (Move.from_usi('3c3d'), Move.from_usi('7g7f'))
    >>> pos.sfen() == STARTING_SFEN
    True

``push`` trusts its move (it is the fast path for moves already checked or generated);
``push_usi`` checks first and raises ``IllegalMoveError`` with the reason.
"""

from __future__ import annotations

from typing import Any, Final, Iterator, NamedTuple, Optional, Sequence

from kifudb.core import key as _key
from kifudb.core.move import Move, board_move, drop_move
from kifudb.core.numbers import MAX_DIGITS, ascii_digits
from kifudb.core.pieces import (BLACK, WHITE, PAWN, KNIGHT, ROOK, GOLD, KING, PROMOTE, HAND_TYPES,
                         HAND_ORDER, UNPROMOTED, ZONE, FULL_SET, USI_LETTERS, COLOUR_NAMES,
                         ENGLISH_NAMES as _NAMES, STARTING_SFEN, square_name, is_dead_square)
from kifudb.core.tables import (STEPS, RAYS, REACH, RAY8, NEAR, FAR, KNIGHT_FROM, LINE, FILE_SQUARES,
                         PIN_RAY)

_BOARD_KEYS: Final = _key.BOARD  # for push
_HAND_KEYS: Final = _key.HAND
_WHITE_KEY: Final = _key.WHITE_TO_MOVE
#: _DEAD[colour][type][square]: an unpromoted piece of that type could never move from there.
_DEAD: Final[tuple[tuple[tuple[bool, ...], ...], ...]] = tuple(
    tuple(tuple(is_dead_square(c, t, s) for s in range(81)) for t in range(15))
    for c in (BLACK, WHITE))
#: Per attacked square and attacking colour: (NEAR set, FAR set, first square, further squares).
_AttackRay = tuple[frozenset[int], frozenset[int], int, tuple[int, ...]]
_ATTACK_RAYS: Final[tuple[tuple[tuple[_AttackRay, ...], ...], ...]] = tuple(
    tuple(tuple((NEAR[by][d], FAR[by][d], ray[0], ray[1:]) for d, ray in RAY8[s]) for s in range(81))
    for by in (BLACK, WHITE))
_KNIGHT_ATTACKERS: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(KNIGHT_FROM[by][s] for s in range(81)) for by in (BLACK, WHITE))


class IllegalMove(NamedTuple):
    """Why a move is illegal: a stable ``code`` and a plain ``message``."""

    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class IllegalMoveError(ValueError):
    """Raised by ``push_usi`` (and notation readers) for a move that breaks a rule."""

    def __init__(self, reason: IllegalMove, text: str = "") -> None:
        self.reason = reason
        self.code = reason.code
        super().__init__(f"{text}: {reason}" if text else str(reason))


class SfenError(ValueError):
    """Raised for SFEN text that does not describe a position."""


#: piece code -> its SFEN letters
_SFEN_TOKENS: Final = [""] * 32
for _code in range(1, 32):
    if _code & 15 and _code & 15 < 15:
        _t = _code & 15
        _letter = USI_LETTERS[UNPROMOTED[_t]]
        _letter = _letter if _code < 16 else _letter.lower()
        _SFEN_TOKENS[_code] = "+" + _letter if _t > KING else _letter
_DIGITS: Final = [str(n) for n in range(10)]


def sfen_of(board: list[int], hands: list[list[int]], turn: int,
            move_number: int = 1) -> str:
    """The SFEN of 81 piece codes, the two hands (counts by piece type) and the side to move —
    for readers that build a position square by square.

    >>> sfen_of([0] * 80 + [8], [[0, 2] + [0] * 6, [0] * 8], 0)
    '9/9/9/9/9/9/9/9/K8 b 2P 1'
    """
    parts = []
    for rank in range(9):  # each rank from file 9 to file 1; a run of empty squares as its count
        if rank:
            parts.append("/")
        empty = 0
        for file in range(8, -1, -1):
            code = board[file * 9 + rank]
            if code == 0:
                empty += 1
                continue
            if empty:
                parts.append(_DIGITS[empty])
                empty = 0
            parts.append(_SFEN_TOKENS[code])
        if empty:
            parts.append(_DIGITS[empty])
    text = "".join(parts)
    hand = ""
    for colour in (BLACK, WHITE):
        for t in HAND_ORDER:
            n = hands[colour][t]
            if n > 0:
                letter = USI_LETTERS[t] if colour == BLACK else USI_LETTERS[t].lower()
                hand += (str(n) if n > 1 else "") + letter
    return f"{text} {'bw'[turn]} {hand or '-'} {move_number}"


#: ``Position(_BLANK)``: a position whose maker sets every attribute itself (``copy``, ``mirror``);
#: cheaper than ``Position.__new__``, which a compiled class makes slow.
_BLANK: Final = object()


def piece_name(code: int) -> str:
    """English name of a piece code or type: ``piece_name(13) == 'horse'``."""
    return _NAMES[code & 15]


class Position:
    """A shogi position: ``board`` (81 piece codes), ``hands``, ``turn`` and ``move_number``.

    ``Position()`` is the even-game start; ``Position.from_sfen(text)`` reads any position.
    ``hands[colour][piece_type]`` counts pieces in hand (types PAWN..GOLD).
    """

    __slots__ = ("board", "hands", "turn", "move_number", "king_squares", "_key", "_stack",
                 "_in_check")

    board: list[int]
    hands: list[list[int]]
    turn: int
    move_number: int
    king_squares: list[Optional[int]]  # None: that side has no king (a mating problem)
    _key: int
    #: per move played: (the move, the piece it captured or 0, the key and check flag before it)
    _stack: list[tuple[Move, int, int, Optional[bool]]]
    _in_check: Optional[bool]  # None until asked

    def __init__(self, sfen: object = STARTING_SFEN) -> None:
        if sfen is not _BLANK:
            self._set_sfen(sfen)

    # ----- reading and writing SFEN -------------------------------------------------------------

    @classmethod
    def from_sfen(cls, text: object) -> "Position":
        """The position an SFEN string describes (``sfen`` prefix and move number optional;
        ``startpos`` means the even-game start). Raises ``SfenError`` saying what is wrong.

        >>> Position.from_sfen("startpos").key() == Position().key()
        True
        """
        return cls(text)

    def _set_sfen(self, text: object) -> None:
        if not isinstance(text, str):
            raise SfenError(f"SFEN must be text, not {type(text).__name__}")
        fields = text.split()
        if fields and fields[0] == "sfen":
            fields = fields[1:]
        if fields == ["startpos"]:
            fields = STARTING_SFEN.split()
        if len(fields) not in (3, 4):
            raise SfenError(f"SFEN needs board, side, hands and move number: {text!r}")
        board_text, side, hand_text = fields[:3]
        board = [0] * 81
        ranks = board_text.split("/")
        if len(ranks) != 9:
            raise SfenError(f"SFEN board needs 9 ranks separated by '/', not {len(ranks)}: {board_text!r}")
        counts = [0] * 9
        for r, row in enumerate(ranks):
            file = 9
            promoted = False
            for ch in row:
                if ch.isdigit():
                    if promoted or ch == "0":
                        raise SfenError(f"bad digit {ch!r} in rank {r + 1} of {board_text!r}")
                    file -= int(ch)
                    continue
                if ch == "+":
                    if promoted:
                        raise SfenError(f"'++' in rank {r + 1} of {board_text!r}")
                    promoted = True
                    continue
                t = USI_LETTERS.find(ch.upper())
                if t <= 0 or not ch.isascii() or not ch.isalpha():
                    raise SfenError(f"unknown piece {ch!r} in rank {r + 1} of {board_text!r}")
                if promoted and not (PAWN <= t <= ROOK):
                    raise SfenError(f"'+{ch}' cannot be promoted (rank {r + 1} of {board_text!r})")
                if file < 1:
                    raise SfenError(f"rank {r + 1} has more than 9 squares: {row!r}")
                colour = BLACK if ch.isupper() else WHITE
                board[(file - 1) * 9 + r] = t + (PROMOTE if promoted else 0) + 16 * colour
                counts[t] += 1
                file -= 1
                promoted = False
            if file != 0 or promoted:
                raise SfenError(f"rank {r + 1} does not describe 9 squares: {row!r}")
        if side not in ("b", "w"):
            raise SfenError(f"side to move must be 'b' or 'w', not {side!r}")
        hands = [[0] * 8, [0] * 8]
        if hand_text != "-":
            number = ""
            for ch in hand_text:
                if ch.isdigit() and ch.isascii():
                    number += ch
                    if len(number) > MAX_DIGITS:
                        raise SfenError(f"a count of more than {MAX_DIGITS} digits in hands")
                    continue
                t = USI_LETTERS.find(ch.upper())
                if not ch.isalpha() or not ch.isascii() or not (PAWN <= t <= GOLD):
                    raise SfenError(f"unknown piece {ch!r} in hands {hand_text!r}")
                n = int(number) if number else 1
                if n == 0:
                    raise SfenError(f"zero count in hands {hand_text!r}")
                hands[WHITE if ch.islower() else BLACK][t] += n
                counts[t] += n
                number = ""
            if number:
                raise SfenError(f"hands end with a number: {hand_text!r}")
        for t in range(1, 9):
            if counts[t] > FULL_SET[t]:
                raise SfenError(f"{counts[t]} {_NAMES[t]}s: a set has only {FULL_SET[t]}")
        kings: list[Optional[int]] = [None, None]
        for s, code in enumerate(board):
            if code & 15 == KING:
                if kings[code >> 4] is not None:
                    raise SfenError(f"{COLOUR_NAMES[code >> 4]} has two kings")
                kings[code >> 4] = s
        move_number = 1
        if len(fields) == 4:
            if not ascii_digits(fields[3]):
                raise SfenError(f"move number must be a number of at most {MAX_DIGITS} digits, "
                                f"not {fields[3][:20]!r}")
            move_number = int(fields[3])
        self.board = board
        self.hands = hands
        self.turn = BLACK if side == "b" else WHITE
        self.move_number = move_number
        self.king_squares = kings
        self._stack = []
        self._in_check = None
        self._key = self._compute_key()

    def sfen(self, move_number: bool = True) -> str:
        """The SFEN of the position (``move_number=False`` leaves the number off)."""
        text = sfen_of(self.board, self.hands, self.turn, self.move_number)
        return text if move_number else text.rsplit(" ", 1)[0]

    def copy(self, last_move: bool = False) -> "Position":
        """An independent copy without the move history, or (``last_move``) with only the
        move that led to this position (KIF's and KI2's 同 read it)."""
        other = Position(_BLANK)
        other.board = self.board[:]
        other.hands = [self.hands[0][:], self.hands[1][:]]
        other.turn = self.turn
        other.move_number = self.move_number
        other.king_squares = self.king_squares[:]
        other._key = self._key
        other._stack = self._stack[-1:] if last_move else []
        other._in_check = self._in_check
        return other

    def mirror(self) -> "Position":
        """The left-right mirror image: the piece on file f goes to file 10 - f (rank, owner,
        hands, side to move and move number unchanged). A new position, without history.

        >>> pos = Position()
        >>> pos.push_usi("7g7f"); pos.push_usi("3c3d"); pos.push_usi("8h2b+")
        Move.from_usi('7g7f')
        Move.from_usi('3c3d')
        Move.from_usi('8h2b+')
        >>> pos.mirror().sfen()
        'lnsgkgsnl/1+B5r1/pp1pppppp/2p6/9/6P2/PPPPPP1PP/1R7/LNSGKGSNL w B 4'
        >>> pos.mirror().mirror() == pos
        True
        >>> Position().mirror().sfen(move_number=False)  # rook and bishop change sides
        'lnsgkgsnl/1b5r1/ppppppppp/9/9/9/PPPPPPPPP/1R5B1/LNSGKGSNL b -'
        >>> pos.mirror().key() == Position.from_sfen(pos.mirror().sfen()).key()
        True
        """
        other = Position(_BLANK)
        other.board = [self.board[(8 - s // 9) * 9 + s % 9] for s in range(81)]
        other.hands = [self.hands[0][:], self.hands[1][:]]
        other.turn = self.turn
        other.move_number = self.move_number
        other.king_squares = [None if s is None else (8 - s // 9) * 9 + s % 9
                              for s in self.king_squares]
        other._stack = []
        other._in_check = self._in_check
        other._key = other._compute_key()
        return other

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Position) and self.board == other.board
                and self.hands == other.hands and self.turn == other.turn)

    def __hash__(self) -> int:
        return self._key

    def __repr__(self) -> str:
        return f"Position.from_sfen({self.sfen()!r})"

    def svg(self, **options: Any) -> str:
        """The position drawn as a self-contained SVG board (``core.svg.board_svg``; options
        ``last_move``, ``flip``, ``size``, ``coordinates``)."""
        from kifudb.core.svg import board_svg
        return board_svg(self, **options)

    def _repr_svg_(self) -> str:
        """Jupyter shows a position as its board."""
        return self.svg()

    # ----- the key --------------------------------------------------------------------------------

    def key(self) -> int:
        """The 64-bit key of board, hands and side to move (see ``core.key`` for its definition)."""
        return self._key

    def _compute_key(self) -> int:
        k = _key.WHITE_TO_MOVE if self.turn == WHITE else 0
        for s, code in enumerate(self.board):
            if code:
                k ^= _key.BOARD[code][s]
        for colour in (BLACK, WHITE):
            for t in HAND_TYPES:
                k ^= _key.HAND[colour][t][self.hands[colour][t]]
        return k

    # ----- queries ----------------------------------------------------------------------------------

    def attacked(self, sq: int, by: int) -> bool:
        """True if a piece of colour ``by`` attacks square ``sq``."""
        b = self.board
        for near, far, first, rest in _ATTACK_RAYS[by][sq]:
            p = b[first]
            if p:
                if p in near:
                    return True
                continue
            for s in rest:
                p = b[s]
                if p:
                    if p in far:
                        return True
                    break
        knight = KNIGHT + 16 * by
        for s in _KNIGHT_ATTACKERS[by][sq]:
            if b[s] == knight:
                return True
        return False

    def attackers(self, sq: int, by: int) -> list[int]:
        """The squares of the pieces of colour ``by`` that attack ``sq``."""
        b = self.board
        found = []
        for near, far, first, rest in _ATTACK_RAYS[by][sq]:
            p = b[first]
            if p:
                if p in near:
                    found.append(first)
                continue
            for s in rest:
                p = b[s]
                if p:
                    if p in far:
                        found.append(s)
                    break
        knight = KNIGHT + 16 * by
        found.extend(s for s in _KNIGHT_ATTACKERS[by][sq] if b[s] == knight)
        return found

    def is_check(self) -> bool:
        """True if the side to move's king is attacked."""
        in_check = self._in_check
        if in_check is None:
            ksq = self.king_squares[self.turn]
            in_check = self._in_check = ksq is not None and self.attacked(ksq, self.turn ^ 1)
        return in_check

    def irregularities(self) -> list[IllegalMove]:
        """Ways the position breaks the rules as it stands, as ``IllegalMove`` reasons: two
        unpromoted pawns of one side on a file (``nifu``), a piece that could never move
        (``dead_piece``), or the side not to move in check (``king_capturable``). Empty for any
        position reached by legal play.

        >>> Position.from_sfen("4k4/9/9/9/9/4P4/4P4/9/4K4 b - 1").irregularities()[0].code
        'nifu'
        """
        found = []
        b = self.board
        for colour in (BLACK, WHITE):
            pawn = PAWN + 16 * colour
            for f in range(9):
                pawns = [s for s in FILE_SQUARES[f] if b[s] == pawn]
                if len(pawns) > 1:
                    found.append(IllegalMove("nifu", f"{COLOUR_NAMES[colour]} has {len(pawns)} "
                                             f"unpromoted pawns on file {f + 1}"))
        for s, code in enumerate(b):
            if code and _DEAD[code >> 4][code & 15][s]:
                found.append(IllegalMove("dead_piece", f"the {COLOUR_NAMES[code >> 4]} "
                                         f"{_NAMES[code & 15]} on {square_name(s)} can never move"))
        other = self.turn ^ 1
        other_king = self.king_squares[other]
        if other_king is not None and self.attacked(other_king, self.turn):
            found.append(IllegalMove("king_capturable", f"{COLOUR_NAMES[other]}'s king is in check "
                                     f"although {COLOUR_NAMES[self.turn]} is to move"))
        return found

    def is_checkmate(self) -> bool:
        """True if the side to move is in check and has no legal move."""
        return self.is_check() and not self.has_legal_move()

    def has_legal_move(self) -> bool:
        """True if the side to move has at least one legal move (a side without one loses)."""
        if self.is_check():
            return self._has_evasion()
        for _ in self._generate_legal():
            return True
        return False

    def _has_evasion(self) -> bool:
        """In check: can the king step away, or (from a single checker) a piece capture it or
        come between, or a drop come between? Each candidate is put to ``illegality``."""
        b = self.board
        c = self.turn
        ksq = self.king_squares[c]
        if ksq is None:  # not in check, then
            return False
        for to in STEPS[b[ksq]][ksq]:
            if self.illegality(board_move(ksq, to, False)) is None:
                return True
        checkers = self.attackers(ksq, c ^ 1)
        if len(checkers) != 1:
            return False
        between = LINE[ksq][checkers[0]] or ()
        targets = (checkers[0],) + between
        for f, code in enumerate(b):
            if code and code >> 4 == c and f != ksq:
                reach = REACH[code][f]
                for to in targets:
                    if to in reach and (self.illegality(board_move(f, to, False)) is None
                                        or self.illegality(board_move(f, to, True)) is None):
                        return True
        hand = self.hands[c]
        for to in between:
            for t in HAND_TYPES:
                if hand[t] and self.illegality(drop_move(t, to)) is None:
                    return True
        return False

    def legal_moves(self) -> list[Move]:
        """Every legal move of the side to move, drops included."""
        return list(self._generate_legal())

    # ----- checking one move ------------------------------------------------------------------------

    def illegality(self, move: Move, piece_type: Optional[int] = None) -> Optional[IllegalMove]:
        """Why ``move`` is illegal here, as an ``IllegalMove`` reason; ``None`` if it is legal.

        ``piece_type``, when given, is the piece the record says moves (as it stands before the
        move); a different piece on the from-square is then ``no_piece``. Only this one move is
        examined: no move list is generated (except to settle a pawn drop that gives check).
        """
        b = self.board
        c = self.turn
        to = move.to_square
        f = move.from_square
        if f is None:
            assert move.drop is not None, "a drop names the piece dropped"
            return self._check_drop(move.drop, to)
        code = b[f]
        if not code:
            return IllegalMove("no_piece", f"there is no piece on {square_name(f)}")
        if code >> 4 != c:
            return IllegalMove("not_own_piece", f"the {_NAMES[code & 15]} on {square_name(f)} "
                               f"belongs to {COLOUR_NAMES[c ^ 1]}, and {COLOUR_NAMES[c]} is to move")
        t = code & 15
        if piece_type is not None and piece_type != t:
            return IllegalMove("no_piece", f"{square_name(f)} holds a {_NAMES[t]}, "
                               f"not a {_NAMES[piece_type]}")
        target = b[to]
        if target and target >> 4 == c:
            return IllegalMove("capture_own_piece", f"{square_name(to)} holds {COLOUR_NAMES[c]}'s "
                               f"own {_NAMES[target & 15]}")
        between = REACH[code][f].get(to)
        if between is None:
            return IllegalMove("bad_geometry", f"the {_NAMES[t]} on {square_name(f)} cannot move "
                               f"to {square_name(to)}")
        for s in between:
            if b[s]:
                return IllegalMove("bad_geometry", f"the {_NAMES[t]} on {square_name(f)} cannot "
                                   f"reach {square_name(to)}: {square_name(s)} is in the way")
        if move.promotion:
            if t > ROOK:
                why = "already promoted" if t > KING else "never promotes"
                return IllegalMove("illegal_promotion", f"the {_NAMES[t]} on {square_name(f)} {why}")
            if not (ZONE[c][f] or ZONE[c][to]):
                return IllegalMove("illegal_promotion", f"{square_name(f)}-{square_name(to)} neither "
                                   f"starts nor ends in {COLOUR_NAMES[c]}'s promotion zone")
        elif _DEAD[c][t][to]:
            return IllegalMove("dead_piece", f"an unpromoted {_NAMES[t]} on {square_name(to)} "
                               f"could never move again: it must promote")
        ksq = self.king_squares[c]
        if ksq is not None:
            if t == KING:
                ksq = to
            elif not (self.is_check() if self._in_check is None else self._in_check) and (
                    PIN_RAY[ksq][f] is None or not self._shields_king(f, ksq)):
                return None  # not in check, and the piece shields the king from nothing
            if self._exposes_king(f, to, code, ksq):
                return IllegalMove("leaves_king_in_check", f"after {square_name(f)}-"
                                   f"{square_name(to)} {COLOUR_NAMES[c]}'s king would be in check")
        return None

    def _shields_king(self, f: int, ksq: int) -> bool:
        """Does ``f`` alone stand between the king on ``ksq`` and a slider of the side not to
        move? (Nothing between king and ``f``, and such a slider first beyond it.) Before a move:
        could moving the piece on ``f`` expose the mover's king; after it: did emptying ``f``
        uncover a check."""
        pin = PIN_RAY[ksq][f]
        if pin is None:
            return False
        b = self.board
        for s in LINE[ksq][f] or ():  # on a common line, as PIN_RAY says
            if b[s]:
                return False
        for s in pin[1]:
            p = b[s]
            if p:
                return p in FAR[self.turn ^ 1][pin[0]]
        return False

    def _check_drop(self, t: int, to: int) -> Optional[IllegalMove]:
        b = self.board
        c = self.turn
        if not self.hands[c][t]:
            return IllegalMove("not_in_hand", f"{COLOUR_NAMES[c]} has no {_NAMES[t]} in hand")
        if b[to]:
            return IllegalMove("drop_on_occupied", f"{square_name(to)} is occupied by a "
                               f"{_NAMES[b[to] & 15]}")
        if _DEAD[c][t][to]:
            return IllegalMove("dead_piece", f"a {_NAMES[t]} dropped on {square_name(to)} could "
                               f"never move")
        if t == PAWN:
            pawn = PAWN + 16 * c
            for s in FILE_SQUARES[to // 9]:
                if b[s] == pawn:
                    return IllegalMove("nifu", f"{COLOUR_NAMES[c]} already has an unpromoted pawn "
                                       f"on file {to // 9 + 1} ({square_name(s)})")
        ksq = self.king_squares[c]
        if ksq is not None and self.is_check() and self._exposes_king(None, to, t + 16 * c, ksq):
            return IllegalMove("leaves_king_in_check", f"dropping on {square_name(to)} leaves "
                               f"{COLOUR_NAMES[c]}'s king in check")
        if t == PAWN and self._is_uchifuzume(to):
            return IllegalMove("uchifuzume", f"the pawn drop on {square_name(to)} would give "
                               f"checkmate (uchifuzume)")
        return None

    def _exposes_king(self, f: Optional[int], to: int, code: int, ksq: int) -> bool:
        """Would the mover's king (on ``ksq`` after the move) be attacked after moving ``code``?"""
        b = self.board
        saved = b[to]
        b[to] = code
        if f is not None:
            b[f] = 0
        attacked = self.attacked(ksq, self.turn ^ 1)
        b[to] = saved
        if f is not None:
            b[f] = code
        return attacked

    def _is_uchifuzume(self, to: int) -> bool:
        c = self.turn
        enemy_king = self.king_squares[c ^ 1]
        if enemy_king is None or enemy_king not in STEPS[PAWN + 16 * c][to]:
            return False
        self.push(drop_move(PAWN, to))
        mated = not self.has_legal_move()
        self.pop()
        return mated

    # ----- generating moves -------------------------------------------------------------------------

    def _pinned(self, c: int, ksq: int) -> set[int]:
        """Squares of ``c``'s pieces that shield ``c``'s king from an enemy slider."""
        b = self.board
        pinned: set[int] = set()
        for near, far, first, rest in _ATTACK_RAYS[c ^ 1][ksq]:
            shield = None
            for s in (first,) + rest:
                p = b[s]
                if not p:
                    continue
                if shield is None:
                    if p >> 4 != c:
                        break
                    shield = s
                else:
                    if p in far:
                        pinned.add(shield)
                    break
        return pinned

    def _generate_legal(self) -> Iterator[Move]:
        b = self.board
        c = self.turn
        ksq = self.king_squares[c]
        in_check = self.is_check()
        pinned = self._pinned(c, ksq) if ksq is not None else set()
        zone = ZONE[c]
        dead = _DEAD[c]
        for f in range(81):
            code = b[f]
            if not code or code >> 4 != c:
                continue
            t = code & 15
            dests = [to for to in STEPS[code][f] if not b[to] or b[to] >> 4 != c]
            for ray in RAYS[code][f]:
                for to in ray:
                    p = b[to]
                    if p:
                        if p >> 4 != c:
                            dests.append(to)
                        break
                    dests.append(to)
            must_test = in_check or f in pinned
            for to in dests:
                if t == KING:
                    if self._exposes_king(f, to, code, to):
                        continue
                elif must_test and ksq is not None and self._exposes_king(f, to, code, ksq):
                    continue
                if t <= ROOK and (zone[f] or zone[to]):
                    yield board_move(f, to, True)
                    if dead[t][to]:
                        continue
                yield board_move(f, to, False)
        hand = self.hands[c]
        types = [t for t in HAND_TYPES if hand[t]]
        if not types:
            return
        targets: Sequence[int]
        if in_check and ksq is not None:
            checkers = self.attackers(ksq, c ^ 1)
            targets = LINE[ksq][checkers[0]] or () if len(checkers) == 1 else ()
        else:
            targets = [s for s in range(81) if not b[s]]
        pawn = PAWN + 16 * c
        pawn_files = {s // 9 for s in range(81) if b[s] == pawn}
        for to in targets:
            for t in types:
                if dead[t][to]:
                    continue
                if t == PAWN and (to // 9 in pawn_files or self._is_uchifuzume(to)):
                    continue
                yield drop_move(t, to)

    # ----- playing moves -----------------------------------------------------------------------------

    def push(self, move: Move) -> None:
        """Play ``move`` without checking it (use ``illegality`` or ``push_usi`` for untrusted
        moves)."""
        b = self.board
        c = self.turn
        to = move.to_square
        f = move.from_square
        k = self._key
        if f is None:
            assert move.drop is not None, "a drop names the piece dropped"
            t = move.drop
            code = t + 16 * c
            hand = self.hands[c]
            n = hand[t]
            hand_keys = _HAND_KEYS[c][t]
            k ^= hand_keys[n] ^ hand_keys[n - 1] ^ _BOARD_KEYS[code][to]
            hand[t] = n - 1
            b[to] = code
            captured = 0
        else:
            code = b[f]
            captured = b[to]
            k ^= _BOARD_KEYS[code][f]
            if captured:
                t = UNPROMOTED[captured & 15]
                hand = self.hands[c]
                n = hand[t]
                hand_keys = _HAND_KEYS[c][t]
                k ^= _BOARD_KEYS[captured][to] ^ hand_keys[n] ^ hand_keys[n + 1]
                hand[t] = n + 1
            if move.promotion:
                code += PROMOTE
            k ^= _BOARD_KEYS[code][to]
            b[to] = code
            b[f] = 0
            if code & 15 == KING:
                self.king_squares[c] = to
        self._stack.append((move, captured, self._key, self._in_check))
        self._key = k ^ _WHITE_KEY
        self.turn = c ^ 1
        self.move_number += 1
        self._in_check = None

    def push_and_check(self, move: Move) -> bool:
        """``push`` the move and return whether it gives check, found from the move alone: the
        moved or dropped piece attacks the king, or it uncovered a slider's line to the king.

        >>> position = Position.from_sfen("4k4/9/9/9/9/9/9/4R4/4K4 b G 1")
        >>> position.push_and_check(Move.from_usi("G*5b")), position.is_check()
        (True, True)
        """
        self.push(move)
        b = self.board
        ksq = self.king_squares[self.turn]
        check = False
        if ksq is not None:
            to = move.to_square
            between = REACH[b[to]][to].get(ksq)
            if between is not None:
                check = True
                for s in between:
                    if b[s]:
                        check = False
                        break
            f = move.from_square
            if not check and f is not None and PIN_RAY[ksq][f] is not None:
                check = self._shields_king(f, ksq)  # f is empty now: is the line open?
        self._in_check = check
        return check

    def pop(self) -> Move:
        """Take back the last move played and return it."""
        move, captured, self._key, self._in_check = self._stack.pop()
        b = self.board
        c = self.turn ^ 1
        self.turn = c
        self.move_number -= 1
        to = move.to_square
        f = move.from_square
        code = b[to]
        if f is None:
            self.hands[c][code & 15] += 1
            b[to] = 0
            return move
        if move.promotion:
            code -= PROMOTE
        b[f] = code
        b[to] = captured
        if captured:
            self.hands[c][UNPROMOTED[captured & 15]] -= 1
        if code & 15 == KING:
            self.king_squares[c] = f
        return move

    def push_usi(self, text: str) -> Move:
        """Check and play a USI move; raises ``IllegalMoveError`` (a ``ValueError``) if illegal."""
        move = Move.from_usi(text)
        reason = self.illegality(move)
        if reason is not None:
            raise IllegalMoveError(reason, text)
        self.push(move)
        return move

    @property
    def history(self) -> list[Move]:
        """The moves played since the position was set up, oldest first."""
        return [entry[0] for entry in self._stack]

    @property
    def last_move(self) -> Optional[Move]:
        return self._stack[-1][0] if self._stack else None


def perft(position: Position, depth: int) -> int:
    """Count the leaf nodes of the legal move tree ``depth`` plies deep.

    >>> perft(Position(), 2)
    900
    """
    if depth <= 0:
        return 1
    moves = position.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        position.push(move)
        total += perft(position, depth - 1)
        position.pop()
    return total
