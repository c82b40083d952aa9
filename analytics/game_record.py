"""A stored game replayed, as the dashboard's game viewer and ``kifudb game`` show it: the
position after every main-line move, each move in KI2, each variation from its branch point
(off the main line or another variation), and the position at one ply.

    >>> line = replayed_positions(STARTING_SFEN, ["7g7f", "3c3d"])
    >>> [m["ki2"] for m in line["moves"]], len(line["sfens"])
    (['▲７六歩', '△３四歩'], 3)
    >>> rows = [{"line": 1, "parent": 0, "ply": 2, "usi": "8c8d"},
    ...         {"line": 2, "parent": 1, "ply": 3, "usi": "2g2f"}]
    >>> branch = variation_line(STARTING_SFEN, ["7g7f", "3c3d", "2g2f"], rows, 2)
    >>> branch["start_ply"], branch["sfens"][-1].split()[0]
    (3, 'lnsgkgsnl/1r5b1/p1ppppppp/1p7/9/2P4P1/PP1PPPP1P/1B5R1/LNSGKGSNL')
"""

from __future__ import annotations

from analytics import queries
from analytics.position_input import position_from_game
from core.move import Move
from core.notation import ki2_move
from core.position import STARTING_SFEN, Position


def replayed_positions(start_sfen: str, usi_moves: list) -> dict:
    """``usi_moves`` (legal, as stored) played from ``start_sfen``: ``{"sfens": [SFEN after 0,
    1, … moves], "moves": [{"usi", "ki2"}]}``."""
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
    line = replayed_positions(info["start_sfen"] or STARTING_SFEN, replayed)
    moves = []
    for i, row in enumerate(rows):
        ki2 = line["moves"][i]["ki2"] if i < len(line["moves"]) else None
        moves.append({**row, "ki2": ki2})
    return {"info": info, "moves": moves, "sfens": line["sfens"],
            "variations": queries.game_variations(store, int(game))}


def variation_lines(rows: list) -> dict:
    """``queries.game_variations`` rows by variation: ``{number: its rows}``, by number."""
    lines: dict = {}
    for row in rows:
        lines.setdefault(row["line"], []).append(row)
    return dict(sorted(lines.items()))


def variation_line(start_sfen: str, main_usi: list, rows: list, number: int) -> dict:
    """Variation ``number`` on the board, following its branch points (a variation may branch
    off another one): ``{"start_ply", "sfens"}``, the position before its first move and after
    each of its moves that replayed at ingest; ``sfens`` is empty when the line it branches
    from was not replayed that far. ``rows`` are ``queries.game_variations`` rows."""
    lines = variation_lines(rows)

    def moves_to(line: int, ply: int):
        """The USI moves from the start to the position after ``ply`` moves of ``line``."""
        if line == 0:
            return main_usi[:ply] if ply <= len(main_usi) else None
        own = lines[line]
        first = own[0]["ply"]
        if ply < first:
            return moves_to(own[0]["parent"] or 0, ply)
        prefix = moves_to(own[0]["parent"] or 0, first - 1)
        played = [r["usi"] for r in own[:ply - first + 1]]
        if prefix is None or None in played:
            return None
        return prefix + played

    own = lines[number]
    start_ply = own[0]["ply"]
    prefix = moves_to(own[0]["parent"] or 0, start_ply - 1)
    if prefix is None:
        return {"start_ply": start_ply, "sfens": []}
    position = Position.from_sfen(start_sfen)
    for usi in prefix:
        position.push(Move.from_usi(usi))
    sfens = [position.sfen()]
    for row in own:
        if row["usi"] is None:
            break
        position.push(Move.from_usi(row["usi"]))
        sfens.append(position.sfen())
    return {"start_ply": start_ply, "sfens": sfens}


def game_position(store, game: int, ply: int) -> dict:
    """The position of ``game`` after ``ply`` main-line moves as plain values (what the
    dashboard caches): ``{"sfen", "last_move"}`` (USI, None at ply 0); ``ValueError`` for an
    unknown game or a ply out of range (``position_input.position_from_game``)."""
    position = position_from_game(store, int(game), int(ply))
    last = position.last_move
    return {"sfen": position.sfen(), "last_move": last.usi() if last is not None else None}
