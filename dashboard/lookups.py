"""The store's questions in the shape the pages cache them: positions given as SFEN text
(plain values, so ``dashboard.state.stored`` can key its cache on them) for the explorer, the
search and its count, and a game's position at a ply as an SFEN. Everything else the pages ask
comes straight from ``analytics.queries`` and ``analytics.stats``.
"""

from __future__ import annotations

from analytics import queries
from analytics.position_input import position_from_game
from core.position import Position

__all__ = ["explore", "search", "occurrences", "game_position"]


def explore(store, sfen: str, **filters) -> list:
    """``queries.explore`` of the position of ``sfen`` (plain values, so answers can be
    cached)."""
    return queries.explore(store, Position.from_sfen(sfen), **filters)


def search(store, sfen: str, mirror: bool = False, limit: int | None = None,
           offset: int = 0) -> list:
    """``queries.search`` of the position of ``sfen`` (one page: ``offset``, ``limit``)."""
    return queries.search(store, Position.from_sfen(sfen), mirror=mirror, limit=limit,
                          offset=offset)


def occurrences(store, sfen: str, mirror: bool = False) -> dict:
    """``queries.occurrences`` of the position of ``sfen``: ``{"occurrences", "games"}``."""
    return queries.occurrences(store, Position.from_sfen(sfen), mirror=mirror)


def game_position(store, game: int, ply: int) -> dict:
    """The position of ``game`` after ``ply`` main-line moves: ``{"sfen", "last_move"}`` (USI,
    None at ply 0); ``ValueError`` for an unknown game or a ply out of range."""
    position = position_from_game(store, int(game), int(ply))
    last = position.last_move
    return {"sfen": position.sfen(), "last_move": last.usi() if last is not None else None}
