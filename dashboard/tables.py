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
