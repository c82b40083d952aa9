"""The boards of the pages, turned when the sidebar's "flip" toggle is on, with the position's
SFEN underneath. Captions may quote a record (players, a move as written): they are shown as
text (``display.plain``).

* ``play_board``: the board you can play on (lishogi's shogiground, ``dashboard.shogiboard``)
  of the explorer, the game viewer and the position search, with arrows (the most played
  moves: ``played_arrows``; the engine's best move: ``engine_arrow``) and what each page does
  with a move played on it (``game_step``, ``search_step``; the explorer follows it);
* ``show_board``: the picture (``core.svg.board_svg`` drawn inline, as Markdown HTML, since
  ``st.html`` strips SVG) where a position is only shown: the overview, the statistics pages,
  the validation page, a game's variations.
"""

from __future__ import annotations

import streamlit as st

from kifudb.analytics import game_record
from kifudb.core.move import Move
from kifudb.core.pieces import BLACK
from kifudb.core.position import Position
from kifudb.core.svg import board_svg
from kifudb.dashboard import nav
from kifudb.dashboard.display import message, plain, side_name
from kifudb.dashboard.state import stored

#: ``analytics.game_record.game_position`` on the dashboard's store, cached.
game_position = stored(game_record.game_position)

#: The session key of the sidebar toggle that puts 後手 (White) at the bottom.
FLIP_KEY = "flip"


def flipped() -> bool:
    return bool(st.session_state.get(FLIP_KEY, False))


def flip_toggle() -> None:
    """The sidebar toggle (drawn once, by the app, so it holds across pages)."""
    st.toggle("△ 後手 at the bottom", key=FLIP_KEY, help="Turn the board round: White's side "
              "at the bottom, files １…９ along the top.")


def turn_text(position: Position, handicap: bool = False) -> str:
    """``▲先手番 (Black to move), move 12`` (``△上手番`` in a handicap game)."""
    colour = "black" if position.turn == BLACK else "white"
    mover = "Black" if colour == "black" else "White"
    return f"{side_name(colour, handicap)}番 ({mover} to move), move {position.move_number}"


def show_board(position: Position, last_move: Move | str | bool | None = None, size: int = 440,
               caption: str | None = None, sfen: bool = True, turned: bool = False,
               handicap: bool = False) -> None:
    """Draw ``position`` (the last move highlighted: ``last_move``, else the position's own;
    ``False`` for none), then a caption and its SFEN (copyable). ``turned`` shows it from the
    other side than the sidebar's toggle says (a 後手 castle at the bottom, say); in a
    ``handicap`` game the sides are 下手 and 上手."""
    svg = board_svg(position, last_move=last_move, flip=flipped() != turned, size=size,
                    handicap=handicap)
    # inline (st.html would strip the SVG), on one line so that Markdown leaves it alone,
    # scaled down to narrow columns
    svg = svg.replace("\n", "").replace("<svg ", '<svg style="max-width:100%;height:auto" ', 1)
    st.markdown(f'<div class="kifudb-board">{svg}</div>', unsafe_allow_html=True)
    st.caption(plain(caption or turn_text(position, handicap)))
    if sfen:
        st.code(position.sfen(), language=None, wrap_lines=True)


def show_seat_board(row: dict, ply: int, caption: str) -> None:
    """The board of the game of ``row`` (a game of a player or of a label, with the ``side``
    that played it) after ``ply`` moves, seen from that side: a 後手 row turned round."""
    show_game_board(row["game"], ply, caption, turned=row["side"] == "white")


def show_game_board(game: int, ply: int, caption: str, turned: bool = False,
                    size: int = 400) -> None:
    """The board of a stored game after ``ply`` moves, its last move highlighted; a warning on
    the page if the store cannot give that position."""
    try:
        at = game_position(game, ply)
    except ValueError as error:
        st.warning(message(error))
        return
    show_board(Position.from_sfen(at["sfen"]), last_move=at["last_move"] or False, size=size,
               sfen=False, caption=caption, turned=turned)


# ----- the board you can play on (explorer, game viewer, position search) ------------------------

