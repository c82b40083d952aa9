"""定跡 — the opening explorer: from the even start, a handicap or any searched position, the
board and every move played next with its games and its ▲/引き分け/△ result bar. Each move is
a button (a click anywhere on its row plays it too), and a move played on the board (drag or
click; ``board.play_board``, the three most played moves drawn as arrows) is followed too;
the breadcrumbs, the Back button and the ← key step back, → steps forward again along the
line just left (else plays the most played move). Filters (sidebar): player, dates, event,
handicap, and a minimum number of games. Under the moves, the position's dated games month
by month (an expander).

The URL holds the line: ``?start=香落ち&moves=3c3d+7g7f`` (``start``: a handicap name or an
SFEN; ``moves``: USI as the page writes them, but a link may give them in KIF or KI2, as the
box does). Each step changes the URL once, so the browser's Back and Forward step through the
moves. A line that cannot be played is said on the page, which then shows its start (or the
even start).
"""

from __future__ import annotations

from html import escape

import streamlit as st

from kifudb.analytics import position_history as history, queries
from kifudb.analytics.results import Results
from kifudb.core.handicap import EVEN, HANDICAPS
from kifudb.dashboard import board, display, filters, nav, position_form
from kifudb.dashboard.downloads import games_download
from kifudb.dashboard.games_table import games_table
from kifudb.dashboard.state import fragment, require_store, stored

# the position is given as its SFEN: plain text, for the cache
explore = stored(queries.explore)
search = stored(queries.search)
position_history = stored(history.position_history)

#: Moves listed at once (the rarer ones are behind "more").
SHOWN = 20
#: Breadcrumbs shown (the start, then the last moves of a longer line).
CRUMBS = 24
#: Latest games listed under the moves.
LATEST = 8
_CUSTOM = "custom position"
#: The line the user stepped back from, ``(start, moves)``: → goes forward along it again.
AHEAD = "explorer-ahead"


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
    """Show ``moves`` from ``start`` (the callback of every step: the URL is the state, changed
    once a step: one entry in the browser's history)."""
    nav.set_url(nav.explorer_params(start, moves))


def board_move(usi: str, start: str, moves: list) -> None:
    """A move played on the board: the explorer follows it, as a click on its row does."""
    go(start, moves + [usi])


def step_back(start: str, moves: list, to: int) -> None:
    """Go back to the first ``to`` moves of the line shown, remembering the line (unless a
    longer one that continues it is remembered already) for the → key."""
    ahead = st.session_state.get(AHEAD)
    if not (ahead and ahead[0] == start and ahead[1][:len(moves)] == moves):
        st.session_state[AHEAD] = (start, list(moves))
    go(start, moves[:to])


def forward_line(start: str, moves: list, found: list) -> list | None:
    """The line one move on: along the line stepped back from, else the most played move."""
    ahead = st.session_state.get(AHEAD)
    if ahead and ahead[0] == start and len(ahead[1]) > len(moves) and \
            ahead[1][:len(moves)] == moves:
        return ahead[1][:len(moves) + 1]
    return moves + [found[0]["move"]] if found else None


def follow_handicap() -> None:
    """The sidebar's handicap filter changed: start from that handicap's position (the games
    it keeps start there)."""
    if filters.chosen_handicap() is not None:
        go(filters.chosen_handicap(), [])


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
        st.button(f"開始局面 · {label}", key="crumb-0", on_click=step_back,
                  args=(start, moves, 0), type="tertiary" if moves else "primary",
                  icon=":material/flag:")
        first = max(1, len(texts) - CRUMBS + 1)  # a long line: its last moves
        if first > 1:
            st.button("…", key="crumb-more", disabled=True, type="tertiary")
        for i, text in enumerate(texts[first - 1:], start=first):
            st.button(f"{first_number + i - 1}. {text}", key=f"crumb-{i}", on_click=step_back,
                      args=(start, moves, i),
                      type="primary" if i == len(moves) else "tertiary")


def _rating(value) -> str:
    return "—" if value is None else f"{value:.0f}"


