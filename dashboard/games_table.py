"""A table of games — players, date, event, result, and the ply where the position occurred —
whose rows open the game viewer when clicked (anywhere on the row: ``dashboard.tables``).
Handicap games name their sides 下手 and 上手. A column whose cells are Japanese (the result,
the event, the move) has a Japanese header with its English name."""

from __future__ import annotations

import polars as pl
import streamlit as st

from kifudb.dashboard import nav
from kifudb.dashboard.display import is_handicap, result_text
from kifudb.dashboard.tables import CLICK, picked

#: Column widths (pixels) that fit the table beside a board at 1400 px and under it at 820 px,
#: where the table has ``NARROWEST`` pixels: each the width of its longest usual text
#: ("▲先手勝ち · 投了", a date, a six-digit game id); the event takes what the others leave
#: of ``NARROWEST``. A wider table stretches every column in proportion, so the event's share
#: is as large as the others allow: about 200 px (15 full-width characters) across the page
#: at 1400 px. The whole event is on the game's page.
_WIDTHS = {"game": 44, "ply": 36, "date": 80, "black": 80, "white": 80, "result": 112,
           "next": 56, "event": 72, "mirrored": 48}
NARROWEST = 566


#: What a column of a caller's own (``extra``, sized by Streamlit) is counted as.
_OTHER = 60


def _widths(shown: list) -> dict:
    """The widths of the table's own columns among ``shown``: the event's is the rest of
    ``NARROWEST`` (a caller's extra column counted as ``_OTHER``)."""
    widths = {column: _WIDTHS[column] for column in shown if column in _WIDTHS}
    if "event" in widths:
        others = sum(_WIDTHS.get(column, _OTHER) for column in shown if column != "event")
        widths["event"] = max(_WIDTHS["event"], NARROWEST - others)
    return widths


def _columns(sides: tuple, shown: list) -> dict:
    black, white = sides
    widths = {**_WIDTHS, **_widths(shown)}
    return {
        "game": st.column_config.NumberColumn("Game", format="%d", width=widths["game"]),
        "ply": st.column_config.NumberColumn("Ply", format="%d", width=widths["ply"],
                                             help="Moves played when the position occurred"),
        "date": st.column_config.TextColumn("Date", width=widths["date"]),
        "black": st.column_config.TextColumn(black, width=widths["black"]),
        "white": st.column_config.TextColumn(white, width=widths["white"]),
        "result": st.column_config.TextColumn("結果 Result", width=widths["result"]),
        "event": st.column_config.TextColumn("棋戦 Event", width=widths["event"]),
        "next": st.column_config.TextColumn("次 Next", width=widths["next"],
                                            help="次の手: the move played next"),
        "mirrored": st.column_config.CheckboxColumn("Mirror", width=widths["mirrored"],
                                                    help="The game reached the mirror image"),
    }


def side_headers(rows: list) -> tuple:
    """The headers of the players' columns: ▲先手 and △後手, ▲下手 and △上手 when every game is a
    handicap game, both names when some are."""
    handicaps = {is_handicap(row.get("handicap")) for row in rows}
    if handicaps == {True}:
        return "▲下手", "△上手"
    if handicaps == {False}:
        return "▲先手", "△後手"
    return "▲先手/下手", "△後手/上手"


def games_frame(rows: list, ply: bool = True, extra: tuple = ()) -> pl.DataFrame:
    """The rows (dicts of ``game``, ``black``, ``white``, ``date``, ``event``, ``winner``,
    ``reason`` and maybe ``handicap``, ``ply``, ``next``, ``mirrored``…) as the table shows
    them."""
    columns = ["game"] + (["ply"] if ply else []) + ["date", "black", "white", "result",
                                                       *extra, "event"]
    records = [{**row, "result": result_text(row.get("winner"), row.get("reason"),
                                             is_handicap(row.get("handicap"))),
                "date": row.get("date") or "—", "black": row.get("black") or "?",
                "white": row.get("white") or "?", "event": row.get("event") or ""}
               for row in rows]
    return pl.from_dicts(records, schema=columns, infer_schema_length=None)


def games_table(rows: list, key: str, ply: bool = True, extra: tuple = (),
                height: int | str = "auto", on_pick=None, hide: tuple = ()) -> None:
    """Show ``rows`` (see ``games_frame``; the columns of ``hide`` left out of sight); a click
    on a row opens that game in the viewer, at the row's ply when it has one (or calls
    ``on_pick(row)``: the viewer itself)."""
    if not rows:
        return
    frame = games_frame(rows, ply, extra)
    if ply and len({row.get("ply") for row in rows}) == 1:
        hide = (*hide, "ply")  # the same ply in every row: said by the page, not the table
    shown = [c for c in frame.columns if c not in hide]
    event = st.dataframe(frame, key=key, hide_index=True, on_select="rerun",
                         selection_mode=CLICK, column_config=_columns(side_headers(rows), shown),
                         column_order=shown,
                         height=height, width="stretch")
    row = picked(event.selection)
    if row is not None and row < len(rows):
        if on_pick is not None:
            on_pick(rows[row])
        else:
            nav.open_game(rows[row]["game"], rows[row].get("ply"))
    st.caption("Click a game to open it" + (" at that ply." if ply else "."))
