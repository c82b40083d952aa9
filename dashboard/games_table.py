"""A table of games — players, date, event, result, and the ply where the position occurred —
whose rows open the game viewer when clicked."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard import nav
from dashboard.display import result_text

_COLUMNS = {
    "game": st.column_config.NumberColumn("Game", format="%d", width="small"),
    "ply": st.column_config.NumberColumn("Ply", format="%d", width="small",
                                         help="Moves played when the position occurred"),
    "date": st.column_config.TextColumn("Date", width="small"),
    "black": st.column_config.TextColumn("▲先手"),
    "white": st.column_config.TextColumn("△後手"),
    "result": st.column_config.TextColumn("Result"),
    "event": st.column_config.TextColumn("Event"),
    "next": st.column_config.TextColumn("Next", width="small", help="The move played next"),
    "mirrored": st.column_config.CheckboxColumn("Mirror", width="small",
                                                help="The game reached the mirror image"),
}


def games_frame(rows: list, ply: bool = True, extra: tuple = ()) -> pd.DataFrame:
    """The rows (dicts of ``game``, ``black``, ``white``, ``date``, ``event``, ``winner``,
    ``reason`` and maybe ``ply``, ``next``, ``mirrored``…) as the table shows them."""
    columns = ["game"] + (["ply"] if ply else []) + ["date", "black", "white", "result",
                                                       "event", *extra]
    records = [{**row, "result": result_text(row.get("winner"), row.get("reason")),
                "date": row.get("date") or "—", "black": row.get("black") or "?",
                "white": row.get("white") or "?", "event": row.get("event") or ""}
               for row in rows]
    return pd.DataFrame.from_records(records, columns=columns)


def games_table(rows: list, key: str, ply: bool = True, extra: tuple = (),
                height: int | str = "auto", on_pick=None) -> None:
    """Show ``rows`` (see ``games_frame``); a click on a row opens that game in the viewer, at
    the row's ply when it has one (or calls ``on_pick(row)``: the viewer itself)."""
    if not rows:
        return
    frame = games_frame(rows, ply, extra)
    picked = st.dataframe(frame, key=key, hide_index=True, on_select="rerun",
                          selection_mode="single-row", column_config=_COLUMNS, height=height,
                          width="stretch")
    if picked.selection.rows:
        row = rows[picked.selection.rows[0]]
        if on_pick is not None:
            on_pick(row)
        else:
            nav.open_game(row["game"], row.get("ply"))
    st.caption("Click a row to open the game" + (" at that ply." if ply else "."))
