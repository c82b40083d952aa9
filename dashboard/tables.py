"""Clickable tables: a click anywhere on a row of a table (``st.dataframe``) acts on that row —
opens its game, studies its label, narrows a list — not only a click on a row's checkbox.

Every clickable table selects single cells (``CLICK``): a click on any cell picks the cell's
row, which ``picked`` reads from the table's selection (a row selection too, for a selection
set by code).
"""

from __future__ import annotations

import streamlit as st

#: The ``selection_mode`` of every clickable table: a click on any cell.
CLICK = "single-cell"


def picked(selection) -> int | None:
    """The row a click picked in a table's ``selection`` (the ``selection`` of its event, or of
    its state in ``st.session_state``), else None."""
    if selection is None:
        return None
    rows = list(selection.get("rows") or ())
    if rows:
        return int(rows[0])
    cells = list(selection.get("cells") or ())
    if cells:
        return int(cells[0][0])
    return None


def picked_in(key: str) -> int | None:
    """The row picked in the table of ``key`` (in an ``on_select`` callback)."""
    state = st.session_state.get(key)
    return picked(state.get("selection")) if state else None


def select_row(row: int, column: str) -> dict:
    """A ``selection_default`` (or session state) that picks ``row`` (on its ``column``)."""
    return {"selection": {"rows": [], "columns": [], "cells": [(row, column)]}}


#: How a table writes a share or a score: a percentage with one decimal (``as_percent``
#: scales the column to 0–100 first).
PERCENT = "%.1f%%"


def percent_column(label: str, bar: bool = True, **kwargs):
    """A column of shares or scores (0–100 after ``as_percent``) written with one decimal
    (``52.3%``), as a progress bar (``bar``) or a number."""
    if bar:
        return st.column_config.ProgressColumn(label, format=PERCENT, min_value=0.0,
                                               max_value=100.0, **kwargs)
    return st.column_config.NumberColumn(label, format=PERCENT, **kwargs)


def as_percent(frame, *columns):
    """``frame`` (polars) with ``columns`` (shares 0…1) as percentages (0…100) for
    ``percent_column``."""
    import polars as pl

    return frame.with_columns([pl.col(c) * 100 for c in columns if c in frame.columns])
