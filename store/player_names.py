"""The canonical name of every player of a store (``labels.players``), added to the engine's
``game_summary`` as ``black_player``/``white_player``, with the table of spellings
``player_names`` (``written``, ``date``, ``canonical``, ``ambiguous``) they come from.

Built by ``store.engine`` right after ``game_summary``, from its distinct spellings: one row per
spelling (``date`` null), and one per (spelling, date) for the spellings whose canonical name
depends on the game's date (a surname with a title, ``藤井竜王``). A game's ``black_player`` is
the dated row's name if there is one, else the spelling's; a game without a name has none::

    >>> import duckdb
    >>> database = duckdb.connect()
    >>> _ = database.execute("CREATE TABLE game_summary AS SELECT * FROM (VALUES "
    ...     "(1, '羽生 善治竜王', '藤井竜王', DATE '1999-06-01'), "
    ...     "(2, '藤井竜王', NULL, DATE '2022-01-10'), (3, '藤井竜王', '羽生五段', NULL)) "
    ...     "AS t(game, black, white, date)")
    >>> add_player_names(database)
    >>> database.execute("SELECT game, black_player, white_player FROM game_summary "
    ...                  "ORDER BY game").fetchall()
    [(1, '羽生善治', '藤井猛'), (2, '藤井聡太', None), (3, '藤井竜王', '羽生善治')]
"""

from __future__ import annotations

import pyarrow as pa

from kifudb.labels.players import canonical, depends_on_date

__all__ = ["add_player_names", "PLAYER_NAMES"]

PLAYER_NAMES = pa.schema([("written", pa.string()), ("date", pa.date32()),
                          ("canonical", pa.string()), ("ambiguous", pa.bool_())])

_SPELLINGS = ("SELECT black AS written, date FROM game_summary WHERE black IS NOT NULL "
              "UNION ALL SELECT white, date FROM game_summary WHERE white IS NOT NULL")


def add_player_names(database) -> None:
    """Create ``player_names`` in ``database`` (a DuckDB connection holding ``game_summary``)
    and give ``game_summary`` its ``black_player`` and ``white_player`` columns."""
    written = [row[0] for row in database.execute(
        f"SELECT DISTINCT written FROM ({_SPELLINGS}) ORDER BY written").fetchall()]
    dated = [name for name in written if depends_on_date(name)]
    pairs = [(name, None) for name in written]
    if dated:
        pairs += database.execute(
            f"SELECT DISTINCT written, date FROM ({_SPELLINGS}) WHERE date IS NOT NULL AND "
            f"list_contains(?, written) ORDER BY written, date", [dated]).fetchall()
    rows = {"written": [], "date": [], "canonical": [], "ambiguous": []}
    for name, date in pairs:
        found = canonical(name, date)
        for column, value in zip(rows, (name, date, found.name, found.ambiguous)):
            rows[column].append(value)
    names = pa.Table.from_pydict(rows, schema=PLAYER_NAMES)  # noqa: F841 (read by DuckDB)
    database.execute("CREATE OR REPLACE TABLE player_names AS SELECT * FROM names")
    sides = []
    for side in ("black", "white"):
        sides.append(f"coalesce({side}_dated.canonical, {side}_any.canonical) AS {side}_player")
    joins = " ".join(
        f"LEFT JOIN player_names {side}_any ON {side}_any.written = s.{side} "
        f"AND {side}_any.date IS NULL LEFT JOIN player_names {side}_dated "
        f"ON {side}_dated.written = s.{side} AND {side}_dated.date = s.date"
        for side in ("black", "white"))
    database.execute(f"CREATE OR REPLACE TABLE game_summary AS SELECT s.*, {', '.join(sides)} "
                     f"FROM game_summary s {joins} ORDER BY s.game")
