"""Write a ``Kifu`` as KI2: the headers and start of KIF, then the moves without numbers or
from-squares, six a line, each with the fewest of 右 左 直 上 引 寄 打 that tell it apart
(``core.notation.ki2``), ``*`` comments, the ``まで…`` line, and a ``変化：N手`` block for every
variation. KI2 has no times::

    >>> from kifudb.core.kifu import Kifu, KifuMove, KifuEnding
    >>> kifu = Kifu(moves=[KifuMove(u) for u in "7g7f 3c3d 8h2b+ 3a2b".split()],
    ...             ending=KifuEnding("中断"))
    >>> print(write_ki2(kifu))
    手合割：平手
    ▲７六歩    △３四歩    ▲２二角成  △同　銀
    まで4手で中断
    <BLANKLINE>
"""

from __future__ import annotations

from typing import Optional

from kifudb.core.kifu import Kifu
from kifudb.core.notation.ki2 import ki2_move
from kifudb.core.writers._common import (LineStarts, first_ply, padded, split_lines, summary,
                                         variation_order)
from kifudb.core.writers.kif import head_lines

__all__ = ["write_ki2"]

#: moves on one line, as Kifu for Windows writes them
PER_LINE = 6


def write_ki2(kifu: Kifu, encoding: str = "utf-8") -> str:
    """The KI2 text of ``kifu`` (KI2 declares no encoding: ``encoding`` is the caller's)."""
    out = head_lines(kifu)
    out += ["*" + line for line in split_lines(kifu.comments)]
    order, _ = variation_order(kifu)
    starts = LineStarts(kifu)
    _line(out, kifu, None, starts)
    for index in order:
        out.append("")
        out.append(f"変化：{kifu.variations[index].start_ply}手")
        _line(out, kifu, index, starts)
    return "\n".join(out) + "\n"


def _line(out: list, kifu: Kifu, index: Optional[int], starts: LineStarts) -> None:
    position, spent = starts.begin(index)
    first = first_ply(kifu, index)
    moves = kifu.line(index)
    row: list = []

    def flush():
        if row:
            out.append("".join(row).rstrip())
            row.clear()

    for ply, kifu_move in enumerate(moves, start=first):
        starts.passing(index, ply, position, spent)
        row.append(padded(ki2_move(position, kifu_move.move, legal_only=False), 12))
        if kifu_move.comments or kifu_move.bookmark or len(row) == PER_LINE:
            flush()
        if kifu_move.comments:
            out += ["*" + line for line in split_lines(kifu_move.comments)]
        if kifu_move.bookmark:
            out.append("&" + kifu_move.bookmark)
        position.push(kifu_move.move)
    starts.passing(index, first + len(moves), position, spent)
    flush()
    said = summary(kifu, index, first + len(moves) - 1)
    if said:
        out.append(said)
