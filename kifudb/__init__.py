"""The ``kifudb`` command line (``kifudb.cli``): the door that ties the readers (``ingest``), the
store (``store``) and the questions (``analytics``) together; Click code only."""
