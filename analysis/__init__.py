"""A USI engine's judgement of the store's positions: the engine process (``analysis.usi``), and
the run that sends it each distinct position once and commits its answers to the store
(``analysis.run``), on local processes or the workers of a Dask cluster."""
