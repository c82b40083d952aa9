"""Is the board's bundle (``web-build/``) made from the sources of ``web-src/`` as they are now?
``web-src/build.mjs`` writes ``web-build/sources.json``, the SHA-256 of each source it built from;
``make shogiboard`` runs this check (standard library only: no environment needed) and builds
again (``npm ci``, ``npm run build``) only when a source changed or the bundle is missing.

    python3 dashboard/shogiboard/build.py   # exit 0: current; 1: what changed is printed

>>> stale(Path("/nonexistent"))
['web-build/sources.json']
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: What the board's page loads (``index.html`` names the other two).
BUNDLE = ("index.html", "shogiboard.js", "shogiboard.css", "LICENSE-shogiground.txt")


def sources(web_src: Path) -> list:
    """The files the bundle is built from, as ``build.mjs`` lists them."""
    return ["package.json", "package-lock.json", "build.mjs",
            *sorted(f"src/{p.name}" for p in (web_src / "src").iterdir() if p.is_file())]


def stale(root: Path = HERE) -> list:
    """What is missing or changed since the bundle in ``root/web-build`` was made (empty: it is
    current)."""
    record = root / "web-build" / "sources.json"
    if not record.is_file():
        return ["web-build/sources.json"]
    built = json.loads(record.read_text(encoding="utf-8"))
    web_src = root / "web-src"
    changed = [f"web-build/{name}" for name in BUNDLE
               if not (root / "web-build" / name).is_file()]
    for name in sources(web_src):
        path = web_src / name
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
        if built.get(name) != digest:
            changed.append(f"web-src/{name}")
    changed += [f"web-src/{name} (gone)" for name in built if name not in sources(web_src)]
    return changed


def main() -> int:
    changed = stale()
    if changed:
        print(f"the board's bundle is out of date ({', '.join(changed)}): building it")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
