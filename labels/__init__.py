"""Castles (囲い), openings (戦型), techniques (手筋) and notes (備考) of a game, per side, from
the definitions in ``labels/*.toml``.

Labelling depends only on ``core``: ``ingest`` labels each game as it is read, and
``store.relabel`` labels the stored games again when the definitions change — the same
``labels.classify.classify_game`` in both places.
"""

import kifudb.core  # noqa: F401 first: ``core._native`` picks the compiled build or the source (ours too)
