"""kifudb's interpreted engine beside its compiled build, in the same benchmark run.

One process cannot hold both builds, so ``timed`` runs a measurement in a fresh process with
``KIFUDB_PURE=1`` (``core/_native.py``: the ``.py`` files, not the compiled modules) and reads
back ``positions seconds``::

    python -m bench.interpreted NAME PATH RUNS   # NAME: game, position or perft5

``game`` and ``position`` replay the USI games of PATH as ``bench.__main__``'s
``replay_kifudb`` and ``replay_kifudb_position`` do (one warm-up, the median of RUNS);
``perft5`` counts perft(5) from the start once (PATH unused).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from kifudb.core import _native

ROOT = Path(__file__).resolve().parent.parent


def compiled() -> bool:
    """True when this process runs the compiled build (so an interpreted row says something)."""
    return _native.status().startswith("compiled")


def timed(name: str, path: Path, runs: int) -> tuple:
    """``(positions, seconds)`` of ``name`` measured in a fresh, interpreted process."""
    env = dict(os.environ, **{_native.PURE_VARIABLE: "1"})
    done = subprocess.run([sys.executable, "-m", "bench.interpreted", name, str(path), str(runs)],
                          check=True, capture_output=True, text=True, cwd=ROOT, env=env)
    n, seconds = done.stdout.split()
    return int(n), float(seconds)


def _measure_here(name: str, path: str, runs: int) -> None:
    import time

    from bench.__main__ import measure, replay_kifudb, replay_kifudb_position
    from bench.others import load_usi
    from kifudb.core import Position, perft

    assert not compiled(), _native.status()
    if name == "perft5":
        started = time.perf_counter()
        nodes = perft(Position(), 5)
        print(nodes, time.perf_counter() - started)
        return
    function = {"game": replay_kifudb, "position": replay_kifudb_position}[name]
    n, seconds = measure(function, load_usi(Path(path)), runs)
    print(n, seconds)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: python -m bench.interpreted game|position|perft5 PATH RUNS")
    _measure_here(sys.argv[1], sys.argv[2], int(sys.argv[3]))
