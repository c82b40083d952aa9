"""What the pieces of a bare board attack: the few attack questions the technique patterns
(手筋, ``labels/techniques.toml``) ask after a move, on the plain board list the labeller keeps
(81 piece codes, ``core.pieces``), with the tables of ``core.tables``::

    >>> from kifudb.core.position import Position
    >>> from kifudb.core.pieces import square_name
    >>> board = list(Position("4k4/9/9/9/4r4/9/9/9/4K4 b - 1").board)
    >>> attacked(board, 76, 1), attacked(board, 75, 1)  # 5九 by the rook on 5五; 4九 is not
    (True, False)
    >>> sorted(square_name(s) for s in targets(board, 40) if s % 9 == 4)  # the rook's rank
    ['1e', '2e', '3e', '4e', '6e', '7e', '8e', '9e']
"""

from __future__ import annotations

from kifudb.core.pieces import KNIGHT
from kifudb.core.tables import FAR, KNIGHT_FROM, NEAR, RAY8, RAYS, STEPS

#: One direction from a square: (NEAR codes, FAR codes, first square, further squares).
_Ray = tuple[frozenset[int], frozenset[int], int, tuple[int, ...]]
#: Per attacking colour and attacked square: the ``_Ray`` of each of the 8 directions from it.
_RAYS: tuple[tuple[tuple[_Ray, ...], ...], ...] = tuple(
    tuple(tuple((NEAR[by][d], FAR[by][d], ray[0], ray[1:]) for d, ray in RAY8[s])
          for s in range(81)) for by in (0, 1))


def attacked(board: list[int], sq: int, by: int) -> bool:
    """True if a piece of colour ``by`` attacks square ``sq`` (pins are not looked at)."""
    for near, far, first, rest in _RAYS[by][sq]:
        p = board[first]
        if p:
            if p in near:
                return True
            continue
        for s in rest:
            p = board[s]
            if p:
                if p in far:
                    return True
                break
    knight = KNIGHT + 16 * by
    for s in KNIGHT_FROM[by][sq]:
        if board[s] == knight:
            return True
    return False


def targets(board: list[int], sq: int) -> list[int]:
    """The squares the piece on ``sq`` attacks: its steps, then each sliding ray up to and
    including the first piece met."""
    code = board[sq]
    out = list(STEPS[code][sq])
    for ray in RAYS[code][sq]:
        for s in ray:
            out.append(s)
            if board[s]:
                break
    return out
