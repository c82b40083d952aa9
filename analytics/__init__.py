"""The position store (DuckDB over Parquet), its queries, the opening and castle classifier and
the statistics. ``DEFAULT_STORE`` is here, apart from ``analytics.store``, so that naming it does
not load DuckDB and pyarrow (``kifudb validate`` never needs them)."""

from pathlib import Path

DEFAULT_STORE = Path(__file__).resolve().parent.parent / "data" / "store"
