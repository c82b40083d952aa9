"""``bench.billion``: the store grown part by part (issue 31), on parts of a few games.

Each part is ingested with ``--cluster local:2`` in a child process, as at a billion positions;
the parts together are one corpus, a run goes on from the last part ingested, and ``--measure``
says so when there is no store to measure yet."""

import json
import os

import pytest

from bench import billion
from bench.corpus import write_corpus
from kifudb.store.folder import GRACE_VARIABLE

PART, SMALLER = 30, 20


def test_parts_make_one_corpus_and_a_second_run_goes_on_from_the_last(tmp_path):
    root = tmp_path / "grown"
    billion.grow(root, positions=1, part_games=PART)  # one part reaches one position
    first = billion.parts_done(root)
    assert [p["part"] for p in first] == [0]
    assert GRACE_VARIABLE not in os.environ  # given to the ingests, not left in this process
    # the second run's parts are smaller: they go on from the last game all the same
    billion.grow(root, positions=first[-1]["store_positions"] + 1, part_games=SMALLER)
    parts = billion.parts_done(root)
    assert [p["part"] for p in parts] == [0, 1]
    assert parts[0] == first[0]  # the first part is not made again

    # the parts are the games of the one seeded corpus, in order
    whole = write_corpus(tmp_path / "whole", seed=1, count=PART + SMALLER, quiet=True)
    grown = "".join((root / "parts" / f"{k:04d}" / "games.usi").read_text() for k in (0, 1))
    assert grown == (tmp_path / "whole" / "games.usi").read_text()

    # every part ingested whole, its record files deleted once ingested
    assert [p["games_added"] for p in parts] == [PART, SMALLER]
    assert parts[-1]["store_positions"] == whole["positions"] \
        == billion.stored_positions(root / "store")
    assert not (root / "parts" / "0000" / "files").exists()
    assert all(p["ingest_hwm_mb"] > 0 and p["store_bytes"] > 0 for p in parts)
    lines = (root / "parts.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in lines] == parts


def test_measure_says_when_no_part_was_ingested(tmp_path):
    try:
        billion.measure(tmp_path / "empty")
    except SystemExit as stop:
        assert "no part ingested yet" in str(stop) and "bench.billion" in str(stop)
    else:
        raise AssertionError("measure ran on no store")


@pytest.mark.parametrize("given", ["0", "-5", "many"])
def test_a_part_of_no_games_is_refused_before_anything_runs(tmp_path, given, capsys):
    with pytest.raises(SystemExit):
        billion.main(["--root", str(tmp_path / "grown"), "--part-games", given])
    assert f"--part-games: {given!r}: give how many games a part holds (1 or more)" \
        in capsys.readouterr().err
    assert not (tmp_path / "grown").exists()
