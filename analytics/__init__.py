"""Read-only questions over the store, the one way the dashboard and the command line see it.

The flow: ``ingest`` reads records and ``store`` keeps them (Parquet batches, DuckDB views);
``analytics`` asks the store its questions as SQLAlchemy statements over the views of
``store.engine`` (``games``, ``moves``, ``positions`` …, and the in-memory ``game_summary`` and
``label_summary``), run by ``store.engine.fetch``, and answers with plain values; the dashboard
(``dashboard``) and the CLI (``kifudb``) only call ``analytics``, never SQL. Nothing here writes
to a store or reads record files (``analytics`` does not import ``ingest``).

- ``analytics.filters``: ``GameFilter``, the games a question looks at (player, dates, event,
  handicap …), checked once where the user's values come in, hashable (a cache key), and the
  one place that makes the conditions on the games;
- ``analytics.results``: ``Results``, games won by each side, drawn or without a result, and the
  scores and Wilson intervals they give;
- ``analytics.queries``: position search, the opening explorer, a game's headers and moves;
- ``analytics.stats``: statistics of results, castles and openings, players, validation findings;
- ``analytics.game_record``: a stored game replayed (positions, KI2 moves, variations);
- ``analytics.position_input``: what a user types as a position (SFEN, moves, a board diagram,
  a game and a ply);
- ``analytics.judgement``: what the engine's analysis (``kifudb analyse``) says of a game's
  moves: win probability, loss, judgement, accuracy, the turning ply; ``analytics.accuracy``
  the same over the collection (by player, opening …) and the most costly mistakes;
  ``analytics.puzzles`` the positions where one move wins; ``analytics.calibration`` the
  win-rate curve fitted to the store's games;
- ``analytics.checks``: the argument checks they share.
"""
