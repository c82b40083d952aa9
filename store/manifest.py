"""The manifest (``STORE/manifest.json``): the commit point of a store, and its shape checked on
every read, so that a damaged or foreign manifest gives a clear message instead of a traceback.

    >>> manifest = new_manifest()
    >>> sorted(manifest), manifest["format"], manifest["batches"]
    (['batches', 'format', 'labels', 'next_game', 'store_id', 'superseded'], 6, [])
    >>> check_manifest({"format": 5, "next_game": "1", "batches": []}, "m.json")
    Traceback (most recent call last):
    ...
    kifudb.store.manifest.StoreDamaged: store damaged: m.json: "next_game" must be a whole number of at least 1, not '1'; `kifudb check --repair` rebuilds it from the batches on disk
"""

from __future__ import annotations

import re
import uuid

#: 2: games rows carry their batch; 3: labels; 4: plies, lines and move counts as int32,
#: a store id, superseded batches kept for a grace period; 5: moves' evaluations, games'
#: ratings and engines (``store.schema.ADDED``: an older store shows them as nulls until a
#: writer migrates it, and its games have none until they are ingested again)
#: 6: the placements table (pattern search; a writer migrating an older store fills it)
FORMAT = 6
#: formats this kifudb reads; a writer migrates an older one first (``Store.writing``)
READABLE = (3, 4, 5, 6)
#: the first format whose stores have placements for all their games
PLACEMENTS_FORMAT = 6
BATCH_NAME = re.compile(r"b\d{6}")


class StoreError(Exception):
    """A store that cannot be used as it is: the message says where, why and what to do."""


class StoreDamaged(StoreError):
    """A store whose manifest or batch files are not what they should be."""


def new_manifest() -> dict:
    """The manifest of an empty store, with a new store id (it marks the store's own files)."""
    return {"format": FORMAT, "store_id": uuid.uuid4().hex, "next_game": 1, "batches": [],
            "labels": None, "superseded": []}


def check_manifest(manifest, where: str) -> dict:
    """``manifest`` if it has the shape of a manifest this kifudb reads, else ``StoreDamaged``
    (or ``StoreError`` for a store of another format) saying what is wrong."""
    repair = "`kifudb check --repair` rebuilds it from the batches on disk"

    def damaged(what: str) -> StoreDamaged:
        return StoreDamaged(f"store damaged: {where}: {what}; {repair}")

    if not isinstance(manifest, dict):
        raise damaged(f"a manifest is a JSON object, not {type(manifest).__name__}")
    if manifest.get("format") not in READABLE:
        if isinstance(manifest.get("format"), int):
            raise StoreError(f"{where}: store format {manifest['format']}, this kifudb reads "
                             f"formats {', '.join(map(str, READABLE))}: ingest the records "
                             f"again into a new store folder")
        raise damaged(f"\"format\" must be a store format number, not {manifest.get('format')!r}")
    if not _whole(manifest.get("next_game"), 1):
        raise damaged(f"\"next_game\" must be a whole number of at least 1, not "
                      f"{manifest.get('next_game')!r}")
    batches = manifest.get("batches")
    if not isinstance(batches, list) or not all(isinstance(b, str) and BATCH_NAME.fullmatch(b)
                                                for b in batches):
        raise damaged(f"\"batches\" must be a list of batch names like \"b000001\", not "
                      f"{_short(batches)}")
    if len(set(batches)) != len(batches):
        raise damaged("\"batches\" names a batch twice")
    labels = manifest.get("labels")
    if labels is not None and not (
            isinstance(labels, dict) and isinstance(labels.get("version"), (str, type(None)))
            and _whole(labels.get("from_batch"), 0)):
        raise damaged(f"\"labels\" must be {{\"version\": text, \"from_batch\": number}}, not "
                      f"{_short(labels)}")
    superseded = manifest.get("superseded", [])
    if not isinstance(superseded, list) or not all(
            isinstance(s, dict) and isinstance(s.get("at"), (int, float))
            and isinstance(s.get("batches"), list)
            and all(isinstance(b, str) and BATCH_NAME.fullmatch(b) for b in s["batches"])
            for s in superseded):
        raise damaged(f"\"superseded\" must be a list of {{\"batches\", \"at\"}}, not "
                      f"{_short(superseded)}")
    if "store_id" in manifest and not isinstance(manifest["store_id"], str):
        raise damaged(f"\"store_id\" must be text, not {_short(manifest['store_id'])}")
    return manifest


def _whole(value, minimum: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
