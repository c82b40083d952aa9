"""The 64-bit position key: a Zobrist hash with constants anyone can regenerate.

Definition (version 1, stable; stored keys depend on it):

* A stream of 64-bit numbers is drawn from SplitMix64 seeded with ``0x6B69667564623031``
  (the ASCII bytes ``kifudb01``): ``state += 0x9E3779B97F4A7C15; z = state;
  z = (z ^ z >> 30) * 0xBF58476D1CE4E5B9; z = (z ^ z >> 27) * 0x94D049BB133111EB; out = z ^ z >> 31``,
  all modulo 2**64.
* The numbers are assigned in this order: for colour Black then White, for piece type 1..14
  (pawn, lance, knight, silver, bishop, rook, gold, king, tokin, promoted lance, promoted knight,
  promoted silver, horse, dragon), for square 0..80 (``(file - 1) * 9 + rank - 1``) one number
  ``BOARD[colour][type][square]``; then for colour Black then White, for hand type 1..7
  (pawn, lance, knight, silver, bishop, rook, gold), for count 1..18 one number
  ``HAND[colour][type][count]``; then one number ``WHITE_TO_MOVE``.
* ``key = XOR of BOARD[c][t][s] over every piece on the board
  XOR of HAND[c][t][n] over every type held (n = how many, n >= 1)
  XOR (WHITE_TO_MOVE if White is to move)``. The move number plays no part.

So the key depends only on board, hands and side to move, is the same on every machine and run,
and can be computed from an SFEN string alone::

    >>> from kifudb.core import Position
    >>> hex(Position().key())
    '0x5a2210b47d303402'

Two different positions share a key with probability about 2**-64 per pair.
"""

from __future__ import annotations

from typing import Final, Iterator

SEED: Final = 0x6B69667564623031
_MASK: Final = (1 << 64) - 1


def splitmix64(seed: int) -> Iterator[int]:
    """Yield the SplitMix64 stream of ``seed`` forever.

    >>> next(splitmix64(0)) == 0xE220A8397B1DCDAF
    True
    """
    state = seed & _MASK
    while True:
        state = (state + 0x9E3779B97F4A7C15) & _MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        yield z ^ (z >> 31)


def _build() -> tuple[list[list[int]], list[list[list[int]]], int]:
    stream = splitmix64(SEED)
    board = [[0] * 81 for _ in range(32)]  # indexed by board code = type + 16 * colour
    for colour in (0, 1):
        for piece_type in range(1, 15):
            board[piece_type + 16 * colour] = [next(stream) for _ in range(81)]
    hand = [[[0] * 19 for _ in range(8)] for _ in range(2)]
    for colour in (0, 1):
        for piece_type in range(1, 8):
            hand[colour][piece_type] = [0] + [next(stream) for _ in range(18)]
    return board, hand, next(stream)


#: BOARD[code][square], HAND[colour][type][count] (count 0 maps to 0) and WHITE_TO_MOVE.
_TABLES = _build()
BOARD: Final = _TABLES[0]
HAND: Final = _TABLES[1]
WHITE_TO_MOVE: Final = _TABLES[2]
