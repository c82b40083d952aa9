"""局面検索 — position search: give a position by moves, SFEN, board diagram or game and ply;
see the board and every game that reached it (players, date, event, result, ply, the move
played next), newest first, a page at a time. A click on a game opens it at that ply. Moves
played on the board (``board.play_board``) go on from the position shown (``board.search_step``).

The URL holds the position (see ``dashboard.position_form``), ``mirror`` and the sidebar's
filters (``dashboard.filters``): the counts, the list and the download are of the games that
fit them.
"""

from __future__ import annotations

import math

import streamlit as st

from kifudb.analytics import queries
from kifudb.core.position import Position
from kifudb.dashboard import board, display, filters, nav, position_form
from kifudb.dashboard.downloads import games_download
from kifudb.dashboard.games_table import games_table
from kifudb.dashboard.state import require_store, stored

# the position is given as its SFEN: plain text, for the cache
search = stored(queries.search)
occurrences = stored(queries.occurrences)

PAGE_SIZES = (25, 50, 100, 200)
EXAMPLES = {"▲７六歩 △３四歩 ▲２六歩": "7g7f 3c3d 2g2f", "▲２六歩 △８四歩": "2g2f 8c8d",
            "▲７六歩 △８四歩 ▲６八銀": "7g7f 8c8d 7i6h"}


def examples() -> None:
    st.caption("Or try one of these:")
    with st.container(horizontal=True):
        for label, moves in EXAMPLES.items():
            st.page_link(nav.SEARCH.path, label=label,
                         query_params=nav.with_filters({"moves": moves}),
                         icon=":material/search:")


def hits_page(sfen: str, position, mirror: bool, total: int, chosen) -> None:
    """One page of the occurrences, with the pager."""
    size = st.session_state.get("search-size", PAGE_SIZES[1])
    pages = max(1, math.ceil(total / size))
    page = st.pagination(pages, key=f"search-page-{sfen}-{mirror}-{size}-{total}",
                         max_visible_pages=7)
    page = min(max(1, page), pages)
    hits = search(sfen, mirror=mirror, limit=size, offset=(page - 1) * size, filters=chosen)
    rows = [{**h, "next": display.move_text(position if not h["mirrored"] else position.mirror(),
                                            h["next_move"]) if h["next_move"] else "—"}
            for h in hits]
    first = (page - 1) * size + 1
    st.caption(f"Occurrences {first:,}–{first + len(hits) - 1:,} of {total:,}, newest games "
               f"first")
    games_table(rows, key=f"search-hits-{page}", extra=("next", "mirrored") if mirror
                else ("next",), height=min(38 + 35 * len(rows), 740))
    st.selectbox("Rows per page", PAGE_SIZES, index=1, key="search-size", width=160)


def mirror_toggle() -> bool:
    """The "mirror image" toggle, kept in the URL's ``mirror`` in one change (one history
    entry: Back undoes it, as it undoes a search)."""
    wanted = st.query_params.get("mirror") == "true"
    if st.session_state.get("mirror-url") != wanted:  # a new URL (a link, Back, Forward)
        st.session_state["mirror"] = st.session_state["mirror-url"] = wanted
    mirror = st.toggle("Also the mirror image (left ↔ right)", key="mirror")
    if mirror != wanted:
        st.session_state["mirror-url"] = mirror
        params = {name: value for name, value in st.query_params.to_dict().items()
                  if name != "mirror"}
        nav.set_url({**params, "mirror": "true"} if mirror else params)
    return mirror


def main() -> None:
    require_store()
    st.title("局面検索 Position search")
    chosen = filters.game_filter()
    left, right = st.columns([5, 7], gap="medium")
    with left:
        position_form.form("search")
        try:
            given = position_form.given_position()
        except ValueError as error:  # a broken link: said, and the page starts afresh
            st.error(f"This position cannot be shown: {display.message(error)}",
                     icon=":material/warning:")
            given = None
        if given is None:
            board.play_board(Position(), key="search-board", sfen=False,
                             on_move=board.search_step, args=(None, []),
                             caption="Give a position above, or play moves on this board: "
                                     "the games that reached it are listed on the right.")
            with right:
                st.info("Give a position — a move sequence, an SFEN, a board diagram, or a game "
                        "and a ply — to see every game that reached it.",
                        icon=":material/search_off:")
                examples()
            return
        position = given.position
        sfen = position.sfen()
        board.play_board(position, key="search-board", last_move=given.last_move,
                         on_move=board.search_step,
                         args=(given.start, given.moves) if given.start else (sfen, []),
                         caption=f"{given.description} · {board.turn_text(position)}")
        mirror = mirror_toggle()
        links = st.container(horizontal=True, vertical_alignment="center")
        if links.button("Open in the explorer", icon=nav.EXPLORER.icon):
            if given.start is not None:
                nav.open_explorer(given.start, given.moves)
            nav.open_explorer(sfen)
        if given.game is not None:
            with links:
                nav.game_link(given.game, given.ply, f"Game {given.game} at ply {given.ply}")
    with right:
        counted = occurrences(sfen, mirror=mirror, filters=chosen)
        total, games = counted["occurrences"], counted["games"]
        if not total:
            st.info("No game of the store reached this position"
                    + (" or its mirror image" if mirror else "")
                    + (f" ({filters.describe(chosen)})." if chosen else "."),
                    icon=":material/search_off:")
            return
        st.subheader(f"{display.count(total, 'occurrence')} in {display.count(games, 'game')}"
                     + (f" · {filters.describe(chosen)}" if chosen else ""))
        games_download("search", "The games that reached this position (not its "
                                 "mirror image)" + (" and fit the filters" if chosen else ""),
                       "kifudb-search", filters=chosen, sfen=sfen, count=games)
    hits_page(sfen, position, mirror, total, chosen)  # across the page: names, events whole


if __name__ == "__main__":
    main()
