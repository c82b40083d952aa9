"""Write a ``Kifu`` as KIF, the layout of Kifu for Windows: headers, 手合割 (or a board diagram
for any other start), numbered moves with their times ``( 0:10/00:00:10)``, ``*`` comments,
``&`` bookmarks, the ending line and ``まで…``, then a ``変化：N手`` block for every variation
(a ``+`` after a move says that one branches there)::

    >>> from kifudb.core.kifu import Kifu, KifuMove, KifuVariation, KifuEnding
    >>> kifu = Kifu(headers=[("先手", "A"), ("後手", "B")],
    ...             moves=[KifuMove("7g7f", 2), KifuMove("3c3d", 5, comments=["good"])],
    ...             variations=[KifuVariation(2, [KifuMove("8c8d", 1)])],
    ...             ending=KifuEnding("%TORYO", "white", "resign", seconds=4))
    >>> print(write_kif(kifu))  # doctest: +NORMALIZE_WHITESPACE
    #KIF version=2.0 encoding=UTF-8
    先手：A
    後手：B
    手合割：平手
    手数----指手---------消費時間--
       1 ７六歩(77)   ( 0:02/00:00:02)
       2 ３四歩(33)   ( 0:05/00:00:05)+
    *good
       3 投了         ( 0:04/00:00:06)
    まで2手で後手の勝ち
    <BLANKLINE>
    変化：2手
       2 ８四歩(83)   ( 0:01/00:00:01)
    <BLANKLINE>
"""

from __future__ import annotations

from typing import Optional

from kifudb.core.kifu import Kifu, ending_word
from kifudb.core.notation.bod import bod_text
from kifudb.core.notation.kif import kif_move
from kifudb.core.writers._common import (LineStarts, clock, declared_encoding, ending_of,
                                         first_ply, headers_in, padded, spent_after,
                                         split_lines, summary, variation_order)

__all__ = ["write_kif", "head_lines"]

#: the line between the headers and the moves
MOVES_HEADER = "手数----指手---------消費時間--"


def head_lines(kifu: Kifu) -> list:
    """The headers (``key：value``) and the start (``手合割：…``, or a board diagram and its
    ``手数＝`` line) of a KIF or KI2 record, and the game's comments (``*`` lines)."""
    out = []
    for name, value in headers_in(kifu, "kif"):
        out.append(f"{name} {value}" if name.startswith("#") else f"{name}：{value}")
    if kifu.handicap is not None:
        out.append(f"手合割：{kifu.handicap}")
    else:
        out.append(bod_text(kifu.start_sfen))
        after = kifu.header("手数＝")
        if after:
            out.append(f"手数＝{after}")
    return out


def write_kif(kifu: Kifu, encoding: str = "utf-8") -> str:
    """The KIF text of ``kifu``; ``encoding`` is only declared (``#KIF … encoding=``): the
    caller encodes the text."""
    out = [f"#KIF version=2.0 encoding={declared_encoding(encoding)}"]
    out += head_lines(kifu)
    out.append(MOVES_HEADER)
    out += ["*" + line for line in split_lines(kifu.comments)]
    order, marks = variation_order(kifu)
    starts = LineStarts(kifu)
    _line(out, kifu, None, marks[None], starts)
    for index in order:
        out.append("")
        out.append(f"変化：{kifu.variations[index].start_ply}手")
        _line(out, kifu, index, marks.get(index, ()), starts)
    return "\n".join(out) + "\n"


def _time(seconds, total) -> str:
    return f"({clock(seconds)}/{clock(total, hours=True)})"


def _line(out: list, kifu: Kifu, index: Optional[int], marks, starts: LineStarts) -> None:
    """Append the moves of line ``index`` (None: the main line), their comments and bookmarks,
    and its ending."""
    position, spent = starts.begin(index)
    first = first_ply(kifu, index)
    moves = kifu.line(index)
    for i, kifu_move in enumerate(moves):
        ply = first + i
        starts.passing(index, ply, position, spent)
        text = f"{ply:>4} {padded(kif_move(position, kifu_move.move), 13)}"
        total = spent_after(kifu, ply, kifu_move, spent)
        if kifu_move.seconds is not None:
            text += _time(kifu_move.seconds, total)
        out.append(text + "+" if ply in marks else text.rstrip())
        if kifu_move.comments:
            out += ["*" + line for line in split_lines(kifu_move.comments)]
        if kifu_move.bookmark:
            out.append("&" + kifu_move.bookmark)
        position.push(kifu_move.move)
    starts.passing(index, first + len(moves), position, spent)
    plies = first + len(moves) - 1
    ending = ending_of(kifu, index)
    if ending is None:
        return
    mover = kifu.mover_after(plies)
    word = ending_word(ending.word, "kif", mover)
    if word is not None:
        text = f"{plies + 1:>4} {padded(word, 13)}"
        if ending.seconds is not None:
            text += _time(ending.seconds, spent[mover] + ending.seconds)
        out.append(text.rstrip())
    if index is None:
        said = summary(kifu, None, plies)
        if said:
            out.append(said)
