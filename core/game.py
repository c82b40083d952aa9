"""``Game``: replay a game move by move, keeping every position's key, and say how it ended.

A ``Game`` checks each move before playing it, records whether each move gave check, counts
repetitions (千日手: the fourth occurrence of a position ends the game, as a draw or as a loss for
the side that gave check with every one of its moves since the first occurrence), and settles the
final position (checkmate, or no legal move at all)::

    >>> g = Game()
    >>> for usi in "2h5h 5a4b 5h2h 4b5a 2h5h 5a4b 5h2h 4b5a 2h5h 5a4b 5h2h 4b5a".split():
    ...     g.play_usi(usi)
    >>> g.ending.reason, g.ending.winner, g.ending.ply
    (<Reason.SENNICHITE: 'sennichite'>, <Winner.DRAW: 'draw'>, 12)
    >>> g.ending.message
    'fourfold repetition of the position after ply 0 (plies 0, 4, 8, 12): draw'

``play`` returns the ``IllegalMove`` reason instead of raising, so a reader can report it and go on
with the next game; an illegal move is not played.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple, Optional, Union

from kifudb.core.move import Move
from kifudb.core.outcome import Reason, Winner
from kifudb.core.pieces import BLACK, WHITE, COLOUR_NAMES
from kifudb.core.position import Position, IllegalMove, STARTING_SFEN


@lru_cache(maxsize=256)
def _start_position(sfen: str) -> tuple[Position, str]:
    """Start positions repeat (the even start, handicaps): parse each SFEN once (callers copy),
    with its canonical SFEN."""
    position = Position.from_sfen(sfen)
    return position, position.sfen()


class Ending(NamedTuple):
    """How a game ended by the rules: ``reason`` is ``Reason.CHECKMATE``, ``NO_LEGAL_MOVES``,
    ``SENNICHITE`` (a draw) or ``PERPETUAL_CHECK``; ``winner`` is ``Winner.BLACK``, ``WHITE`` or
    ``DRAW``; ``ply`` is the ply after which it ended."""

    reason: Reason
    winner: Winner
    ply: int
    message: str


class Game:
    """A game being replayed from ``start`` (a ``Position`` or an SFEN; the even start by default).

    Attributes: ``position`` (the current one), ``moves`` (played so far), ``keys[i]`` and
    ``checks[i]`` (the key of the position after ``i`` plies, and whether its side to move is in
    check; index 0 is the start), and ``ending`` (set once a repetition ends the game; see
    ``final_ending`` for the verdict on the last position).
    """

    def __init__(self, start: Union[Position, str] = STARTING_SFEN):
        if isinstance(start, Position):
            self.position, self._start_sfen = start.copy(), None
        else:
            parsed, self._start_sfen = _start_position(start)
            self.position = parsed.copy()
        self._start = self.position.copy()
        self.moves: list[Move] = []
        self.keys = [self.position.key()]
        self.checks = [self.position.is_check()]
        #: ``_previous[i]``: the ply before ``i`` at which the position after ``i`` plies
        #: occurred (-1: none), so that repetitions are counted and listed from the position
        #: back, not by scanning the game; ``_last``: key -> the last ply it occurred at
        self._previous: list[int] = [-1]
        self._last: dict[int, int] = {self.keys[0]: 0}
        self.ending: Optional[Ending] = None

    @property
    def start_sfen(self) -> str:
        """The SFEN of the start position."""
        if self._start_sfen is None:
            self._start_sfen = self._start.sfen()
        return self._start_sfen

    @property
    def start_position(self) -> Position:
        """A copy of the start position."""
        return self._start.copy()

    @property
    def ply(self) -> int:
        """Number of moves played."""
        return len(self.moves)

    def play(self, move: Move, piece_type: Optional[int] = None) -> Optional[IllegalMove]:
        """Check and play ``move``; return ``None``, or the reason it is illegal (not played)."""
        position = self.position
        reason = position.illegality(move, piece_type)
        if reason is not None:
            return reason
        self.checks.append(position.push_and_check(move))
        self.moves.append(move)
        key = position.key()
        ply = len(self.keys)
        self.keys.append(key)
        last = self._last
        before = last.get(key, -1)
        last[key] = ply
        self._previous.append(before)
        if before >= 0 and self.ending is None and self._times_seen(ply) == 4:
            self.ending = self._repetition(self.occurrences())
        return None

    def _times_seen(self, ply: int) -> int:
        """How many times the position after ``ply`` occurred up to then, counted up to 5."""
        previous = self._previous
        count, at = 1, previous[ply]
        while at >= 0 and count < 5:
            count += 1
            at = previous[at]
        return count

    def branch(self, ply: int, position: Position) -> "Game":
        """A new game that shares this one's first ``ply`` moves and goes on from ``position``
        (the position after them, which the caller kept), without replaying them: how a
        variation starts. Repetitions count the shared positions too::

            >>> g = Game()
            >>> for usi in "7g7f 3c3d 2g2f".split():
            ...     g.play_usi(usi)
            >>> after_two = Game()
            >>> for usi in "7g7f 3c3d".split():
            ...     after_two.play_usi(usi)
            >>> v = g.branch(2, after_two.position)
            >>> v.play_usi("8h2b+"), v.ply, v.keys[:3] == g.keys[:3], g.ply
            (None, 3, True, 3)

        It copies the history (time and memory grow with ``ply``): to try many variations of
        a long game, branch once and ``rewind`` the branch to each one's start.
        """
        game = Game.__new__(Game)
        game.position = position.copy(last_move=True)
        game._start_sfen, game._start = self._start_sfen, self._start
        game.moves = self.moves[:ply]
        game.keys = self.keys[:ply + 1]
        game.checks = self.checks[:ply + 1]
        game._previous = self._previous[:ply + 1]
        if ply >= self.ply:
            game._last = dict(self._last)
        else:
            game._last = {key: at for at, key in enumerate(game.keys)}  # the last one wins
        game.ending = self.ending if self.ending is not None and self.ending.ply <= ply else None
        return game

    def rewind(self, ply: int, position: Position) -> None:
        """Take back the moves after the first ``ply`` and go on from ``position`` (the
        position after them, which the caller kept; copied): the game is then what
        ``branch(ply, position)`` of it would have been, in time and memory that grow with the
        moves taken back only. Repetitions counted and an ending after ``ply`` are undone::

            >>> g = Game()
            >>> for usi in "2h5h 5a4b 5h2h 4b5a 2h5h 5a4b 5h2h 4b5a 2h5h 5a4b 5h2h 4b5a".split():
            ...     g.play_usi(usi)
            >>> kept = Game()
            >>> for usi in "2h5h 5a4b 5h2h 4b5a 2h5h 5a4b 5h2h 4b5a".split():
            ...     kept.play_usi(usi)
            >>> g.rewind(8, kept.position)
            >>> g.ply, g.ending, g.occurrences()
            (8, None, [0, 4, 8])
            >>> g.play_usi("2h6h"), g.ending
            (None, None)
        """
        if not 0 <= ply <= self.ply:
            raise ValueError(f"cannot rewind a game of {self.ply} moves to ply {ply}")
        moves, keys, checks, previous, last = (self.moves, self.keys, self.checks,
                                               self._previous, self._last)
        while len(moves) > ply:
            moves.pop()
            checks.pop()
            key = keys.pop()
            before = previous.pop()
            if before >= 0:
                last[key] = before
            else:
                del last[key]
        self.position = position.copy(last_move=True)
        if self.ending is not None and self.ending.ply > ply:
            self.ending = None

    def play_usi(self, text: str) -> Optional[IllegalMove]:
        """``play`` a move given as USI text (``ValueError`` if the text is not USI)."""
        return self.play(Move.from_usi(text))

    def occurrences(self, ply: Optional[int] = None) -> list:
        """The plies at which the position after ``ply`` (default: the current one) occurred."""
        at = self.ply if ply is None else ply
        if not 0 <= at <= self.ply:
            raise IndexError(f"no ply {ply} in a game of {self.ply} moves")
        plies = []
        while at >= 0:
            plies.append(at)
            at = self._previous[at]
        plies.reverse()
        return plies

    def _mover(self, ply: int) -> int:
        """The colour that played move number ``ply`` (1-based)."""
        return self._start.turn ^ ((ply - 1) & 1)

    def _repetition(self, plies: list) -> Ending:
        first, last = plies[0], plies[-1]
        where = f"the position after ply {first} (plies {', '.join(map(str, plies))})"
        checking = []
        for colour in (BLACK, WHITE):
            own = [p for p in range(first + 1, last + 1) if self._mover(p) == colour]
            if own and all(self.checks[p] for p in own):
                checking.append(colour)
        if len(checking) == 1:
            loser = checking[0]
            return Ending(Reason.PERPETUAL_CHECK, Winner.of(loser ^ 1), last,
                          f"fourfold repetition of {where} with {COLOUR_NAMES[loser]} giving check "
                          f"on every move: {COLOUR_NAMES[loser]} loses")
        return Ending(Reason.SENNICHITE, Winner.DRAW, last, f"fourfold repetition of {where}: draw")

    def final_ending(self) -> Optional[Ending]:
        """The ending the rules give the game: a repetition, if one occurred, else checkmate or
        no legal move in the final position, else ``None`` (the game ended for another reason,
        such as resignation, which only the record can say)."""
        if self.ending is not None:
            return self.ending
        position = self.position
        if position.has_legal_move():
            return None
        loser = position.turn
        if self.checks[-1]:
            return Ending(Reason.CHECKMATE, Winner.of(loser ^ 1), self.ply,
                          f"{COLOUR_NAMES[loser]} is checkmated")
        return Ending(Reason.NO_LEGAL_MOVES, Winner.of(loser ^ 1), self.ply,
                      f"{COLOUR_NAMES[loser]} has no legal move and loses")
