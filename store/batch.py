"""``Batch``: the rows of one batch being built from ``StoredGame`` values, column by column, and
turned into the Arrow tables of ``store.schema`` for ``Store.commit``.

This is the one place where a game read by ``ingest`` becomes rows of the store's tables::

    >>> from kifudb.ingest.pipeline import read_file
    >>> batch = Batch(1)
    >>> game = read_file("data/samples/games.usi", labels=True, lines=True).games[0]
    >>> batch.add_game(7, game)
    >>> batch.add_source(7, game)
    >>> tables = batch.tables()
    >>> tables["games"].num_rows, tables["positions"].num_rows, batch.positions
    (1, 182, 182)
    >>> tables["positions"].column("game")[0].as_py()
    7
"""

from __future__ import annotations

import datetime
import json
from array import array
from typing import Optional

import pyarrow as pa
import pyarrow.compute as pc

from kifudb.ingest.pipeline import StoredGame
from kifudb.core.placement import placements
from kifudb.core.position import Position
from kifudb.store.schema import EVALUATION, PLACEMENTS, SORTED, TABLES


_END = 0xFFFF  # the next move of a game's last position: none (stored as null)
#: plies 0, 1, 2, … and the side to move at each (1: Black) when Black moves first, sliced for
#: a game's positions (a longer game counts its own)
_PLIES = array("i", range(1024))
_BLACK_TO_MOVE = array("b", [1, 0] * 513)
#: the moves columns of ``StoredGame.move_rows``, in its order
_MOVE_ROW = ("line", "parent", "ply", "usi", "text", "seconds", "comment")


