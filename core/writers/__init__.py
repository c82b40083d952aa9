"""Record writers: a ``core.kifu.Kifu`` as KIF, KI2, CSA V3.0, JKF or a USI position line.

``write(kifu, fmt)`` gives the text; the caller encodes it (``encoding`` only says what the
KIF and CSA texts declare: ``utf-8`` by default, ``cp932`` for old Windows tools).
``write_games`` puts several games in one text where the format allows it (CSA's ``/``, one USI
line each), and ``left_out`` says what a format cannot hold of a game::

    >>> from kifudb.core.kifu import Kifu, KifuMove, KifuVariation
    >>> kifu = Kifu(moves=[KifuMove("7g7f", 3)], variations=[KifuVariation(1, [KifuMove("2g2f")])])
    >>> print(write(kifu, "usi"), end="")
    position startpos moves 7g7f
    >>> write(kifu, "csa").splitlines()[:4]
    ["'CSA encoding=UTF-8", 'V3.0', 'PI', '+']
    >>> left_out(kifu, "csa"), left_out(kifu, "ki2"), left_out(kifu, "kif")
    (['1 variation'], ['the times'], [])
    >>> print(write_games([kifu, kifu], "usi"), end="")
    position startpos moves 7g7f
    position startpos moves 7g7f
"""

from __future__ import annotations

from kifudb.core.kifu import Kifu, ending_word
from kifudb.core.writers._common import headers_in, left_out_headers, summary
from kifudb.core.writers.csa import write_csa
from kifudb.core.writers.jkf import write_jkf
from kifudb.core.writers.ki2 import write_ki2
from kifudb.core.writers.kif import write_kif
from kifudb.core.writers.usi import NOTED_HEADERS, write_usi

__all__ = ["FORMATS", "EXTENSIONS", "MULTI_GAME", "MEDIA_TYPES", "write", "write_games",
           "left_out"]

_WRITERS = {"kif": write_kif, "ki2": write_ki2, "csa": write_csa, "jkf": write_jkf,
            "usi": write_usi}
#: the formats written, in the order commands list them
FORMATS = tuple(_WRITERS)
#: format -> the file extension its files get
EXTENSIONS = {"kif": ".kif", "ki2": ".ki2", "csa": ".csa", "jkf": ".jkf", "usi": ".usi"}
#: the formats of which one file may hold several games
MULTI_GAME = ("csa", "usi")
#: format -> the media type its text is served and downloaded as (UTF-8)
MEDIA_TYPES = {"kif": "text/plain; charset=utf-8", "ki2": "text/plain; charset=utf-8",
               "csa": "text/plain; charset=utf-8", "jkf": "application/json",
               "usi": "text/plain; charset=utf-8"}


def _format(fmt: str) -> str:
    if fmt not in _WRITERS:
        raise ValueError(f"unknown record format {fmt!r}; known: {', '.join(FORMATS)}")
    return fmt


def write(kifu: Kifu, fmt: str, encoding: str = "utf-8") -> str:
    """The text of ``kifu`` in ``fmt`` (``kif``, ``ki2``, ``csa``, ``jkf`` or ``usi``)."""
    return _WRITERS[_format(fmt)](kifu, encoding)


def write_games(kifus, fmt: str, encoding: str = "utf-8") -> str:
    """Several games in one text: CSA's separated by ``/`` lines (the encoding declared once),
    USI's one line each; ``ValueError`` for a format that holds one game a file."""
    if _format(fmt) not in MULTI_GAME:
        raise ValueError(f"a {fmt.upper()} file holds one game; several go in "
                         f"{' or '.join(f.upper() for f in MULTI_GAME)} files")
    if fmt == "usi":
        return "".join(write_usi(kifu, encoding) for kifu in kifus)
    return "/\n".join(write_csa(kifu, encoding, declaration=not i)
                      for i, kifu in enumerate(kifus))


def left_out(kifu: Kifu, fmt: str) -> list:
    """What of ``kifu`` the text in ``fmt`` cannot hold, in words (empty: everything goes
    out): variations (CSA, USI), times (KI2, USI), comments and bookmarks (USI; bookmarks in
    CSA and JKF too), headers with no name in the format (CSA, USI), an ending with no word."""
    _format(fmt)
    said = []
    lines = [kifu.moves] + [v.moves for v in kifu.variations]
    moves = [m for line in lines for m in line]
    if fmt in ("csa", "usi") and kifu.variations:
        count = len(kifu.variations)
        said.append(f"{count} variation{'s' if count > 1 else ''}")
        moves = kifu.moves
    if fmt in ("ki2", "usi") and any(m.seconds is not None for m in moves):
        said.append("the times")
    if fmt == "usi" and (kifu.comments or any(m.comments for m in moves)):
        said.append("the comments")
    if fmt in ("csa", "jkf", "usi") and any(m.bookmark for m in moves):
        said.append("the bookmarks")
    if fmt in ("csa", "usi"):
        headers = (left_out_headers(kifu, fmt) if fmt == "csa" else
                   [name for name, _ in headers_in(kifu, "kif") if name not in NOTED_HEADERS])
        if headers:
            said.append("the headers " + ", ".join(headers))
    ending = kifu.ending
    if ending is not None:
        mover = kifu.mover_after(len(kifu.moves))
        if fmt in ("kif", "ki2"):  # a まで line says it, else a terminal word (KIF)
            held = summary(kifu, None, len(kifu.moves)) is not None or (
                fmt == "kif" and ending_word(ending.word, fmt, mover) is not None)
        else:
            held = ending_word(ending.word, fmt, mover, ending.winner) is not None
        if not held:
            said.append(f"the ending {ending.word}")
    return said
