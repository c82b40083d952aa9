"""Turn what a user types into a ``Position``: an SFEN, a move sequence (USI, KIF or KI2), a KIF
board diagram, or "game N at ply P" of a store. Bad input raises ``ValueError`` saying what is
wrong and where::

    >>> position_from_moves("7g7f 3c3d 2g2f").sfen()
    'lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P4P1/PP1PPPP1P/1B5R1/LNSGKGSNL w - 4'
    >>> position_from_moves("▲７六歩 △３四歩 ▲２六歩") == position_from_moves("76歩 34歩 26歩(27)")
    True
    >>> position_from_moves("7g7f 3c3d 8h2b+ 3a2b 2g2f 2b3a 2f2e B*5e").sfen(move_number=False)
    'lnsgkgsnl/1r7/pppppp1pp/6p2/4b2P1/2P6/PP1PPPP1P/7R1/LNSGKGSNL b B'
    >>> position_from_moves("7g7f 3c3d 7f7e 4c4d 7e7d 7c7d 8h3c")
    Traceback (most recent call last):
    ...
    ValueError: move 7 (8h3c): illegal: the bishop on 8h cannot reach 3c: 4d is in the way [bad_geometry]
    >>> position_from_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN b - 1")
    Traceback (most recent call last):
    ...
    ValueError: bad SFEN: rank 9 does not describe 9 squares: 'LNSGKGSN'

Move texts are told apart token by token: ``7g7f``/``P*5e`` are USI, a text with a from-square
``７六歩(77)`` is KIF, any other Japanese move (``▲７六歩``, ``△同　銀``, ``５二金右``) is KI2.
Move numbers (``1 ７六歩(77)``), KIF times (``( 0:16/00:00:16)``) and commas between moves
are skipped, so lines copied from a KIF file read as they are. A text may start with a USI
position line head (``startpos moves …``, ``sfen … moves …``, ``position …``).

What a user gives is bounded, whichever door it comes through (the command line, a dashboard
form or URL): an SFEN of at most ``MAX_SFEN`` characters, moves of at most ``MAX_MOVES_TEXT``
characters and ``MAX_MOVES`` moves, a diagram of at most ``MAX_DIAGRAM_BYTES``; a diagram
file is read by ``read_diagram_file`` (a regular file within that size, or a stream read no
further than it), so that ``/dev/zero`` or a pipe that never ends is refused, not swallowed::

    >>> read_diagram_file("/dev/zero")
    Traceback (most recent call last):
    ...
    ValueError: /dev/zero: not a regular file (a board diagram is read from a file)
    >>> position_from_moves("7g7f " + "x" * 5000)
    Traceback (most recent call last):
    ...
    ValueError: move 2 (xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…): not a move (expected USI like 7g7f or P*5e, KIF like ７六歩(77), or KI2 like ▲７六歩)
"""

from __future__ import annotations

import io
import os
import re
import stat
from typing import Union

from kifudb.core.move import Move
from kifudb.core.notation import NotationError, parse_ki2_move, parse_kif_move
from kifudb.core.notation.usi import parse_position_line
from kifudb.core.position import STARTING_SFEN, Position, SfenError

__all__ = ["position_from_sfen", "position_from_moves", "position_from_diagram",
           "position_from_diagram_file", "read_diagram_file", "position_from_game",
           "MAX_DIAGRAM_BYTES", "MAX_MOVES", "MAX_MOVES_TEXT", "MAX_SFEN"]

#: The largest board diagram read (a diagram is a few hundred bytes; headers above it allowed).
MAX_DIAGRAM_BYTES = 64 * 1024
#: The longest SFEN taken (the longest real one is about 130 characters).
MAX_SFEN = 512
#: The longest move text taken, in characters (a whole KIF move list with times fits), and the
#: most moves played from a start.
MAX_MOVES_TEXT = 64 * 1024
MAX_MOVES = 1000
#: How much of a bad token an error message quotes.
_QUOTED = 32

_D = "1-9１-９一二三四五六七八九"
_JAPANESE = re.compile(
    rf"[▲☗▼△☖▽]?[ 　]*(?:[{_D}][{_D}][同仝]?|[同仝])[ 　]*"
    r"(?:成銀|成桂|成香|[歩香桂銀金角飛玉王と杏圭全馬龍竜])[右左直上行入引寄]*(?:不成|成|生|打)?"
    r"(?:[(（][1-9１-９]{2}[)）])?")
_END = r"(?=[\s,、]|$)"
_USI = re.compile(rf"(?:[1-9][a-i][1-9][a-i]\+?|[PLNSBRG]\*[1-9][a-i]){_END}")
_SKIP = re.compile(rf"[\s,、]+|\(\s*[0-9:/ ]*\)|[0-9]+\.?{_END}|手数-+指手-+消費時間-*")
_WORD = re.compile(r"[^\s,、]+")


