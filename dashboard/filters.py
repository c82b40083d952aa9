"""The game filters of the sidebar — player, dates, event, handicap — shared by the explorer and
the statistics pages (their values follow the user from page to page)."""

from __future__ import annotations

import datetime

import streamlit as st

from core.handicap import HANDICAPS

_EARLIEST, _LATEST = datetime.date(1600, 1, 1), datetime.date(2100, 12, 31)
_ANY = "any"


def game_filters(handicap: bool = True) -> dict:
    """Draw the filters in the sidebar; the keyword arguments they give
    (``player``, ``date_from``, ``date_to``, ``event``, ``handicap``), unset ones left out."""
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
    chosen = {"player": player.strip() or None, "date_from": date_from, "date_to": date_to,
              "event": event.strip() or None}
    if handicap:
        kind = sidebar.selectbox("Handicap", [_ANY, *HANDICAPS], key="f_handicap",
                                 persist_state="session")
        chosen["handicap"] = None if kind == _ANY else kind
    if date_from and date_to and date_from > date_to:
        st.warning(f"The date range is empty: {date_from} is after {date_to}.",
                   icon=":material/date_range:")
    return {name: value for name, value in chosen.items() if value is not None}


def describe(filters: dict) -> str:
    """``player 羽生, 2000-01-01 … 2010-12-31`` (empty when no filter is set)."""
    parts = []
    if "player" in filters:
        parts.append(f"player “{filters['player']}”")
    if "date_from" in filters or "date_to" in filters:
        parts.append(f"{filters.get('date_from', '…')} – {filters.get('date_to', '…')}")
    if "event" in filters:
        parts.append(f"event “{filters['event']}”")
    if "handicap" in filters:
        parts.append(filters["handicap"])
    return ", ".join(parts)
