"""Read KI2 records (moves without numbers or from-squares, several a line) into ``GameRecord``s.

KI2 shares everything but its move lines with KIF (headers, board diagram, comments, bookmarks,
``まで…`` endings, ``変化：N手`` variations), so it uses the engine of ``ingest.kif``. A move line
holds one or more moves, each starting with its mark ▲/△ (☗/☖ also); a move is cut at the next
mark, never at a space, so ``△同　歩`` stays whole, and so do moves written without a space
between them (``△６二金左上▲８六歩``). Each move keeps its text as written, mark included; the
replay reads it with ``core.notation.ki2.parse_ki2_move``::

    >>> text = '''手合割：八枚落ち
    ... 下手：shitate
    ... 上手：uwate
    ...
    ... △７二金    ▲７六歩    △３二金    ▲２六歩
    ... △６四歩    ▲２五歩    △６五歩    ▲２四歩    △同　歩    ▲同　飛
    ... *a comment on ▲同　飛
    ... △２三歩打▲２八飛
    ... まで12手で中断
    ... '''
    >>> [game] = read_ki2(text, source="8mai.ki2", encoding="cp932")
    >>> game.start_sfen, game.handicap
    ('3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1', '八枚落ち')
    >>> [m.text for m in game.moves[7:]], game.moves[9].comments
    (['▲２四歩', '△同　歩', '▲同　飛', '△２三歩打', '▲２八飛'], ['a comment on ▲同　飛'])
    >>> game.moves[0].line, game.moves[0].notation
    (5, 'ki2')
    >>> game.ending
    DeclaredEnding(word='中断', line=9, mover=1, seconds=None, summary='まで12手で中断', winner=None)

The ending's ``mover`` is the side to move after the last move (here White, 上手, since
上手 moved first).
"""

from __future__ import annotations

from kifudb.ingest.kif import read_lines, sniff
from kifudb.ingest.record import read_safely

__all__ = ["read_ki2", "looks_like_ki2"]


def read_ki2(text: str, source: str = "", encoding: str = "", format: str = "ki2") -> list:
    """The games of a KI2 text (usually one); never raises.

    ``text`` is already decoded; ``source``, ``encoding`` and ``format`` (``ki2`` or ``ki2u``)
    are copied into each record. An empty text gives one record with a ``no_game`` finding.

    >>> [game] = read_ki2("▲７六歩 △３四歩 ▲２二角成 △同　銀\\nまで4手で先手の負け\\n")
    >>> [m.text for m in game.moves], game.ending.word
    (['▲７六歩', '△３四歩', '▲２二角成', '△同　銀'], 'まで')
    >>> read_ki2("")[0].findings[0].code
    'no_game'
    """
    return read_safely(lambda clean: read_lines(clean, source, encoding, format), text, source,
                       encoding, format, "KI2")


def looks_like_ki2(text: str) -> bool:
    """True if the first 60 lines hold KI2 moves (``▲７六歩 △３四歩``, or ``#KI2``) and no
    numbered KIF move.

    >>> looks_like_ki2("開始日時：2014/10/16\\n\\n▲７六歩    △３四歩    ▲２六歩\\n")
    True
    >>> looks_like_ki2("   1 ７六歩(77)   ( 0:16/00:00:16)\\n"), looks_like_ki2("")
    (False, False)
    """
    kif, ki2, _ = sniff(text)
    return ki2 > 0 and kif == 0
