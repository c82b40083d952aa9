"""Impasse (持将棋): the 24-point rule and the 27-point declaration rule (入玉宣言).

Points: rook and bishop (promoted or not) 5 each, every other piece but the king 1, on the board
and in hand. With both kings in their promotion zones::

    >>> from kifudb.core import Position
    >>> pos = Position.from_sfen("K8/9/9/9/9/9/9/9/8k b RBGSNLPrb3g3s3n3l17p 1")
    >>> points(pos, 0), points(pos, 1)
    (15, 39)
    >>> jishogi_24(pos).winner   # Black has fewer than 24 points
    <Winner.WHITE: 'white'>

The declaration rule belongs to the side to move: ``declaration(pos)`` says whether it may declare
a win and, if not, which conditions fail.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from kifudb.core.outcome import Winner
from kifudb.core.pieces import BLACK, WHITE, BISHOP, ROOK, KING, UNPROMOTED, COLOUR_NAMES, in_zone


def piece_points(piece_type: int) -> int:
    """5 for a rook or bishop (promoted or not), 0 for the king, 1 for the rest."""
    base = UNPROMOTED[piece_type]
    return 5 if base in (BISHOP, ROOK) else 0 if base == KING else 1


def hand_points(position, colour: int) -> int:
    """Points of ``colour``'s pieces in hand."""
    return sum(piece_points(t) * n for t, n in enumerate(position.hands[colour]) if n)


def points(position, colour: int, zone_only: bool = False) -> int:
    """Points of ``colour``'s pieces on the board (only those in the enemy zone if ``zone_only``)
    plus its hand."""
    total = hand_points(position, colour)
    for sq, code in enumerate(position.board):
        if code and code >> 4 == colour and (not zone_only or in_zone(colour, sq)):
            total += piece_points(code & 15)
    return total


def pieces_in_zone(position, colour: int) -> int:
    """How many of ``colour``'s pieces other than the king stand in its promotion zone."""
    return sum(1 for sq, code in enumerate(position.board)
               if code and code >> 4 == colour and code & 15 != KING and in_zone(colour, sq))


def king_entered(position, colour: int) -> bool:
    """True if ``colour``'s king stands in its promotion zone (the enemy camp)."""
    sq = position.king_squares[colour]
    return sq is not None and in_zone(colour, sq)


class ImpasseVerdict(NamedTuple):
    """Result of the 24-point rule: ``winner`` is ``Winner.BLACK``, ``WHITE`` or ``DRAW``."""

    winner: Winner
    black_points: int
    white_points: int
    both_entered: bool
    message: str


def jishogi_24(position, removed: Sequence[int] = ()) -> ImpasseVerdict:
    """Settle an impasse by the 24-point rule (professional play).

    A side with fewer than 24 points loses; if both have 24 or more the game is a draw.
    ``removed`` are the piece types a handicap giver (White) removed; they count for White.
    ``both_entered`` reports whether both kings stand in their promotion zones, the condition
    under which the rule is applied.
    """
    black = points(position, BLACK)
    white = points(position, WHITE) + sum(piece_points(t) for t in removed)
    both = king_entered(position, BLACK) and king_entered(position, WHITE)
    if black < 24 <= white:
        winner, why = Winner.WHITE, f"black has {black} points, fewer than 24"
    elif white < 24 <= black:
        winner, why = Winner.BLACK, f"white has {white} points, fewer than 24"
    elif black < 24 and white < 24:
        winner, why = Winner.DRAW, f"both sides have fewer than 24 points ({black}, {white})"
    else:
        winner, why = Winner.DRAW, f"both sides have 24 points or more ({black}, {white}): draw"
    return ImpasseVerdict(winner, black, white, both, why)


class Declaration(NamedTuple):
    """Whether the side to move may declare a win under the 27-point rule, and why (not)."""

    colour: int
    valid: bool
    points: int
    required: int
    pieces_in_zone: int
    failures: tuple

    @property
    def message(self) -> str:
        side = COLOUR_NAMES[self.colour]
        if self.valid:
            return (f"{side} may declare: {self.pieces_in_zone} pieces in the enemy zone, "
                    f"{self.points} points (needs {self.required})")
        return f"{side} may not declare: " + "; ".join(self.failures)


def declaration(position) -> Declaration:
    """Check the 27-point declaration rule (CSA ``%KACHI``) for the side to move.

    Conditions: the king is in the enemy zone, it is not in check, at least 10 other pieces stand
    in the enemy zone, and the points of the pieces in the zone plus the hand reach 28 for Black
    or 27 for White.
    """
    colour = position.turn
    required = 28 if colour == BLACK else 27
    failures = []
    if not king_entered(position, colour):
        failures.append("the king is not in the enemy zone")
    if position.is_check():
        failures.append("the king is in check")
    count = pieces_in_zone(position, colour)
    if count < 10:
        failures.append(f"only {count} pieces besides the king in the enemy zone (needs 10)")
    total = points(position, colour, zone_only=True)
    if total < required:
        failures.append(f"only {total} points in the zone and in hand (needs {required})")
    return Declaration(colour, not failures, total, required, count, tuple(failures))
