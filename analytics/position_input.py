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
"""

from __future__ import annotations

import re
from typing import Union

from core.move import Move
from core.notation import NotationError, parse_ki2_move, parse_kif_move
from core.notation.usi import parse_position_line
from core.position import STARTING_SFEN, Position, SfenError

__all__ = ["position_from_sfen", "position_from_moves", "position_from_diagram",
           "position_from_game"]

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
            what = word.group() if word else text[i]
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
    for number, token in enumerate(move_tokens(text), start=1):
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

    >>> from core.notation.bod import bod_text
    >>> pos = position_from_moves("7g7f 3c3d 8h2b+")
    >>> position_from_diagram("開始日時：2024/01/01\\n" + bod_text(pos)) == pos
    True
    >>> position_from_diagram("no diagram here")
    Traceback (most recent call last):
    ...
    ValueError: no board diagram found (expected the hands, the ９ ８ … １ header and a board between +---+ borders)
    """
    from core.notation.bod import is_bod_line, read_bod

    if not isinstance(text, str):
        raise ValueError(f"a diagram must be text, not {type(text).__name__}")
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


def position_from_game(store, game_id: int, ply: int) -> Position:
    """The position of game ``game_id`` of ``store`` after ``ply`` moves of its main line
    (0 = its start position); ``ValueError`` for an unknown game or a ply out of range."""
    from analytics.queries import game_info, game_moves

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
