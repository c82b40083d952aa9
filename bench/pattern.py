"""Pattern search at scale: the time of ``kifudb pattern``'s query on a store (the placements
design, ``analytics.pattern.find_pattern``) for patterns of different selectivity, beside the
other design measured on the same store: replaying every game and testing each position
(``find_by_replay``), and what the placements cost on disk.

For each pattern: the median of ``repeats`` runs of the whole answer (the count, the first page
of 50 games, what was played next), after one run that warms the engine and the OS file cache;
then the p50 and max over the patterns. The replay design is timed on ``--replay N`` patterns
(it costs the same for any pattern: every position is replayed and tested), and both answers
are compared. Sizes: the bytes of the placements and of the whole live store, per position.

    python -m bench.pattern STORE [--repeats 3] [--replay 1]
    python -m bench --only pattern --store-scale 10M   # on the store bench.store builds
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

#: patterns of different selectivity, with their options: a castle, a file, hands, material,
#: empty squares and negations, promotions, an opening window, and the mirror/exchange forms
PATTERNS = [
    ("▲玉88 ▲金78 ▲銀77", {}),
    ("△飛2*", {"max_ply": 40}),
    ("▲持角 △持角", {}),
    ("▲飛=2 △飛=0", {}),
    ("△持なし ▲持歩3", {}),
    ("・55 !▲歩77", {"max_ply": 30}),
    ("▲と** △と**", {}),
    ("▲玉59 ▲飛28", {"max_ply": 20, "turn": "black"}),
    ("▲玉28", {"mirror": True, "either_side": True}),
    ("▲馬55", {}),
]


def _positions(store) -> int:
    from kifudb.store.folder import Store

    root = Store(store)
    return sum(root.batch_positions(b) for b in root.manifest()["batches"])


def _bytes(store, table: str = None) -> int:
    from kifudb.store.folder import Store

    root = Store(store)
    if table is not None:
        return sum(Path(f).stat().st_size for f in root.table_files(table))
    return sum(f.stat().st_size for b in root.manifest()["batches"]
               for f in root.batch_dir(b).iterdir())


def run_pattern(store, repeats: int = 3, replay: int = 1) -> dict:
    from kifudb.analytics.pattern import PatternSearch, find_by_replay, find_pattern

    positions = _positions(store)
    rows = []
    for text, options in PATTERNS:
        search = PatternSearch.of(text, **options)
        find_pattern(store, search, limit=50)  # the engine built, the files' pages cached
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            found = find_pattern(store, search, limit=50)
            times.append(time.perf_counter() - started)
        rows.append({"pattern": search.text(), "games": found["games"],
                     "seconds": statistics.median(times)})
    replays = []
    for text, options in PATTERNS[:replay]:
        search = PatternSearch.of(text, **options)
        started = time.perf_counter()
        expected = find_by_replay(store, search)
        seconds = time.perf_counter() - started
        found = find_pattern(store, search)
        same = {m["game"]: (m["ply"], m["plies"]) for m in found["matches"]} == expected
        replays.append({"pattern": search.text(), "seconds": seconds, "same": same})
    seconds = [r["seconds"] for r in rows]
    return {"positions": positions, "patterns": rows, "p50": statistics.median(seconds),
            "max": max(seconds), "replay": replays,
            "placements_bytes_per_position": _bytes(store, "placements") / positions,
            "store_bytes_per_position": _bytes(store) / positions}


def render(result: dict) -> str:
    lines = [f"pattern search on {result['positions']:,} positions "
             f"(median of the runs of each pattern):", ""]
    lines.append(f"| pattern | games | placements design |")
    lines.append("|---|---|---|")
    for row in result["patterns"]:
        lines.append(f"| `{row['pattern']}` | {row['games']:,} | {row['seconds'] * 1000:,.0f} ms |")
    lines.append(f"| **p50 / max** | | **{result['p50'] * 1000:,.0f} ms** / "
                 f"{result['max'] * 1000:,.0f} ms |")
    for row in result["replay"]:
        lines.append(f"\nreplay design (every game replayed, each position tested), "
                     f"`{row['pattern']}`: {row['seconds']:,.1f} s "
                     f"({row['seconds'] / max(result['p50'], 1e-9):,.0f}× the placements' p50; "
                     f"same answer: {'yes' if row['same'] else 'NO'})")
    lines.append(f"\nplacements: {result['placements_bytes_per_position']:.2f} B/pos; "
                 f"whole store: {result['store_bytes_per_position']:.2f} B/pos")
    return "\n".join(lines)


def run_patterns(scales=("100k",), repeats: int = 3) -> dict:
    """``run_pattern`` on the store of each of ``scales`` (``python -m bench --only pattern``)."""
    from bench.store import built_store, parse_scale, scale_name

    result = {}
    for scale in scales:
        n = parse_scale(scale) if isinstance(scale, str) else scale
        found = run_pattern(built_store(n), repeats)
        print(f"\n## pattern search at {scale_name(n)} positions\n\n{render(found)}", flush=True)
        result[scale_name(n)] = found
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.pattern", description=__doc__)
    parser.add_argument("store")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--replay", type=int, default=1,
                        help="patterns answered by the replay design too (0: none)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    result = run_pattern(args.store, args.repeats, args.replay)
    print(render(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
