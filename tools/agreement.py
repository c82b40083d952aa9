"""Compare kifudb's reading of every record file under some folders with independent readers
(cshogi, python-shogi, rsshogi: ``tests/independent_readers.py``), and count the games that
agree, that differ with a finding saying why, and that disagree (listed).

    .venv/bin/python tools/agreement.py [FOLDER …]     # default: ../shared/corpus

Dev-only (the readers are development dependencies); ``tests/test_agreement.py`` holds the same
check over ``tests/fixtures``.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from independent_readers import file_agreement  # noqa: E402
from kifudb.ingest.read import record_files  # noqa: E402


def main(argv: list) -> int:
    folders = argv or [str(ROOT.parent / "shared" / "corpus")]
    counts: Counter = Counter()
    by_format: Counter = Counter()
    left = []
    for path in record_files(folders):
        fmt, games = file_agreement(path)
        for game in games:
            counts[game.verdict] += 1
            by_format[fmt, game.verdict] += 1
            if game.verdict != "agrees":
                left.append(game)
    for game in left:
        print(f"{game.verdict:10} {game.path} #{game.index}: {game.why}")
    total = sum(counts.values())
    print(f"\n{total} games: {counts['agrees']} agree, {counts['explained']} differ with a "
          f"finding that says why, {counts['disagrees']} disagree")
    for fmt in sorted({f for f, _ in by_format}, key=str):
        print(f"  {fmt}: " + ", ".join(f"{v} {by_format[fmt, v]}" for v in
                                       ("agrees", "explained", "unverified", "disagrees")))
    return 1 if counts["disagrees"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
