"""The pattern page's form (``views/pattern.py``): a pattern (``core.pattern``) as the board
and the widgets show it, the edits they make, the page's URL, and the pattern as a
``kifudb pattern`` command line — written and read back.

A pattern is kept as its conditions' texts (the canonical ones ``parse_pattern`` gives). The
board shows each condition on one square (``▲金58``, ``・55``, ``!▲銀77``, ``▲*77``); the hand
widgets the counts a side holds at least (``▲持歩3``) and an empty hand (``△持なし``); every
other condition (``▲玉28/39``, ``△飛2*``, ``▲飛=2``, ``!▲持角``) is listed as it is written::

    >>> shown = layout(["▲金58", "・55", "▲玉28/39", "▲持歩3", "△持なし"])
    >>> shown.squares, shown.hands, shown.empty_hands, shown.others
    ({43: ('▲金58',), 40: ('・55',)}, {(0, 1): 3}, (1,), ('▲玉28/39',))
    >>> square_label("!▲銀77"), square_label("・55")
    ('!▲銀', '・')

A click on a square puts the brush's condition there (``brush_condition``), in place of what
the square said; the same condition again takes it off::

    >>> words = paint(["▲金58"], 60, brush_condition("▲", "銀", True, 60))
    >>> words, paint(words, 60, "!▲銀77"), paint(words, 43, None)
    (['▲金58', '!▲銀77'], ['▲金58'], ['!▲銀77'])
    >>> set_hand(["△持なし", "▲持角"], 1, "歩", 2)
    ['△持歩2', '▲持角']

The URL holds the conditions (``q``) and the options under the HTTP API's names; a command
line pasted into the text box is read back (``read_command``)::

    >>> url_params(["▲金58", "・55"], {"turn": "black", "max_ply": 40, "mirror": True})
    {'q': '▲金58 ・55', 'turn': 'black', 'max_ply': '40', 'mirror': 'true'}
    >>> read_command("kifudb pattern ▲金58 '!▲銀77' --turn white --max-ply 60 --player 羽生",
    ...              filter_names=("player",))
    ('▲金58 !▲銀77', {'turn': 'white', 'max_ply': 60}, {'player': '羽生'}, [])
    >>> from kifudb.analytics.pattern import PatternSearch
    >>> command_line(PatternSearch.of("▲金58 !▲銀77 ▲飛>=1", turn="black"), {"decided": "true"})
    "kifudb pattern ▲金58 '!▲銀77' '▲飛>=1' --turn black --decided"
"""

from __future__ import annotations

import re
import shlex
from typing import NamedTuple

from kifudb.analytics.filter_options import OPTIONS
from kifudb.analytics.pattern import TURNS
from kifudb.core.pattern import BOARD, HAND, Condition, parse_pattern
from kifudb.core.pieces import (FILE_DIGITS_FULL, KANJI, KANJI_SHORT, KANJI_TYPES, RANK_KANJI,
                                SIDE_MARKS, USI_LETTERS, USI_RANKS)

#: The pieces of the brush (the short names ``core.pattern`` writes), then any piece of the
#: side (``*``), an empty square (``・``) and the eraser.
PIECES = ("玉", "飛", "角", "金", "銀", "桂", "香", "歩", "龍", "馬", "全", "圭", "杏", "と")
ANY, EMPTY, ERASE = "*", "・", "erase"
BRUSHES = (*PIECES, ANY, EMPTY, ERASE)
#: The kinds a hand holds, as the hand widgets list them.
HAND_KINDS = ("飛", "角", "金", "銀", "桂", "香", "歩")
#: The kinds a material condition counts (board and hand together), and its comparisons.
MATERIAL_KINDS = ("飛", "角", "金", "銀", "桂", "香", "歩", "玉")
COMPARISONS = ("=", ">=", "<=", ">", "<")
#: The page's URL parameters besides the filters (the HTTP API's names): the conditions,
#: then the options.
PARAMS = ("q", "turn", "min_ply", "max_ply", "mirror", "either_side")
#: The largest ply the page takes (the HTTP API's bound).
MAX_PLY = 2 ** 31 - 1


