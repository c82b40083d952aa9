"""bioshogi's tag names (``tests/fixtures/vocabulary/bioshogi_tags.tsv``, names only: see its
``ORIGIN.md``) and kifudb's names for the labels of a kind, for the vocabulary tests."""

from __future__ import annotations

import csv
from pathlib import Path

from kifudb.labels.classify import definitions

VOCABULARY = Path(__file__).resolve().parent / "fixtures" / "vocabulary" / "bioshogi_tags.tsv"


def bioshogi_tags(kind: str | None = None) -> list:
    """The rows (``kind``, ``name``, ``group``, ``parent``, ``aliases``) of bioshogi's tags, of
    one kind (castle, opening, technique, note) or all."""
    with VOCABULARY.open(encoding="utf-8", newline="") as handle:
        return [row for row in csv.DictReader(handle, delimiter="\t")
                if kind is None or row["kind"] == kind]


def names_of(kind: str) -> dict:
    """Every name (label or alias) of a label of ``kind`` -> the label."""
    defs = definitions()
    out = {}
    for name in defs.names(kind):
        out[name] = name
        for alias in defs[name].aliases:
            out[alias] = name
    return out
