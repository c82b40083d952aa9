"""kifudb's dashboard: ``streamlit run dashboard/app.py`` (the store folder from
``KIFUDB_STORE``, else ``data/store``).

The entry page: it sets the page up, draws the sidebar (the store, the board's flip toggle) and
runs the chosen page of ``dashboard/views/``. (Not ``pages/``: Streamlit takes a ``pages/``
folder beside the entry script for its older multipage layout and then ignores
``st.navigation``.) A store that cannot answer (damaged, written by another kifudb, files
missing) gets a message saying which file and how to repair it (``state.failure``), not a
traceback.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

if any(importlib.util.find_spec(name) is None for name in ("analytics", "dashboard")):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # a checkout, not installed

import streamlit as st  # noqa: E402

from dashboard import board, display, nav, state, style  # noqa: E402

st.set_page_config(page_title="kifudb", page_icon="☗", layout="wide",
                   initial_sidebar_state="expanded")

page = nav.navigation()

with st.sidebar:
    st.markdown("### ☗ kifudb")
    st.caption(f"Store: {display.plain(state.store_root())}")
    board.flip_toggle()
    style.apply()

try:
    page.run()
except Exception as error:  # a damaged store: one message (Streamlit's stop/rerun pass through)
    problem = state.failure(error)
    if problem is None:
        raise
    state.show_problem(problem)
