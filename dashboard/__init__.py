"""The Streamlit dashboard over the store: ``streamlit run dashboard/app.py`` (the store from
``KIFUDB_STORE``). ``app.py`` is the entry page, ``views/`` holds one page per module, and the
modules here are what the pages share: the store and its cached answers (``state``), the board
(``board``), the position inputs (``position_form``), the filters, the tables of games, the
charts, and the small questions the analytics API does not ask (``lookups``)."""
