"""The Streamlit dashboard over the store: ``streamlit run dashboard/app.py`` (the store from
``KIFUDB_STORE``).

The flow: every page asks ``analytics`` (never SQL, never ``ingest``; of ``store`` only the
folder — ``store.DEFAULT_STORE`` and ``Store`` — and ``store.diagnose``, which words a damaged
one) through ``state.stored``, which caches each answer under its arguments — positions as SFEN
text, the sidebar's ``analytics.filters.GameFilter`` — until the store's next commit, and draws
boards with ``core``. ``app.py`` is the entry page,
``views/`` holds one page per module, and the modules here are what the pages share: the store
and its cached answers (``state``), the board (``board``), the position inputs
(``position_form``), the pattern page's board of conditions (``pattern_form``), the sidebar's filters (``filters``), the tables of games
(``games_table``), tables that act on a click anywhere on a row (``tables``), the charts
(``charts``), how shogi things are written (``display``), the ways between pages and the URL
that says what a page shows (``nav``: one browser history entry a step), and the few style
rules that keep boards readable and tables whole (``style``)."""
