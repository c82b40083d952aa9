"""A seeded synthetic corpus: random legal games played by our engine, the same on every run.

Moves are drawn from the legal moves (generated in a fixed order) with a preference for captures
and promotions, so that games look less like noise and reach the middle game::

    >>> games = synthetic_games(3, seed=7)
    >>> games == synthetic_games(3, seed=7)
    True
    >>> all(len(moves) >= 1 for _, moves in games)
    True
"""

from __future__ import annotations

import random

from kifudb.core import Move, Position, STARTING_SFEN


def _pick(rng: random.Random, position: Position, moves: list) -> Move:
    board = position.board
    weights = [3 if (m.from_square is not None and board[m.to_square]) or m.promotion else 1
               for m in moves]
    return rng.choices(moves, weights)[0]


def synthetic_game(rng: random.Random, max_plies: int) -> list:
    """One random legal game from the even start, as USI texts."""
    position = Position()
    played = []
    for _ in range(max_plies):
        moves = position.legal_moves()
        if not moves:
            break
        move = _pick(rng, position, moves)
        position.push(move)
        played.append(move.usi())
    return played


def synthetic_games(count: int, seed: int = 2026, min_plies: int = 60, max_plies: int = 200):
    """``count`` games as ``(start_sfen, [usi, …])``, lengths drawn between the bounds."""
    rng = random.Random(seed)
    return [(STARTING_SFEN, synthetic_game(rng, rng.randint(min_plies, max_plies)))
            for _ in range(count)]
