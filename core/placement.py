"""Where every piece stood, and for how long: a game's main line as *placements*, the rows that
pattern search reads (``core.pattern``, ``store.schema``'s ``placements`` table).

A placement says that from ply ``from_ply`` up to (not including) ply ``to_ply``, ``place`` held
``piece``, ``count`` of them: a square (``0..80``) held one piece (a board code, ``type + 16 *
colour``); ``HAND_PLACE`` (81): a side held ``count`` pieces of an unpromoted kind in hand (no row
while it holds none); ``MATERIAL_PLACE`` (82): a side owned ``count`` pieces of a kind, on the
board (promoted or not) and in hand together, for every kind and side from the start (``count``
0 included). Ply ``p`` is the position after ``p`` moves; a game of ``n`` moves has positions
``0..n``, so what stands at the end has ``to_ply == n + 1``. A move adds a row or two (captures
and drops a few more): about 1.3 rows a position over a whole game, after the start's 56::

    >>> from kifudb.core.position import Position
    >>> from kifudb.core.move import Move, move_code
    >>> rows = placements(Position(), [move_code(Move.from_usi(u)) for u in ("7g7f", "3c3d", "8h2b+")])
    >>> len(rows[0])
    62
    >>> sorted(row for row in zip(*rows) if row[0] in (60, 59, 70, 10))  # 7g, 7f, 8h, 2b
    [(10, 13, 1, 3, 4), (10, 21, 1, 0, 3), (59, 1, 1, 1, 4), (60, 1, 1, 0, 1), (70, 5, 1, 0, 3)]
    >>> [row for row in zip(*rows) if row[0] == HAND_PLACE or row[1] in (5, 21) and row[0] == 82]
    [(82, 21, 1, 0, 3), (82, 5, 1, 0, 3), (81, 5, 1, 3, 4), (82, 5, 2, 3, 4), (82, 21, 0, 3, 4)]
"""

from __future__ import annotations

from typing import Final, Sequence

from kifudb.core.pieces import HAND_TYPES, KING, UNPROMOTED

#: the place of a side's pieces in hand, and of its material (``core.pattern`` reads the same)
HAND_PLACE: Final = 81
MATERIAL_PLACE: Final = 82
_KINDS: Final = HAND_TYPES + (KING,)
_DROP_BASE: Final = 13122
_PROMOTING: Final = 6561


def placements(position, move_codes: Sequence[int]) -> tuple[list[int], list[int], list[int],
                                                       list[int], list[int]]:
    """The placements of the game that starts at ``position`` (a ``core.position.Position``,
    left as it is) and plays ``move_codes`` (``core.move.move_code``; trusted: replayed before),
    as five lists: ``place``, ``piece``, ``count``, ``from_ply``, ``to_ply``. The codes may be
    any sequence of ints (the replay's ``array``)."""
    places: list[int] = []
    pieces: list[int] = []
    counts: list[int] = []
    firsts: list[int] = []
    lasts: list[int] = []
    board: list[int] = list(position.board)
    since: list[int] = [0] * 81
    hands: list[list[int]] = [list(position.hands[0]), list(position.hands[1])]
    hand_since: list[list[int]] = [[0] * 16, [0] * 16]
    owned: list[list[int]] = [[0] * 16, [0] * 16]
    owned_since: list[list[int]] = [[0] * 16, [0] * 16]
    for code in board:
        if code:
            owned[code >> 4][UNPROMOTED[code & 15]] += 1
    for colour in (0, 1):
        for kind in HAND_TYPES:
            owned[colour][kind] += hands[colour][kind]
    colour = position.turn
    ply = 0
    for move in move_codes:
        ply += 1
        if move >= _DROP_BASE:
            kind = (move - _DROP_BASE) // 81 + 1
            to = (move - _DROP_BASE) % 81
            hand = hands[colour]
            _close(places, pieces, counts, firsts, lasts, HAND_PLACE, kind + 16 * colour,
                   hand[kind], hand_since[colour][kind], ply)
            hand[kind] -= 1
            hand_since[colour][kind] = ply
            board[to] = kind + 16 * colour
            since[to] = ply
        else:
            promote = move >= _PROMOTING
            if promote:
                move -= _PROMOTING
            origin = move // 81
            to = move % 81
            piece = board[origin]
            _close(places, pieces, counts, firsts, lasts, origin, piece, 1, since[origin], ply)
            captured = board[to]
            if captured:
                _close(places, pieces, counts, firsts, lasts, to, captured, 1, since[to], ply)
                kind = UNPROMOTED[captured & 15]
                loser = colour ^ 1
                _close(places, pieces, counts, firsts, lasts, MATERIAL_PLACE, kind + 16 * loser,
                       owned[loser][kind], owned_since[loser][kind], ply)
                owned[loser][kind] -= 1
                owned_since[loser][kind] = ply
                _close(places, pieces, counts, firsts, lasts, MATERIAL_PLACE, kind + 16 * colour,
                       owned[colour][kind], owned_since[colour][kind], ply)
                owned[colour][kind] += 1
                owned_since[colour][kind] = ply
                hand = hands[colour]
                _close(places, pieces, counts, firsts, lasts, HAND_PLACE, kind + 16 * colour,
                       hand[kind], hand_since[colour][kind], ply)
                hand[kind] += 1
                hand_since[colour][kind] = ply
            board[origin] = 0
            board[to] = piece + 8 if promote else piece
            since[to] = ply
        colour ^= 1
    end = ply + 1
    for square in range(81):
        _close(places, pieces, counts, firsts, lasts, square, board[square], 1, since[square], end)
    for colour in (0, 1):
        for kind in HAND_TYPES:
            _close(places, pieces, counts, firsts, lasts, HAND_PLACE, kind + 16 * colour,
                   hands[colour][kind], hand_since[colour][kind], end)
        for kind in _KINDS:
            places.append(MATERIAL_PLACE)
            pieces.append(kind + 16 * colour)
            counts.append(owned[colour][kind])
            firsts.append(owned_since[colour][kind])
            lasts.append(end)
    return places, pieces, counts, firsts, lasts


def _close(places: list[int], pieces: list[int], counts: list[int], firsts: list[int],
           lasts: list[int], place: int, piece: int, count: int, first: int, last: int) -> None:
    """Add the row of what ends at ``last``: none for an empty square or none in hand (a
    material count of 0 is a row), none for what began at ``last`` (it never stood)."""
    if (count or place == MATERIAL_PLACE) and piece and first < last:
        places.append(place)
        pieces.append(piece)
        counts.append(count)
        firsts.append(first)
        lasts.append(last)
