"""How many of the labels human commentators name does kifudb find? Recall per kind (castle,
opening, technique, note), by name and side, on the reference games of
``bench/reference/commentary_tags.tsv`` (real games of the corpus whose commentary or ``戦型``
header names what a side played; the file's header says how it was made)::

    python -m bench.recall [CORPUS_DIR] [--reference TSV] [--definitions DIR]

``CORPUS_DIR`` is the folder the TSV's paths are relative to (``../shared/corpus`` by default;
``tests/fixtures/records`` holds the commentated games under the same paths). An assertion is
found when kifudb gives that side a label of that name (aliases resolved) or one of its kinds
below it in the family tree (the commentary says 美濃囲い, we say 高美濃囲い: found "by
family", counted apart). A castle, an opening or a note counts at whatever ply we reach it; a technique, which
recurs, only at the commented move (within ``TECHNIQUE_PLIES``). For each kind the run prints
the assertions, what was found, the recall, the distance from the comment's ply to ours on the
hits (medians; a header names no ply), and every miss with the labels we gave that side of that
kind; names we lack (kind ``unknown``) are listed apart and count in no recall. ``--definitions
DIR`` labels with the five definition files of DIR instead (a copy of ``labels/*.toml`` with a
change to try: the run says what it would find).

    >>> recall("/no/such/corpus")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bench.recall.CorpusMissing: corpus directory /no/such/corpus not found: give the folder ...
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any, NamedTuple, Optional

#: The reference assertions (a file of this repository).
REFERENCE = Path(__file__).with_name("reference") / "commentary_tags.tsv"
DEFAULT_CORPUS = "../shared/corpus"
#: The kinds of label, as ``LabelInfo.kind`` names them, and the ``SideLabels`` list of each.
KINDS = {"castle": "castles", "opening": "openings", "technique": "techniques", "note": "notes"}
UNKNOWN = "unknown"
#: How far (plies) a technique kifudb finds may be from the commented move and still be the one
#: the comment names (a comment often follows the move after it).
TECHNIQUE_PLIES = 2
COLUMNS = ("file", "game", "side", "kind", "name", "ply", "quote", "why")


class CorpusMissing(FileNotFoundError):
    """The corpus folder (or a file the reference names in it) is not there."""


class Assertion(NamedTuple):
    """One row of the reference: a side of a game played ``name`` (a label of ``kind``), as a
    comment at ``ply`` (None: a header) says in ``quote``."""

    file: str
    game: int
    side: str
    kind: str
    name: str
    ply: Optional[int]
    quote: str
    why: str
    line: int  # of the TSV, for messages

    def where(self) -> str:
        at = "header" if self.ply is None else f"ply {self.ply}"
        return f"{self.file}#{self.game} {self.side} {at}"


def read_assertions(text: str, source: str = "reference") -> list:
    """The assertions of a reference TSV's text (``#`` lines are comments, the first other line
    names the columns); ``ValueError`` saying the line and why for a malformed row.

    >>> rows = read_assertions("# a comment\\n" + "\\t".join(COLUMNS) + "\\n"
    ...     "g.kif\\t0\\tblack\\topening\\t棒銀\\t15\\t棒銀を採用した\\tBlack's choice\\n")
    >>> rows[0].name, rows[0].ply, rows[0].where()
    ('棒銀', 15, 'g.kif#0 black ply 15')
    >>> read_assertions("\\t".join(COLUMNS) + "\\ng.kif\\t0\\tsente\\topening\\t棒銀\\t15\\tq\\tw\\n")
    Traceback (most recent call last):
    ...
    ValueError: reference line 2: side must be black or white, not 'sente'
    """
    out: list[Assertion] = []
    header_seen = False
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if not header_seen:
            if tuple(cells) != COLUMNS:
                raise ValueError(f"{source} line {number}: the columns must be "
                                 f"{' '.join(COLUMNS)}, not {' '.join(cells)}")
            header_seen = True
            continue
        if len(cells) != len(COLUMNS):
            raise ValueError(f"{source} line {number}: {len(cells)} columns, not {len(COLUMNS)}")
        file, game, side, kind, name, ply, quote, why = cells
        if side not in ("black", "white"):
            raise ValueError(f"{source} line {number}: side must be black or white, not {side!r}")
        if kind not in KINDS and kind != UNKNOWN:
            raise ValueError(f"{source} line {number}: kind must be one of "
                             f"{', '.join([*KINDS, UNKNOWN])}, not {kind!r}")
        if not (game.isdigit() and (ply == "-" or ply.isdigit())):
            raise ValueError(f"{source} line {number}: game must be a number and ply a number "
                             f"or '-', not {game!r} and {ply!r}")
        out.append(Assertion(file, int(game), side, kind, name,
                             None if ply == "-" else int(ply), quote, why, number))
    if not out:
        raise ValueError(f"{source}: no assertion in it")
    return out


def _canonical(row: Assertion, defs) -> str:
    """The definitions' name of ``row.name`` (aliases resolved), checked against its kind."""
    from kifudb.analytics.names import label_name

    try:
        name = label_name(row.name)
    except ValueError as error:
        raise ValueError(f"reference line {row.line}: {error}") from None
    if defs[name].kind != row.kind:
        raise ValueError(f"reference line {row.line}: {row.name} is a {defs[name].kind}, "
                         f"not a {row.kind}")
    return name


