"""kifudb: a shogi game-record database. One import name for all of it:

- ``kifudb.core``: the rules engine and every notation (``core/``);
- ``kifudb.ingest``: the readers, record files in, plain values out (``ingest/``);
- ``kifudb.labels``: castles, openings and players' names (``labels/``);
- ``kifudb.store``: the position store, Parquet and DuckDB (``store/``);
- ``kifudb.analytics``: the read-only questions (``analytics/``);
- ``kifudb.dashboard``: the Streamlit app (``dashboard/``);
- the doors: the command line ``kifudb.cli``, the Python API ``kifudb.api`` and the HTTP JSON
  API ``kifudb.http`` (``kifudb/``).

``kifudb.open(folder)`` is the Python API's entry: a read-only ``Database`` whose questions
answer with polars DataFrames. It is imported when ``open`` is first called, so that
``import kifudb`` (and so ``kifudb --help``) stays light."""


def open(path):  # noqa: A001 - the API's name (kifudb.open), as polars.read_… or duckdb.connect
    """A read-only ``kifudb.api.Database`` on the store in folder ``path``."""
    from kifudb.api import open_database

    return open_database(path)
