# The two commands of the README: `make demo` (the main job: ingest the samples, open the
# dashboard) and `make test` (the whole suite); `make test-fast` leaves out the slow tests.
# Each creates .venv with the project and its dev extras when it is missing or out of date.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test test-fast bench clean chromium

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/kifudb replay data/samples/games.usi
	rm -rf data/store  # the demo store is made from the samples anew, in the current format
	$(BIN)/kifudb ingest data/samples --store data/store
	$(BIN)/kifudb explore --store data/store
	$(BIN)/kifudb dashboard --store data/store

# the dashboard's end-to-end test drives Debian's chromium (Playwright cannot download browsers),
# with a Japanese font so that its screenshots show the pieces' names
chromium:
	(command -v chromium >/dev/null && fc-list :lang=ja | grep -q .) \
	  || $(SUDO) apt-get install -y chromium fonts-noto-cjk \
	  || ($(SUDO) apt-get update && $(SUDO) apt-get install -y chromium fonts-noto-cjk)

test: $(STAMP) chromium
	$(BIN)/python -m pytest

# the quick loop: everything but the tests marked slow (the browser, the differential tests
# against cshogi, the killed ingests; see `markers` in pyproject.toml)
test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not slow"

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
