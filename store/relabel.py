"""``kifudb relabel``: label every stored game again, after the definitions of the labels
(``labels/labels.toml``) changed.

Labels are computed at ingest, with the definitions of the day; the manifest remembers their
version. Relabelling replays the main line of every game the store shows (from ``games`` and
``moves``, a few thousand games at a time, their labels written as they are made, so memory
stays bounded), classifies it, and commits one batch holding only labels; from that batch on,
earlier labels no longer count. It is atomic like any commit: interrupted, the store keeps its
old labels::

    >>> import tempfile
    >>> from kifudb.store.writer import ingest_paths
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["data/samples/games.usi"], folder)
    >>> report = relabel(folder)
    >>> report.games, report.batch
    (13, 'b000002')
"""

from __future__ import annotations

from typing import NamedTuple

import pyarrow as pa

from kifudb.labels.classify import classify_game, definitions_version
from kifudb.store.schema import LABELS
from kifudb.store.folder import Store

__all__ = ["relabel", "RelabelReport"]

_CHUNK = 5000  # games replayed per query


class RelabelReport(NamedTuple):
    games: int
    labels: int
    batch: str
    version: str


def relabel(store, progress: bool = False) -> RelabelReport:
    """Label every game of ``store`` (a folder or a ``Store``) with the current definitions.
    The labels are written as they are made, a chunk of games at a time, into the batch's
    file: what the run holds does not grow with the store."""
    store = store if isinstance(store, Store) else Store(store)
    version = definitions_version()
    with store.writing():
        manifest = store.manifest()
        number = store.next_batch(manifest)
        connection = store.connect(manifest)
        games = connection.execute("SELECT count(*) FROM games").fetchone()[0]
        made = {"labels": 0}
        bar = None
        if progress:
            import sys

            from tqdm import tqdm
            bar = tqdm(total=games, unit="game", file=sys.stderr, desc="relabel")

        def labelled():
            """One Arrow table of labels per chunk of games, handed to the batch's writer."""
            for lines in _main_lines(connection, _ranges(manifest["next_game"])):
                columns: dict = {field.name: [] for field in LABELS}
                for game, start_sfen, usi_moves in lines:
                    if not start_sfen:
                        continue
                    for row in classify_game(start_sfen, usi_moves or []).rows():
                        for name, value in zip(columns, (game, *row, number)):
                            columns[name].append(value)
                table = pa.Table.from_pydict(columns, schema=LABELS)
                made["labels"] += table.num_rows
                if bar is not None:
                    bar.update(len(lines))
                yield table

        try:
            name = store.commit({"labels": labelled()}, manifest["next_game"],
                                {"version": version, "from_batch": number})
        finally:
            connection.close()
            if bar is not None:
                bar.close()
    return RelabelReport(games, made["labels"], name, version)


def _ranges(next_game: int):
    """The game ids below ``next_game`` as ``(first, last)`` ranges of ``_CHUNK``."""
    return ((first, min(first + _CHUNK, next_game) - 1) for first in range(0, next_game, _CHUNK))


def _main_lines(connection, ranges):
    """For each ``(first, last)`` of ``ranges``, ``[(game, start_sfen, [usi, …]), …]``: the
    main line, as far as it was replayed, of each game the store shows with an id in it."""
    for first, last in ranges:
        yield connection.execute(
            "SELECT g.game, g.start_sfen, list(m.usi ORDER BY m.ply) FILTER "
            "(WHERE m.usi IS NOT NULL) FROM games g LEFT JOIN moves m "
            "ON m.game = g.game AND m.line = 0 WHERE g.game BETWEEN ? AND ? "
            "GROUP BY g.game, g.start_sfen ORDER BY g.game", [first, last]).fetchall()


def fill_placements(store: Store) -> int:
    """Commit a batch of the placements (``core.placement``) of every game that has none: the
    games of a store written before pattern search (its migration, under ``writing()``, runs
    this); the number of games placed."""
    from kifudb.core.move import Move, move_code
    from kifudb.core.position import Position, SfenError
    from kifudb.store.batch import Batch

    manifest = store.manifest()
    connection = store.connect(manifest)
    ids = [row[0] for row in connection.execute(
        "SELECT game FROM games WHERE game NOT IN (SELECT game FROM placements) "
        "ORDER BY game").fetchall()]
    batch = Batch(store.next_batch(manifest))
    placed = 0
    chunks = (ids[i:i + _CHUNK] for i in range(0, len(ids), _CHUNK))
    for lines in _main_lines(connection, ((chunk[0], chunk[-1]) for chunk in chunks)):
        for game, start_sfen, usi_moves in lines:
            try:
                start = Position.from_sfen(start_sfen)
            except SfenError:
                continue  # a start the replay could not read: no positions, no placements
            batch.add_placements(game, start, [move_code(Move.from_usi(u)) for u in usi_moves or []])
            placed += 1
    connection.close()
    if placed:
        store.commit({"placements": batch.tables()["placements"]}, manifest["next_game"])
    return placed
