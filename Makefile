# The two commands of the README: `make demo` (the main job: ingest the samples, open the
# dashboard) and `make test` (the whole suite); `make test-fast` leaves out the slow tests.
# Each creates .venv with the project and its dev extras when it is missing or out of date,
# and compiles the engine (core/: rules, keys, the notations' move parsers) and the hot readers
# (ingest/: KIF, CSA, the record builder, the replay) with mypyc when a C compiler is there
# (`native`).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# the modules core/_native.py lists, compiled in place (tools/build_native.py); the build record
# holds the SHA-256 of each source compiled
NATIVE := core/compiled.json

.PHONY: demo test test-fast test-pure native bench clean chromium engines shogiboard

$(STAMP): pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# compile again whenever a source may have changed; without a C compiler, one line says so and
# the interpreted source runs
$(NATIVE): $(STAMP) tools/build_native.py $(wildcard core/*.py core/notation/*.py ingest/*.py labels/*.py)
	$(BIN)/python tools/build_native.py

native: $(NATIVE)

# the dashboard's board (lishogi's shogiground as a Streamlit component): its bundle in
# dashboard/shogiboard/web-build/ is made from web-src/ (npm ci + esbuild) only when a source
# changed since it was built (build.py compares the SHA-256 recorded in web-build/sources.json)
BOARD := dashboard/shogiboard
SHOGIBOARD := $(BOARD)/web-build/sources.json
$(SHOGIBOARD): $(wildcard $(BOARD)/web-src/src/*) $(BOARD)/web-src/package.json \
		$(BOARD)/web-src/package-lock.json $(BOARD)/web-src/build.mjs $(BOARD)/build.py
	$(PYTHON) $(BOARD)/build.py \
	  || (cd $(BOARD)/web-src && npm ci --ignore-scripts --no-audit --no-fund \
	      && npm run --silent build)
	touch $@

shogiboard: $(SHOGIBOARD)

demo: $(STAMP) native shogiboard
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

# the USI engines that analyse the store in the tests and benchmarks (kifudb analyse): Debian's
# fairy-stockfish and gpsshogi's gpsusi, in /usr/games

engines:
	(test -x /usr/games/fairy-stockfish && test -x /usr/games/gpsusi) \
	  || $(SUDO) apt-get install -y fairy-stockfish gpsshogi \
	  || ($(SUDO) apt-get update && $(SUDO) apt-get install -y fairy-stockfish gpsshogi)

# the whole suite on the compiled build, then the engine's and readers' tests interpreted
test: $(STAMP) chromium engines native shogiboard
	$(BIN)/python -m pytest
	$(MAKE) --no-print-directory test-pure

# the interpreted source (KIFUDB_PURE: core/_native.py loads the .py files, not the compiled
# modules): core's and the readers' doctests and tests
PURE_TESTS := core ingest tests/test_rules.py tests/test_position.py tests/test_game.py \
	tests/test_notation.py tests/test_svg.py tests/test_native.py tests/test_validate.py \
	tests/test_decode.py tests/test_builder.py $(wildcard tests/test_ingest_*.py) \
	tests/test_dialects.py tests/test_evaluation.py tests/test_roundtrip.py \
	tests/test_replay_scale.py tests/test_hostile_input.py
test-pure: $(STAMP)
	KIFUDB_PURE=1 $(BIN)/python -m pytest -q $(PURE_TESTS)

# the quick loop: everything but the tests marked slow (the browser, the differential tests
# against cshogi, the killed ingests; see `markers` in pyproject.toml)
test-fast: $(STAMP) engines native shogiboard
	$(BIN)/python -m pytest -m "not slow"

bench: $(STAMP) engines native
	$(BIN)/python -m bench

clean:
	test ! -x $(BIN)/python || $(BIN)/python tools/build_native.py --clean
	rm -rf $(VENV) .pytest_cache build *.egg-info
