"""The game filters of the sidebar — player, dates, event, handicap, decided games only, a
minimum length, a minimum rating of both players; folded under "More filters": result, a
maximum rating, whose rating the band is on (both players or the player to move), time
control, engine or not, a castle or opening reached — shared by the explorer and the
statistics pages (their values follow the user from page to page), as one
``analytics.filters.GameFilter``. On a mixed collection (opening
fragments, aborted games) "decided games only" and a minimum length take the noise out of the
result bars and the scores."""

from __future__ import annotations

import datetime

import streamlit as st

from kifudb.analytics.filters import GameFilter
from kifudb.core.handicap import HANDICAPS
from kifudb.dashboard.display import plain

_EARLIEST, _LATEST = datetime.date(1600, 1, 1), datetime.date(2100, 12, 31)
_ANY = "any"


def game_filter(on_handicap=None) -> GameFilter:
    """Draw the filters in the sidebar; the ``GameFilter`` they give (blank ones unset).
    ``on_handicap`` is called when the user chooses another handicap (the explorer then starts
    from its position); the name chosen is ``chosen_handicap()``."""
    sidebar = st.sidebar
    sidebar.subheader("Filters", help="Games whose ▲先手 or △後手 name contains the player, "
                                      "dated within the range, whose event contains the text.")
    player = sidebar.text_input("Player", key="f_player", persist_state="session",
                                placeholder="羽生", icon=":material/person:")
    left, right = sidebar.columns(2)
    date_from = left.date_input("From", value=None, min_value=_EARLIEST, max_value=_LATEST,
                                key="f_from", persist_state="session", format="YYYY-MM-DD")
    date_to = right.date_input("To", value=None, min_value=_EARLIEST, max_value=_LATEST,
                               key="f_to", persist_state="session", format="YYYY-MM-DD")
    event = sidebar.text_input("Event", key="f_event", persist_state="session",
                               placeholder="竜王", icon=":material/emoji_events:")
    kind = sidebar.selectbox("Handicap", [_ANY, *HANDICAPS], key="f_handicap",
                             persist_state="session", on_change=on_handicap,
                             help="The game's start position (平手: the even start), or what "
                                  "its header names when the start is no standard one.")
    decided = sidebar.checkbox("Decided games only", key="f_decided", persist_state="session",
                               help="Leave out the games without a result (a win or a draw): "
                                    "opening fragments, aborted games, records without an "
                                    "ending.")
    min_moves = int(sidebar.number_input("At least this many moves", min_value=0, value=0,
                                         step=10, key="f_min_moves", persist_state="session",
                                         help="Leave out the shorter games (fragments); 0 "
                                              "keeps every game."))
    min_rating = int(sidebar.number_input("Both players rated at least", min_value=0, value=0,
                                          step=100, key="f_min_rating",
                                          persist_state="session",
                                          help="Only the games whose two players have a rating "
                                               "of at least this (shogi-server records: "
                                               "floodgate); 0 keeps every game."))
    more = _more_filters(sidebar)
    if date_from and date_to and date_from > date_to:
        st.warning(f"The date range is empty: {date_from} is after {date_to}.",
                   icon=":material/date_range:")
    if not (min_rating or more["max_rating"]):
        more["rating_of"] = None  # whose rating: only with a band
    return GameFilter(player=player.strip() or None, date_from=date_from, date_to=date_to,
                      event=event.strip() or None, handicap=None if kind == _ANY else kind,
                      decided=True if decided else None, moves_from=min_moves or None,
                      min_rating=min_rating or None, **more)


_RESULTS = {_ANY: None, "▲ Black won": "black", "△ White won": "white", "draw": "draw",
            "no result": "none"}
_PLAYED_BY = {_ANY: None, "an engine (the record says)": True, "no engine shown": False}
_SIDES = {"either side": None, "▲ Black": "black", "△ White": "white"}
_RATING_OF = {"both players": None, "the player to move": "mover"}


def _more_filters(sidebar) -> dict:
    """The rarer filters, folded: result, the top of a rating band, time control, engine or
    not, a castle or opening reached (by either side or one): ``GameFilter`` fields."""
    with sidebar.expander("More filters", icon=":material/tune:"):
        result = st.selectbox("Result", list(_RESULTS), key="f_result",
                              persist_state="session")
        max_rating = int(st.number_input("Both players rated at most", min_value=0, value=0,
                                         step=100, key="f_max_rating", persist_state="session",
                                         help="With the minimum above, a rating band; 0: no "
                                              "upper limit."))
        rating_of = st.selectbox("Rating band on", list(_RATING_OF), key="f_rating_of",
                                 persist_state="session",
                                 help="The player to move: in the explorer, the games where "
                                      "the player to move in the position is in the band "
                                      "(elsewhere either player).")
        time_control = st.text_input("Time control contains", key="f_time_control",
                                     persist_state="session", placeholder="6時間")
        played_by = st.selectbox("Played by", list(_PLAYED_BY), key="f_engine",
                                 persist_state="session",
                                 help="Where the record names an engine for a side (its "
                                      "search comments, a shogi-server evaluation).")
        label = st.text_input("Castle or opening reached", key="f_label",
                              persist_state="session", placeholder="四間飛車")
        side = st.selectbox("Reached by", list(_SIDES), key="f_label_side",
                            persist_state="session")
    label = label.strip() or None
    return {"winner": _RESULTS.get(result), "max_rating": max_rating or None,
            "rating_of": _RATING_OF.get(rating_of),
            "time_control": time_control.strip() or None,
            "engine": _PLAYED_BY.get(played_by), "label": label,
            "label_side": _SIDES.get(side) if label else None}


def chosen_handicap() -> str | None:
    """The handicap the sidebar's filter names (None for any), e.g. in ``on_handicap``."""
    kind = st.session_state.get("f_handicap")
    return kind if kind in HANDICAPS else None


def at_least(label: str, key: str, help: str) -> int:
    """A number of games of at least 1 in the sidebar, below the filters (kept for the
    session): the least a move or a label must be played in to be listed."""
    return int(st.sidebar.number_input(label, min_value=1, value=1, step=1, key=key,
                                       persist_state="session", help=help))


def describe(filters: GameFilter) -> str:
    """``player “羽生”, 2000-01-01 – 2010-12-31`` (empty when no filter is set), as Markdown
    that shows the typed text as it is (``display.plain``)."""
    parts = []
    if filters.player is not None:
        parts.append(f"player “{filters.player}”")
    if filters.date_from is not None or filters.date_to is not None:
        parts.append(f"{filters.date_from or '…'} – {filters.date_to or '…'}")
    if filters.event is not None:
        parts.append(f"event “{filters.event}”")
    if filters.handicap is not None:
        parts.append(filters.handicap)
    if filters.decided:
        parts.append("decided games")
    if filters.moves_from is not None:
        parts.append(f"at least {filters.moves_from} moves")
    rated = "mover" if filters.rating_of == "mover" else "both"
    if filters.min_rating is not None:
        parts.append(f"{rated} rated {filters.min_rating}+")
    if filters.max_rating is not None:
        parts.append(f"{rated} rated at most {filters.max_rating}")
    if filters.winner is not None:
        parts.append(f"result {filters.winner}")
    if filters.time_control is not None:
        parts.append(f"time control “{filters.time_control}”")
    if filters.engine is not None:
        parts.append("engine games" if filters.engine else "no engine shown")
    if filters.label is not None:
        parts.append(f"{filters.label}" + (f" by {filters.label_side}" if filters.label_side
                                           else ""))
    return plain(", ".join(parts))