def square_of(file: int, rank: int) -> int:
    """The square (``core.pieces``' 0..80) of ``file`` and ``rank`` (1..9).

    >>> square_of(7, 7), square_digits(60)
    (60, '77')
    """
    return (file - 1) * 9 + rank - 1


def square_digits(square: int) -> str:
    """The square as a condition writes it: file then rank (``77``)."""
    return f"{square // 9 + 1}{square % 9 + 1}"


def _condition(text: str) -> Condition:
    return parse_pattern(text).conditions[0]


def on_square(condition: Condition) -> int | None:
    """The one square a condition is about (``▲金58``, ``・55``, ``!▲*77``), else None."""
    if len(condition.atoms) != 1 or condition.atoms[0].where != BOARD:
        return None
    squares = condition.atoms[0].squares
    return next(iter(squares)) if len(squares) == 1 else None


def held(condition: Condition) -> tuple | None:
    """``(colour, kind name, at least)`` of a condition on a count in hand (``▲持歩3``), else
    None (``!▲持角`` and ``△持なし`` too)."""
    (atom, *more) = condition.atoms
    if more or atom.where != HAND or len(atom.pieces) != 1 or condition.negated or \
            atom.op != ">=":
        return None
    (code,) = atom.pieces
    return code >> 4, KANJI_SHORT[code & 15], atom.n


def empty_hand(condition: Condition) -> int | None:
    """The colour whose hand a condition says is empty (``△持なし``), else None."""
    for colour, mark in enumerate(SIDE_MARKS):
        if condition.text == f"{mark}持なし":
            return colour
    return None


class Layout(NamedTuple):
    """Where the board and the widgets show a pattern's conditions: ``squares`` (square →
    the texts of its conditions), ``hands`` ((colour, kind) → at least), ``empty_hands`` (the
    colours whose hand is empty) and ``others`` (the texts shown as they are written)."""

    squares: dict
    hands: dict
    empty_hands: tuple
    others: tuple


def layout(words) -> Layout:
    """The ``Layout`` of the conditions ``words`` (texts, each one condition)."""
    squares: dict = {}
    hands: dict = {}
    empty: list = []
    others: list = []
    for text in words:
        condition = _condition(text)
        square, count, colour = on_square(condition), held(condition), empty_hand(condition)
        if square is not None:
            squares[square] = (*squares.get(square, ()), condition.text)
        elif count is not None:
            hands[(count[0], KANJI_TYPES[count[1]])] = count[2]
        elif colour is not None:
            empty.append(colour)
        else:
            others.append(condition.text)
    return Layout(squares, hands, tuple(empty), tuple(others))


def square_label(text: str) -> str:
    """What a square shows of a condition on it: the condition without its square."""
    return text[:-2]


def brush_condition(side: str, piece: str, negated: bool, square: int) -> str | None:
    """The condition the brush paints on ``square``: ``side`` (▲ or △) and ``piece`` (one of
    ``BRUSHES``), ``!`` before it when ``negated``; None for the eraser.

    >>> brush_condition("△", "龍", False, 10), brush_condition("▲", EMPTY, True, 40)
    ('△龍22', '!・55')
    """
    if piece == ERASE:
        return None
    body = (EMPTY if piece == EMPTY else side + piece) + square_digits(square)
    return ("!" if negated else "") + body


def _replace(words, drop, new: str | None) -> list:
    """``words`` without those ``drop(text)`` is true of, ``new`` (when given) in the place of
    the first one dropped (else at the end)."""
    kept: list = []
    at = None
    for text in words:
        if drop(text):
            at = len(kept) if at is None else at
        else:
            kept.append(text)
    if new is not None:
        kept.insert(len(kept) if at is None else at, new)
    return kept


def paint(words, square: int, condition: str | None) -> list:
    """The conditions after a click on ``square`` with the brush's ``condition`` (None: the
    eraser): the square's conditions give way to it; when the square says just that already,
    the click takes it off."""
    text = None if condition is None else _condition(condition).text
    there = [w for w in words if on_square(_condition(w)) == square]
    if there == [text]:
        text = None
    return _replace(words, lambda w: on_square(_condition(w)) == square, text)


