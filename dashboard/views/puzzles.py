"""次の一手 Puzzles — positions of the store's games where one move wins and the others do not
(``analytics.puzzles``: lishogi's puzzle finder on the engine's analysis with two lines,
``kifudb analyse --multipv 2``), the clearest first. Pick one in the list, find the move (play
it on the board, or type it in any notation), show the solution (the engine's line, and the
move as an arrow), and open the game at that position.

The URL holds the sidebar's filters (``dashboard.filters``), the page of the list (``page``,
from 1; ``PAGE_SIZE`` puzzles a page) and the puzzle shown (``game`` and ``ply``: the
position after that many moves of that game); a puzzle or page that is not in the list is
said, and the first puzzle shown. Players and events come from the records: they are shown as
text.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from kifudb.analytics.game_record import evaluation_shown
from kifudb.analytics.puzzles import ONLY_MOVE, WINNING
from kifudb.core.position import Position
from kifudb.dashboard import board, display, engine_analysis, filters, nav, position_form
from kifudb.dashboard.position_form import whole_number
from kifudb.dashboard.state import require_store
from kifudb.dashboard.tables import CLICK, picked

#: Puzzles a page of the list.
PAGE_SIZE = 50


def attempt_key(puzzle: dict) -> str:
    return f"puzzle-try-{puzzle['game']}-{puzzle['ply']}"


def tried(usi: str, key: str) -> None:
    """A move played on the board: the user's answer."""
    st.session_state[key] = usi


def show_puzzle(puzzle: dict) -> None:
    """The puzzle's position on a board to play on, the verdict of the move tried, the
    solution on demand, and the way to its game."""
    if puzzle["sfen"] is None:  # its game's positions could not be replayed
        st.warning(f"The position of game {puzzle['game']} after ply {puzzle['ply']} cannot be "
                   f"shown.", icon=":material/warning:")
        return
    position = Position.from_sfen(puzzle["sfen"])
    mover = display.side_name(puzzle["side"])
    key = attempt_key(puzzle)
    solution = st.toggle("Show the solution", key=f"solution-{puzzle['game']}-{puzzle['ply']}")
    arrows = board.engine_arrow({"pv": puzzle["move"]}) if solution else []
    board.play_board(position, key=f"puzzle-board-{puzzle['game']}-{puzzle['ply']}",
                     arrows=arrows, on_move=tried, args=(key,),
                     caption=f"{mover} to move and win · game {puzzle['game']}, after ply "
                             f"{puzzle['ply']}")
    with st.form(f"puzzle-typed-{puzzle['game']}-{puzzle['ply']}", border=False,
                 clear_on_submit=True):
        left, right = st.columns([3, 1], vertical_alignment="bottom")
        text = left.text_input("Your move", placeholder="2g2f  ·  ▲２六歩  ·  ２六歩(27)")
        if right.form_submit_button("Try", icon=":material/check:") and text.strip():
            try:
                st.session_state[key] = position_form.play(text, puzzle["sfen"]).moves[0]
            except (ValueError, IndexError) as error:
                st.error(display.message(error or "no move"), icon=":material/warning:")
    answer = st.session_state.get(key)
    if answer:
        shown = display.move_text(puzzle["sfen"], answer)
        if answer == puzzle["move"]:
            st.success(display.plain(f"{shown}: the winning move."), icon=":material/check_circle:")
        else:
            st.error(display.plain(f"{shown}: not the winning move. Try again, or show the "
                                   f"solution."), icon=":material/cancel:")
    if solution:
        line = evaluation_shown({"score_black": None, "mate": None, "pv": puzzle["solution"]},
                                puzzle["sfen"], pv_moves=16)
        chances = (f"{mover}'s chance: {puzzle['win']:.0f}% after {puzzle['ki2'] or puzzle['move']}, "
                   f"{puzzle['second_win']:.0f}% after the second-best move")
        went = (f"The game went on with {display.move_text(puzzle['sfen'], puzzle['played'])}"
                + (" (found)." if puzzle["found"] else " (missed).")) if puzzle["played"] else ""
        st.info(display.plain(f"Solution: {line['pv'] if line else puzzle['solution']}. "
                              f"{chances}. {went}"), icon=":material/lightbulb:")
    nav.game_link(puzzle["game"], puzzle["ply"], label=f"Open game {puzzle['game']} here")


