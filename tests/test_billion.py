"""``bench.billion``: the store grown part by part (issue 31), on parts of a few games.

Each part is ingested with ``--cluster local:2`` in a child process, as at a billion positions;
the parts together are one corpus, a run goes on from the last part ingested, and ``--measure``
says so when there is no store to measure yet."""

import json

from bench import billion
from bench.corpus import write_corpus

PART = 30


def test_parts_make_one_corpus_and_a_second_run_goes_on_from_the_last(tmp_path):
    root = tmp_path / "grown"
    billion.grow(root, positions=1, part_games=PART)  # one part reaches one position
    first = billion.parts_done(root)
    assert [p["part"] for p in first] == [0]
    billion.grow(root, positions=first[-1]["store_positions"] + 1, part_games=PART)
    parts = billion.parts_done(root)
    assert [p["part"] for p in parts] == [0, 1]
    assert parts[0] == first[0]  # the first part is not made again

    # part k is games k * PART onwards of the one seeded corpus
    whole = write_corpus(tmp_path / "whole", seed=1, count=2 * PART, quiet=True)
    grown = "".join((root / "parts" / f"{k:04d}" / "games.usi").read_text() for k in (0, 1))
    assert grown == (tmp_path / "whole" / "games.usi").read_text()

    # every part ingested whole, its record files deleted once ingested
    assert [p["games_added"] for p in parts] == [PART, PART]
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