def set_hand(words, colour: int, kind: str, n: int) -> list:
    """The conditions with ``colour`` holding at least ``n`` of ``kind`` (0: no condition on
    it); a count takes the place of an empty hand of that side."""
    mark = SIDE_MARKS[colour]

    def drop(text: str) -> bool:
        condition = _condition(text)
        count = held(condition)
        return (count is not None and count[:2] == (colour, kind)) or \
            (n > 0 and empty_hand(condition) == colour)
    return _replace(words, drop, f"{mark}持{kind}{n if n > 1 else ''}" if n > 0 else None)


def set_empty_hand(words, colour: int, empty: bool) -> list:
    """The conditions with (or without) ``colour``'s hand empty; an empty hand takes the
    place of that side's counts in hand."""
    def drop(text: str) -> bool:
        condition = _condition(text)
        count = held(condition)
        return empty_hand(condition) == colour or (empty and count is not None
                                                   and count[0] == colour)
    return _replace(words, drop, f"{SIDE_MARKS[colour]}持なし" if empty else None)


def material(side: str, kind: str, comparison: str, n: int) -> str:
    """A material condition: ``side`` has ``comparison`` ``n`` of ``kind`` on the board and in
    hand together.

    >>> material("▲", "飛", "=", 2)
    '▲飛=2'
    """
    return f"{side}{kind}{comparison}{int(n)}"


# ----- the URL ------------------------------------------------------------------------------------


def _ply(text, name: str) -> int | None:
    if text is None or str(text).strip() == "":
        return None
    text = str(text).strip()
    if not (text.isascii() and text.isdigit() and len(text) <= 16 and int(text) <= MAX_PLY):
        raise ValueError(f"{name} must be a whole number from 0 to {MAX_PLY}, not "
                         f"{text[:32]!r}")
    return int(text)


def _flag(text, name: str) -> bool:
    if text is None:
        return False
    if str(text).lower() not in ("true", "false", "1", "0"):
        raise ValueError(f"{name} must be true or false, not {str(text)[:32]!r}")
    return str(text).lower() in ("true", "1")


def options_from_url(params: dict) -> dict:
    """The options of the URL's ``params`` (text): ``turn``, ``min_ply``, ``max_ply``,
    ``mirror``, ``either_side``; ``ValueError`` naming the one that is wrong.

    >>> options_from_url({"turn": "white", "min_ply": "10", "either_side": "true"})
    {'turn': 'white', 'min_ply': 10, 'max_ply': None, 'mirror': False, 'either_side': True}
    >>> options_from_url({"max_ply": "x"})
    Traceback (most recent call last):
    ...
    ValueError: max_ply must be a whole number from 0 to 2147483647, not 'x'
    """
    turn = params.get("turn") or None
    if turn is not None and turn not in TURNS:
        raise ValueError(f"turn must be black or white, not {turn[:32]!r}")
    return {"turn": turn, "min_ply": _ply(params.get("min_ply"), "min_ply"),
            "max_ply": _ply(params.get("max_ply"), "max_ply"),
            "mirror": _flag(params.get("mirror"), "mirror"),
            "either_side": _flag(params.get("either_side"), "either_side")}


def url_params(words, options: dict) -> dict:
    """The URL parameters of the conditions ``words`` and ``options`` (those unset left out)."""
    params = {"q": " ".join(words)} if words else {}
    for name in ("turn", "min_ply", "max_ply"):
        if options.get(name) is not None:
            params[name] = str(options[name])
    for name in ("mirror", "either_side"):
        if options.get(name):
            params[name] = "true"
    return params


# ----- the command line ---------------------------------------------------------------------------

#: What a shell reads specially (a word holding one of these is quoted).
_PLAIN = re.compile(r"[^\s!*?\[\]{}$`'\"&;|<>()~#\\]+")
_OPTIONS = {"--turn": "turn", "--min-ply": "min_ply", "--max-ply": "max_ply",
            "--mirror": "mirror", "--either-side": "either_side"}
#: Options of ``kifudb pattern`` that say how to answer, not what: the page has its own.
_OUTPUT = {"--store": True, "--limit": True, "--offset": True, "--format": True}


