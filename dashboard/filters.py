"""The game filters of the sidebar — player, dates, event, handicap, decided games only, a
minimum length, a minimum rating of both players; folded under "More filters": result, a
maximum rating, whose rating the band is on (both players or the player to move), time
control, engine or not, labels reached (castles, openings, techniques, notes; several at once,
a family, a window of plies) — shared by the explorer, the position
search, the game viewer and the statistics pages (their values follow the user from page to
page), as one ``analytics.filters.GameFilter``. On a mixed collection (opening
fragments, aborted games) "decided games only" and a minimum length take the noise out of the
result bars and the scores.

The filters are in the URL, under the names of the HTTP API's query parameters
(``analytics.filter_options.OPTIONS``: ``?player=羽生&since=2000-01-01&decided=true``): a
link or a reload opens the page with them, each change is one browser history entry (Back
and Forward undo and redo it), and a page switch (the sidebar, a link on a page) keeps them.

    >>> [p.name for p in PARAMS][:4]
    ['player', 'since', 'until', 'event']
    >>> _param("since").read("2001-02-03"), _param("decided").text(True)
    (datetime.date(2001, 2, 3), 'true')
    >>> _param("result").read("black"), _param("result").text("△ White won")
    ('▲ Black won', 'white')
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Callable

import streamlit as st

from kifudb.analytics.filter_options import OPTIONS
from kifudb.analytics.filters import GameFilter
from kifudb.core.handicap import HANDICAPS, canonical_name
from kifudb.dashboard.display import plain, shortened

_EARLIEST, _LATEST = datetime.date(1600, 1, 1), datetime.date(2100, 12, 31)
_ANY = "any"
#: The session key that holds the page shown (``nav.navigation`` sets it): a page switch by
#: the sidebar (whose links carry no filters) keeps the filters.
PAGE = "kifudb-page"
#: The session key of ``(page, URL parameters, widget values)`` of the filters on the last run
#: that drew them.
_SEEN = "filters-in-url"


def game_filter(on_handicap=None) -> GameFilter:
    """Draw the filters in the sidebar (started from the URL when it says other filters than
    the last run: a link, a reload, Back or Forward); the ``GameFilter`` they give (blank ones
    unset), also written to the URL. ``on_handicap`` is called when the user chooses another
    handicap (the explorer then starts from its position); the name chosen is
    ``chosen_handicap()``."""
    follow_url()
    sidebar = st.sidebar
    sidebar.subheader("Filters", help="Games whose ▲先手 or △後手 name contains the player, "
                                      "dated within the range, whose event contains the text. "
                                      "The filters are in the page's address (a link keeps "
                                      "them).")
    player = sidebar.text_input("Player", key="f_player", placeholder="羽生",
                                icon=":material/person:")
    left, right = sidebar.columns(2)
    date_from = left.date_input("From", value=None, min_value=_EARLIEST, max_value=_LATEST,
                                key="f_from", format="YYYY-MM-DD")
    date_to = right.date_input("To", value=None, min_value=_EARLIEST, max_value=_LATEST,
                               key="f_to", format="YYYY-MM-DD")
    event = sidebar.text_input("Event", key="f_event", placeholder="竜王",
                               icon=":material/emoji_events:")
    kind = sidebar.selectbox("Handicap", [_ANY, *HANDICAPS], key="f_handicap",
                             on_change=on_handicap,
                             help="The game's start position (平手: the even start), or what "
                                  "its header names when the start is no standard one.")
    decided = sidebar.checkbox("Decided games only", key="f_decided",
                               help="Leave out the games without a result (a win or a draw): "
                                    "opening fragments, aborted games, records without an "
                                    "ending.")
    min_moves = int(sidebar.number_input("At least this many moves", min_value=0,
                                         step=10, key="f_min_moves",
                                         help="Leave out the shorter games (fragments); 0 "
                                              "keeps every game."))
    min_rating = int(sidebar.number_input("Both players rated at least", min_value=0,
                                          step=100, key="f_min_rating",
                                          help="Only the games whose two players have a rating "
                                               "of at least this (shogi-server records: "
                                               "floodgate); 0 keeps every game."))
    more = _more_filters(sidebar)
    write_url()
    if date_from and date_to and date_from > date_to:
        st.warning(f"The date range is empty: {date_from} is after {date_to}.",
                   icon=":material/date_range:")
    if not (min_rating or more["max_rating"]):
        more["rating_of"] = None  # whose rating: only with a band
    return GameFilter(player=(player or "").strip() or None, date_from=date_from,
                      date_to=date_to, event=(event or "").strip() or None,
                      handicap=None if kind == _ANY else kind,
                      decided=True if decided else None, moves_from=min_moves or None,
                      min_rating=min_rating or None, **more)


_RESULTS = {_ANY: None, "▲ Black won": "black", "△ White won": "white", "draw": "draw",
            "no result": "none"}
_PLAYED_BY = {_ANY: None, "an engine (the record says)": True, "no engine shown": False}
_SIDES = {"either side": None, "▲ Black": "black", "△ White": "white"}
_RATING_OF = {"both players": None, "the player to move": "mover"}


def _more_filters(sidebar) -> dict:
    """The rarer filters, folded: result, the top of a rating band, time control, engine or
    not, labels reached (by either side or one, within plies): ``GameFilter`` fields."""
    with sidebar.expander("More filters", icon=":material/tune:"):
        result = st.selectbox("Result", list(_RESULTS), key="f_result")
        max_rating = int(st.number_input("Both players rated at most", min_value=0,
                                         step=100, key="f_max_rating",
                                         help="With the minimum above, a rating band; 0: no "
                                              "upper limit."))
        rating_of = st.selectbox("Rating band on", list(_RATING_OF), key="f_rating_of",
                                 help="The player to move: in the explorer, the games where "
                                      "the player to move in the position is in the band "
                                      "(elsewhere either player).")
        time_control = st.text_input("Time control contains", key="f_time_control",
                                     placeholder="6時間")
        played_by = st.selectbox("Played by", list(_PLAYED_BY), key="f_engine",
                                 help="Where the record names an engine for a side (its "
                                      "search comments, a shogi-server evaluation).")
        label = st.text_input("Castle, opening or technique reached", key="f_label",
                              placeholder="四間飛車, 垂れ歩",
                              help="Several, joined by commas, must all be reached.")
        side = st.selectbox("Reached by", list(_SIDES), key="f_label_side")
        family = st.checkbox("Or one of its family", key="f_label_family",
                             help="美濃囲い finds 高美濃囲い and 銀冠 too.")
        left, right = st.columns(2)
        from_ply = int(left.number_input("From ply", min_value=0, step=10,
                                         key="f_label_from_ply", help="Reached (a technique "
                                         "played) at this ply or later; 0: from the start."))
        to_ply = int(right.number_input("To ply", min_value=0, step=10, key="f_label_to_ply",
                                        help="At this ply or earlier; 0: to the end."))
    label = (label or "").strip() or None
    return {"winner": _RESULTS.get(result), "max_rating": max_rating or None,
            "rating_of": _RATING_OF.get(rating_of),
            "time_control": (time_control or "").strip() or None,
            "engine": _PLAYED_BY.get(played_by), "label": label,
            "label_side": _SIDES.get(side) if label else None,
            "label_family": True if label and family else None,
            "label_from_ply": from_ply if label and from_ply else None,
            "label_to_ply": to_ply if label and to_ply else None}


# ----- the filters in the URL ----------------------------------------------------------------


def _choice(labels: dict) -> tuple:
    """(text, read) of a selector whose shown labels map to the URL's values (``labels``)."""
    values = {value: label for label, value in labels.items() if value is not None}

    def text(label):
        return labels.get(label) if labels.get(label) is None else str(labels[label]).lower()

    def read(raw: str):
        for value, label in values.items():
            if raw.lower() == str(value).lower():
                return label
        raise ValueError(f"one of {', '.join(str(v).lower() for v in values)}")
    return text, read


