"""Write a ``Kifu`` as a USI position line, ``position startpos moves …`` or ``position sfen …
moves …``, the main line only, and the ending's terminal word after the moves (``resign``,
``rep_draw``, ``win`` …: about the side to move, as ``ingest.usi_file`` reads them). ``#`` lines
above it (notes, which ``ingest.usi_file`` keeps as the game's comment) say the players, the
event and the date::

    >>> from kifudb.core.kifu import Kifu, KifuMove, KifuEnding
    >>> kifu = Kifu(headers=[("先手", "A"), ("後手", "B")], moves=[KifuMove("7g7f")],
    ...             ending=KifuEnding("%TORYO", "black", "resign"))
    >>> print(write_usi(kifu))
    # 先手：A
    # 後手：B
    position startpos moves 7g7f resign
    <BLANKLINE>
"""

from __future__ import annotations

from kifudb.core.kifu import Kifu, ending_word
from kifudb.core.notation.usi import position_line
from kifudb.core.writers._common import headers_in, position_of

__all__ = ["write_usi", "NOTED_HEADERS"]

#: the headers a USI file notes above its line (KIF's keys)
NOTED_HEADERS = ("先手", "後手", "下手", "上手", "棋戦", "開始日時")


def write_usi(kifu: Kifu, encoding: str = "utf-8") -> str:
    """The USI text of ``kifu``: its notes and one position line."""
    out = [f"# {name}：{value}" for name, value in headers_in(kifu, "kif")
           if name in NOTED_HEADERS]
    start = position_of(kifu.start_sfen).sfen()
    line = "position " + position_line(start, [m.move for m in kifu.moves])
    ending = kifu.ending
    if ending is not None:
        word = ending_word(ending.word, "usi", kifu.mover_after(len(kifu.moves)), ending.winner)
        if word is not None:
            line += (" " if kifu.moves else " moves ") + word
    out.append(line)
    return "\n".join(out) + "\n"
