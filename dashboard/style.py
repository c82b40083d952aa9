"""The dashboard's few style rules (one ``<style>`` element, added by the app on every page):

- a board keeps a readable size: the columns beside a board (``board.show_board`` draws it in
  a ``kifudb-board`` element) wrap under it when the page is too narrow for both, rather than
  squeezing the board (the board column at least ``BOARD_MIN`` pixels, the other at least
  ``SIDE_MIN``, or the whole width);
- a column holding a table is at least ``TABLE_MIN`` pixels wide, or goes under its
  neighbour;
- key figures (``st.metric``) are at least ``METRIC_MIN`` pixels wide, their row wrapping onto
  a second line rather than cutting them, their labels wrapping;
- the main area uses the window's width (narrower side margins than Streamlit's), so that tables
  beside a board show all their columns at 1400 px; in a window narrower than ``NARROW`` pixels
  the sidebar is ``SIDEBAR_NARROW`` pixels wide (not 300), so that tables keep all their columns
  at 820 px too;
- the explorer's moves: each row's button (the move) is stretched over its row, so that a
  click anywhere on the row plays the move; the row's figures line up under the header; the
  performance (rated games) is left out when the list is under 700 pixels wide, and the latest
  date under 600.
"""

from __future__ import annotations

import streamlit as st

#: The least width of a board's column, and of the column beside it (pixels); the board's
#: column grows to ``BOARD_MAX`` only when it is the only one on its line.
BOARD_MIN, SIDE_MIN, BOARD_MAX = 350, 440, 460
#: The least width of any column that holds a table (else it goes under its neighbour).
TABLE_MIN = 380
#: The least width of a key figure (``st.metric``) in a row of them: a row too narrow for all
#: goes on to a second line, so that no figure is cut ("Games 1…").
METRIC_MIN = 150
#: Below this window width (pixels) the sidebar is ``SIDEBAR_NARROW`` pixels wide.
NARROW, SIDEBAR_NARROW = 1000, 220

CSS = f"""
[data-testid="stMainBlockContainer"] {{
  padding-left: clamp(1rem, 3vw, 3rem); padding-right: clamp(1rem, 3vw, 3rem);
  max-width: 1500px;
}}
[data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] .kifudb-board) {{
  flex-wrap: wrap;
}}
[data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] .kifudb-board)
  > [data-testid="stColumn"]:has(.kifudb-board) {{
  flex: 1 1 {BOARD_MIN}px; max-width: max({BOARD_MAX}px, calc(100% - {SIDE_MIN}px - 2rem));
  min-width: min(100%, {BOARD_MIN}px);
}}
[data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] .kifudb-board)
  > [data-testid="stColumn"]:not(:has(.kifudb-board)) {{
  flex: 100 1 {SIDE_MIN}px; min-width: min(100%, {SIDE_MIN}px);
}}
[data-testid="stColumn"]:has([data-testid="stDataFrame"]) {{
  min-width: min(100%, {TABLE_MIN}px);
}}
.kifudb-board svg {{ display: block; }}
[data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] [data-testid="stMetric"]) {{
  flex-wrap: wrap; row-gap: 0.75rem;
}}
[data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] [data-testid="stMetric"])
  > [data-testid="stColumn"] {{
  flex: 1 1 {METRIC_MIN}px; min-width: min(100%, {METRIC_MIN}px);
}}
[data-testid="stMetricValue"] {{ font-size: clamp(1.45rem, 2.3vw, 2.1rem); }}
[data-testid="stMetricLabel"] p, [data-testid="stMetricLabel"] div,
[data-testid="stMetricDelta"], [data-testid="stMetricDelta"] * {{
  white-space: normal !important; overflow: visible; text-overflow: clip; height: auto;
}}
@media (max-width: {NARROW}px) {{
  [data-testid="stSidebar"] {{
    width: {SIDEBAR_NARROW}px !important; min-width: {SIDEBAR_NARROW}px !important;
  }}
  [data-testid="stMainBlockContainer"] {{ padding-left: 1rem; padding-right: 1rem; }}
}}

.st-key-moves-list {{ container-type: inline-size; }}
.kifudb-move-head {{
  display: flex; align-items: center; gap: 0.5rem; font-size: 0.85rem; font-weight: 600;
  color: rgba(49, 51, 63, 0.75); padding: 0.25rem 0; border-bottom: 1px solid rgba(49, 51, 63, 0.2);
}}
.kifudb-move-head .move {{ width: 104px; flex: none; padding-left: 0.75rem; }}
.kifudb-move-stats {{
  display: flex; align-items: center; gap: 0.5rem; font-size: 0.9rem; min-width: 0; flex: 1;
}}
.kifudb-move-stats .n {{
  width: 3.9em; flex: none; text-align: right; font-variant-numeric: tabular-nums;
  white-space: nowrap;
}}
.kifudb-move-stats .n.decided {{ width: 4.4em; }}
.kifudb-move-stats .bar {{ flex: 1 1 auto; min-width: 72px; }}
.kifudb-move-stats .latest {{
  width: 6.4em; flex: none; text-align: right; white-space: nowrap;
  font-variant-numeric: tabular-nums; color: rgba(49, 51, 63, 0.7);
}}
@container (max-width: 700px) {{
  .kifudb-move-stats .perf, .kifudb-move-head .perf {{ display: none; }}
}}
@container (max-width: 600px) {{
  .kifudb-move-stats .latest, .kifudb-move-head .latest {{ display: none; }}
}}
[class*="st-key-move-row-"] {{
  position: relative; border-bottom: 1px solid rgba(49, 51, 63, 0.1); cursor: pointer;
}}
[class*="st-key-move-row-"]:hover {{ background: rgba(255, 140, 26, 0.10); }}
[class*="st-key-move-row-"] div:has(> button), [class*="st-key-move-row-"] button,
[class*="st-key-move-row-"] .stButton, [class*="st-key-move-row-"] .stElementContainer {{
  position: static;
}}
[class*="st-key-move-row-"] button {{
  min-height: 2.1rem; padding: 0 0.75rem; justify-content: flex-start; font-size: 1rem;
}}
[class*="st-key-move-row-"] button::after {{ content: ""; position: absolute; inset: 0; }}
[class*="st-key-move-row-"] button > div {{ justify-content: flex-start; width: 100%; }}
[class*="st-key-move-row-"] > .stElementContainer:last-child {{ flex: 1 1 0; min-width: 0; }}
.st-key-moves-list [data-testid="stMarkdownContainer"] {{ margin: 0; }}
"""


def apply() -> None:
    """Add the style rules to the page (as Markdown in the sidebar: it reaches the browser
    with the page's first elements, where ``st.html`` would come a moment after the board,
    which would be drawn small first)."""
    st.sidebar.markdown(f"<style>{CSS}</style>", unsafe_allow_html=True)
