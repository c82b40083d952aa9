"""The ``kifudb`` command line (``kifudb.cli``): the door that ties the readers (``ingest``), the
store (``store``) and the questions (``analytics``) together; Click code only.

The Python API (``kifudb.database``) is its door for notebooks: ``kifudb.open(folder)`` gives a
read-only ``Database`` whose questions answer with polars DataFrames. It is imported when
``open`` is first called, so that ``import kifudb`` (and so ``kifudb --help``) stays light."""


def open(path):  # noqa: A001 - the API's name (kifudb.open), as polars.read_… or duckdb.connect
    """A read-only ``kifudb.database.Database`` on the store in folder ``path``."""
    from kifudb.database import open_database

    return open_database(path)