def recall(corpus=DEFAULT_CORPUS, reference=REFERENCE, defs=None) -> dict:
    """Compare the reference's assertions with kifudb's labels of the games of ``corpus``.

    Returns ``{"corpus", "games", "assertions", "kinds": {kind: {...}}, "all": {...},
    "unknown": [Assertion]}``; each kind's entry holds ``assertions``, ``found``, ``by_name``,
    ``by_family``, ``recall`` (None without assertions), ``ply_offsets`` (ours minus the
    comment's, on the hits with a ply), ``median_offset``, ``median_distance``, ``hits`` (rows of
    ``(Assertion, our name, our ply)``) and ``misses`` (rows of ``(Assertion, [our labels of that
    side and kind as (name, ply)])``); ``all`` sums the kinds. ``CorpusMissing`` when the folder
    or one of its files is not there. ``defs`` (``labels.classify.Definitions``) labels the games
    with other definitions than the project's, to try a change of them before making it."""
    from kifudb.core.move import code_move
    from kifudb.ingest.pipeline import read_file
    from kifudb.labels.classify import classify_game, definitions

    root = Path(corpus)
    if not root.is_dir():
        raise CorpusMissing(f"corpus directory {corpus} not found: give the folder the "
                            "reference's paths are relative to (python -m bench.recall "
                            "CORPUS_DIR)")
    rows = read_assertions(Path(reference).read_text(encoding="utf-8"), str(reference))
    given, defs = defs, defs or definitions()
    files: dict = {}
    kinds: dict[str, dict[str, Any]] = {
        kind: {"assertions": 0, "found": 0, "by_name": 0, "by_family": 0, "hits": [],
               "misses": [], "ply_offsets": []} for kind in KINDS}
    unknown: list[Assertion] = []
    for row in rows:
        path = root / row.file
        if row.file not in files:
            if not path.is_file():
                raise CorpusMissing(f"{path}: not found (reference line {row.line}): is "
                                    f"{corpus} the corpus folder?")
            files[row.file] = read_file(path, labels=given is None)
            if given is not None:
                for game in files[row.file].games:
                    game.labels = classify_game(game.start_sfen,
                                                map(code_move, game.move_codes), given)
        games = files[row.file].games
        if row.game >= len(games) or games[row.game].labels is None:
            raise ValueError(f"reference line {row.line}: {row.file} has no game "
                             f"{row.game} with labels ({len(games)} games)")
        if row.kind == UNKNOWN:
            unknown.append(row)
            continue
        name = _canonical(row, defs)
        ours = getattr(getattr(games[row.game].labels, row.side), KINDS[row.kind])
        entry = kinds[row.kind]
        entry["assertions"] += 1
        family = defs.descendants(name)
        if row.kind == "technique" and row.ply is not None:
            # a technique recurs: only an occurrence at the commented move counts
            near = [r for r in ours if abs(r.ply - row.ply) <= TECHNIQUE_PLIES]
        else:
            near = ours
        same = [r for r in near if r.name == name]
        kin = [r for r in near if r.name in family and r.name != name]
        if not (same or kin):
            entry["misses"].append((row, [(r.name, r.ply) for r in ours]))
            continue
        entry["found"] += 1
        entry["by_name" if same else "by_family"] += 1
        matched = same or kin
        best = min(matched, key=lambda r: abs(r.ply - row.ply)) if row.ply is not None \
            else matched[0]
        entry["hits"].append((row, best.name, best.ply))
        if row.ply is not None:
            entry["ply_offsets"].append(best.ply - row.ply)
    for entry in kinds.values():
        _summarise(entry)
    total: dict[str, Any] = {key: sum(e[key] for e in kinds.values())
                             for key in ("assertions", "found", "by_name", "by_family")}
    for key in ("hits", "misses", "ply_offsets"):
        total[key] = [one for e in kinds.values() for one in e[key]]
    _summarise(total)
    return {"corpus": str(corpus), "games": sum(len(f.games) for f in files.values()),
            "files": len(files), "assertions": len(rows), "kinds": kinds, "all": total,
            "unknown": unknown}


