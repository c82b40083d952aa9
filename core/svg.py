"""A shogi board drawn as a self-contained SVG: ``board_svg(position)`` or ``position.svg()``.

The drawing is what a Japanese reader expects: a wooden board with a 9x9 grid, file numbers
９…１ along the top and rank numerals 一…九 down the right side (from Black's side, reversed when
the board is flipped), the four star points, kanji pieces in pentagon shapes pointing at the
opponent (the far side's pieces turned upside down, promoted pieces in red), both hands on piece
stands beside the board — the far side's at the top left, the near side's at the bottom right,
each titled (``△後手の持駒`` / ``▲先手の持駒``) and listed as kanji with counts (``歩3``; ``なし``
when empty) — and the last move's origin and destination highlighted.

No external fonts, images or scripts; every text is XML-escaped, so the result parses as XML::

    >>> from kifudb.core.position import Position
    >>> svg = board_svg(Position())
    >>> svg.count('class="piece ')          # 20 pieces a side
    40
    >>> 'viewBox' in svg, svg.startswith('<svg ')
    (True, True)
    >>> import xml.etree.ElementTree as ET
    >>> ET.fromstring(svg).get('role')
    'img'

Each piece is a group ``<g class="piece black|white [promoted]" data-square="7g"
transform="translate(x y) [rotate(180)]">`` holding its outline and its kanji, so the pieces of a
drawing can be found (and styled) by class.
"""

from __future__ import annotations

from typing import Optional, Union
from xml.sax.saxutils import escape

from kifudb.core.move import Move
from kifudb.core.pieces import (BLACK, WHITE, KING, HAND_ORDER, UNPROMOTED, KANJI_SHORT, FILE_DIGITS_FULL,
                         RANK_KANJI, SIDE_KANJI, SIDE_MARKS, USI_LETTERS, square_name)

FONT_FAMILY = "'Noto Serif CJK JP','Hiragino Mincho ProN','Yu Mincho',serif"

# ----- geometry (viewBox units) -------------------------------------------------------------------
_W, _H = 40, 44          # one square: a little taller than wide, as on a real board
_MARGIN = 8              # around everything
_STAND_W = 94            # piece stand (hand) width
_STAND_H = 262           # room for the title and seven kinds of piece
_GAP = 10                # between a stand and the board
_PAD = 12                # wood around the grid where there are no coordinates
_BAND = 26               # wood holding the coordinates (top and right)

# ----- colours ---------------------------------------------------------------------------------
_WOOD = "#eec47a"
_WOOD_EDGE = "#8a6430"
_STAND = "#dcae62"
_LINE = "#3a2a14"
_PIECE_FILL = "#fbe6b4"
_PIECE_EDGE = "#6e4f22"
_INK = "#1a1a1a"
_RED = "#c0101e"
_HIGHLIGHT = "#ff8c1a"

#: Relative piece sizes (index = unpromoted type), like a real set: the king largest.
_SCALE = (0, 0.86, 0.90, 0.91, 0.94, 0.97, 0.97, 0.94, 1.0)
#: Pentagon outline of a full-size piece pointing up, relative to the square's centre.
_OUTLINE = ((0.0, -0.45 * _H), (0.35 * _W, -0.30 * _H), (0.43 * _W, 0.43 * _H),
            (-0.43 * _W, 0.43 * _H), (-0.35 * _W, -0.30 * _H))


def _attr(value) -> str:
    return escape(str(value), {'"': "&quot;"})


def _num(x: float) -> str:
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _piece_kanji(code: int) -> str:
    t = code & 15
    if t == KING:
        return "玉" if code >> 4 == BLACK else "王"
    return KANJI_SHORT[t]


def _text(x: float, y: float, content: str, size: float, extra: str = "") -> str:
    return (f'<text x="{_num(x)}" y="{_num(y)}" font-size="{_num(size)}" text-anchor="middle"'
            f'{extra}>{escape(content)}</text>')


