"""A computed rating for every player of the store: Elo over the store's decided, dated games in
date order (then by game id), players by canonical name (``labels.players``).

Every player starts at ``START`` (1500); after each game both players move by ``K`` (20, FIDE's
factor for most players) × (result − expected), the expected score being
``1 / (1 + 10 ** ((theirs − mine) / 400))`` and a draw half a point. Undated games have no
place in the order and are left out, as are games without a result. A rating of a player with
few games says little: ``games`` is given with it.

    >>> expected(1500, 1500), expected(1900, 1500)
    (0.5, 0.9091)
    >>> import tempfile
    >>> from kifudb.store.writer import ingest_paths
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["tests/fixtures/players"], folder)
    >>> table = ratings(folder)
    >>> table["羽生善治"]["rating"], table["羽生善治"]["games"], table["羽生善治"]["history"][0]
    (1499.4, 2, {'date': '2006-12-15', 'game': 2, 'rating': 1510.0})

Why no library: Elo is the four lines of ``_play``; the Glicko-2 package on PyPI (``glicko2``
2.1.0) carries the original port's known error in its volatility step (the rating where the
deviation belongs), and a rating that depends on it could not be checked by hand.
"""

from __future__ import annotations

import sqlalchemy as sa

from kifudb.analytics import checks
from kifudb.analytics.filters import GameFilter
from kifudb.labels.players import canonical
from kifudb.store.engine import fetch, game_summary

__all__ = ["ratings", "player_rating", "expected", "START", "K"]

START = 1500.0
K = 20.0
G = game_summary.c
_POINTS = {"black": (1.0, 0.0), "white": (0.0, 1.0), "draw": (0.5, 0.5)}


def expected(mine: float, theirs: float) -> float:
    """The expected score of a player rated ``mine`` against one rated ``theirs``."""
    return round(1 / (1 + 10 ** ((theirs - mine) / 400)), 4)


def _play(table: dict, black: str, white: str, winner: str) -> tuple:
    """Both players' ratings after one game."""
    a, b = table.get(black, START), table.get(white, START)
    expected_black = 1 / (1 + 10 ** ((b - a) / 400))
    points_black, points_white = _POINTS[winner]
    return a + K * (points_black - expected_black), b + K * (points_white - (1 - expected_black))


def ratings(store, *, filters: GameFilter = GameFilter()) -> dict:
    """Every rated player's ``{"rating", "games", "history"}`` by canonical name, ``history``
    the rating after each of its games (``date`` ISO, ``game``, ``rating``), over the decided
    dated games of ``filters`` between two named players."""
    rows = fetch(store, sa.select(G.game, G.date, G.black_player, G.white_player, G.winner)
                 .where(G.date.is_not(None), G.winner.in_(tuple(_POINTS)),
                        G.black_player.is_not(None), G.white_player.is_not(None),
                        G.black_player != G.white_player, *filters.where())
                 .order_by(G.date, G.game))
    current: dict = {}
    players: dict = {}
    for row in rows:
        black, white = row["black_player"], row["white_player"]
        after = _play(current, black, white, row["winner"])
        for name, rating in zip((black, white), after):
            current[name] = rating
            entry = players.setdefault(name, {"rating": None, "games": 0, "history": []})
            entry["games"] += 1
            entry["history"].append({"date": row["date"].isoformat(), "game": row["game"],
                                     "rating": round(rating, 1)})
    for name, entry in players.items():
        entry["rating"] = round(current[name], 1)
    return players


def player_rating(store, player: str, *, filters: GameFilter = GameFilter()):
    """One player's computed rating (its canonical name), or None if it has no rated game."""
    return ratings(store, filters=filters).get(canonical(checks.name(player, "player")).name)
