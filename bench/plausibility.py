"""Are the labels plausible on real games? Tags per game of each kind, and the sides that hold
contradictory ones (居飛車 and 振り飛車 at once, 急戦 and 持久戦, two labels of one group), on the
even games of at least ``--min-moves`` moves of some record files::

    python -m bench.plausibility ../shared/corpus [--min-moves 40]
"""

from __future__ import annotations

import argparse
import collections

KINDS = ("castles", "openings", "techniques", "notes")
#: Pairs a side should not hold together (the first is documented: a rook that ranges after a
#: static-rook start reaches both).
CONTRARY = (("居飛車", "振り飛車"), ("急戦", "持久戦"))


def plausibility(paths: list, min_moves: int = 40) -> dict:
    """``games``, ``sides``, ``per_game`` (labels a game, by kind) and ``contradictions``
    (sides, by what they hold) of the even games of ``paths`` of ``min_moves`` moves or more."""
    from kifudb.cli_paths import given_files
    from kifudb.ingest.pipeline import read_file
    from kifudb.labels.classify import definitions

    known = definitions()
    per_kind: collections.Counter = collections.Counter()
    contradictions: collections.Counter = collections.Counter()
    games = sides = 0
    for path in given_files(paths):
        for game in read_file(path, labels=True).games:
            if game.labels is None or game.moves < min_moves or game.headers.get(
                    "handicap") not in (None, "平手"):
                continue
            games += 1
            for side in (game.labels.black, game.labels.white):
                sides += 1
                names = {r.name for kind in KINDS for r in getattr(side, kind)}
                per_kind.update({kind: len(getattr(side, kind)) for kind in KINDS})
                for one, other in CONTRARY:
                    if {one, other} <= names:
                        contradictions[f"{one} and {other}"] += 1
                groups = collections.Counter(known[n].group for n in names if known[n].group)
                if any(count > 1 for count in groups.values()):
                    contradictions["two labels of one group"] += 1
    return {"games": games, "sides": sides,
            "per_game": {kind: per_kind[kind] / games if games else 0.0 for kind in KINDS},
            "contradictions": dict(contradictions)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.plausibility")
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--min-moves", type=int, default=40)
    args = parser.parse_args(argv)
    found = plausibility(args.paths, args.min_moves)
    print(f"{found['games']} games ({found['sides']} sides)")
    for kind, count in found["per_game"].items():
        print(f"{kind}: {count:.1f} a game")
    for what, count in found["contradictions"].items():
        print(f"{what}: {count} sides ({count / found['sides']:.1%})")
    if not found["contradictions"]:
        print("no side holds contradictory labels")


if __name__ == "__main__":
    main()