def position_from_sfen(text: str) -> Position:
    """The position of an SFEN (``sfen`` prefix and move number optional; ``startpos`` works).

    >>> position_from_sfen("startpos") == Position()
    True
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError("bad SFEN: empty text (expected e.g. 'lnsgkgsnl/1r5b1/ppppppppp/9/9/9/"
                         "PPPPPPPPP/1B5R1/LNSGKGSNL b - 1' or 'startpos')")
    if len(text) > MAX_SFEN:
        raise ValueError(f"bad SFEN: {len(text):,} characters; an SFEN is at most {MAX_SFEN}")
    try:
        return Position.from_sfen(text.strip())
    except SfenError as error:
        raise ValueError(f"bad SFEN: {error}") from None


def move_tokens(text: str) -> list:
    """The move texts of ``text``, in order (numbers, times and separators left out); raises
    ``ValueError`` for anything that is not a move.

    >>> move_tokens("1 ７六歩(77)   ( 0:01/00:00:01)\\n2 ３四歩(33)")
    ['７六歩(77)', '３四歩(33)']
    >>> move_tokens("▲７六歩△３四歩 7g7f, △同　銀")
    ['▲７六歩', '△３四歩', '7g7f', '△同　銀']
    """
    found, i, n = [], 0, len(text)
    while i < n:
        m = _SKIP.match(text, i)
        if m:
            i = m.end()
            continue
        m = _JAPANESE.match(text, i) or _USI.match(text, i)
        if m is None:
            word = _WORD.match(text, i)
            what = _quoted(word.group() if word else text[i])
            raise ValueError(f"move {len(found) + 1} ({what}): not a move (expected USI like 7g7f "
                             f"or P*5e, KIF like ７六歩(77), or KI2 like ▲７六歩)")
        found.append(m.group().strip())
        i = m.end()
    return found


def position_from_moves(text: str, start: Union[str, Position] = "startpos") -> Position:
    """The position after the moves of ``text`` played from ``start`` (an SFEN, ``startpos`` or a
    ``Position``, left unchanged). Every move is checked; the first unreadable or illegal one
    raises ``ValueError`` naming its number in the sequence, its text and the reason.

    >>> lance = "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"   # 香落ち
    >>> position_from_moves("3c3d 7g7f", start=lance).sfen()
    'lnsgkgsn1/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 3'
    >>> position_from_moves("sfen " + lance + " moves 3c3d 7g7f").sfen() == _
    True
    >>> position_from_moves("▲７六歩 ▲３四歩")
    Traceback (most recent call last):
    ...
    ValueError: move 2 (▲３四歩): the move is marked for Black (▲), and White (△) is to move [wrong_turn]
    """
    if not isinstance(text, str):
        raise ValueError(f"moves must be text, not {type(text).__name__}")
    if len(text) > MAX_MOVES_TEXT:
        raise ValueError(f"{len(text):,} characters of moves; at most {MAX_MOVES_TEXT:,} are "
                         f"read")
    head = text.split(None, 1)[0] if text.strip() else ""
    if head in ("position", "startpos", "sfen"):
        try:
            start, moves = parse_position_line(text)
        except SfenError as error:
            raise ValueError(f"bad USI position line: {error}") from None
        text = " ".join(moves)
    if isinstance(start, Position):
        position = start.copy()
    else:
        position = position_from_sfen(start)
    tokens = move_tokens(text)
    if len(tokens) > MAX_MOVES:
        raise ValueError(f"{len(tokens):,} moves; at most {MAX_MOVES:,} are played from a start")
    for number, token in enumerate(tokens, start=1):
        try:
            if _USI.fullmatch(token):
                move = Move.from_usi(token)
            elif re.search(r"[(（]", token):
                move = parse_kif_move(position, token)
            else:
                move = parse_ki2_move(position, token)
        except NotationError as error:
            raise ValueError(f"move {number} ({token}): {error.message} [{error.code}]") from None
        except ValueError as error:
            raise ValueError(f"move {number} ({token}): {error}") from None
        reason = position.illegality(move)
        if reason is not None:
            raise ValueError(f"move {number} ({token}): illegal: {reason.message} "
                             f"[{reason.code}]")
        position.push(move)
    return position


def position_from_diagram(text: str) -> Position:
    """The position of a KIF board diagram (局面図: hands, bordered board, optional side-to-move
    line); lines before the diagram (headers) are skipped. Any error or warning of the diagram
    reader (a partial board, a missing row, an unknown piece) raises ``ValueError``.

    >>> from kifudb.core.notation.bod import bod_text
    >>> pos = position_from_moves("7g7f 3c3d 8h2b+")
    >>> position_from_diagram("開始日時：2024/01/01\\n" + bod_text(pos)) == pos
    True
    >>> position_from_diagram("no diagram here")
    Traceback (most recent call last):
    ...
    ValueError: no board diagram found (expected the hands, the ９ ８ … １ header and a board between +---+ borders)
    """
    from kifudb.core.notation.bod import is_bod_line, read_bod

    if not isinstance(text, str):
        raise ValueError(f"a diagram must be text, not {type(text).__name__}")
    if len(text) > MAX_DIAGRAM_BYTES:
        raise ValueError(f"{len(text):,} characters; a board diagram is at most "
                         f"{MAX_DIAGRAM_BYTES // 1024} KB")
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if is_bod_line(line)), None)
    if first is None:
        raise ValueError("no board diagram found (expected the hands, the ９ ８ … １ header and "
                         "a board between +---+ borders)")
    sfen, findings, _ = read_bod(lines[first:], first + 1)
    problems = [f for f in findings if f.severity in ("error", "warning")]
    if problems:
        raise ValueError("bad board diagram: " + "; ".join(
            f"line {f.line}: {f.message}" if f.line else f.message for f in problems))
    if sfen is None:
        raise ValueError("no board found in the diagram (a board between +---+ borders)")
    return position_from_sfen(sfen)


def read_diagram_file(source) -> str:
    """The text of a board diagram file: ``source`` is a path (a regular file of at most
    ``MAX_DIAGRAM_BYTES``) or a binary stream (standard input, say: read no further than that).
    ``ValueError`` saying what is wrong (``not a regular file``, its size, ``cannot read: …``).
    The bytes are UTF-8 (a byte-order mark allowed), else Shift_JIS (cp932) or EUC-JP.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile(suffix=".kif") as file:
    ...     _ = file.write("後手の持駒：なし\\r\\n".encode("cp932")); file.flush()
    ...     read_diagram_file(file.name)
    '後手の持駒：なし\\n'
    >>> read_diagram_file(io.BytesIO(b"x" * (MAX_DIAGRAM_BYTES + 1)))
    Traceback (most recent call last):
    ...
    ValueError: standard input: more than 65,536 bytes; a board diagram is at most 64 KB
    """
    limit = f"a board diagram is at most {MAX_DIAGRAM_BYTES // 1024} KB"
    if hasattr(source, "read"):
        name = getattr(source, "name", None)
        name = name if isinstance(name, str) and not name.startswith("<") else "standard input"
        try:
            data = source.read(MAX_DIAGRAM_BYTES + 1)
        except OSError as error:
            raise ValueError(f"{name}: cannot read: {error.strerror or error}") from None
        if len(data) > MAX_DIAGRAM_BYTES:
            raise ValueError(f"{name}: more than {MAX_DIAGRAM_BYTES:,} bytes; {limit}")
        return _diagram_text(data)
    name = os.fspath(source)
    try:
        info = os.stat(name)
        if not stat.S_ISREG(info.st_mode):  # a folder, device or pipe: never read
            raise ValueError(f"{name}: not a regular file (a board diagram is read from a file)")
        if info.st_size > MAX_DIAGRAM_BYTES:
            raise ValueError(f"{name}: {info.st_size:,} bytes; {limit}")
        with open(name, "rb") as stream:
            data = stream.read(MAX_DIAGRAM_BYTES + 1)  # a file that grows meanwhile
    except OSError as error:
        raise ValueError(f"{name}: cannot read: {error.strerror or error}") from None
    if len(data) > MAX_DIAGRAM_BYTES:
        raise ValueError(f"{name}: more than {MAX_DIAGRAM_BYTES:,} bytes; {limit}")
    return _diagram_text(data)


def position_from_diagram_file(source) -> Position:
    """The position of the board diagram in a file (or binary stream): ``read_diagram_file``
    then ``position_from_diagram``; ``ValueError`` for either's problems."""
    return position_from_diagram(read_diagram_file(source))


