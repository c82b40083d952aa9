"""The board you can play on: lishogi's own board library, shogiground (npm), as a Streamlit
component (``components.declare_component`` on the bundle in ``web-build/``, made from
``web-src/`` by ``make shogiboard``; the folders' names are no Python names, so that
setuptools ships them as data).

``shogiboard(sfen, key=...)`` draws the position with its pieces in hand; a move played on it
(a drag, or a click on the piece then on the square; a piece in hand dragged or clicked onto
the board; the promotion asked when it is a choice) comes back as USI. The board offers only
the legal moves, computed here by ``kifudb.core`` (``moves.board_moves``: the squares each
piece may go to, the drops, the promotions), and the move that comes back is checked again.
``orientation="white"`` puts 後手 at the bottom; ``arrows`` draws moves as arrows (an engine's
best move, the most played moves); ``last_move`` is highlighted; ``hand_names`` names the
hands (``▲下手の持駒`` … in a handicap game). The step keys (← → Home End)
pressed while the board has the focus go to the page, whose step buttons have them.

A game's whole line (``line=game_line(...)``: every position, made by ``line_ply``) is stepped
through in the browser with no run of the page: the step keys (on the board or the page) and
the page's step buttons (``buttons``: their keys) draw the next position at once and put the
ply in the URL (one history entry a step); ``on_step(ply, *step_args)`` then tells the page,
which draws the rest in its run (a fragment's, see ``views/game.py``).

A page reacts to a move either in ``on_move(usi, *args)``, called before the page runs again
(as a button's ``on_click``: the page then shows the new position in one run), or through the
return value: the move played on the board since the last run, once, if it was played on the
position shown (else None).
"""

from __future__ import annotations

import functools
from pathlib import Path

import streamlit as st
import streamlit.components.v1 as components

from kifudb.core.move import Move
from kifudb.core.position import Position
from kifudb.dashboard.shogiboard.moves import board_moves, usi_of

#: The built bundle (``make shogiboard``): index.html, shogiboard.js, shogiboard.css.
BUILD = Path(__file__).resolve().parent / "web-build"

#: The arrows' colours (shogiground's brushes): the engine's best move, the most played moves.
BRUSHES = ("primary", "alternative0", "alternative1", "alternative2")

_component = components.declare_component("shogiboard", path=str(BUILD))

_NO_MOVES = {"moves": {}, "drops": {}, "promotions": {}}
#: The hands' names, as kifudb's SVG board and KIF write them.
HAND_NAMES = {"black": "▲先手の持駒", "white": "△後手の持駒"}


def arrow(usi: str, brush: str = "primary", label: str | None = None) -> dict:
    """One arrow of ``shogiboard(arrows=…)``: a move (USI; a drop from the hand) in a brush.

    >>> arrow("7g7f", "alternative1")
    {'usi': '7g7f', 'brush': 'alternative1', 'label': None}
    """
    if brush not in BRUSHES:
        raise ValueError(f"unknown arrow brush {brush!r} (one of {', '.join(BRUSHES)})")
    return {"usi": Move.from_usi(usi).usi(), "brush": brush, "label": label}


def _played(key: str) -> dict | None:
    """The move the board sent (``{usi, sfen, id}``) if it is new since the last look."""
    value = st.session_state.get(key)
    if not isinstance(value, dict) or value.get("id") == st.session_state.get(f"{key}-seen"):
        return None
    st.session_state[f"{key}-seen"] = value.get("id")
    return value


def _legal(value: dict | None, shown: str | None) -> str | None:
    """The USI of the move sent, if it is legal on the position shown (``shown``)."""
    if value is None or shown is None or value.get("sfen") != shown:
        return None
    return usi_of(Position.from_sfen(shown), value.get("usi"))


def line_ply(sfen: str, last_move: str | None = None, arrows=()) -> dict:
    """One position of ``game_line``: its SFEN, the move that led to it and its arrows (each
    a legal move of it, else left out), and whether the side to move is in check.

    >>> line_ply("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", None,
    ...          ["7g7f", "7g7e"])["arrows"]
    [{'usi': '7g7f', 'brush': 'primary', 'label': None}]
    """
    position = Position.from_sfen(sfen)
    drawn = [one for one in (arrow(a) if isinstance(a, str) else arrow(**a) for a in arrows)
             if usi_of(position, one["usi"]) is not None]
    return {"sfen": position.sfen(), "last_move": last_move or None, "arrows": drawn,
            "check": position.is_check()}


