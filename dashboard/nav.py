"""The pages of the app and the ways between them: every game, position and label on a page
opens where it can be studied (the game viewer at a ply, the explorer at a position, the
position search), with the URL saying what is shown."""

from __future__ import annotations

from typing import NamedTuple

import streamlit as st

from kifudb.core.handicap import EVEN, HANDICAPS
from kifudb.dashboard import filters


class PageInfo(NamedTuple):
    path: str       # relative to dashboard/app.py
    title: str
    icon: str
    url: str


OVERVIEW = PageInfo("views/overview.py", "Overview", ":material/space_dashboard:", "overview")
VALIDATION = PageInfo("views/validation.py", "Validation", ":material/rule:", "validation")
EXPLORER = PageInfo("views/explorer.py", "Opening explorer", ":material/account_tree:",
                    "explorer")
SEARCH = PageInfo("views/search.py", "Position search", ":material/search:", "search")
PATTERN = PageInfo("views/pattern.py", "Pattern search", ":material/grid_on:", "pattern")
GAME = PageInfo("views/game.py", "Game viewer", ":material/play_circle:", "game")
OPENINGS = PageInfo("views/openings.py", "Openings & castles", ":material/castle:", "openings")
RESULTS = PageInfo("views/results.py", "Results", ":material/bar_chart:", "results")
PLAYERS = PageInfo("views/players.py", "Players", ":material/groups:", "players")
PUZZLES = PageInfo("views/puzzles.py", "Puzzles", ":material/extension:", "puzzles")

#: The sidebar's sections, in order; the first page opens by default.
SECTIONS = {
    "Database": [OVERVIEW, VALIDATION],
    "Explore": [EXPLORER, SEARCH, PATTERN, GAME, PUZZLES],
    "Statistics": [OPENINGS, RESULTS, PLAYERS],
}


def navigation():
    """``st.navigation`` over the sections (Overview first, the default); the page chosen is
    kept in the session (``filters.PAGE``: a switch to another page keeps the filters)."""
    page = st.navigation({
        section: [st.Page(p.path, title=p.title, icon=p.icon, url_path=p.url,
                          default=p is OVERVIEW) for p in pages]
        for section, pages in SECTIONS.items()})
    st.session_state[filters.PAGE] = page.url_path
    return page


def with_filters(params: dict) -> dict:
    """``params`` and the sidebar's filters (``filters.url_params``): every way to another
    page carries them, so that its lists obey the same filters."""
    return {**filters.url_params(), **params}


def set_url(params: dict) -> None:
    """Make the URL's query ``params`` (values as text; any other parameter dropped) in one
    change, so that the browser keeps one history entry for it and Back and Forward step
    through the page's states: Streamlit's frontend pushes a history entry for each change of
    ``st.query_params`` (and replaces the entry while it answers Back or Forward), so deleting
    one parameter and setting another would leave an entry between them. Nothing happens when
    the URL already says it. (Not for a page whose widgets are bound to the URL: their
    parameters cannot be set this way.) The sidebar's filters stay in the URL, and the
    page's least number of games (``filters.MIN_GAMES``)."""
    kept = {name: st.query_params[name] for name in (filters.MIN_GAMES,)
            if name in st.query_params}
    wanted = {name: str(value) for name, value in {**kept, **with_filters(params)}.items()}
    if wanted != st.query_params.to_dict():
        st.query_params.from_dict(wanted)


def from_url(key: str, options, default=None) -> None:
    """Start the widget ``key`` from the URL parameter of the same name when it is one of
    ``options`` (for widgets whose shown labels differ from their values: Streamlit's own
    binding would put the labels in the URL)."""
    if key not in st.session_state:
        value = st.query_params.get(key)
        st.session_state[key] = value if value in options else default


def to_url(key: str, value, default=None) -> None:
    """Keep the URL parameter ``key`` equal to ``value`` (left out when it is the default)."""
    if value is None or value == default:
        if key in st.query_params:
            del st.query_params[key]
    elif st.query_params.get(key) != str(value):
        st.query_params[key] = str(value)


def game_params(game: int, ply: int | None = None) -> dict:
    return {"game": str(int(game)), **({"ply": str(int(ply))} if ply else {})}


def open_game(game: int, ply: int | None = None) -> None:
    """Go to the game viewer, at ``ply`` (the start when None)."""
    st.switch_page(GAME.path, query_params=with_filters(game_params(game, ply)))


def explorer_params(start: str | None = None, moves=()) -> dict:
    """The explorer's URL: ``start`` as a handicap name when it is one (none for 平手)."""
    params = {}
    for name, sfen in HANDICAPS.items():
        if start and start.split()[:3] == sfen.split()[:3]:
            start = name
    if start and start != EVEN:
        params["start"] = start
    if moves:
        params["moves"] = " ".join(moves)
    return params


def open_explorer(start: str | None = None, moves=()) -> None:
    """Go to the opening explorer at ``moves`` (USI) played from ``start`` (a handicap name or
    an SFEN; the even start when None)."""
    st.switch_page(EXPLORER.path, query_params=with_filters(explorer_params(start, moves)))


def open_search(sfen: str) -> None:
    """Go to the position search, listing the games that reached ``sfen`` (and fit the
    filters)."""
    st.switch_page(SEARCH.path, query_params=with_filters({"sfen": sfen}))


def game_link(game: int, ply: int | None = None, label: str | None = None) -> None:
    """A link to the game viewer."""
    st.page_link(GAME.path, label=label or f"Open game {game}", icon=GAME.icon,
                 query_params=with_filters(game_params(game, ply)))
