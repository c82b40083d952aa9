"""The ``kifudb`` command line, which ties the engine, readers, store and dashboard together."""
