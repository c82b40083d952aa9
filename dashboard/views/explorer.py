"""定跡 — the opening explorer: from the even start, a handicap or any searched position, the
board and every move played next with its games and its ▲/引き分け/△ result bar. A click on a
move (a row of the table) steps into it; the breadcrumbs step back. Filters (sidebar): player,
dates, event, handicap, and a minimum number of games.

The URL holds the line: ``?start=香落ち&moves=3c3d+7g7f`` (``start``: a handicap name or an
SFEN; ``moves``: USI as the page writes them, but a link may give them in KIF or KI2, as the
box does). A line that cannot be played is said on the page, which then shows its start (or
the even start).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analytics import queries
from analytics.results import Results
from core.handicap import EVEN, HANDICAPS
from dashboard import board, display, filters, nav, position_form
from dashboard.games_table import games_table
from dashboard.state import require_store, stored

# the position is given as its SFEN: plain text, for the cache
explore = stored(queries.explore)
search = stored(queries.search)

#: Rows of the moves table shown without scrolling.
SHOWN = 30
#: Breadcrumbs shown (the start, then the last moves of a longer line).
CRUMBS = 24
_CUSTOM = "custom position"


def line_from_url():
    """``(start name or SFEN, start SFEN, Given)`` from the URL: the moves read in any notation
    (``position_form.play``) and written back as USI; ``ValueError`` saying what is wrong."""
    start = st.query_params.get("start") or EVEN
    sfen = position_form.start_sfen(start)
    text = st.query_params.get("moves", "")
    given = position_form.play(text, sfen)
    if given.start != sfen:  # a USI line naming its own start
        start, sfen = given.start, given.start
    if text.split() != given.moves:  # KIF or KI2 in a link: the URL says it in USI
        go(start, given.moves)
    return start, sfen, given


def safe_line():
    """``line_from_url``, or — when the URL's line cannot be played — its start (else the even
    start) with the reason on the page."""
    try:
        return line_from_url()
    except ValueError as error:
        st.error(f"This line cannot be shown: {display.message(error)}",
                 icon=":material/warning:")
    start = st.query_params.get("start") or EVEN
    try:
        sfen = position_form.start_sfen(start)
    except ValueError:
        start, sfen = EVEN, position_form.start_sfen(EVEN)
    go(start, [])
    return start, sfen, position_form.play("", sfen)


def go(start: str, moves: list) -> None:
    """Show ``moves`` from ``start`` (the callback of every step: the URL is the state)."""
    for name in ("start", "moves"):
        if name in st.query_params:
            del st.query_params[name]
    st.query_params.update(nav.explorer_params(start, moves))


def choose_start() -> None:
    chosen = st.session_state["explorer-start"]
    if chosen != _CUSTOM:
        go(chosen, [])


def breadcrumbs(start: str, start_sfen: str, moves: list) -> None:
    """The line as buttons: the start, then each move; a click goes back to it."""
    texts = position_form.line_text(start_sfen, moves).split() if moves else []
    first_number = int(start_sfen.split()[3]) if len(start_sfen.split()) > 3 else 1
    with st.container(horizontal=True, gap="small", key="crumbs"):
        label = position_form.start_name(start_sfen)
        st.button(f"開始局面 · {label}", key="crumb-0", on_click=go, args=(start, []),
                  type="tertiary" if moves else "primary", icon=":material/flag:")
        first = max(1, len(texts) - CRUMBS + 1)  # a long line: its last moves
        if first > 1:
            st.button("…", key="crumb-more", disabled=True, type="tertiary")
        for i, text in enumerate(texts[first - 1:], start=first):
            st.button(f"{first_number + i - 1}. {text}", key=f"crumb-{i}", on_click=go,
                      args=(start, moves[:i]),
                      type="primary" if i == len(moves) else "tertiary")


def moves_table(found: list, start: str, moves: list, sfen: str) -> None:
    """Each move played next: its games, share and ▲/引き分け/△ result bar, the latest date; a
    click on a row steps into the move."""
    total = sum(m["count"] for m in found)
    frame = pd.DataFrame([{
        "move": m["ki2"] or m["move"], "games": m["count"], "share": 100 * m["count"] / total,
        "results": display.result_bar_image(m["black_wins"], m["draws"], m["white_wins"],
                                            m["other"]),
        "score": _black_score(m), "latest": m["latest_date"] or "—"}
        for m in found])
    key = f"next-{sfen}"

    def step() -> None:  # in the browser: before the next run, which draws the new position
        rows = st.session_state[key]["selection"]["rows"]
        if rows:
            go(start, moves + [found[rows[0]]["move"]])

    picked = st.dataframe(
        frame, key=key, hide_index=True, on_select=step,
        selection_mode="single-row", width="stretch", row_height=34, placeholder="—",
        height=38 + 34 * min(len(frame), SHOWN),
        column_config={
            "move": st.column_config.TextColumn("Move", width=96, pinned=True),
            "games": st.column_config.NumberColumn("Games", format="localized", width=70),
            "share": st.column_config.NumberColumn("Share", format="%.0f%%", width=60),
            "results": st.column_config.ImageColumn(
                "▲勝 · 分 · △勝", width=display.RESULT_BAR_WIDTH,
                help="▲先手's wins, draws (引き分け), △後手's wins, and games without a result"),
            "score": st.column_config.NumberColumn("▲ score", format="%.0f%%", width=72,
                                                   help="▲先手's score (a draw counts half) "
                                                        "over the decided games"),
            "latest": st.column_config.TextColumn("Latest", width=96)})
    st.caption("Click a move to play it.")
    if picked.selection.rows:  # a selection the callback did not see (a scripted session)
        go(start, moves + [found[picked.selection.rows[0]]["move"]])
        st.rerun()


def _black_score(m: dict):
    """▲先手's score in the games of a move (a percentage; None when none is decided)."""
    score = Results(m["black_wins"], m["white_wins"], m["draws"], m["other"]).score()
    return None if score is None else 100 * score