def shell_word(word: str) -> str:
    """``word`` as a shell reads it back (quoted only when it must be).

    >>> shell_word("▲金58"), shell_word("△飛2*"), shell_word("羽生 善治")
    ('▲金58', "'△飛2*'", "'羽生 善治'")
    """
    return word if _PLAIN.fullmatch(word) else shlex.quote(word)


def command_line(search, filter_params: dict | None = None, store: str | None = None) -> str:
    """``kifudb pattern …`` of a ``PatternSearch`` (``search.text()``), with the filters
    (their URL parameters, the command line's option names) and the store, as a shell reads
    it."""
    words = ["kifudb", "pattern", *search.text().split()]
    kinds = {o.name: o.kind for o in OPTIONS}
    for name, value in (filter_params or {}).items():
        flag = "--" + name.replace("_", "-")
        if kinds.get(name) == "flag":
            if str(value).lower() in ("true", "1"):
                words.append(flag)
        else:
            words += [flag, str(value)]
    if store is not None:
        words += ["--store", str(store)]
    return " ".join(shell_word(w) if not w.startswith("--") else w for w in words)


def read_command(text: str, filter_names=()) -> tuple:
    """``(conditions, options, filters, left_out)`` of a pattern typed or pasted: conditions
    (``▲金58 ・55``), or a ``kifudb pattern …`` command line with its options (``--turn``,
    ``--min-ply``, ``--max-ply``, ``--mirror``, ``--either-side``), the filters of
    ``filter_names`` (as ``--player 羽生``: URL names → text) and the options that say how to
    answer (``--store``, ``--limit``, ``--offset``, ``--format``: left out, listed);
    ``ValueError`` naming what cannot be read."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise ValueError(f"the text cannot be read as a command line: {error}") from None
    if words[:1] == ["kifudb"]:
        words = words[1:]
        if words[:1] != ["pattern"]:
            raise ValueError("a command line to paste here is 'kifudb pattern CONDITION…'")
    if words[:1] == ["pattern"]:
        words = words[1:]
    kinds = {o.name: o.kind for o in OPTIONS}
    conditions, options, chosen, left_out = [], {}, {}, []
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if not word.startswith("--"):
            conditions.append(word)
            continue
        flag, _, given = word.partition("=")
        name = _OPTIONS.get(flag) or (flag[2:].replace("-", "_")
                                      if flag[2:].replace("-", "_") in filter_names else None)
        takes_value = (name not in ("mirror", "either_side") and kinds.get(name) != "flag"
                       if name else _OUTPUT.get(flag, False))
        value = None
        if takes_value:
            if not given and i >= len(words):
                raise ValueError(f"{flag} needs a value")
            value = given or words[i]
            i += not given
        if name is None:
            if flag not in _OUTPUT:
                raise ValueError(f"{flag} is not an option of the pattern page (its options: "
                                 f"{', '.join(_OPTIONS)}, and the sidebar's filters)")
            left_out.append(f"{flag} {value}")
        elif name in ("mirror", "either_side"):
            options[name] = True
        elif name == "turn":
            if value not in TURNS:
                raise ValueError(f"--turn must be black or white, not {value[:32]!r}")
            options[name] = value
        elif name in ("min_ply", "max_ply"):
            options[name] = _ply(value, flag)
        else:
            chosen[name] = "true" if kinds.get(name) == "flag" else value
    return " ".join(conditions), options, chosen, left_out


def move_label(usi: str) -> str:
    """A move played next, written without its position (the matches' positions differ): the
    square reached as KIF writes it, then where from (a drop: the piece and 打).

    >>> move_label("7g7f"), move_label("8h2b+"), move_label("P*5e")
    ('７六(77)', '２二成(88)', '５五歩打')
    """
    def square(text: str) -> str:
        return FILE_DIGITS_FULL[int(text[0])] + RANK_KANJI[USI_RANKS.index(text[1]) + 1]

    if len(usi) == 4 and usi[1] == "*":
        return f"{square(usi[2:4])}{KANJI[USI_LETTERS.index(usi[0])]}打"
    if len(usi) in (4, 5) and usi[0].isdigit():
        promoted = "成" if usi.endswith("+") else ""
        return f"{square(usi[2:4])}{promoted}({usi[0]}{USI_RANKS.index(usi[1]) + 1})"
    return usi
