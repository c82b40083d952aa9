"""The squares a piece attacks, on the plain board list the labeller keeps (81 piece codes,
``core.pieces``), with the tables of ``core.tables``: what the technique patterns (手筋,
``labels/techniques.toml``) ask of a forking piece; whether a square is attacked at all is
``Position.attacked``::

    >>> from kifudb.core.position import Position
    >>> from kifudb.core.pieces import square_name
    >>> board = list(Position("4k4/9/9/9/4r4/9/9/9/4K4 b - 1").board)
    >>> sorted(square_name(s) for s in targets(board, 40) if s % 9 == 4)  # the rook's rank
    ['1e', '2e', '3e', '4e', '6e', '7e', '8e', '9e']
"""

from __future__ import annotations

from kifudb.core.tables import RAYS, STEPS


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
