"""Readers: record files in, plain values out — the first stage of the flow.

``ingest.read`` finds files, decodes their bytes (``ingest.decode``) and tells their format
(``ingest.sniff``); a reader per format (``kif``, ``ki2``, ``csa``, ``csa1``, ``jkf``,
``usi_file``) turns the text into ``GameRecord`` values (``ingest.record``: headers, start,
moves as written, comments, times, variations, the declared ending, findings);
``ingest.validate`` replays each record through ``core`` (``ingest.result`` settles the
ending, ``ingest.headers`` normalizes the headers); ``ingest.pipeline`` does all of it for one
file behind one safety net — with the castles and openings of ``labels`` — and hands each game
on as a ``StoredGame``. Nothing here knows Arrow, DuckDB or the store.
"""

import kifudb.core  # noqa: F401 first: ``core._native`` picks the compiled build or the source (ours too)
