"""Positions and moves packed for engines' training files: HuffmanCodedPos (cshogi, Apery; the
``hcp`` of an hcpe record) and PackedSfen (YaneuraOu; the ``sfen`` of a PackedSfenValue), 32 bytes
each, and the two 16-bit move codes that go with them.

Both packings are a stream of 256 bits, written from bit 0 of byte 0 upwards (bit ``i`` of the
stream is bit ``i % 8`` of byte ``i // 8``): the side to move (1 bit, 1 = White), Black's king
square and White's (7 bits each, the square numbered as ``core.pieces`` numbers it: ``(file - 1)
* 9 + rank - 1``, which is also Apery's and YaneuraOu's numbering), a Huffman code for each other
square from 1a, 1b … to 9i (``0`` for an empty one), then the pieces in hand, Black's then
White's, pawns, lances, knights, silvers, golds, bishops, rooks; then the pieces of a full set
that are neither on the board nor in a hand (a handicap's pieces, "in the box", 駒箱), in the
same order. Every position with both kings then takes exactly 256 bits. The codes differ:
HuffmanCodedPos uses Apery's tables (``HuffmanCodedPos::boardCodeTable``, ``handCodeTable``),
PackedSfen YaneuraOu's (``huffman_table`` of ``sfen_packer.cpp``: a piece's code, then its
promotion flag except for a gold, then its colour; a piece in hand drops the code's first bit;
a piece in the box is one in hand with the promotion flag set, a gold being written as White's
promoted silver in hand). The box codes of HuffmanCodedPos are cshogi's (read off its encoder).

    >>> start = Position()
    >>> huffman_coded_pos(start).hex()
    '58a449210cd757217e8e4d212caf427814c2ab109e4d212cd75f213e8e49210c'
    >>> packed_sfen(start).hex()
    '58a451220ceb67227e9653221caf447824c22b119e53221ceb6f223e9651220c'
    >>> from_packed_sfen(packed_sfen(start)) == start == from_huffman_coded_pos(
    ...     huffman_coded_pos(start))
    True

A handicap's missing pieces go in the box, so the packing still takes 32 bytes::

    >>> two_pieces = Position.from_sfen("lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1")
    >>> from_huffman_coded_pos(huffman_coded_pos(two_pieces)).sfen()
    'lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1'

The move codes: both put the destination in bits 0-6 and the origin in bits 7-13. cshogi's
``move16`` (Apery's, the ``bestMove16`` of hcpe) writes a drop's origin as ``81 + type - 1`` and
sets bit 14 for a promotion; YaneuraOu's ``Move16`` (the ``move`` of a PackedSfenValue) writes
a drop's piece type as its origin and sets bit 14 for a drop, bit 15 for a promotion. So they
agree on a move without promotion and differ on drops and promotions::

    >>> from kifudb.core.move import Move
    >>> [apery_move16(Move.from_usi(m)) for m in ("7g7f", "8h2b+", "B*4e")]
    [7739, 25354, 10911]
    >>> [yaneuraou_move16(Move.from_usi(m)) for m in ("7g7f", "8h2b+", "B*4e")]
    [7739, 41738, 17055]
    >>> move_from_apery16(10911), move_from_yaneuraou16(41738)
    (Move.from_usi('B*4e'), Move.from_usi('8h2b+'))
"""

from __future__ import annotations

from kifudb.core.move import Move
from kifudb.core.pieces import (BLACK, WHITE, PAWN, LANCE, KNIGHT, SILVER, BISHOP, ROOK, GOLD, KING,
                         FULL_SET, UNPROMOTED)
from kifudb.core.position import Position, sfen_of

__all__ = ["huffman_coded_pos", "packed_sfen", "from_huffman_coded_pos", "from_packed_sfen",
           "apery_move16", "yaneuraou_move16", "move_from_apery16", "move_from_yaneuraou16",
           "PackingError"]

#: The order both packings write the pieces in hand and in the box.
PACKING_ORDER = (PAWN, LANCE, KNIGHT, SILVER, GOLD, BISHOP, ROOK)


class PackingError(ValueError):
    """A position that cannot be packed (a king missing) or 32 bytes that are no packing."""


def _bits(code: int, length: int) -> str:
    """A code as the packers write it (``write_n_bit``: its lowest bit first), as text."""
    return format(code, f"0{length}b")[::-1] if length else ""


# ----- the tables, as the bits of the stream -------------------------------------------------

