"""Precomputed move and attack tables, built once at import from the piece movement rules.

Every table is indexed by board code (``type + 16 * colour``) and square, so move generation and
attack tests never compute a coordinate or test a board edge at run time::

    >>> from kifudb.core.pieces import square, BLACK, KNIGHT, piece
    >>> sorted(STEPS[piece(BLACK, KNIGHT)][square(8, 9)]) == [square(7, 7), square(9, 7)]
    True
"""

from __future__ import annotations

from typing import Final, Optional

from kifudb.core.pieces import (BLACK, WHITE, PAWN, LANCE, KNIGHT, SILVER, BISHOP, ROOK, GOLD, KING,
                         PRO_PAWN, PRO_LANCE, PRO_KNIGHT, PRO_SILVER, HORSE, DRAGON, piece)

#: The eight directions as (file step, rank step); rank step -1 is "forward" for Black.
DIRECTIONS = ((0, -1), (-1, -1), (1, -1), (-1, 0), (1, 0), (0, 1), (-1, 1), (1, 1))
_N, _NE, _NW, _E, _W, _S, _SE, _SW = DIRECTIONS  # as Black sees them (file 1 is east)
_ORTHO = (_N, _E, _W, _S)
_DIAG = (_NE, _NW, _SE, _SW)
_GOLD = (_N, _NE, _NW, _E, _W, _S)

#: For Black: (one-step vectors, sliding directions) of each piece type.
Vector = tuple[int, int]
_MOVES: dict[int, tuple[tuple[Vector, ...], tuple[Vector, ...]]] = {
    PAWN: ((_N,), ()),
    LANCE: ((), (_N,)),
    KNIGHT: (((-1, -2), (1, -2)), ()),
    SILVER: ((_N, _NE, _NW, _SE, _SW), ()),
    GOLD: (_GOLD, ()),
    KING: (DIRECTIONS, ()),
    BISHOP: ((), _DIAG),
    ROOK: ((), _ORTHO),
    PRO_PAWN: (_GOLD, ()),
    PRO_LANCE: (_GOLD, ()),
    PRO_KNIGHT: (_GOLD, ()),
    PRO_SILVER: (_GOLD, ()),
    HORSE: (_ORTHO, _DIAG),
    DRAGON: (_DIAG, _ORTHO),
}


def _moves_for(colour: int, piece_type: int) -> tuple[tuple[Vector, ...], tuple[Vector, ...]]:
    steps, slides = _MOVES[piece_type]
    if colour == WHITE:  # White's moves are Black's turned 180 degrees
        steps = tuple((-df, -dr) for df, dr in steps)
        slides = tuple((-df, -dr) for df, dr in slides)
    return steps, slides


def _offset(sq: int, df: int, dr: int) -> Optional[int]:
    file, rank = sq // 9 + df, sq % 9 + dr
    if 0 <= file < 9 and 0 <= rank < 9:
        return file * 9 + rank
    return None


def _ray(sq: int, df: int, dr: int) -> tuple[int, ...]:
    out = []
    cur = _offset(sq, df, dr)
    while cur is not None:
        out.append(cur)
        cur = _offset(cur, df, dr)
    return tuple(out)


Squares = tuple[int, ...]
EMPTY_TABLE: Final[tuple[Squares, ...]] = tuple(() for _ in range(81))

#: STEPS[code][sq]: squares a piece reaches in one step (knight jumps included).
STEPS: Final[list[tuple[Squares, ...]]] = [EMPTY_TABLE] * 32
#: RAYS[code][sq]: the sliding rays of a piece, each a tuple of squares nearest first.
RAYS: Final[list[tuple[tuple[Squares, ...], ...]]] = [tuple(() for _ in range(81))] * 32
#: REACH[code][sq]: {destination: squares that must be empty on the way} for every
#: destination the piece could reach on an empty board (no destination for code 0 and the
#: codes of no piece).
REACH: Final[list[tuple[dict[int, Squares], ...]]] = [tuple({} for _ in range(81))] * 32

for _colour in (BLACK, WHITE):
    for _type in _MOVES:
        _steps, _slides = _moves_for(_colour, _type)
        _code = piece(_colour, _type)
        STEPS[_code] = tuple(
            tuple(t for t in [_offset(s, df, dr) for df, dr in _steps] if t is not None)
            for s in range(81))
        RAYS[_code] = tuple(
            tuple(r for r in [_ray(s, df, dr) for df, dr in _slides] if r)
            for s in range(81))
        _reach = []
        for s in range(81):
            table: dict[int, Squares] = {}
            for ray in RAYS[_code][s]:
                for i, t in enumerate(ray):
                    table[t] = ray[:i]
            for t in STEPS[_code][s]:
                table[t] = ()
            _reach.append(table)
        REACH[_code] = tuple(_reach)

#: RAY8[sq]: for each of the 8 directions with room, (direction index, ray of squares).
RAY8: Final[tuple[tuple[tuple[int, Squares], ...], ...]] = tuple(
    tuple((d, _ray(s, df, dr)) for d, (df, dr) in enumerate(DIRECTIONS) if _ray(s, df, dr))
    for s in range(81))

#: NEAR[colour][d] / FAR[colour][d]: codes of ``colour`` that attack a square when they stand
#: next to it (NEAR) or further away with nothing between (FAR), in direction ``d`` from it.
NEAR: Final[list[list[frozenset[int]]]] = [[frozenset()] * 8, [frozenset()] * 8]
FAR: Final[list[list[frozenset[int]]]] = [[frozenset()] * 8, [frozenset()] * 8]
for _colour in (BLACK, WHITE):
    for _d, (_df, _dr) in enumerate(DIRECTIONS):
        back = (-_df, -_dr)  # the vector from the attacker to the attacked square
        near: set[int] = set()
        far: set[int] = set()
        for _type in _MOVES:
            _steps, _slides = _moves_for(_colour, _type)
            if back in _slides:
                near.add(piece(_colour, _type))
                far.add(piece(_colour, _type))
            elif back in _steps:
                near.add(piece(_colour, _type))
        NEAR[_colour][_d] = frozenset(near)
        FAR[_colour][_d] = frozenset(far)

#: KNIGHT_FROM[colour][sq]: squares from which a knight of ``colour`` attacks ``sq``.
KNIGHT_FROM: Final[list[tuple[Squares, ...]]] = [
    tuple(tuple(t for t in [_offset(s, -df, -dr) for df, dr in _moves_for(c, KNIGHT)[0]]
                if t is not None) for s in range(81))
    for c in (BLACK, WHITE)]

#: LINE[a][b]: squares strictly between two squares on a common line, else None.
LINE: Final[list[list[Optional[Squares]]]] = [[None] * 81 for _ in range(81)]
for _s in range(81):
    for _d, _r in RAY8[_s]:
        for _i, _t in enumerate(_r):
            LINE[_s][_t] = _r[:_i]

#: PIN_RAY[a][b]: for squares on a common line, (direction index from a to b, the squares beyond b
#: on that ray); None otherwise. Tells whether a piece on b shields a king on a from a slider.
PIN_RAY: Final[list[list[Optional[tuple[int, Squares]]]]] = [[None] * 81 for _ in range(81)]
for _s in range(81):
    for _d, _r in RAY8[_s]:
        for _i, _t in enumerate(_r):
            PIN_RAY[_s][_t] = (_d, _r[_i + 1:])

#: FILE_SQUARES[f]: the nine squares of file ``f + 1``.
FILE_SQUARES: Final[tuple[Squares, ...]] = tuple(tuple(range(f * 9, f * 9 + 9)) for f in range(9))