def _count(raw: str) -> int:
    if not raw.isdigit():
        raise ValueError("a whole number of at least 0")
    return int(raw)


def _date(raw: str) -> datetime.date:
    try:
        day = datetime.date.fromisoformat(raw)
    except ValueError:
        raise ValueError("a date, YYYY-MM-DD") from None
    if not _EARLIEST <= day <= _LATEST:
        raise ValueError(f"a date from {_EARLIEST} to {_LATEST}")
    return day


def _handicap(raw: str) -> str:
    try:
        return canonical_name(raw)
    except KeyError:
        raise ValueError(f"a handicap: {', '.join(HANDICAPS)}") from None


def _flag(raw: str) -> bool:
    if raw.lower() not in ("true", "false", "1", "0"):
        raise ValueError("true or false")
    return raw.lower() in ("true", "1")


def _text(value):
    return (value or "").strip() or None


@dataclasses.dataclass(frozen=True)
class _Param:
    """A sidebar filter (its widget's session ``key``) in the URL as ``name`` (the HTTP API's
    query parameter: ``OPTIONS``): ``text`` writes the widget's value (None: left out),
    ``read`` reads the URL's text back (``ValueError`` saying what it must be)."""

    key: str
    field: str
    default: object
    text: Callable
    read: Callable

    @property
    def name(self) -> str:
        return next(o.name for o in OPTIONS if o.field == self.field)


_engine_text, _engine_read = _choice({label: {True: "engine", False: "human"}.get(value)
                                      for label, value in _PLAYED_BY.items()})

