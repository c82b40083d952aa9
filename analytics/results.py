"""Results: how many games ▲先手 (Black) won, △後手 (White) won, were drawn, or have no result
(an abort, a record that stops), and what they make of a side's score.

A score counts a draw as half a win over the decided games (games without a result count among
the games, not in the score), and comes with its 95% Wilson score interval::

    >>> total = Results(black=7, white=8, draws=1, other=2)
    >>> total.games, total.decided, total.score(), total.score("white")
    (18, 16, 0.4688, 0.5312)
    >>> total.wilson()
    (0.2551, 0.6945)
    >>> total.as_dict()  # doctest: +NORMALIZE_WHITESPACE
    {'games': 18, 'black_wins': 7, 'white_wins': 8, 'draws': 1, 'other': 2, 'decided': 16,
     'black_score': 0.4688, 'ci_low': 0.2551, 'ci_high': 0.6945}
    >>> Results.for_side("white", wins=3, losses=1, draws=0).side_dict("white")
    ... # doctest: +NORMALIZE_WHITESPACE
    {'games': 4, 'wins': 3, 'losses': 1, 'draws': 0, 'decided': 4, 'score': 0.75,
     'ci_low': 0.3006, 'ci_high': 0.9544}

Every dict with a score says how many games it stands on (``decided``): on a mixed collection
"67.9% of 1,433 games" may be the score of 12 decided games.
    >>> Results().score(), Results().wilson()
    (None, (None, None))

In the store the counts come from ``count_columns`` over a statement's games and back from its
rows with ``Results.from_row``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Optional

import sqlalchemy as sa

__all__ = ["Results", "count_columns", "wilson", "SIDES"]

SIDES = ("black", "white")


def wilson(points: float, n: int, z: float = 1.96) -> tuple:
    """The Wilson score interval of ``points`` out of ``n`` (a draw is half a point), rounded to
    four places; ``(None, None)`` when ``n`` is 0.

    >>> wilson(0, 4), wilson(4, 4), wilson(0, 0)
    ((0.0, 0.4899), (0.5101, 1.0), (None, None))
    """
    if n <= 0:
        return None, None
    p = points / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    scale = 1 + z * z / n
    low, high = (centre - spread) / scale, (centre + spread) / scale
    return round(max(0.0, low), 4), round(min(1.0, high), 4)


def _side(side: str) -> str:
    if side not in SIDES:
        raise ValueError(f"side must be one of {', '.join(SIDES)}, not {side!r}")
    return side


@dataclasses.dataclass(frozen=True)
class Results:
    """Games won by ``black``, won by ``white``, ``draws``, and ``other`` (no result)."""

    black: int = 0
    white: int = 0
    draws: int = 0
    other: int = 0

    @classmethod
    def for_side(cls, side: str, wins: int, losses: int, draws: int,
                 other: int = 0) -> Results:
        """The results of the games ``side`` played: its ``wins`` and ``losses``."""
        won, lost = (wins, losses) if _side(side) == "black" else (losses, wins)
        return cls(black=won, white=lost, draws=draws, other=other)

    @classmethod
    def from_row(cls, row: dict, side: Optional[str] = None) -> Results:
        """The results of a row of ``count_columns(…, side)``."""
        if side is None:
            won = (row["black_wins"], row["white_wins"])
            decided = sum(won) + row["draws"]
            return cls(*won, draws=row["draws"], other=row["games"] - decided)
        decided = row["wins"] + row["losses"] + row["draws"]
        return cls.for_side(side, row["wins"], row["losses"], row["draws"],
                            other=row["games"] - decided)

    @property
    def games(self) -> int:
        return self.black + self.white + self.draws + self.other

    @property
    def decided(self) -> int:
        """The games with a result (a win or a draw)."""
        return self.black + self.white + self.draws

    def wins(self, side: str) -> int:
        return self.black if _side(side) == "black" else self.white

    def losses(self, side: str) -> int:
        return self.white if _side(side) == "black" else self.black

    def points(self, side: str = "black") -> float:
        """``side``'s wins and half its draws."""
        return self.wins(side) + self.draws / 2

    def score(self, side: str = "black") -> Optional[float]:
        """``side``'s points over the decided games, to four places (None if none is)."""
        return round(self.points(side) / self.decided, 4) if self.decided else None

    def wilson(self, side: str = "black", z: float = 1.96) -> tuple:
        """The Wilson score interval of ``side``'s score: ``(low, high)``."""
        return wilson(self.points(side), self.decided, z)

    def as_dict(self, other: bool = True, score: bool = True) -> dict:
        """``games``, ``black_wins``, ``white_wins``, ``draws``, ``other`` (unless ``other`` is
        False), ``decided`` and Black's score with its interval: ``black_score``, ``ci_low``,
        ``ci_high`` (unless ``score`` is False)."""
        out = {"games": self.games, "black_wins": self.black, "white_wins": self.white,
               "draws": self.draws}
        if other:
            out["other"] = self.other
        out["decided"] = self.decided
        if score:
            out.update(_scored(self, "black", "black_score"))
        return out

    def side_dict(self, side: str) -> dict:
        """``side``'s record: ``games``, ``wins``, ``losses``, ``draws``, ``decided``,
        ``score``, ``ci_low``, ``ci_high``."""
        return {"games": self.games, "wins": self.wins(side), "losses": self.losses(side),
                "draws": self.draws, "decided": self.decided, **_scored(self, side, "score")}


def _scored(results: Results, side: str, name: str) -> dict:
    low, high = results.wilson(side)
    return {name: results.score(side), "ci_low": low, "ci_high": high}


def count_columns(winner, side=None) -> list:
    """The counts that ``Results.from_row`` reads, as SQL over a statement's games (``winner``:
    their winner column): ``games``, ``black_wins``, ``white_wins``, ``draws``; with ``side`` (a
    column or a side), ``games``, ``wins``, ``losses``, ``draws`` of that side."""
    count = sa.func.count
    if side is None:
        return [count().label("games"),
                count().filter(winner == sa.literal("black")).label("black_wins"),
                count().filter(winner == sa.literal("white")).label("white_wins"),
                count().filter(winner == sa.literal("draw")).label("draws")]
    return [count().label("games"), count().filter(winner == side).label("wins"),
            count().filter(winner.in_(SIDES), winner != side).label("losses"),
            count().filter(winner == sa.literal("draw")).label("draws")]