#: Apery's ``boardCodeTable`` (code, bits) by piece code (kings are written as squares).
_APERY_BOARD = {
    0: (0b0, 1),
    1: (0b1, 4), 2: (0b11, 6), 3: (0b111, 6), 4: (0b1011, 6), 5: (0b11111, 8),
    6: (0b111111, 8), 7: (0b1111, 6), 9: (0b1001, 4), 10: (0b100011, 6), 11: (0b100111, 6),
    12: (0b101011, 6), 13: (0b10011111, 8), 14: (0b10111111, 8),
    17: (0b101, 4), 18: (0b10011, 6), 19: (0b10111, 6), 20: (0b11011, 6), 21: (0b1011111, 8),
    22: (0b1111111, 8), 23: (0b101111, 6), 25: (0b1101, 4), 26: (0b110011, 6),
    27: (0b110111, 6), 28: (0b111011, 6), 29: (0b11011111, 8), 30: (0b11111111, 8),
}
#: Apery's ``handCodeTable``: piece type -> (Black's code, White's code), each (code, bits).
_APERY_HAND = {
    PAWN: ((0b0, 3), (0b100, 3)), LANCE: ((0b1, 5), (0b10001, 5)),
    KNIGHT: ((0b11, 5), (0b10011, 5)), SILVER: ((0b101, 5), (0b10101, 5)),
    GOLD: ((0b111, 5), (0b10111, 5)), BISHOP: ((0b11111, 7), (0b1011111, 7)),
    ROOK: ((0b111111, 7), (0b1111111, 7)),
}
#: cshogi's codes of a piece in the box, as stream bits.
_APERY_BOX = {PAWN: "010", LANCE: "10010", KNIGHT: "11010", SILVER: "10110", GOLD: "10111",
              BISHOP: "1111000", ROOK: "1111010"}

#: YaneuraOu's ``huffman_table``: unpromoted piece type -> (code, bits).
_YANEURAOU_CODE = {PAWN: (0x01, 2), LANCE: (0x03, 4), KNIGHT: (0x0b, 4), SILVER: (0x07, 4),
                   BISHOP: (0x1f, 6), ROOK: (0x3f, 6), GOLD: (0x0f, 5)}


def _yaneuraou_board(code: int) -> str:
    if code == 0:
        return "0"
    kind, colour = code & 15, code >> 4
    base = kind - 8 if kind > KING else kind
    text = _bits(*_YANEURAOU_CODE[base])
    if base != GOLD:
        text += "1" if kind > KING else "0"
    return text + str(colour)


def _yaneuraou_hand(kind: int, colour: int, in_box: bool = False) -> str:
    code, length = _YANEURAOU_CODE[kind]
    text = _bits(code >> 1, length - 1)
    if kind == GOLD:  # no promotion flag: in the box, a gold is White's promoted silver
        return _yaneuraou_hand(SILVER, WHITE, True) if in_box else text + str(colour)
    return text + ("1" if in_box else "0") + str(colour)


def _board_table(of) -> tuple:
    """The stream bits of every piece code 0..31 (a king's and an unused code's: empty)."""
    return tuple(of(code) if code in _APERY_BOARD else "" for code in range(32))


_HCP_BOARD = _board_table(lambda code: _bits(*_APERY_BOARD[code]))
_PSFEN_BOARD = _board_table(_yaneuraou_board)
_HCP_HAND = tuple({kind: _bits(*_APERY_HAND[kind][colour]) for kind in PACKING_ORDER}
                  for colour in (BLACK, WHITE))
_PSFEN_HAND = tuple({kind: _yaneuraou_hand(kind, colour) for kind in PACKING_ORDER}
                    for colour in (BLACK, WHITE))
_PSFEN_BOX = {kind: _yaneuraou_hand(kind, 0, True) for kind in PACKING_ORDER}
_SQUARE_BITS = tuple(_bits(sq, 7) for sq in range(81))


# ----- packing --------------------------------------------------------------------------------


def _pack(position: Position, board_table, hand_tables, box_table) -> bytes:
    kings = position.king_squares
    if kings[BLACK] is None or kings[WHITE] is None:
        raise PackingError(f"a position needs both kings to be packed: {position.sfen()}")
    parts = ["1" if position.turn == WHITE else "0", _SQUARE_BITS[kings[BLACK]],
             _SQUARE_BITS[kings[WHITE]], "".join([board_table[c] for c in position.board])]
    for colour in (BLACK, WHITE):
        counts, table = position.hands[colour], hand_tables[colour]
        for kind in PACKING_ORDER:
            if counts[kind]:
                parts.append(table[kind] * counts[kind])
    stream = "".join(parts)
    if len(stream) < 256:  # pieces missing from the set (a handicap): they are in the box
        left = list(FULL_SET)
        for code in position.board:
            if code:
                left[UNPROMOTED[code & 15]] -= 1
        for colour in (BLACK, WHITE):
            for kind in PACKING_ORDER:
                left[kind] -= position.hands[colour][kind]
        stream += "".join([box_table[kind] * left[kind] for kind in PACKING_ORDER])
    if len(stream) != 256:  # pieces beyond a full set: from_sfen refuses them, so never here
        raise PackingError(f"{position.sfen()} packs into {len(stream)} bits, not 256")
    return int(stream[::-1], 2).to_bytes(32, "little")


def huffman_coded_pos(position: Position) -> bytes:
    """The 32 bytes of cshogi's ``HuffmanCodedPos`` (Apery's packing) of ``position``;
    ``PackingError`` when a king is missing."""
    return _pack(position, _HCP_BOARD, _HCP_HAND, _APERY_BOX)


def packed_sfen(position: Position) -> bytes:
    """The 32 bytes of YaneuraOu's ``PackedSfen`` of ``position``; ``PackingError`` when a
    king is missing."""
    return _pack(position, _PSFEN_BOARD, _PSFEN_HAND, _PSFEN_BOX)


