"""Store schema and queries, opening and castle classifiers, statistics (built in later issues)."""
