"""The game filters of the sidebar — player, dates, event, handicap — shared by the explorer and
the statistics pages (their values follow the user from page to page), as one
``analytics.filters.GameFilter``."""

from __future__ import annotations

import datetime

import streamlit as st

from analytics.filters import GameFilter
from core.handicap import HANDICAPS
from dashboard.display import plain

_EARLIEST, _LATEST = datetime.date(1600, 1, 1), datetime.date(2100, 12, 31)
_ANY = "any"


def game_filter() -> GameFilter:
    """Draw the filters in the sidebar; the ``GameFilter`` they give (blank ones unset)."""
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
                             persist_state="session")
    if date_from and date_to and date_from > date_to:
        st.warning(f"The date range is empty: {date_from} is after {date_to}.",
                   icon=":material/date_range:")
    return GameFilter(player=player.strip() or None, date_from=date_from, date_to=date_to,
                      event=event.strip() or None, handicap=None if kind == _ANY else kind)


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
    return plain(", ".join(parts))