def play_moves(current_sfen: str, start: str, moves: list) -> None:
    """A form to play moves typed in any notation from the position shown."""
    with st.form("explorer-play", border=False, clear_on_submit=True):
        left, right = st.columns([3, 1], vertical_alignment="bottom")
        text = left.text_input("Play moves from here", key="explorer-typed",
                               placeholder="2g2f  ·  ▲２六歩  ·  ２六歩(27)")
        submitted = right.form_submit_button("Play", icon=":material/play_arrow:")
    if submitted and text.strip():
        try:
            played = position_form.play(text, current_sfen)
        except ValueError as error:
            st.error(display.message(error), icon=":material/warning:")
            return
        go(start, moves + played.moves)
        st.rerun()


def main() -> None:
    require_store()
    st.title("定跡 Opening explorer")
    chosen = filters.game_filter()
    min_count = filters.at_least("Moves played in at least", "explorer-min",
                                 help="games (leave out the rarer moves)")

    start, start_sfen, given = safe_line()
    moves = given.moves

    starts = list(HANDICAPS)
    name = position_form.start_name(start_sfen)
    if name not in starts:
        starts.append(_CUSTOM)
        name = _CUSTOM
    st.session_state["explorer-start"] = name
    top = st.columns([2, 5], vertical_alignment="bottom")
    top[0].selectbox("Start from", starts, key="explorer-start", on_change=choose_start,
                     help="The even game (平手) or a handicap; a searched position opens here "
                          "as a custom start.")
    with top[1]:
        breadcrumbs(start, start_sfen, moves)

    position = given.position
    sfen = position.sfen()
    left, right = st.columns([5, 7], gap="large")
    with left:
        board.show_board(position, last_move=given.last_move)
        buttons = st.columns(3)
        buttons[0].button("Start", icon=":material/first_page:", on_click=go, args=(start, []),
                          disabled=not moves, width="stretch")
        buttons[1].button("Back", icon=":material/chevron_left:", on_click=go,
                          args=(start, moves[:-1]), disabled=not moves, width="stretch")
        if buttons[2].button("Games", icon=":material/search:", width="stretch",
                             help="Every game that reached this position, in Position search"):
            nav.open_search(sfen)
        play_moves(sfen, start, moves)

    with right:
        try:
            found = explore(sfen, filters=chosen, min_count=min_count)
        except ValueError as error:
            st.error(display.message(error), icon=":material/warning:")
            return
        total = sum(m["count"] for m in found)
        suffix = f" · {filters.describe(chosen)}" if chosen else ""
        if found:
            st.subheader(f"{len(found)} moves played next · {total:,} games{suffix}")
            moves_table(found, start, moves, sfen)
        else:
            st.info("No game in the store continues from this position"
                    + (" with these filters." if chosen or min_count > 1 else "."),
                    icon=":material/search_off:")
        st.subheader("Latest games through this position")
        latest = search(sfen, limit=8)
        if latest:
            games_table([{**h, "next": display.move_text(position, h["next_move"])
                         if h["next_move"] else "—"} for h in latest],
                        key="explorer-games", extra=("next",))
        else:
            st.caption("No game of the store reached this position.")


if __name__ == "__main__":
    main()