class Batch:
    """The rows of batch number ``number``, column by column."""

    def __init__(self, number: int):
        self.number = number
        self.columns = {name: {f.name: [] for f in schema} for name, schema in TABLES.items()}
        #: positions added so far (the writer commits a batch once it holds enough)
        self.positions = 0
        self._game_rows: dict = {}
        self._keys, self._games = array("Q"), array("i")
        self._plies, self._sides, self._next_moves = array("i"), array("b"), array("H")
        #: the placements' columns (``core.placement``), in ``PLACEMENTS``' order
        self._placements = tuple(array("b" if f.type == pa.int8() else "i") for f in PLACEMENTS)

    def _add(self, table: str, **values) -> None:
        for name, column in self.columns[table].items():
            column.append(values.get(name))

    def describe(self, game_id: int, game: StoredGame) -> None:
        """The ``games`` row of ``game_id`` (a later call for the same id replaces it: a richer
        source re-describes a game already stored), with its ``provenance``: every field it
        has comes from this source (``store.writer.reconcile`` merges several)."""
        h = game.headers
        given = {"path": game.path, "index": game.index}
        provenance = {name: given for name, value in description(game).items()
                      if value is not None and name in MERGED}
        self._game_rows[game_id] = dict(
            game=game_id, fingerprint=game.fingerprint, event=h.get("event"),
            date=_date(h.get("start_date")), end_date=_date(h.get("end_date")),
            black=h.get("black"), white=h.get("white"), handicap=h.get("handicap"),
            time_control=h.get("time_control"), place=h.get("place"), opening=h.get("opening"),
            headers=json.dumps(game.raw_headers, ensure_ascii=False),
            start_sfen=game.start_sfen, moves=game.moves, valid=game.valid,
            first_illegal_ply=game.first_illegal_ply, illegal_code=game.illegal_code,
            winner=game.winner, reason=game.reason, declared_ending=game.declared_ending,
            comments="\n".join(game.comments) or None, black_rating=game.black_rating,
            white_rating=game.white_rating, black_engine=game.black_engine,
            white_engine=game.white_engine,
            provenance=json.dumps(provenance, ensure_ascii=False, sort_keys=True),
            batch=self.number)

    def redescribe(self, game_id: int, row: dict) -> None:
        """A new ``games`` row of a game stored already: ``row`` (every column of the
        ``games`` view; ``store.writer.reconcile`` merged its sources' fields) in this
        batch."""
        self._game_rows[game_id] = {**{f.name: row.get(f.name) for f in TABLES["games"]},
                                    "batch": self.number}

    def described(self) -> int:
        """The games this batch holds a ``games`` row of."""
        return len(self._game_rows)

    def add_game(self, game_id: int, game: StoredGame) -> None:
        """A new game: its ``games`` row, every move of every line, its positions and labels."""
        self.describe(game_id, game)
        rows = game.move_rows
        moves = self.columns["moves"]
        moves["game"].extend([game_id] * len(rows))
        for name, column in zip(_MOVE_ROW, zip(*rows)):  # the row's columns, as they come
            moves[name].extend(column)
        evaluations = game.evaluations
        if evaluations:  # a main-line move's evaluation
            found = [evaluations.get(ply) if line == 0 else None for line, _, ply, *_ in rows]
            for name, _ in EVALUATION:
                moves[name].extend([None if e is None else getattr(e, name) for e in found])
        else:
            for name, _ in EVALUATION:
                moves[name].extend([None] * len(rows))
        if game.keys:
            self._add_positions(game_id, game)
        if game.labels is not None:
            self._add_labels(game_id, game.labels.rows())

    def _add_labels(self, game_id: int, rows: list) -> None:
        """A game's labels (``labels.classify.GameLabels.rows``), column by column."""
        labels = self.columns["labels"]
        labels["game"].extend([game_id] * len(rows))
        for name, column in zip(("side", "kind", "label", "ply", "primary"), zip(*rows)):
            labels[name].extend(column)
        labels["batch"].extend([self.number] * len(rows))

    def _add_positions(self, game_id: int, game: StoredGame) -> None:
        n = len(game.keys)
        first = 0 if game.black_first else 1
        self._keys.extend(game.keys)
        self._games.extend(array("i", [game_id]) * n)
        if n < len(_PLIES):
            self._plies.extend(_PLIES[:n])
            self._sides.extend(_BLACK_TO_MOVE[first:first + n])
        else:
            self._plies.extend(range(n))
            self._sides.extend([(ply + first + 1) % 2 for ply in range(n)])
        self._next_moves.extend(game.move_codes)
        self._next_moves.append(_END)  # no move after the last position
        self.positions += n
        self.add_placements(game_id, Position.from_sfen(game.start_sfen), game.move_codes)

    def add_placements(self, game_id: int, start: Position, move_codes: list) -> None:
        """The placements of the main line that starts at ``start`` and plays ``move_codes``."""
        rows = placements(start, move_codes)
        games, *columns = self._placements
        games.extend([game_id] * len(rows[0]))
        for column, values in zip(columns, rows):
            column.extend(values)

    def add_source(self, game_id: int, game: StoredGame) -> None:
        """Where ``game`` was read (a game stored once may have several sources)."""
        self._add("sources", game=game_id, path=game.path, index=game.index,
                  format=game.format, encoding=game.encoding,
                  description=json.dumps(description(game), ensure_ascii=False,
                                         sort_keys=True),
                  batch=self.number)

    def add_findings(self, game_id: Optional[int], path: str, index: Optional[int],
                     findings: list) -> None:
        """Findings about a game (``game_id``) or about a whole file (``game_id`` None)."""
        for f in findings:
            self._add("findings", game=game_id, path=path, index=index, severity=f.severity,
                      code=f.code, line=f.line, ply=f.ply, text=f.text, message=f.message,
                      batch=self.number)

    def add_file(self, path: str, sha256: Optional[str], size: Optional[int],
                 game_ids: list) -> None:
        """A file this batch read, with the ids of its games."""
        self._add("files", path=path, sha256=sha256, size=size, games=game_ids,
                  batch=self.number)

    def retire(self, path: str) -> None:
        """``path`` is read again: its rows of earlier batches no longer count."""
        self._add("retired", path=path, batch=self.number)

    def empty(self) -> bool:
        """True when the batch read no file (there is nothing to commit)."""
        return not self.columns["files"]["path"] and not self.columns["retired"]["path"]

    def tables(self) -> dict:
        """``{table: pyarrow.Table}`` of the rows so far, positions sorted by key."""
        for values in self._game_rows.values():
            self._add("games", **values)
        self._game_rows = {}
        out = {name: pa.Table.from_pydict(self.columns[name], schema=schema)
               for name, schema in TABLES.items() if name not in ("positions", "placements")}
        schema = TABLES["positions"]
        next_moves = pa.array(self._next_moves, type=pa.uint16())
        positions = pa.Table.from_arrays([
            pa.array(self._keys, type=pa.uint64()), pa.array(self._games, type=pa.int32()),
            pa.array(self._plies, type=schema.field("ply").type),
            pa.array(self._sides, type=pa.int8()).cast(pa.bool_()),
            pc.if_else(pc.equal(next_moves, _END), pa.nulls(len(next_moves), pa.uint16()),
                       next_moves).cast(schema.field("next_move").type),
        ], schema=schema)
        out["positions"] = _sorted(positions, "positions")
        out["placements"] = _sorted(pa.Table.from_arrays(
            [pa.array(column, type=f.type) for column, f in zip(self._placements, PLACEMENTS)],
            schema=PLACEMENTS), "placements")
        return out


