"""Colours, piece codes and squares: the small integers the whole engine speaks.

A *square* is an integer ``0..80``: ``(file - 1) * 9 + (rank - 1)``. File 1 is on Black's
right, rank 1 is the far side from Black, so ``square(7, 6)`` is ７六 (USI ``7f``).

A *piece type* is ``1..14``; a *piece* on the board is ``type + 16 * colour``
(``0`` is an empty square)::

    >>> piece(WHITE, ROOK)
    22
    >>> piece_type(22), piece_colour(22)
    (6, 1)
    >>> square_name(square(7, 6))
    '7f'
"""

from __future__ import annotations

from typing import Final

# Final: the compiled build (mypyc) folds these constants into the code that uses them
BLACK: Final = 0
WHITE: Final = 1
COLOUR_NAMES: Final = ("black", "white")
#: What Japanese records call each side, ``SIDE_KANJI[handicap][colour]``: 先手 and 後手, or in a
#: handicap game 下手 (the weaker player, Black) and 上手 (who gives the handicap, White, and moves
#: first); and each side's mark (▲ Black, △ White).
SIDE_KANJI: Final = (("先手", "後手"), ("下手", "上手"))
SIDE_MARKS: Final = ("▲", "△")
#: ``(name, colour)`` of every name of a side (``先手`` -> BLACK, ``上手`` -> WHITE, …).
SIDES_NAMED: Final = tuple((names[colour], colour) for names in SIDE_KANJI
                           for colour in (BLACK, WHITE))

PAWN: Final = 1
LANCE: Final = 2
KNIGHT: Final = 3
SILVER: Final = 4
BISHOP: Final = 5
ROOK: Final = 6
GOLD: Final = 7
KING: Final = 8
PRO_PAWN: Final = 9
PRO_LANCE: Final = 10
PRO_KNIGHT: Final = 11
PRO_SILVER: Final = 12
HORSE: Final = 13
DRAGON: Final = 14
PROMOTE: Final = 8  # add to a promotable type (PAWN..ROOK) to get its promoted type

#: Piece types that may be held in hand, weakest first (the order of ``Position.hands``).
HAND_TYPES: Final = (PAWN, LANCE, KNIGHT, SILVER, BISHOP, ROOK, GOLD)
#: The same types in the order SFEN, KIF diagrams and boards write a hand: R B G S N L P.
HAND_ORDER: Final = (ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE, PAWN)
#: The type each type returns to when captured (index = type): ``UNPROMOTED[DRAGON] == ROOK``.
UNPROMOTED: Final = (0, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6)
#: How many of each type exist in a full set (index = type); bounds hands and SFEN input.
FULL_SET: Final = (0, 18, 4, 4, 4, 2, 2, 4, 2)

#: USI / SFEN letters of the unpromoted types (upper case is Black).
USI_LETTERS: Final = " PLNSBRGK"
#: USI rank letters, index = rank - 1 (``a`` is rank 1, the far side from Black).
USI_RANKS: Final = "abcdefghi"
#: CSA codes, index = type.
CSA_CODES = ("", "FU", "KY", "KE", "GI", "KA", "HI", "KI", "OU",
             "TO", "NY", "NK", "NG", "UM", "RY")
#: CSA code -> piece type (``"RY"`` -> ``DRAGON``).
CSA_TYPES = {code: t for t, code in enumerate(CSA_CODES) if code}
#: Japanese names used by KIF and KI2, index = type.
KANJI = ("", "歩", "香", "桂", "銀", "角", "飛", "金", "玉",
         "と", "成香", "成桂", "成銀", "馬", "龍")
#: One-character forms (board diagrams, compact KIF), index = type.
KANJI_SHORT = ("", "歩", "香", "桂", "銀", "角", "飛", "金", "玉",
               "と", "杏", "圭", "全", "馬", "龍")
#: Every Japanese name of a piece in KIF, KI2, board diagrams and label definitions -> its type:
#: the names of ``KANJI`` and ``KANJI_SHORT``, and 王 (the king) and 竜 (the dragon) besides.
KANJI_TYPES = {name: t for names in (KANJI, KANJI_SHORT) for t, name in enumerate(names) if name}
KANJI_TYPES.update({"王": KING, "竜": DRAGON})
#: English names, index = type (``IllegalMove`` and ``SfenError`` messages).
ENGLISH_NAMES = ("", "pawn", "lance", "knight", "silver", "bishop", "rook", "gold", "king",
                 "tokin", "promoted lance", "promoted knight", "promoted silver", "horse",
                 "dragon")
#: Western (Hodges) letters; promoted pieces carry a leading ``+``.
WESTERN_LETTERS = ("", "P", "L", "N", "S", "B", "R", "G", "K",
                   "+P", "+L", "+N", "+S", "+B", "+R")

#: Full-width digits (index = number): the file of a KIF/KI2 square, ``７`` in ``７六歩``.
FILE_DIGITS_FULL = "０１２３４５６７８９"
#: Kanji numerals (index = number): the rank of a KIF/KI2 square, ``六`` in ``７六歩``.
RANK_KANJI = "〇一二三四五六七八九"

#: The even-game start position.
STARTING_SFEN: Final = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"


#: ``ZONE[colour][square]``: True in ``colour``'s promotion zone (the three far ranks).
ZONE: Final[tuple[tuple[bool, ...], tuple[bool, ...]]] = (
    tuple(sq % 9 < 3 for sq in range(81)), tuple(sq % 9 > 5 for sq in range(81)))


def piece(colour: int, piece_type: int) -> int:
    """The board code of ``piece_type`` owned by ``colour``."""
    return piece_type + 16 * colour


def piece_type(code: int) -> int:
    """The type (1..14) of a board code."""
    return code & 15


def piece_colour(code: int) -> int:
    """The owner (BLACK or WHITE) of a non-empty board code."""
    return code >> 4


def can_promote(piece_type: int) -> bool:
    """True for pawn, lance, knight, silver, bishop and rook."""
    return PAWN <= piece_type <= ROOK


def unpromoted(piece_type: int) -> int:
    """The type a piece returns to when captured: ``unpromoted(DRAGON) == ROOK``."""
    return UNPROMOTED[piece_type]


def square(file: int, rank: int) -> int:
    """The square of ``file`` and ``rank`` (both 1..9)."""
    return (file - 1) * 9 + (rank - 1)


def file_of(sq: int) -> int:
    """File 1..9 of a square."""
    return sq // 9 + 1


def rank_of(sq: int) -> int:
    """Rank 1..9 of a square."""
    return sq % 9 + 1


def square_name(sq: int) -> str:
    """USI name of a square: ``square_name(0) == '1a'``."""
    return f"{sq // 9 + 1}{USI_RANKS[sq % 9]}"


def in_zone(colour: int, sq: int) -> bool:
    """True if ``sq`` is in the promotion zone of ``colour`` (the three far ranks)."""
    return ZONE[colour][sq]


def relative_rank(colour: int, sq: int) -> int:
    """Rank counted from ``colour``'s far side: 1 is the last rank a piece of ``colour`` can reach."""
    rank = sq % 9 + 1
    return rank if colour == BLACK else 10 - rank


def is_dead_square(colour: int, piece_type: int, sq: int) -> bool:
    """True where an unpromoted pawn/lance (last rank) or knight (last two ranks) could never move."""
    if piece_type == PAWN or piece_type == LANCE:
        return relative_rank(colour, sq) == 1
    if piece_type == KNIGHT:
        return relative_rank(colour, sq) <= 2
    return False
