"""kifudb's dashboard: ``kifudb dashboard --store DIR`` runs ``streamlit run`` on this file (the
store folder from ``KIFUDB_STORE``, else the default store), with kifudb installed.

The entry page: it sets the page up, draws the sidebar (the store, the board's flip toggle) and
runs the chosen page of ``dashboard/views/``. (Not ``pages/``: Streamlit takes a ``pages/``
folder beside the entry script for its older multipage layout and then ignores
``st.navigation``.) A store that cannot answer (damaged, written by another kifudb, files
missing) gets a message saying which file and how to repair it (``state.failure``), not a
traceback.
"""

from __future__ import annotations

import os
import sys

# Streamlit puts this script's folder first on sys.path: its modules (``state``, ``tables``,
# ``filters`` …) would shadow any module of those names, and they are ``kifudb.dashboard.*``
_HERE = os.path.dirname(os.path.realpath(__file__))
sys.path[:] = [entry for entry in sys.path
               if not entry or os.path.realpath(entry) != _HERE]

import streamlit as st  # noqa: E402
from streamlit import config  # noqa: E402

from kifudb.dashboard import board, display, nav, state, style  # noqa: E402

# Speed: Streamlit collects the garbage of the whole process after each run (its
# ``runner.postScriptGC``): 0.15–0.3 s with the store's engine and the cached answers in
# memory, during which the page waits for the run's last messages. Python's own collector
# still runs; the objects of the first run (modules, the engine) are frozen out of it.
config.set_option("runner.postScriptGC", False)

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
    state.freeze_once()
except Exception as error:  # a damaged store: one message (Streamlit's stop/rerun pass through)
    state.said(error)
