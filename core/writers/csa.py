"""Write a ``Kifu`` as CSA V3.0: ``'CSA encoding=…``, ``V3.0``, ``N+``/``N-`` and ``$`` headers,
the start (``PI`` with the squares a handicap empties, or ``P1``–``P9`` and the hands), the side
to move, the moves with ``T`` times and ``'`` comments, and the ``%`` ending::

    >>> from kifudb.core.kifu import Kifu, KifuMove, KifuEnding
    >>> from kifudb.core.handicap import handicap_sfen
    >>> kifu = Kifu(headers=[("下手", "A"), ("棋戦", "E")], start_sfen=handicap_sfen("香落ち"),
    ...             moves=[KifuMove("5a4b", 3, comments=["a king's move"]), KifuMove("7g7f", 2.5)],
    ...             ending=KifuEnding("投了", "black", "resign"))
    >>> print(write_csa(kifu))
    'CSA encoding=UTF-8
    V3.0
    N+A
    $EVENT:E
    PI11KY
    -
    -5142OU
    T3
    'a king's move
    +7776FU
    T2.5
    %TORYO
    <BLANKLINE>

CSA holds one line of play: the variations are left out (``core.writers.left_out``), and so
are headers CSA has no name for.
"""

from __future__ import annotations

from kifudb.core.kifu import Kifu, ending_word
from kifudb.core.notation.csa import csa_move
from kifudb.core.pieces import BLACK, CSA_CODES, HAND_ORDER
from kifudb.core.position import Position
from kifudb.core.writers._common import (declared_encoding, headers_in, number, position_of,
                                  split_lines)

__all__ = ["write_csa"]

_EVEN = Position()


def start_lines(kifu: Kifu) -> list:
    """The start position: ``PI`` (and the squares a standard handicap empties), else the nine
    ``P`` rows and the hands; then the side to move."""
    position = position_of(kifu.start_sfen)
    if kifu.handicap is not None:
        removed = "".join(f"{sq // 9 + 1}{sq % 9 + 1}{CSA_CODES[code & 15]}"
                          for sq, code in enumerate(_EVEN.board) if code and not position.board[sq])
        out = ["PI" + removed]
    else:
        out = []
        for rank in range(9):
            cells = []
            for file in range(8, -1, -1):
                code = position.board[file * 9 + rank]
                cells.append("+-"[code >> 4] + CSA_CODES[code & 15] if code else " * ")
            out.append(f"P{rank + 1}" + "".join(cells))
        for colour in (0, 1):
            hand = position.hands[colour]
            held = "".join(f"00{CSA_CODES[t]}" * hand[t] for t in HAND_ORDER)
            if held:
                out.append("P" + "+-"[colour] + held)
    out.append("+" if position.turn == BLACK else "-")
    return out


def write_csa(kifu: Kifu, encoding: str = "utf-8", declaration: bool = True) -> str:
    """The CSA V3.0 text of ``kifu``'s main line; ``declaration=False`` leaves out the
    ``'CSA encoding=`` line (a later game of a file of several)."""
    out = [f"'CSA encoding={declared_encoding(encoding)}"] if declaration else []
    out.append("V3.0")
    for name, value in headers_in(kifu, "csa"):
        out.append(name + value if name in ("N+", "N-") else f"{name}:{value}")
    out += start_lines(kifu)
    out += ["'" + line for line in split_lines(kifu.comments)]
    position = position_of(kifu.start_sfen)
    for kifu_move in kifu.moves:
        out.append(csa_move(position, kifu_move.move))
        if kifu_move.seconds is not None:
            out.append("T" + number(kifu_move.seconds))
        if kifu_move.comments:
            out += ["'" + line for line in split_lines(kifu_move.comments)]
        position.push(kifu_move.move)
    if kifu.ending is not None:
        word = ending_word(kifu.ending.word, "csa", position.turn)
        if word is not None:
            out.append(word)
    return "\n".join(out) + "\n"
