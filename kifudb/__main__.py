"""``python -m kifudb`` runs the command line."""
from kifudb.cli import main

main()
