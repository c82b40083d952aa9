"""The shape of a castle or an opening as its definition asks for it, drawn as a diagram: the
owner's pieces (Black's, as the definitions are written) each on the first square its
condition allows, the opponent's pieces likewise, and the pieces it must hold in hand — what
the dashboard shows beside a label's games::

    >>> shape_sfen("美濃囲い")
    '9/9/9/9/9/9/9/4G1SK1/5G3 b - 1'

A label that requires others (``requires``) is drawn with their shapes under its own::

    >>> shape_sfen("角換わり腰掛け銀") is not None
    True

A condition met by any piece (``*``) or by pieces kept off squares draws nothing; a label with
no square at all (a technique, a note, an opening told by its moves) has no shape (None).
"""

from __future__ import annotations

from typing import Optional

from kifudb.core.pieces import BLACK, FULL_SET, HAND_TYPES, KING, UNPROMOTED, WHITE, piece
from kifudb.core.position import sfen_of
from kifudb.labels.classify import Definitions, definitions

__all__ = ["shape_sfen"]

#: The piece types a condition may name, most telling first: a king before a gold … (a
#: condition that takes golds or silvers gets silvers once the golds of a set are drawn)
_DRAWN = (KING, 6, 5, 7, 4, 3, 2, 1, 14, 13, 12, 11, 10, 9)


def shape_sfen(name: str, known: Optional[Definitions] = None) -> Optional[str]:
    """The SFEN of the shape of ``name`` (a castle or opening) with Black as its owner, or
    None when its definition names no square."""
    known = known or definitions()
    condition = known.condition(name)
    if condition is None:
        return None
    # the label's own condition, then those of the labels it requires (角換わり腰掛け銀: 腰掛け銀)
    conditions = [condition] + [c for c in map(known.condition, known.requires(name)) if c]
    parts = [part for c in conditions for part in (c, (c.get("any") or [{}])[0])]
    board = [0] * 81
    used = [0] * 9  # pieces drawn, by unpromoted type: no more than a set holds
    kings = [0, 0]  # one a side
    placed = False
    for part in parts:
        for key, colour in (("own", BLACK), ("theirs", WHITE)):
            for types, squares in part.get(key, ()):
                if len(types) == 14 or _drawn(board, colour, types, squares):
                    continue  # any piece: nothing to draw; or drawn for an earlier condition
                kind = next((t for t in sorted(types, key=_DRAWN.index)
                             if used[UNPROMOTED[t]] < FULL_SET[UNPROMOTED[t]]
                             and not (t == KING and kings[colour])), None)
                free = next((s for s in squares if not board[s]), None)
                if kind is not None and free is not None:
                    board[free] = piece(colour, kind)
                    used[UNPROMOTED[kind]] += 1
                    kings[colour] += kind == KING
                    placed = True
    if not placed:
        return None
    hands = [[0] * 8, [0] * 8]
    for part in parts:
        for key, colour in (("hand", BLACK), ("their_hand", WHITE)):
            for kind in part.get(key, ()):
                if kind in HAND_TYPES:
                    hands[colour][kind] = 1
    return sfen_of(board, hands, BLACK)


def _drawn(board: list, colour: int, types, squares) -> bool:
    """Whether a piece of ``colour`` of one of ``types`` is already on one of ``squares``."""
    wanted = {piece(colour, kind) for kind in types}
    return any(board[square] in wanted for square in squares)