#: The most played moves drawn as arrows on the explorer's board.
PLAYED_ARROWS = 3


def play_board(position: Position, *, key: str, last_move: str | None = None,
               arrows=(), on_move=None, args: tuple = (), caption: str | None = None,
               sfen: bool = True, handicap: bool = False, line: dict | None = None,
               on_step=None, step_args: tuple = ()) -> str | None:
    """The position on the board that can be played on (``shogiboard``: lishogi's
    shogiground), seen from the side the sidebar's toggle says, with ``arrows``; then the
    caption and the SFEN, as ``show_board`` has them. The move played comes to
    ``on_move(usi, *args)`` before the page runs again, or back as the return value (see
    ``kifudb.dashboard.shogiboard``); a game's ``line`` is stepped through in the browser,
    each step told to ``on_step(ply, *step_args)``."""
    from kifudb.dashboard.shogiboard import shogiboard

    with st.container(key=f"{key}-box", gap=None):
        # a board's column (style.py: ``kifudb-board``) keeps a readable width
        st.markdown('<div class="kifudb-board kifudb-play-board"></div>', unsafe_allow_html=True)
        played = shogiboard(position.sfen(), orientation="white" if flipped() else "black",
                            last_move=last_move, arrows=arrows, key=key, on_move=on_move,
                            args=args, hand_names={side: f"{side_name(side, handicap)}の持駒"
                                                   for side in ("black", "white")},
                            line=line, on_step=on_step, step_args=step_args)
    st.caption(plain(caption or turn_text(position, handicap)))
    if sfen:
        st.code(position.sfen(), language=None, wrap_lines=True)
    return played


def played_arrows(found: list, limit: int = PLAYED_ARROWS) -> list:
    """Arrows for the most played moves (``found``: the explorer's rows, most played first):
    the first in blue, the next ones in orange.

    >>> [a["usi"] + " " + a["brush"] for a in played_arrows([{"move": "7g7f"}, {"move": "2g2f"}])]
    ['7g7f alternative1', '2g2f alternative2']
    """
    from kifudb.dashboard.shogiboard import arrow

    return [arrow(row["move"], "alternative1" if i == 0 else "alternative2")
            for i, row in enumerate(found[:limit])]


def engine_arrow(evaluation: dict | None) -> list:
    """The engine's best move in the position after a move, as an arrow (green): the first
    move of the principal variation stored with that move's evaluation (USI, from the position
    after it); none without one.

    >>> engine_arrow({"pv": "8c8d 2g2f", "score_black": 40})[0]["usi"], engine_arrow(None)
    ('8c8d', [])
    """
    from kifudb.dashboard.shogiboard import arrow

    pv = ((evaluation or {}).get("pv") or "").split()
    return [arrow(pv[0], "primary", None)] if pv else []


def game_step(usi: str, game: int, ply: int, following: str | None):
    """A move played on the game viewer's board at ``ply``: the game's own next move
    (``following``) steps to it; any other is left to the page (False), which opens the
    explorer with it."""
    if usi != following:
        return False
    nav.set_url(nav.game_params(game, ply + 1))
    return None


def search_step(usi: str, start: str | None, moves: list, form: str = "search") -> None:
    """A move played on the position search's board: the position searched becomes the one
    after it — the moves given so far and this one from their start, or this move from the
    position shown (``start``: its SFEN) when it was given otherwise —, the URL's other
    parameters (mirror, filters) kept; the form's boxes say the new line."""
    from kifudb.core.handicap import EVEN
    from kifudb.dashboard.position_form import PARAMETERS

    line = [*moves, usi]
    kept = {name: value for name, value in st.query_params.to_dict().items()
            if name not in PARAMETERS}
    params = nav.explorer_params(start, line)
    nav.set_url({**kept, **params})
    # the form says it (a value set here is sent to the browser's widgets; a custom start
    # SFEN is one of the form's options, which it makes from the URL)
    st.session_state[f"{form}-method"] = "moves"
    st.session_state[f"{form}-start"] = params.get("start", EVEN)
    st.session_state[f"{form}-moves"] = params["moves"]