def puzzle_table(found: list, page: int, chosen_at: int) -> None:
    """The puzzles of the page; a click shows one."""
    rows = [{"n": (page - 1) * PAGE_SIZE + i + 1, "game": p["game"], "ply": p["ply"],
             "date": p["date"] or "—", "black": p["black"] or "?", "white": p["white"] or "?",
             "side": display.side_name(p["side"]), "win": p["win"], "second": p["second_win"],
             "found": p["found"], "occurrences": p["occurrences"]}
            for i, p in enumerate(found)]
    frame = pl.from_dicts(rows, infer_schema_length=None)
    event = st.dataframe(
        frame.to_pandas().style.apply(
            lambda r: ["background-color: rgba(255,140,26,0.30)" if r.name == chosen_at else ""]
            * len(r), axis=1),
        key=f"puzzles-{page}", hide_index=True, on_select="rerun", selection_mode=CLICK,
        width="stretch", height=min(38 + 35 * len(rows), 560),
        column_config={
            "n": st.column_config.NumberColumn("#", width=40),
            "game": st.column_config.NumberColumn("Game", format="%d", width=52),
            "ply": st.column_config.NumberColumn("Ply", width=40,
                                                 help="Moves played before the position"),
            "date": st.column_config.TextColumn("Date", width=82),
            "black": st.column_config.TextColumn("▲先手", width=90),
            "white": st.column_config.TextColumn("△後手", width=90),
            "side": st.column_config.TextColumn("To move", width=64),
            "win": st.column_config.NumberColumn("win", format="%.0f%%", width=52,
                                                 help="The mover's chance after the winning "
                                                      "move"),
            "second": st.column_config.NumberColumn("2nd", format="%.0f%%", width=52,
                                                    help="The mover's chance after the "
                                                         "second-best move"),
            "found": st.column_config.CheckboxColumn("Found", width=52,
                                                     help="The game's player found the move"),
            "occurrences": st.column_config.NumberColumn("Games", width=52,
                                                         help="Games that reached the "
                                                              "position")})
    row = picked(event.selection)
    if row is not None and row < len(found) and row != chosen_at:
        nav.set_url({"page": page, "game": found[row]["game"], "ply": found[row]["ply"]})
        st.rerun()


def page_buttons(page: int, more: bool) -> None:
    cells = st.columns(2)
    if cells[0].button("Previous puzzles", icon=":material/chevron_left:", disabled=page == 1,
                       key="puzzles-previous", width="stretch"):
        nav.set_url({"page": page - 1})
        st.rerun()
    if cells[1].button("More puzzles", icon=":material/chevron_right:", disabled=not more,
                       key="puzzles-next", width="stretch"):
        nav.set_url({"page": page + 1})
        st.rerun()


def main() -> None:
    require_store()
    st.title("次の一手 Puzzles")
    chosen = filters.game_filter()
    raw = st.query_params.get("page")
    page = whole_number(raw, 1, 10 ** 6) if raw is not None else 1
    if page is None:
        st.warning(display.plain(f"Not a page: {display.shortened(raw)!r} (a whole number from "
                                 f"1); the first page is shown."), icon=":material/warning:")
        page = 1
    answer, problem = engine_analysis.puzzles(filters=chosen, limit=PAGE_SIZE,
                                              offset=(page - 1) * PAGE_SIZE)
    if answer is None:
        st.info(display.plain(problem), icon=":material/extension:")
        return
    found = answer["puzzles"]
    if not found:
        st.info("No puzzle " + ("on this page " if page > 1 else "")
                + (f"({filters.describe(chosen)})." if chosen else "in the store's games."),
                icon=":material/extension:")
        if page > 1:
            page_buttons(page, False)
        return
    winning, margin = 50 * (WINNING + 1), 50 * ONLY_MOVE
    st.caption(display.plain(
        f"Positions of the games where one move wins and the others do not, the clearest "
        f"first ({engine_analysis.source_text(answer)}, two lines): the mover's chance after "
        f"the best move is at least {winning:.0f}%, after the second-best below it, and at "
        f"least {margin:.0f} points less; the mover was not winning before the opponent's "
        f"last move (analytics/puzzles.py)."))
    wanted = (st.query_params.get("game"), st.query_params.get("ply"))
    at = next((i for i, p in enumerate(found) if (str(p["game"]), str(p["ply"])) == wanted),
              None)
    if at is None:
        if wanted != (None, None):
            st.warning(display.plain(f"No puzzle at game {display.shortened(wanted[0])}, ply "
                                     f"{display.shortened(wanted[1])} on this page; the first "
                                     f"one is shown."), icon=":material/warning:")
        at = 0
    left, right = st.columns([5, 7], gap="medium")
    with left:
        show_puzzle(found[at])
    with right:
        puzzle_table(found, page, at)
        page_buttons(page, len(found) == PAGE_SIZE)


if __name__ == "__main__":
    main()
