# The two commands of the README: `make demo` (the main job) and `make test` (the whole suite).
# Each creates .venv with the project and its dev extras when it is missing or out of date.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/kifudb replay data/samples/games.usi
	$(BIN)/kifudb ingest data/samples --store data/store
	$(BIN)/kifudb explore --store data/store

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