#: Every sidebar filter, in the order of the sidebar.
PARAMS = (
    _Param("f_player", "player", "", _text, str),
    _Param("f_from", "date_from", None, lambda d: d and d.isoformat(), _date),
    _Param("f_to", "date_to", None, lambda d: d and d.isoformat(), _date),
    _Param("f_event", "event", "", _text, str),
    _Param("f_handicap", "handicap", _ANY, lambda k: None if k in (None, _ANY) else k,
           _handicap),
    _Param("f_decided", "decided", False, lambda on: "true" if on else None, _flag),
    _Param("f_min_moves", "moves_from", 0, lambda n: str(int(n)) if n else None, _count),
    _Param("f_min_rating", "min_rating", 0, lambda n: str(int(n)) if n else None, _count),
    _Param("f_result", "winner", _ANY, *_choice(_RESULTS)),
    _Param("f_max_rating", "max_rating", 0, lambda n: str(int(n)) if n else None, _count),
    _Param("f_rating_of", "rating_of", "both players", *_choice(_RATING_OF)),
    _Param("f_time_control", "time_control", "", _text, str),
    _Param("f_engine", "engine", _ANY, _engine_text, _engine_read),
    _Param("f_label", "label", "", _text, str),
    _Param("f_label_side", "label_side", "either side", *_choice(_SIDES)),
    _Param("f_label_family", "label_family", False, lambda on: "true" if on else None, _flag),
    _Param("f_label_from_ply", "label_from_ply", 0, lambda n: str(int(n)) if n else None,
           _count),
    _Param("f_label_to_ply", "label_to_ply", 0, lambda n: str(int(n)) if n else None, _count),
)


def _param(name: str) -> _Param:
    return next(p for p in PARAMS if p.name == name)


def url_params() -> dict:
    """The filters chosen as URL parameters: what every link to another page carries
    (``nav``). The sidebar's values, or — on a page that does not draw them — those of the
    last page that did."""
    kept = (st.session_state.get(_SEEN) or (None, {}, {}))[2]
    params = {}
    for param in PARAMS:
        value = st.session_state[param.key] if param.key in st.session_state else \
            kept.get(param.key, param.default)
        text = param.text(value)
        if text is not None:
            params[param.name] = text
    return params


def in_url() -> dict:
    """The filters the URL says, as text."""
    return {p.name: st.query_params[p.name] for p in PARAMS if p.name in st.query_params}


def follow_url() -> None:
    """Start the sidebar's filters (before they are drawn) from the URL on the session's
    first run (a link, a reload) and when the URL says other filters than on the last run
    (Back, Forward, a link to this page); on a page switch by the sidebar, whose links carry
    no filters, from the last page's. A value the URL gets wrong is said and left out."""
    url = in_url()
    seen = st.session_state.get(_SEEN)
    page = st.session_state.get(PAGE)
    if seen is None or (url != seen[1] and (url or seen[0] == page)):
        values = {}
        for param in PARAMS:
            raw = url.get(param.name)
            values[param.key] = param.default
            if raw is not None:
                try:
                    values[param.key] = param.read(raw)
                except ValueError as error:
                    st.warning(plain(f"The filter {param.name}={shortened(raw)!r} in the "
                                     f"address is not {error}; it is left out."),
                               icon=":material/filter_alt_off:")
    elif seen[0] != page:
        values = seen[2]  # another page: the filters follow
    else:
        return
    for key, value in values.items():
        st.session_state[key] = value


def write_url() -> None:
    """Put the sidebar's filters in the URL (in one change when some are set or changed:
    one browser history entry), and remember them and what the URL says."""
    wanted, url = url_params(), in_url()
    changed = {name: text for name, text in wanted.items() if url.get(name) != text}
    if changed:
        st.query_params.update(changed)
    for name in url:
        if name not in wanted:
            del st.query_params[name]
    kept = {param.key: st.session_state.get(param.key, param.default) for param in PARAMS}
    st.session_state[_SEEN] = (st.session_state.get(PAGE), wanted, kept)


def chosen_handicap() -> str | None:
    """The handicap the sidebar's filter names (None for any), e.g. in ``on_handicap``."""
    kind = st.session_state.get("f_handicap")
    return kind if kind in HANDICAPS else None


#: The URL parameter of ``at_least`` (the page's own: not carried to another page).
MIN_GAMES = "min_games"


def at_least(label: str, key: str, help: str) -> int:
    """A number of games of at least 1 in the sidebar, below the filters (kept for the
    session, and in the URL as ``min_games`` when more than 1): the least a move or a label
    must be played in to be listed. A URL that says another number than on the last run (a
    link, Back, Forward) sets it."""
    raw = st.query_params.get(MIN_GAMES)
    said = int(raw) if raw and raw.isdigit() and int(raw) >= 1 else 1
    if st.session_state.get(f"{key}-url") != said or key not in st.session_state:
        st.session_state[key] = st.session_state[f"{key}-url"] = said
    value = int(st.sidebar.number_input(label, min_value=1, step=1, key=key, help=help))
    if value != said:
        st.session_state[f"{key}-url"] = value
        if value == 1:
            del st.query_params[MIN_GAMES]
        else:
            st.query_params[MIN_GAMES] = str(value)
    return value


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
        plies = (f" from ply {filters.label_from_ply}" if filters.label_from_ply else "") + (
            f" to ply {filters.label_to_ply}" if filters.label_to_ply is not None else "")
        parts.append(filters.label.replace(",", " and ")
                     + (" (or its family)" if filters.label_family else "")
                     + (f" by {filters.label_side}" if filters.label_side else "") + plies)
    return plain(", ".join(parts))