def game_line(plies: list, ply: int, buttons=()) -> dict:
    """``shogiboard(line=…)``: the positions (``line_ply`` each) and the ply shown; the
    page's step buttons (``to-start``, ``back``, ``forward``, ``to-end``: each a button's key
    or a ``{key: what}`` dict) that the board takes over in the browser.

    >>> game_line([], 0, ["forward"])["buttons"]
    {'forward': 'forward'}
    """
    wanted = buttons if isinstance(buttons, dict) else {name: name for name in buttons}
    unknown = set(wanted.values()) - {"to-start", "back", "forward", "to-end"}
    if unknown:
        raise ValueError(f"unknown step {sorted(unknown)} (to-start, back, forward, to-end)")
    return {"plies": plies, "ply": ply, "buttons": wanted}


def _changed(key: str, on_move, args: tuple, on_step=None, step_args: tuple = ()) -> None:
    """The component's ``on_change``: a legal move from the position shown goes to
    ``on_move``; it is then taken (the return value of the next run is None). A ply stepped
    to in the browser (a ply of the line) goes to ``on_step``."""
    value = st.session_state.get(key)
    if isinstance(value, dict) and "ply" in value:
        st.session_state[f"{key}-seen"] = value.get("id")
        ply = value.get("ply")
        if on_step is not None and isinstance(ply, int) and not isinstance(ply, bool) and \
                0 <= ply < st.session_state.get(f"{key}-plies", 0):
            on_step(ply, *step_args)
        return
    usi = _legal(value, st.session_state.get(f"{key}-shown"))
    if usi is not None and on_move is not None:
        if on_move(usi, *args) is not False:
            st.session_state[f"{key}-seen"] = st.session_state[key].get("id")


def shogiboard(sfen: str, *, orientation: str = "black", last_move: str | None = None,
               arrows=(), movable: bool = True, key: str, on_move=None,
               args: tuple = (), hand_names: dict | None = None, line: dict | None = None,
               on_step=None, step_args: tuple = ()) -> str | None:
    """Draw the position ``sfen`` on a board that can be played on (see the module); the USI
    move played on it since the last run, or None. ``on_move(usi, *args)`` is called first
    (before the page runs again) when given; if it returns False the move is left to the
    return value. ``orientation``: the side at the bottom, ``"black"`` (先手) or ``"white"``;
    ``arrows``: ``arrow(...)`` dicts (or USI texts), each a legal move of the position;
    ``line``: a game's positions (``game_line``), stepped through in the browser, each step
    told to ``on_step(ply, *step_args)``."""
    if orientation not in ("black", "white"):
        raise ValueError(f"orientation must be 'black' or 'white', not {orientation!r}")
    if not (BUILD / "index.html").is_file():
        st.error("The board's bundle is not built: run `make shogiboard` in the project (npm "
                 "is needed once).", icon=":material/block:")
        return None
    position = Position.from_sfen(sfen)
    shown = position.sfen()
    drawn = []
    for one in arrows:
        one = arrow(one) if isinstance(one, str) else arrow(**one)
        if usi_of(position, one["usi"]) is None:
            raise ValueError(f"arrow {one['usi']} is not a legal move of {shown}")
        drawn.append(one)
    st.session_state[f"{key}-shown"] = shown
    st.session_state[f"{key}-plies"] = len(line["plies"]) if line else 0
    legal = board_moves(position) if movable else _NO_MOVES
    _component(sfen=shown, orientation=orientation, last_move=last_move or None,
               arrows=drawn, movable=movable, check=position.is_check(), **legal,
               hand_names={**HAND_NAMES, **(hand_names or {})}, line=line,
               seen=st.session_state.get(f"{key}-seen"), key=key, default=None,
               on_change=functools.partial(_changed, key, on_move, tuple(args), on_step,
                                           tuple(step_args)))
    return _legal(_played(key), shown)