# ----- unpacking ------------------------------------------------------------------------------


def _decoder(table) -> dict:
    return {bits: code for code, bits in enumerate(table) if bits}


def _hand_decoder(hand_tables, box_table) -> dict:
    """Stream bits of a piece in hand -> (colour, type), or None for a piece in the box."""
    codes: dict = {bits: (c, kind) for c in (BLACK, WHITE) for kind, bits in hand_tables[c].items()}
    codes.update({bits: None for bits in box_table.values()})
    return codes


_HCP_BOARD_CODES = _decoder(_HCP_BOARD)
_PSFEN_BOARD_CODES = _decoder(_PSFEN_BOARD)
_HCP_HAND_CODES = _hand_decoder(_HCP_HAND, _APERY_BOX)
_PSFEN_HAND_CODES = _hand_decoder(_PSFEN_HAND, _PSFEN_BOX)


def _unpack(data: bytes, board_codes: dict, hand_codes: dict, name: str) -> Position:
    if not isinstance(data, (bytes, bytearray, memoryview)) or len(data) != 32:
        raise PackingError(f"a {name} is 32 bytes")
    stream = format(int.from_bytes(bytes(data), "little"), "0256b")[::-1]
    board = [0] * 81
    turn = int(stream[0])
    kings = int(stream[1:8][::-1], 2), int(stream[8:15][::-1], 2)
    if max(kings) > 80 or kings[0] == kings[1]:
        raise PackingError(f"not a {name}: king squares {kings}")
    board[kings[0]], board[kings[1]] = KING, KING + 16
    at, code = 15, ""
    for sq in range(81):
        if board[sq]:
            continue
        while True:
            if at >= 256:
                raise PackingError(f"not a {name}: the board runs past 256 bits")
            code += stream[at]
            at += 1
            if code in board_codes:
                board[sq], code = board_codes[code], ""
                break
            if len(code) > 8:
                raise PackingError(f"not a {name}: no piece has the code {code}")
    hands = [[0] * 8, [0] * 8]
    for bit in stream[at:]:
        code += bit
        if code in hand_codes:
            piece = hand_codes[code]
            if piece is not None:
                hands[piece[0]][piece[1]] += 1
            code = ""
        elif len(code) > 7:
            raise PackingError(f"not a {name}: no piece in hand has the code {code}")
    if code:
        raise PackingError(f"not a {name}: {len(code)} bits left over")
    return Position.from_sfen(sfen_of(board, hands, turn))


def from_huffman_coded_pos(data: bytes) -> Position:
    """The position of 32 bytes of ``HuffmanCodedPos``; ``PackingError`` if they are not one."""
    return _unpack(data, _HCP_BOARD_CODES, _HCP_HAND_CODES, "HuffmanCodedPos")


def from_packed_sfen(data: bytes) -> Position:
    """The position of 32 bytes of ``PackedSfen``; ``PackingError`` if they are not one.

    >>> from_packed_sfen(bytes(32))
    Traceback (most recent call last):
    ...
    kifudb.core.packed.PackingError: not a PackedSfen: king squares (0, 0)
    """
    return _unpack(data, _PSFEN_BOARD_CODES, _PSFEN_HAND_CODES, "PackedSfen")


# ----- move codes -----------------------------------------------------------------------------


def apery_move16(move: Move) -> int:
    """cshogi's ``move16`` of a move (Apery's 16-bit move: hcpe's ``bestMove16``)."""
    if move.from_square is None:
        return move.to_square | (80 + move.drop) << 7
    return move.to_square | move.from_square << 7 | (1 << 14 if move.promotion else 0)


def yaneuraou_move16(move: Move) -> int:
    """YaneuraOu's ``Move16`` of a move (a PackedSfenValue's ``move``)."""
    if move.from_square is None:
        return move.to_square | move.drop << 7 | 1 << 14
    return move.to_square | move.from_square << 7 | (1 << 15 if move.promotion else 0)


def move_from_apery16(code: int) -> Move:
    """The move of cshogi's ``move16``; ``PackingError`` for a code that is no move."""
    to, origin = code & 0x7f, code >> 7 & 0x7f
    if code >> 15 or to > 80 or origin > 87 or (origin > 80 and code >> 14):
        raise PackingError(f"not an Apery move16: {code}")
    if origin > 80:
        return Move(None, to, False, origin - 80)
    return Move(origin, to, bool(code >> 14 & 1), None)


def move_from_yaneuraou16(code: int) -> Move:
    """The move of YaneuraOu's ``Move16``; ``PackingError`` for a code that is no move."""
    to, origin = code & 0x7f, code >> 7 & 0x7f
    drop, promotion = bool(code >> 14 & 1), bool(code >> 15 & 1)
    if to > 80 or (drop and (promotion or not PAWN <= origin <= GOLD)) or origin > 80:
        raise PackingError(f"not a YaneuraOu Move16: {code}")
    if drop:
        return Move(None, to, False, origin)
    return Move(origin, to, promotion, None)
