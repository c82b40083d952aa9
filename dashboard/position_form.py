"""Give a position four ways — a move sequence (USI, KIF or KI2), an SFEN, a KIF board diagram,
or a game of the store and a ply — as ``analytics.position_input`` reads them.

The page's URL holds what was given (``moves`` and ``start``, ``sfen``, or ``game`` and
``ply``; a diagram is kept as its SFEN), so a searched position can be shared and reloaded.
``form`` draws the inputs and, on submit, checks them and writes the URL (or shows what is
wrong); ``given_position`` reads the URL back into a position. Every value of the URL is read
as the forms read theirs (moves in USI, KIF or KI2; whole numbers in range), so a broken or
hostile link gets a ``ValueError`` to show, never a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from kifudb.analytics.position_input import (position_from_diagram, position_from_moves,
                                      position_from_sfen)
from kifudb.core.handicap import EVEN, HANDICAPS
from kifudb.core.move import Move
from kifudb.core.notation import ki2_move
from kifudb.core.notation.usi import parse_position_line
from kifudb.core.position import Position
from kifudb.dashboard.board import game_position
from kifudb.dashboard.nav import set_url
from kifudb.dashboard.display import message, shortened

#: The largest game id and ply a URL may ask for (JavaScript's whole numbers, and 32-bit plies).
MAX_GAME, MAX_PLY = 2 ** 53 - 1, 2 ** 31 - 1

#: The URL parameters that describe a given position.
PARAMETERS = ("moves", "start", "sfen", "game", "ply")

METHODS = {"moves": "Moves", "sfen": "SFEN", "diagram": "Board diagram", "game": "Game & ply"}


@dataclass
class Given:
    """A position and how it was given: ``start`` (an SFEN) and ``moves`` (USI) for a move
    sequence from a start; ``game``/``ply`` for a game of the store."""

    position: Position
    description: str
    last_move: str | None = None
    start: str | None = None
    moves: list = field(default_factory=list)
    game: int | None = None
    ply: int | None = None


def start_sfen(name: str | None) -> str:
    """The SFEN of a start given by handicap name (``平手``, ``香落ち``…) or as an SFEN."""
    if not name or name in ("startpos", EVEN):
        return HANDICAPS[EVEN]
    if name in HANDICAPS:
        return HANDICAPS[name]
    return position_from_sfen(name).sfen()


def start_name(sfen: str) -> str:
    """The handicap name of a start SFEN (``平手``, ``香落ち``…), else ``custom position``."""
    for name, known in HANDICAPS.items():
        if known.split()[:3] == sfen.split()[:3]:
            return name
    return "custom position"


def line_text(start: str, moves: list) -> str:
    """The KI2 text of ``moves`` (USI) played from ``start`` (an SFEN)."""
    position = Position.from_sfen(start)
    texts = []
    for usi in moves:
        move = Move.from_usi(usi)
        texts.append(ki2_move(position, move))
        position.push(move)
    return " ".join(texts)


def play(text: str, start: str) -> Given:
    """The position after the moves of ``text`` (any notation) from ``start`` (an SFEN; a USI
    line ``startpos moves …`` or ``sfen … moves …`` names its own); ``ValueError`` saying
    which move is wrong."""
    if text.split(None, 1)[:1] in (["sfen"], ["startpos"], ["position"]):
        try:
            start, moves = parse_position_line(text)
        except ValueError as error:
            raise ValueError(f"bad USI position line: {error}") from None
        text = " ".join(moves)
    position = position_from_moves(text, start=start)
    moves = [m.usi() for m in position.history]
    where = start_name(start)
    description = (f"{where}, after {line_text(start, moves)}" if moves
                   else f"{where} start position")
    return Given(position, description, moves[-1] if moves else None, start=start, moves=moves)


def given_position() -> Given | None:
    """The position the URL describes (None when it describes none); ``ValueError`` when its
    values are broken (an illegal move, a bad SFEN, an unknown game)."""
    params = st.query_params
    if "moves" in params:
        return play(params.get("moves", ""), start_sfen(params.get("start")))
    if "sfen" in params:
        position = position_from_sfen(params["sfen"])
        return Given(position, "Given as an SFEN")
    if "game" in params:
        game = _integer(params.get("game"), "game", 1, MAX_GAME)
        ply = _integer(params.get("ply", "0"), "ply", 0, MAX_PLY)
        found = game_position(game, ply)
        position = Position.from_sfen(found["sfen"])
        return Given(position, f"game {game} after {ply} moves", found["last_move"], game=game,
                     ply=ply)
    return None


def whole_number(text, low: int, high: int) -> int | None:
    """``text`` (a value of the URL) as a whole number from ``low`` to ``high`` (digits only),
    else None.

    >>> whole_number(" 12 ", 1, 99), whole_number("1.5", 0, 9), whole_number("-1", 0, 9)
    (12, None, None)
    """
    text = str(text).strip()
    if text.isascii() and text.isdigit() and len(text) <= 16 and low <= int(text) <= high:
        return int(text)
    return None


def _integer(text, name: str, low: int, high: int) -> int:
    """A whole number of the URL, from ``low`` to ``high``; ``ValueError`` otherwise."""
    value = whole_number(text, low, high)
    if value is None:
        raise ValueError(f"{name} must be a whole number from {low}, not "
                         f"{shortened(str(text).strip())!r}")
    return value


def _set_url(**values) -> None:
    """Put the position ``values`` in the URL in one change (one history entry), keeping the
    parameters that are not a position's (the search page's ``mirror``)."""
    kept = {name: value for name, value in st.query_params.to_dict().items()
            if name not in PARAMETERS}
    set_url({**kept, **values})


def form(key: str, submit: str = "Search") -> bool:
    """Draw the position inputs; on submit, check them and put the position in the URL, or show
    what is wrong. True when a new position was submitted."""
    current = st.query_params
    default = ("game" if "game" in current else "sfen" if "sfen" in current else "moves")
    method = st.segmented_control("Give the position by", list(METHODS), default=default,
                                  format_func=METHODS.get, key=f"{key}-method", required=True)
    with st.form(f"{key}-form", border=True):
        if method == "moves":
            starts = list(HANDICAPS)
            given_start = current.get("start") or EVEN
            if given_start not in starts:  # a custom start SFEN from the URL (if it is one)
                try:
                    given_start = start_sfen(given_start)
                    starts.append(given_start)
                except ValueError:
                    given_start = EVEN
            start = st.selectbox("Start", starts, index=starts.index(given_start),
                                 key=f"{key}-start", format_func=_start_label)
            text = st.text_area("Moves from the start", value=current.get("moves", ""),
                                key=f"{key}-moves", height=90,
                                placeholder="7g7f 3c3d 2g2f   or   ▲７六歩 △３四歩 ▲２六歩   or   "
                                            "７六歩(77) ３四歩(33)",
                                help="USI (7g7f, P*5e), KIF (７六歩(77)) or KI2 (▲７六歩 △同　歩); "
                                     "move numbers and times copied from a KIF file are skipped. "
                                     "A USI line 'startpos moves …' or 'sfen … moves …' works too.")
        elif method == "sfen":
            text = st.text_input("SFEN", value=current.get("sfen", ""), key=f"{key}-sfen",
                                 placeholder="lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/"
                                             "LNSGKGSNL b - 1   or   startpos")
        elif method == "diagram":
            text = st.text_area("KIF board diagram (局面図)", key=f"{key}-diagram", height=260,
                                placeholder="後手の持駒：なし\n  ９ ８ ７ ６ ５ ４ ３ ２ １\n"
                                            "+---------------------------+\n"
                                            "|v香v桂v銀v金v玉v金v銀v桂v香|一\n…")
        else:
            left, right = st.columns(2)
            game = left.number_input("Game", min_value=1, step=1, key=f"{key}-game",
                                     value=_number(current.get("game"), 1, 1, MAX_GAME))
            ply = right.number_input("After this many moves", min_value=0, step=1,
                                     key=f"{key}-ply",
                                     value=_number(current.get("ply"), 0, 0, MAX_PLY))
        submitted = st.form_submit_button(submit, type="primary", icon=":material/search:")
    if not submitted:
        return False
    try:
        if method == "moves":
            given = play(text, start_sfen(start))  # a USI line may name another start
            name = start_name(given.start)
            named = name if name in HANDICAPS else given.start
            _set_url(moves=" ".join(given.moves), **({} if name == EVEN else {"start": named}))
        elif method == "sfen":
            _set_url(sfen=position_from_sfen(text).sfen())
        elif method == "diagram":
            _set_url(sfen=position_from_diagram(text).sfen())
        else:
            game_position(int(game), int(ply))  # checks the game and the ply
            _set_url(game=int(game), ply=int(ply))
    except ValueError as error:
        st.error(message(error), icon=":material/warning:")
        return False
    return True


def _start_label(start: str) -> str:
    return start if start in HANDICAPS else f"custom: {start}"


def _number(text, default: int, low: int, high: int) -> int:
    """A number input's start from the URL: the default unless it is a whole number from
    ``low`` to ``high`` (what the input can hold)."""
    try:
        value = int(str(text).strip())
    except (TypeError, ValueError):
        return default
    return value if low <= value <= high else default
