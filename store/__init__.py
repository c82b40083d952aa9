"""The store: one folder of Parquet batches with DuckDB views over them — the only package that
knows Arrow, Parquet, DuckDB and SQL.

- ``store.schema``: the tables (Arrow schemas) and the compact code of a move;
- ``store.folder``: ``Store``, the folder — manifest, batches and their atomic commit, merges
  and compaction;
- ``store.tiers``: which batches merge (size tiers); ``store.partitions``: positions split by key
  range, one file per range;
- ``store.writer``: ``kifudb ingest`` — games read by ``ingest`` become batches;
- ``store.relabel``: label the stored games again after the definitions changed;
- ``store.engine``: the views as SQLAlchemy tables and the cached engine that queries run on;
- ``store.sql``: the guarded door for analysts' read-only SQL.

``DEFAULT_STORE`` is here, apart from ``store.folder``, so that naming it does not load DuckDB
and pyarrow (``kifudb validate`` never needs them).
"""

import os
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent


def _default_store() -> Path:
    """``data/store`` of the repository in a checkout (an editable install); installed from a
    wheel, ``$XDG_DATA_HOME/kifudb/store`` (``~/.local/share/kifudb/store``)."""
    if (_CHECKOUT / "pyproject.toml").is_file() and (_CHECKOUT / "data").is_dir():
        return _CHECKOUT / "data" / "store"
    data_home = os.environ.get("XDG_DATA_HOME") or os.path.join("~", ".local", "share")
    return Path(data_home).expanduser() / "kifudb" / "store"


#: Where a store is when ``--store`` is not given.
DEFAULT_STORE = _default_store()