#: The fields of a ``games`` row that a source may give or lack, merged field by field when a
#: game has several sources (``store.writer.reconcile``); the result (``winner``, ``reason``,
#: ``declared_ending``) goes as one.
MERGED = ("event", "date", "end_date", "black", "white", "handicap", "time_control", "place",
          "opening", "black_rating", "white_rating", "black_engine", "white_engine", "winner",
          "reason", "declared_ending")
#: The fields that say how a game ended, taken together from one source.
RESULT = ("winner", "reason", "declared_ending")
#: The header fields whose presence makes one source richer than another (``detail``).
_DETAIL = ("event", "start_date", "end_date", "black", "white", "time_control", "place",
           "opening")


def description(game: StoredGame) -> dict:
    """What one source says of its game: the ``MERGED`` fields as the ``games`` row holds them
    (a date as ISO text; None where this source says nothing: a ``bad_date`` is no date), and
    ``detail``: how many of the headers it gives, plus one for a result. A result of
    ``none`` says nothing (an abort, a fragment)::

        >>> from kifudb.ingest.pipeline import read_file
        >>> said = description(read_file("data/samples/records/habu-fujii-2006.kif").games[0])
        >>> said["date"], said["black"], said["winner"], said["detail"]
        ('2006-12-15', '羽生善治', 'black', 8)
    """
    h = game.headers
    decided = game.winner != "none"
    said = {"event": h.get("event"), "date": h.get("start_date"), "end_date": h.get("end_date"),
            "black": h.get("black"), "white": h.get("white"), "handicap": h.get("handicap"),
            "time_control": h.get("time_control"), "place": h.get("place"),
            "opening": h.get("opening"), "black_rating": game.black_rating,
            "white_rating": game.white_rating, "black_engine": game.black_engine,
            "white_engine": game.white_engine, "winner": _plain(game.winner) if decided else None,
            "reason": _plain(game.reason) if decided else None,
            "declared_ending": _plain(game.declared_ending) if decided else None}
    said["detail"] = sum(h.get(f) is not None for f in _DETAIL) + decided
    return said


def _plain(value):
    """An enumeration's value (``Winner.BLACK``: ``black``), as JSON and the store hold it."""
    return getattr(value, "value", value)


def _sorted(table: pa.Table, name: str) -> pa.Table:
    """``table`` in the order ``store.schema.SORTED`` gives its rows."""
    return table.take(pc.sort_indices(table, [(c, "ascending") for c in SORTED[name]]))


def _date(text: Optional[str]) -> Optional[datetime.date]:
    return datetime.date.fromisoformat(text) if text else None