def _percent(value) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def move_row(m: dict, total: int, start: str, moves: list, handicap: bool, index: int,
             rated: bool = False) -> None:
    """One move played next: its button (the move's text), then its games, share, result bar,
    ▲'s score, (``rated``: the average rating of the players who chose it and their
    performance with it) and the latest date. A click anywhere on the row is a click on the
    button (``style.py`` stretches the button over its row)."""
    played = Results(m["black_wins"], m["white_wins"], m["draws"], m["other"])
    score = played.score()
    black, white = (display.side_name(side, handicap) for side in ("black", "white"))
    with st.container(horizontal=True, gap="small", vertical_alignment="center",
                      key=f"move-row-{index}"):
        st.button(display.plain(m["ki2"] or m["move"]), key=f"play-{m['move']}",
                  on_click=go, args=(start, moves + [m["move"]]), type="tertiary",
                  width=MOVE_WIDTH)
        st.markdown(
            f'<div class="kifudb-move-stats"><span class="n">{m["count"]:,}</span>'
            f'<span class="n">{display.percent(m["count"], total)}</span>'
            f'<span class="bar" title="{escape(black)}勝ち {m["black_wins"]:,} · 引き分け '
            f'{m["draws"]:,} · {escape(white)}勝ち {m["white_wins"]:,} · no result '
            f'{m["other"]:,}">'
            + display.result_bar(m["black_wins"], m["draws"], m["white_wins"], m["other"],
                                 short=True)
            + f'</span><span class="n">{_percent(score)}</span>'
            f'<span class="n decided" title="{escape(black)}\'s score is over '
            f'{display.count(played.decided, "decided game")}">{played.decided:,}</span>'
            + (f'<span class="n rating">{_rating(m["average_rating"])}</span>'
               f'<span class="n perf">{_rating(m["performance"])}</span>' if rated else "")
            + f'<span class="latest">{escape(m["latest_date"] or "—")}</span></div>',
            unsafe_allow_html=True)


#: The width of a move's button (the moves list's first column), in pixels.
MOVE_WIDTH = 104


def moves_list(found: list, start: str, moves: list, handicap: bool) -> None:
    """Each move played next (``move_row``), under a header; the rarer ones in an expander."""
    total = sum(m["count"] for m in found)
    black = display.side_name("black", handicap)
    rated = any(m.get("average_rating") is not None for m in found)  # shogi-server games
    with st.container(key="moves-list", gap=None):
        st.markdown(
            f'<div class="kifudb-move-head"><span class="move">Move</span>'
            f'<div class="kifudb-move-stats"><span class="n">Games</span>'
            f'<span class="n">Share</span><span class="bar" title="Black\'s wins, draws and '
            f'White\'s wins as shares of the decided games; beside the bar, the games without a '
            f'result">▲勝 · 分 · △勝 of decided · no result</span>'
            f'<span class="n" title="{escape(black)}\'s score (a draw counts half) over the '
            f'decided games">▲ score</span><span class="n decided" title="The decided games (a win '
            f'or a draw) the score stands on">decided</span>'
            + ('<span class="n rating" title="The average rating of the players who chose the '
               'move (rated games only)">rating</span><span class="n perf" title="The '
               'performance of the players who chose the move: their opponents\' average '
               'rating + 400 × (wins − losses) / games, over the decided games against a rated '
               'opponent">perf.</span>' if rated else "")
            + '<span class="latest">Latest</span></div></div>',
            unsafe_allow_html=True)
        for index, m in enumerate(found[:SHOWN]):
            move_row(m, total, start, moves, handicap, index, rated)
        if len(found) > SHOWN:
            with st.expander(f"{display.count(len(found) - SHOWN, 'more move')}"):
                for index, m in enumerate(found[SHOWN:], start=SHOWN):
                    move_row(m, total, start, moves, handicap, index, rated)
    st.caption("Click a move, or play it on the board, to follow it; ← and → step back and "
               "forward.")


def history_section(sfen: str, chosen) -> None:
    """The position's dated games month by month (``analytics.position_history``), a bar
    chart in an expander; nothing when no dated game reached it."""
    months = position_history(sfen, filters=chosen)
    if not months:
        return
    with st.expander(f"By month · {display.count(len(months), 'month')} with dated games",
                     icon=":material/calendar_month:"):
        # a Vega-Lite spec as it is (no Altair chart built and checked on every step)
        st.vega_lite_chart(spec={
            "data": {"values": [{"month": m["month"], "games": m["games"]} for m in months]},
            "mark": {"type": "bar"},
            "encoding": {"x": {"field": "month", "type": "ordinal", "title": "month"},
                         "y": {"field": "games", "type": "quantitative", "title": "games"}}},
            height=200, width="stretch")
        first, last = months[0], months[-1]
        st.caption(f"From {first['month']} to {last['month']}; undated games are left out.")


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


