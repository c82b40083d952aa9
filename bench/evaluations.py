"""What the engines' evaluations cost when records are read for the store (``lines=True``: the
evaluations, their PVs replayed to USI, the engines), on the engine logs of
``tests/fixtures/evaluations``, beside the same reading without them; reading to validate
(``kifudb validate``, ``python -m bench --only ingest``) does not read them at all.

    python -m bench.evaluations [--runs 9]

Figures are CPU seconds (``time.process_time``: the machine is shared), the best of the runs,
interleaved.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from kifudb.ingest import pipeline
from kifudb.ingest.pipeline import read_data

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "tests" / "fixtures" / "evaluations"


def _read_all(files: list) -> tuple:
    started = time.process_time()
    moves = evaluated = 0
    for data, path in files:
        for game in read_data(data, path, lines=True).games:
            moves += game.moves
            evaluated += len(game.evaluations)
    return time.process_time() - started, moves, evaluated


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    runs = parser.parse_args(argv).runs
    files = [(p.read_bytes(), str(p)) for p in sorted(LOGS.iterdir()) if p.suffix != ".md"]
    evaluate = pipeline._evaluate
    times: dict = {"with": [], "without": []}
    evaluated = 0
    _read_all(files)  # warm up
    try:
        for _ in range(runs):
            for name in times:
                pipeline._evaluate = evaluate if name == "with" else (lambda *args: None)
                seconds, moves, found = _read_all(files)
                times[name].append(seconds)
                evaluated = found if name == "with" else evaluated
    finally:
        pipeline._evaluate = evaluate
    with_, without = min(times["with"]), min(times["without"])
    print(f"{len(files)} engine logs, {moves:,} moves ({evaluated:,} evaluated), read for the "
          f"store: {moves / with_:,.0f} moves/s with their evaluations, {moves / without:,.0f} "
          f"without: {with_ / without:.2f}x the time (best of {runs})")


if __name__ == "__main__":
    main()
