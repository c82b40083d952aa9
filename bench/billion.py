"""A store grown to a billion positions part by part, the corpus generated as it is ingested
(issue 31), and the store measured at the sizes it passes.

A part is ``PART_GAMES`` games of the seeded synthetic corpus (``bench.corpus``, about 4.9M
positions; ``--part-games``), numbered on from the last part's: a part starts at the game after
the last game of the parts before it, so the parts together are one corpus, whatever size each
run gave its parts. Each part is

1. written under ``ROOT/parts/NNNN`` (its files and its ``games.usi``);
2. ingested into ``ROOT/store`` with ``--cluster local:2`` in a child process
   (``bench.store.child_ingest``: time, merges, peak memory of the client, of the largest
   process and of the whole tree);
3. its record files deleted once ingested, unless ``--keep-files`` (its ``games.usi`` stays:
   the positions the measurements look up are drawn from it);

and one JSON line per part goes to ``ROOT/parts.jsonl``. The batches a merge replaced are kept
``GRACE`` seconds (``KIFUDB_SUPERSEDED_GRACE`` in the ingests' environment, unless this
process has it set), not a day: no reader follows
the build, and a day of merges would hold several times the store on disk. The run stops after
the part that reaches ``--positions``, or at ``--until`` (a time of day, ``HH:MM``), or on
Ctrl-C; run it again and it goes on from the last part ingested (a part half ingested is
ingested again: the store converges). ``--measure`` measures the store as it is, and appends to
``ROOT/measures.jsonl``: its positions and bytes a position, search and explorer latency
(``bench.store.measure_layout``'s lookups, positions drawn from the first and the last part),
``kifudb check``'s time, and ``kifudb serve`` under ``bench.serve``'s load with its peak memory.

    python -m bench.billion --root /tmp/billion --positions 1G [--until 21:00]
    python -m bench.billion --root /tmp/billion --measure
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench.serve import KIFUDB
from bench.store import ROOT as REPOSITORY, _child, live_bytes, parse_scale

#: games a part (about 4.9M positions of the synthetic corpus: 123 a game)
PART_GAMES = 40_000
#: seconds the batches a merge replaced are kept while the store grows
GRACE = 600


def parts_done(root: Path) -> list:
    """The lines of ``parts.jsonl``: the parts ingested so far, in order."""
    log = root / "parts.jsonl"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line]


def _append(path: Path, record: dict) -> None:
    with open(path, "a", encoding="utf-8") as stream:
        stream.write(json.dumps(record) + "\n")


def stored_positions(store_dir: Path) -> int:
    """The positions the store's batches hold (their Parquet footers): a part ingested again
    after a failure adds none, and is counted once."""
    import pyarrow.parquet as pq

    from kifudb.store.folder import Store

    return sum(pq.read_metadata(f).num_rows for f in Store(store_dir).table_files("positions"))


def grow(root: Path, positions: int, until=None, keep_files: bool = False, seed: int = 1,
         part_games: int = PART_GAMES) -> None:
    """Make and ingest parts of ``part_games`` games until the store holds ``positions`` or the
    clock says ``until``."""
    from bench.corpus import write_corpus
    from kifudb.store.folder import GRACE_VARIABLE

    environment = {GRACE_VARIABLE: str(GRACE), **os.environ}  # what the ingests' children read
    root.mkdir(parents=True, exist_ok=True)
    done = parts_done(root)
    total = done[-1]["store_positions"] if done else 0
    number, first = len(done), sum(p["games"] for p in done)
    while total < positions and (until is None or datetime.datetime.now() < until):
        part = root / "parts" / f"{number:04d}"
        started = time.perf_counter()
        corpus = write_corpus(part, seed=seed, first=first, count=part_games, quiet=True)
        made = time.perf_counter() - started
        ingest = _child("--child-ingest", part / "files", root / "store", "--jobs", 2,
                        "--cluster", "local:2", env=environment)
        if not keep_files:
            shutil.rmtree(part / "files")
        total = stored_positions(root / "store")
        record = {"part": number, "games": corpus["games"], "positions": corpus["positions"],
                  "generate_s": round(made, 1), **ingest, "store_positions": total,
                  "store_bytes": live_bytes(root / "store"),
                  "at": datetime.datetime.now().isoformat(timespec="seconds")}
        _append(root / "parts.jsonl", record)
        print(f"part {number}: {total:,} positions in the store; ingest "
              f"{ingest['ingest_s']:.0f} s ({ingest['positions_added'] / ingest['ingest_s']:,.0f}"
              f" positions/s, merges {ingest['merge_s']:.0f} s), client peak "
              f"{ingest['ingest_hwm_mb']:.0f} MB, largest process "
              f"{ingest['ingest_process_peak_mb']:.0f} MB, {record['store_bytes'] / total:.2f} "
              f"bytes/position", flush=True)
        number, first = number + 1, first + corpus["games"]


def measure(root: Path, lookups: int = 200, seed: int = 1) -> dict:
    """The store as it is: size, lookups, ``kifudb check``, ``kifudb serve`` (see the module
    doc); appended to ``measures.jsonl`` and returned."""
    from bench.corpus import load_games
    from bench.serve import run_serve
    from bench.store import measure_layout, pick_misses, pick_positions

    store_dir = root / "store"
    done = parts_done(root)
    if not done:
        raise SystemExit(f"{root}: no part ingested yet (no {root / 'parts.jsonl'}): "
                         f"grow the store first (python -m bench.billion --root {root})")
    games = load_games(root / "parts" / "0000") + load_games(
        root / "parts" / f"{done[-1]['part']:04d}")
    hits = pick_positions(games, seed * 31 + 1, lookups)
    openings = pick_positions(games, seed * 31 + 2, lookups, max_ply=12)
    out = {"store_positions": done[-1]["store_positions"], "parts": len(done),
           "at": datetime.datetime.now().isoformat(timespec="seconds")}
    out["layout"] = measure_layout(store_dir, hits, pick_misses(seed, 5), openings)
    for part in ("search", "positions_lookup", "explore"):
        out["layout"][part].pop("counts", None)
    started = time.perf_counter()
    checked = subprocess.run([str(KIFUDB), "check", "--store", str(store_dir)],
                             capture_output=True, text=True, cwd=REPOSITORY)
    out["check_s"] = round(time.perf_counter() - started, 1)
    out["check"] = (checked.returncode, checked.stdout.strip().splitlines()[-1:])
    out["serve"] = run_serve(store_dir, requests=200, games=games)
    _append(root / "measures.jsonl", out)
    layout, n = out["layout"], out["store_positions"]
    print(f"{n:,} positions: {layout['store_bytes'] / n:.2f} bytes/position; search p50 {layout['search']['median_ms']:.1f} ms p99 "
          f"{layout['search']['p99_bounded_ms']:.1f} ms; explorer p50 "
          f"{layout['explore']['median_ms']:.1f} ms p99 {layout['explore']['p99_bounded_ms']:.1f}"
          f" ms; kifudb check {out['check_s']} s; serve peak {out['serve']['server']['hwm_mb']:.0f}"
          f" MB (its own {out['serve']['server']['own_peak_mb']:.0f} MB)")
    return out


def _games(text: str) -> int:
    """``--part-games``: a whole number of games, at least one."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give how many games a part holds (1 or more)")
    return int(text)


def _until(text: str):
    hours, minutes = map(int, text.split(":"))
    now = datetime.datetime.now()
    moment = now.replace(hour=hours, minute=minutes, second=0, microsecond=0)
    return moment if moment > now else moment + datetime.timedelta(days=1)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.billion",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, required=True, help="its parts, store and logs")
    parser.add_argument("--positions", default="1G", help="grow the store to this many")
    parser.add_argument("--until", type=_until, help="start no part after HH:MM")
    parser.add_argument("--keep-files", action="store_true", help="keep the parts' record files")
    parser.add_argument("--part-games", type=_games, default=PART_GAMES, help="games a part")
    parser.add_argument("--measure", action="store_true", help="measure the store as it is")
    args = parser.parse_args(argv)
    if args.measure:
        measure(args.root)
    else:
        grow(args.root, parse_scale(args.positions), args.until, args.keep_files,
             part_games=args.part_games)
    return 0


if __name__ == "__main__":
    sys.exit(main())