def _diagram_text(data: bytes) -> str:
    """Decode a diagram: UTF-8 (with or without its mark), else cp932, else EUC-JP (KIF files
    are mostly cp932); bytes that fit none are replaced, and the diagram reader says where."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    for codec in ("utf-8", "cp932", "euc-jp"):
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        return text.replace("\r\n", "\n").replace("\r", "\n")
    return data.decode("utf-8", errors="replace")


def _quoted(text: str) -> str:
    """A bad token as an error message quotes it: at most ``_QUOTED`` characters."""
    return text if len(text) <= _QUOTED else text[:_QUOTED] + "…"


def position_from_game(store, game_id: int, ply: int) -> Position:
    """The position of game ``game_id`` of ``store`` after ``ply`` moves of its main line
    (0 = its start position); ``ValueError`` for an unknown game or a ply out of range."""
    from kifudb.analytics.queries import game_info, game_moves

    info = game_info(store, game_id)
    if info is None:
        raise ValueError(f"no game {game_id} in the store")
    last = info["moves"] or 0
    if not isinstance(ply, int) or not 0 <= ply <= last:
        raise ValueError(f"game {game_id} has {last} replayed moves: the ply must be 0 to {last}, "
                         f"not {ply}")
    position = position_from_sfen(info["start_sfen"] or STARTING_SFEN)
    for row in game_moves(store, game_id)[:ply]:
        position.push(Move.from_usi(row["usi"]))
    return position
