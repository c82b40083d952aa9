"""Read-only questions over the store: position search and the opening explorer
(``analytics.queries``), statistics (``analytics.stats``), a stored game replayed
(``analytics.game_record``) and what a user types as a position (``analytics.position_input``).

Everything here reads through ``store`` (the only package that knows DuckDB and Parquet) and
returns plain values; nothing here writes to a store or reads record files.
"""
