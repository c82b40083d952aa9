"""A stored game replayed for the viewer: the position after every main-line move, each move
in KI2, and the variations read back against the main line where they branch off.

    >>> line = replay_line("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    ...                    ["7g7f", "3c3d"])
    >>> [m["ki2"] for m in line["moves"]], len(line["sfens"])
    (['▲７六歩', '△３四歩'], 3)
    >>> [m.usi() for m in read_variation(Position(), ["２六歩(27)", "△同　歩"])[0]]
    ['2g2f']
"""

from __future__ import annotations

import re

from analytics import queries
from core.move import Move
from core.notation import NotationError, ki2_move, parse_csa_move, parse_ki2_move, parse_kif_move
from core.position import STARTING_SFEN, Position

_USI = re.compile(r"(?:[1-9][a-i][1-9][a-i]\+?|[PLNSBRG]\*[1-9][a-i])")
_CSA = re.compile(r"[+-]?\d{4}[A-Z]{2}")


def replay_line(start_sfen: str, usi_moves: list) -> dict:
    """``{"sfens": [SFEN after 0, 1, … moves], "moves": [{"usi", "ki2"}]}``."""
    position = Position.from_sfen(start_sfen)
    sfens, moves, previous = [position.sfen()], [], None
    for usi in usi_moves:
        move = Move.from_usi(usi)
        moves.append({"usi": usi, "ki2": ki2_move(position, move, previous)})
        position.push(move)
        previous = move.to_square
        sfens.append(position.sfen())
    return {"sfens": sfens, "moves": moves}


def game_record(store, game: int) -> dict | None:
    """Everything the viewer shows of a game: ``info`` (``queries.game_info``), ``moves`` (main
    line: ``ply``, ``usi``, ``ki2``, ``text``, ``seconds``, ``comment``; moves after the first
    that could not be replayed keep only their text), ``sfens`` (after each replayed move) and
    ``variations`` (``queries.game_variations`` rows). None for an unknown game."""
    info = queries.game_info(store, int(game))
    if info is None:
        return None
    rows = queries.game_moves(store, int(game))
    replayed = [r["usi"] for r in rows if r["usi"] is not None]
    line = replay_line(info["start_sfen"] or STARTING_SFEN, replayed)
    moves = []
    for i, row in enumerate(rows):
        ki2 = line["moves"][i]["ki2"] if i < len(line["moves"]) else None
        moves.append({**row, "ki2": ki2})
    return {"info": info, "moves": moves, "sfens": line["sfens"],
            "variations": queries.game_variations(store, int(game))}


def read_variation(position: Position, texts: list, previous_to: int | None = None) -> tuple:
    """Read the move texts of a variation (KIF, KI2, CSA or USI, as its record wrote them) from
    ``position``: ``(moves read, position reached, the problem or None)``; reading stops at the
    first move that cannot be read or is illegal."""
    position = position.copy()
    moves = []
    for number, text in enumerate(texts, start=1):
        token = text.strip()
        try:
            if _USI.fullmatch(token):
                move = Move.from_usi(token)
            elif _CSA.fullmatch(token):
                move = parse_csa_move(position, token)
            elif re.search(r"[(（]", token):
                move = parse_kif_move(position, token, previous_to)
            else:
                move = parse_ki2_move(position, token, previous_to)
        except (NotationError, ValueError) as error:
            return moves, position, f"move {number} ({token}) cannot be read: {error}"
        reason = position.check(move)
        if reason is not None:
            return moves, position, f"move {number} ({token}) is illegal: {reason.message}"
        position.push(move)
        moves.append(move)
        previous_to = move.to_square
    return moves, position, None