def board_svg(position, last_move: Union[Move, str, None, bool] = None, flip: bool = False,
              size: int = 420, coordinates: bool = True, handicap: bool = False) -> str:
    """The SVG (a string) of ``position``: board, pieces, both hands and the last move.

    - ``last_move``: a ``Move`` (or USI text) whose origin and destination are highlighted (only
      the destination for a drop); ``None`` takes ``position.last_move`` when the position has
      one, ``False`` highlights nothing.
    - ``flip``: White at the bottom (files １…９ along the top, ranks 九…一 down the side, Black's
      pieces upside down, White's hand at the bottom right).
    - ``size``: the width in pixels (the height follows the drawing's proportions).
    - ``coordinates``: draw the file numbers and rank numerals.
    - ``handicap``: title the hands as a handicap game does (▲下手の持駒, △上手の持駒).

    >>> from kifudb.core.position import Position
    >>> pos = Position()
    >>> pos.push_usi("7g7f")
    Move.from_usi('7g7f')
    >>> board_svg(pos).count('class="highlight"')
    2
    >>> board_svg(pos, last_move=False).count('class="highlight"')
    0
    """
    highlight: Optional[Move]
    if last_move is None:
        highlight = getattr(position, "last_move", None)
    elif isinstance(last_move, str):
        highlight = Move.from_usi(last_move)
    elif isinstance(last_move, Move):
        highlight = last_move
    else:  # False: nothing highlighted
        highlight = None

    band = _BAND if coordinates else _PAD
    wood_x = _MARGIN + _STAND_W + _GAP
    wood_y = _MARGIN
    wood_w = _PAD + 9 * _W + band
    wood_h = band + 9 * _H + _PAD
    grid_x = wood_x + _PAD
    grid_y = wood_y + band
    total_w = wood_x + wood_w + _GAP + _STAND_W + _MARGIN
    total_h = max(wood_y + wood_h, grid_y + _STAND_H) + _MARGIN
    width = int(size)
    height = round(width * total_h / total_w)

    def cell(sq: int) -> tuple:
        """Top-left corner of the square ``sq`` on the drawing."""
        file, rank = sq // 9 + 1, sq % 9 + 1
        col, row = (file - 1, 9 - rank) if flip else (9 - file, rank - 1)
        return grid_x + col * _W, grid_y + row * _H

    sfen = position.sfen()
    turn = position.turn
    label = (f"Shogi position, {'Black' if turn == BLACK else 'White'} to move: SFEN {sfen}")
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {total_w} {total_h}" '
        f'width="{width}" height="{height}" role="img" aria-label="{_attr(label)}" '
        f'font-family="{_attr(FONT_FAMILY)}">',
        f"<title>{escape(label)}</title>",
        # the wood, its edge, and the grid's frame
        f'<rect class="board" x="{wood_x}" y="{wood_y}" width="{wood_w}" height="{wood_h}" '
        f'rx="4" fill="{_WOOD}" stroke="{_WOOD_EDGE}" stroke-width="2"/>',
    ]

    # the last move (under the grid lines and the pieces)
    if highlight is not None:
        squares = [highlight.to_square]
        if highlight.from_square is not None:
            squares.insert(0, highlight.from_square)
        for sq in squares:
            x, y = cell(sq)
            out.append(f'<rect class="highlight" data-square="{square_name(sq)}" x="{x}" '
                       f'y="{y}" width="{_W}" height="{_H}" fill="{_HIGHLIGHT}" '
                       f'fill-opacity="0.45"/>')

    # grid, frame and star points
    lines = []
    for i in range(1, 9):
        x = grid_x + i * _W
        y = grid_y + i * _H
        lines.append(f"M{x} {grid_y}V{grid_y + 9 * _H}")
        lines.append(f"M{grid_x} {y}H{grid_x + 9 * _W}")
    out.append(f'<path class="grid" d="{"".join(lines)}" stroke="{_LINE}" stroke-width="1" '
               f'fill="none"/>')
    out.append(f'<rect class="frame" x="{grid_x}" y="{grid_y}" width="{9 * _W}" '
               f'height="{9 * _H}" fill="none" stroke="{_LINE}" stroke-width="2.2"/>')
    for i in (3, 6):
        for j in (3, 6):
            out.append(f'<circle class="star" cx="{grid_x + i * _W}" cy="{grid_y + j * _H}" '
                       f'r="3.2" fill="{_LINE}"/>')

    # coordinates: file numbers along the top, rank numerals down the right
    if coordinates:
        out.append(f'<g class="coordinates" fill="{_INK}">')
        for col in range(9):
            file = col + 1 if flip else 9 - col
            out.append(_text(grid_x + (col + 0.5) * _W, grid_y - 8, FILE_DIGITS_FULL[file], 15,
                             ' class="coord file"'))
        for row in range(9):
            rank = 9 - row if flip else row + 1
            out.append(_text(grid_x + 9 * _W + band / 2, grid_y + (row + 0.5) * _H + 5,
                             RANK_KANJI[rank], 14, ' class="coord rank"'))
        out.append("</g>")

    # the pieces on the board
    outlines = {}
    for sq, code in enumerate(position.board):
        if not code:
            continue
        t, colour = code & 15, code >> 4
        scale = _SCALE[UNPROMOTED[t]]
        if scale not in outlines:
            outlines[scale] = " ".join(f"{_num(px * scale)},{_num(py * scale)}"
                                       for px, py in _OUTLINE)
        x, y = cell(sq)
        cx, cy = x + _W / 2, y + _H / 2
        upside_down = (colour == WHITE) != flip
        promoted = t > KING
        classes = ("piece " + ("black" if colour == BLACK else "white")
                   + (" promoted" if promoted else ""))
        transform = f"translate({_num(cx)} {_num(cy)})" + (" rotate(180)" if upside_down else "")
        font = 0.62 * _W * scale
        out.append(
            f'<g class="{classes}" data-square="{square_name(sq)}" transform="{transform}">'
            f'<polygon points="{outlines[scale]}" fill="{_PIECE_FILL}" stroke="{_PIECE_EDGE}" '
            f'stroke-width="1" stroke-linejoin="round"/>'
            + _text(0, 0.05 * _H * scale + 0.36 * font, _piece_kanji(code), font,
                    f' font-weight="bold" fill="{_RED if promoted else _INK}"')
            + "</g>")

    # the hands, on stands: the far side's top left, the near side's bottom right
    far, near = (BLACK, WHITE) if flip else (WHITE, BLACK)
    stands = ((far, _MARGIN, grid_y), (near, wood_x + wood_w + _GAP, grid_y + 9 * _H - _STAND_H))
    for colour, sx, sy in stands:
        name = "black" if colour == BLACK else "white"
        title = SIDE_MARKS[colour] + SIDE_KANJI[handicap][colour] + "の持駒"
        weight = ' font-weight="bold"' if colour == turn else ""
        out.append(f'<g class="hand {name}" data-hand="{_attr(_hand_usi(position, colour))}">')
        out.append(f'<rect x="{sx}" y="{sy}" width="{_STAND_W}" height="{_STAND_H}" rx="4" '
                   f'fill="{_STAND}" stroke="{_WOOD_EDGE}" stroke-width="1.5"/>')
        out.append(_text(sx + _STAND_W / 2, sy + 22, title, 13.5,
                         f' class="hand-title" fill="{_INK}"{weight}'))
        row_y = sy + 58
        entries = [(t, position.hands[colour][t]) for t in HAND_ORDER
                   if position.hands[colour][t] > 0]
        if not entries:
            out.append(_text(sx + _STAND_W / 2, row_y, "なし", 18,
                             f' class="hand-empty" fill="{_INK}"'))
        for t, n in entries:
            count = f'<tspan font-size="17" dx="2">{n}</tspan>' if n > 1 else ""
            out.append(f'<text class="hand-piece" data-piece="{USI_LETTERS[t]}" '
                       f'data-count="{n}" x="{sx + 24}" y="{row_y}" font-size="24" '
                       f'font-weight="bold" '
                       f'fill="{_INK}">{escape(KANJI_SHORT[t])}{count}</text>')
            row_y += 29
        out.append("</g>")

    out.append("</svg>")
    return "\n".join(out)


def _hand_usi(position, colour: int) -> str:
    """The hand of ``colour`` in SFEN style (``2P``, upper case for Black), ``-`` when empty."""
    text = ""
    for t in HAND_ORDER:
        n = position.hands[colour][t]
        if n:
            letter = USI_LETTERS[t] if colour == BLACK else USI_LETTERS[t].lower()
            text += (str(n) if n > 1 else "") + letter
    return text or "-"
