"""USI position lines: ``startpos moves …``, ``sfen … moves …`` and ``position …`` commands.

    >>> parse_position_line("position startpos moves 7g7f 3c3d")
    ('lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1', ['7g7f', '3c3d'])
    >>> parse_position_line("sfen 4k4/9/9/9/9/9/9/9/4K4 b G 1 moves G*5b")[1]
    ['G*5b']
    >>> position_line("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", ["7g7f"])
    'startpos moves 7g7f'

Single moves are ``Move.from_usi`` / ``Move.usi``. The move texts are returned as written; they
are checked when played.
"""

from __future__ import annotations

from kifudb.core.position import STARTING_SFEN, SfenError


def parse_position_line(text: str):
    """``(start_sfen, [usi move texts])`` of a USI position line; ``SfenError`` if malformed."""
    words = text.split()
    if words and words[0] == "position":
        words = words[1:]
    if not words:
        raise SfenError("empty USI position line")
    if "moves" in words:
        cut = words.index("moves")
        head, moves = words[:cut], words[cut + 1:]
    else:
        head, moves = words, []
    if head == ["startpos"]:
        return STARTING_SFEN, moves
    if head and head[0] == "sfen":
        head = head[1:]
    if len(head) not in (3, 4):
        raise SfenError(f"expected 'startpos' or 'sfen <board> <side> <hands> <number>', "
                        f"got {' '.join(head)!r}")
    if len(head) == 3:
        head = head + ["1"]
    return " ".join(head), moves


def position_line(start_sfen: str, moves) -> str:
    """The USI line for a start position and moves (``startpos`` for the even start)."""
    start = "startpos" if start_sfen == STARTING_SFEN else f"sfen {start_sfen}"
    texts = [m if isinstance(m, str) else m.usi() for m in moves]
    return f"{start} moves {' '.join(texts)}" if texts else start