def _summarise(entry: dict) -> None:
    entry["recall"] = entry["found"] / entry["assertions"] if entry["assertions"] else None
    offsets = entry["ply_offsets"]
    entry["median_offset"] = statistics.median(offsets) if offsets else None
    entry["median_distance"] = statistics.median(map(abs, offsets)) if offsets else None


def report(found: dict) -> str:
    """The text ``python -m bench.recall`` prints."""
    lines = [f"reference: {found['assertions']} assertions on {found['files']} files "
             f"({found['games']} games) of {found['corpus']}",
             f"{'kind':<10} {'assertions':>10} {'found':>6} {'by name':>8} {'by family':>10} "
             f"{'recall':>7}  ply: ours - comment (median, median |d|, n)"]
    for kind, entry in [*found["kinds"].items(), ("all", found["all"])]:
        share = "-" if entry["recall"] is None else f"{entry['recall']:.0%}"
        plies = ("-" if entry["median_offset"] is None else
                 f"{entry['median_offset']:+g}, {entry['median_distance']:g}, "
                 f"{len(entry['ply_offsets'])}")
        lines.append(f"{kind:<10} {entry['assertions']:>10} {entry['found']:>6} "
                     f"{entry['by_name']:>8} {entry['by_family']:>10} {share:>7}  {plies}")
    for kind, entry in found["kinds"].items():
        for row, ours in entry["misses"]:
            said = ", ".join(f"{n}@{p}" for n, p in ours) or "none"
            lines.append(f"miss {kind} {row.name} — {row.where()} «{row.quote}»; "
                         f"ours ({kind}s of {row.side}): {said}")
    for kind, entry in found["kinds"].items():
        for row, name, ply in entry["hits"]:
            if name != row.name:
                lines.append(f"by family {kind} {row.name} as {name}@{ply} — {row.where()}")
    if found["unknown"]:
        for row in found["unknown"]:
            lines.append(f"vocabulary miss (a name we lack): {row.name} — {row.where()} "
                         f"«{row.quote}»")
    else:
        lines.append("no vocabulary miss (every name is one of ours)")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recall", description=__doc__.split(
        "\n\n")[0])
    parser.add_argument("corpus", nargs="?", default=DEFAULT_CORPUS)
    parser.add_argument("--reference", default=str(REFERENCE))
    parser.add_argument("--definitions", metavar="DIR", help="a folder holding labels.toml, "
                        "castles.toml, openings.toml, techniques.toml and notes.toml to label "
                        "with instead of the project's (to try a change of them)")
    args = parser.parse_args(argv)
    try:
        defs = None
        if args.definitions:
            from kifudb.labels.classify import DEFINITION_FILES, load_definitions
            defs = load_definitions([Path(args.definitions) / Path(f).name
                                     for f in DEFINITION_FILES])
        found = recall(args.corpus, args.reference, defs)
    except (OSError, ValueError) as error:
        print(f"python -m bench.recall: {error}", file=sys.stderr)
        return 2
    print(report(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
