"""Write a ``Kifu`` as JKF (JSON Kifu Format): ``header`` (KIF's keys), ``initial`` (a
``preset``, or ``OTHER`` with the board and hands), and ``moves``: the game's comments in the
first entry, then each move object (``core.notation.jkf``) with its ``time``, ``comments`` and
``forks`` (the variations that replace it, each a list of entries), and the ``special`` that
ends a line::

    >>> from kifudb.core.kifu import Kifu, KifuMove, KifuVariation, KifuEnding
    >>> kifu = Kifu(headers=[("先手", "A")], comments=["hello"],
    ...             moves=[KifuMove("7g7f", 12), KifuMove("3c3d")],
    ...             variations=[KifuVariation(2, [KifuMove("8c8d")], ending=KifuEnding("投了"))],
    ...             ending=KifuEnding("%CHUDAN"))
    >>> data = jkf_data(kifu)
    >>> data["header"], data["initial"], data["moves"][0], data["moves"][1]["time"]
    ({'先手': 'A'}, {'preset': 'HIRATE'}, {'comments': ['hello']}, {'now': {'m': 0, 's': 12}, 'total': {'h': 0, 'm': 0, 's': 12}})
    >>> [list(fork[0]) for fork in data["moves"][2]["forks"]], data["moves"][2]["forks"][0][1], data["moves"][-1]
    ([['move']], {'special': 'TORYO'}, {'special': 'CHUDAN'})
"""

from __future__ import annotations

import json
from typing import Optional

from kifudb.core.handicap import jkf_preset
from kifudb.core.kifu import Kifu, ending_word
from kifudb.core.notation.jkf import jkf_move
from kifudb.core.pieces import CSA_CODES, HAND_ORDER
from kifudb.core.writers._common import (LineStarts, children, ending_of, first_ply, headers_in,
                                         position_of, spent_after)

__all__ = ["write_jkf", "jkf_data"]


def _clock(seconds, hours: bool) -> dict:
    minutes, rest = divmod(seconds, 60)
    rest = int(rest) if rest == int(rest) else rest
    if hours:
        return {"h": int(minutes) // 60, "m": int(minutes) % 60, "s": rest}
    return {"m": int(minutes), "s": rest}


def _initial(kifu: Kifu) -> dict:
    if kifu.handicap is not None:
        return {"preset": jkf_preset(kifu.handicap)}
    position = position_of(kifu.start_sfen)
    board = [[{"color": code >> 4, "kind": CSA_CODES[code & 15]} if code else {}
              for code in position.board[file * 9:file * 9 + 9]] for file in range(9)]
    hands = [{CSA_CODES[t]: hand[t] for t in HAND_ORDER} for hand in position.hands]
    return {"preset": "OTHER", "data": {"color": position.turn, "board": board, "hands": hands}}


def jkf_data(kifu: Kifu) -> dict:
    """The JKF document of ``kifu`` as a dict."""
    kids = children(kifu)
    first = {"comments": list(kifu.comments)} if kifu.comments else {}
    header: dict = {}
    for name, value in headers_in(kifu, "kif"):
        header.setdefault(name, value)
    return {"header": header, "initial": _initial(kifu),
            "moves": [first] + _entries(kifu, None, kids, LineStarts(kifu))}


def _entries(kifu: Kifu, index: Optional[int], kids: dict, starts: LineStarts) -> list:
    """The move entries of line ``index`` (None: the main line), forks and ending included."""
    position, spent = starts.begin(index)
    start = first_ply(kifu, index)
    forks: dict = {}
    for child in kids.get(index, ()):
        forks.setdefault(kifu.variations[child].start_ply, []).append(child)
    entries = []
    moves = kifu.line(index)
    for ply, kifu_move in enumerate(moves, start=start):
        starts.passing(index, ply, position, spent)
        entry: dict = {"move": jkf_move(position, kifu_move.move)}
        total = spent_after(kifu, ply, kifu_move, spent)
        if kifu_move.seconds is not None:
            entry["time"] = {"now": _clock(kifu_move.seconds, False),
                             "total": _clock(total, True)}
        if kifu_move.comments:
            entry["comments"] = list(kifu_move.comments)
        entries.append(entry)
        position.push(kifu_move.move)
    end = start + len(moves)
    starts.passing(index, end, position, spent)
    ending = ending_of(kifu, index)
    word = ending and ending_word(ending.word, "jkf", kifu.mover_after(end - 1))
    if word:
        entries.append({"special": word})
    for ply, alternatives in forks.items():
        if ply - start >= len(entries):  # a branch after the last move: no entry to hang it on
            continue
        entries[ply - start]["forks"] = [fork for fork in (_entries(kifu, child, kids, starts)
                                                           for child in alternatives) if fork]
    return entries


def write_jkf(kifu: Kifu, encoding: str = "utf-8") -> str:
    """The JKF text of ``kifu`` (JSON, its Japanese as it is: ``encoding`` is the caller's)."""
    return json.dumps(jkf_data(kifu), ensure_ascii=False, indent=1) + "\n"
