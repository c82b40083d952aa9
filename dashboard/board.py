"""The board on every page: ``core.svg.board_svg`` drawn inline (as Markdown HTML, since
``st.html`` strips SVG), turned when the sidebar's "flip" toggle is on, with the position's
SFEN underneath. Captions may quote a record (players, a move as written): they are shown as
text (``display.plain``)."""

from __future__ import annotations

import streamlit as st

from kifudb.analytics import game_record
from kifudb.core.move import Move
from kifudb.core.pieces import BLACK
from kifudb.core.position import Position
from kifudb.core.svg import board_svg
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