def step_buttons(start: str, moves: list, found: list, sfen: str) -> None:
    """⏮ ◀ ▶ (also the Home, ← and → keys) and the games of the position."""
    onward = forward_line(start, moves, found)
    buttons = st.columns(3, gap="small")
    buttons[0].button("", icon=":material/first_page:", on_click=step_back,
                      args=(start, moves, 0), disabled=not moves, width="stretch",
                      shortcut="Home", key="explorer-to-start", help="The start position")
    buttons[1].button("", icon=":material/chevron_left:", on_click=step_back,
                      args=(start, moves, len(moves) - 1), disabled=not moves,
                      width="stretch", shortcut="Left", key="explorer-back",
                      help="One move back")
    buttons[2].button("", icon=":material/chevron_right:", on_click=go,
                      args=(start, onward or moves), disabled=onward is None, width="stretch",
                      shortcut="Right", key="explorer-forward",
                      help="One move on: along the line you stepped back from, else the most "
                           "played move")
    if st.button("Every game through this position", icon=":material/search:",
                 width="stretch", key="explorer-games-here",
                 help="Every game that reached this position, in Position search"):
        nav.open_search(sfen)


def opening_name(start_sfen: str, moves: list, handicap: bool) -> None:
    """The openings and castles reached along the line (``display.line_labels``), above the
    board and the moves, as lichess names the opening."""
    named = display.line_labels(start_sfen, moves, handicap)
    with st.container(key="explorer-opening"):
        st.markdown("##### " + (display.plain(named) if named else
                                "開始局面 · the start" if not moves else
                                "No opening or castle recognised yet"))


def main() -> None:
    require_store()
    st.title("定跡 Opening explorer")
    chosen = filters.game_filter(on_handicap=follow_handicap)
    min_count = filters.at_least("Moves played in at least", "explorer-min",
                                 help="games (leave out the rarer moves)")
    line_view(chosen, min_count)


@fragment
def line_view(chosen, min_count: int) -> None:
    """The page under its title: the line of the URL, its board and the moves played next.
    A fragment: a step (a move clicked or played, a breadcrumb, ← →) runs it alone, not the
    sidebar's filters."""
    start, start_sfen, given = safe_line()
    moves = given.moves
    handicap = display.is_handicap(start_sfen=start_sfen)

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
    opening_name(start_sfen, moves, handicap)

    position = given.position
    sfen = position.sfen()
    try:
        found = explore(sfen, filters=chosen, min_count=min_count)
    except ValueError as error:
        st.error(display.message(error), icon=":material/warning:")
        found = None
    left, right = st.columns([5, 7], gap="medium")
    with left:
        board.play_board(position, key="explorer-board", last_move=given.last_move,
                         handicap=handicap, arrows=board.played_arrows(found or []),
                         on_move=board_move, args=(start, moves))
        step_buttons(start, moves, found or [], sfen)
        play_moves(sfen, start, moves)

    with right:
        if found is None:
            return
        total = sum(m["count"] for m in found)
        suffix = f" · {filters.describe(chosen)}" if chosen else ""
        if found:
            st.subheader(f"{display.count(len(found), 'move')} played next · "
                         f"{display.count(total, 'game')}{suffix}")
            moves_list(found, start, moves, handicap)
            history_section(sfen, chosen)
        else:
            st.info("No game in the store continues from this position"
                    + (" with these filters." if chosen or min_count > 1 else "."),
                    icon=":material/search_off:")
    latest_games(position, sfen, chosen)


def latest_games(position, sfen: str, chosen) -> None:
    """The latest games through the position that fit the filters, across the page's width
    (names and events whole), and all of them to download."""
    st.subheader("Latest games through this position")
    latest = search(sfen, limit=LATEST, one_per_game=True, filters=chosen)
    if latest:
        games_table([{**h, "next": display.move_text(position, h["next_move"])
                     if h["next_move"] else "—"} for h in latest],
                    key="explorer-games", extra=("next",), hide=("ply",))
        games_download("explorer", "The games through this position"
                       + (" that fit the filters" if chosen else ""), "kifudb-explorer",
                       filters=chosen, sfen=sfen)
    else:
        st.caption("No game of the store reached this position"
                   + (f" ({filters.describe(chosen)})." if chosen else "."))


if __name__ == "__main__":
    main()
