"""The Python API, the door for notebooks: ``kifudb.open(folder)`` gives a read-only ``Database``
on a store, whose questions answer with polars DataFrames (one value type where a table does not
fit: a ``Game``, the ``dict`` of one summary).

    >>> import kifudb
    >>> db = kifudb.open(sample_store)      # a store of data/samples (kifudb ingest data/samples)
    >>> db                                  # doctest: +ELLIPSIS
    Database('.../store', games=18)
    >>> db.explore("7g7f 3c3d").select("usi", "ki2", "games", "black_wins", "white_wins").head(2)
    shape: (2, 5)
    ┌──────┬─────────┬───────┬────────────┬────────────┐
    │ usi  ┆ ki2     ┆ games ┆ black_wins ┆ white_wins │
    │ ---  ┆ ---     ┆ ---   ┆ ---        ┆ ---        │
    │ str  ┆ str     ┆ i64   ┆ i64        ┆ i64        │
    ╞══════╪═════════╪═══════╪════════════╪════════════╡
    │ 2g2f ┆ ▲２六歩 ┆ 4     ┆ 2          ┆ 2          │
    │ 2h7h ┆ ▲７八飛 ┆ 1     ┆ 0          ┆ 1          │
    └──────┴─────────┴───────┴────────────┴────────────┘

A position is an SFEN (``startpos`` works), a ``core.Position``, or moves from the start in any
notation — USI, KIF or KI2, as text or a list — as on the command line (``--sfen``,
``--moves``; ``start=`` is what the moves start from). Filters are keywords named as the
command line's options and the HTTP API's parameters (``analytics.filter_options.OPTIONS``:
``player=``, ``since=``, ``until=``, ``event=``, ``handicap=``, ``decided=``, ``min_moves=``,
``max_moves=``, ``min_rating=``, ``result=``, ``reason=``, ``played_by=``, ``label=`` …), or a
``filters=`` ``GameFilter``; the older ``date_from=``, ``moves_from=``, ``winner=`` …
still work, with a ``DeprecationWarning``. The answers' columns are the other doors' fields
(``analytics.explorer``: an explorer move's ``usi``, ``games``, ``black_wins``,
``white_wins``, ``draws``, ``other``, ``black_score``, ``ci_low``, ``ci_high``,
``performance``, ``latest_date`` …). Bad input raises ``ValueError`` saying what is wrong
(``FilterError`` for a filter — an unknown label or handicap names the nearest —,
``store.sql.SqlError`` for a refused query).

Every question goes through ``analytics`` (and the SQL door through ``store.sql``, the guarded
read-only SQL of ``kifudb sql``): this module builds no SQL. The analytics answer with lists of
dicts, turned into DataFrames here (``frame``): dates become ``pl.Date``, and an empty answer
keeps its columns. Each call reads the store's latest commit, as the dashboard does: an ingest
that commits meanwhile is seen by the next call.
"""

from __future__ import annotations

import dataclasses
import datetime
import warnings
from pathlib import Path
from typing import NamedTuple, Optional, Union

import polars as pl

from kifudb.analytics import game_record as _game_record
from kifudb.analytics import position_input, queries
from kifudb.analytics import stats as _stats
from kifudb.analytics.explorer import EXPLORER_MOVE, explorer_move
from kifudb.analytics.filter_options import OPTIONS
from kifudb.analytics.filters import GameFilter, from_options
from kifudb.core.position import Position
from kifudb.store.engine import as_store
from kifudb.store.folder import Store
from kifudb.store.sql import DEFAULT_MEMORY_LIMIT, DEFAULT_TIMEOUT, run_sql  # duckdb: loaded already

__all__ = ["Database", "Game", "Stats", "PatternAnswer", "open_database", "position_of", "frame",
           "game_filter"]

#: The dtypes of the columns the answers share (others are inferred from the rows; an empty
#: answer's unknown columns are text).
DTYPES = {
    "game": pl.Int64, "ply": pl.Int64, "line": pl.Int64, "parent": pl.Int64, "year": pl.Int64,
    "spellings": pl.List(pl.String), "games": pl.Int64, "count": pl.Int64, "moves": pl.Int64, "moves_from": pl.Int64,
    "moves_to": pl.Int64, "draws": pl.Int64,
    "other": pl.Int64, "decided": pl.Int64, "wins": pl.Int64, "losses": pl.Int64,
    "black_wins": pl.Int64, "white_wins": pl.Int64, "scope_games": pl.Int64,
    "score": pl.Float64, "black_score": pl.Float64, "share": pl.Float64, "ci_low": pl.Float64,
    "ci_high": pl.Float64, "seconds": pl.Float64, "mirrored": pl.Boolean, "primary": pl.Boolean,
    "date": pl.Date, "latest_date": pl.Date, "index": pl.Int64, "average_rating": pl.Float64,
    "performance": pl.Float64,
}
_DATES = ("date", "latest_date", "end_date")

#: The columns of each table answer, in order (what an empty answer has).
COLUMNS = {
    "search": ["game", "ply", "black", "white", "date", "event", "winner", "reason", "handicap",
               "path", "next_move", "mirrored"],
    "pattern": ["game", "ply", "plies", "black", "white", "date", "event", "winner", "reason",
                "handicap", "path"],
    "pattern_moves": ["usi", "games", "black_wins", "white_wins", "draws", "other", "decided",
                      "black_score", "ci_low", "ci_high"],
    "explore": list(EXPLORER_MOVE),
    "games": ["game", "black", "white", "date", "event", "winner", "reason", "handicap", "moves"],
    "results_by_year": ["year", "games", "black_wins", "white_wins", "draws", "decided",
                        "black_score", "ci_low", "ci_high"],
    "results_by_reason": ["reason", "games", "black_wins", "white_wins", "draws"],
    "game_lengths": ["moves_from", "moves_to", "games"],
    "label_frequencies": ["side", "label", "games", "share", "scope_games"],
    "label_frequencies_by_year": ["year", "side", "label", "games", "share", "scope_games"],
    "win_rates": ["side", "label", "games", "wins", "losses", "draws", "decided", "score",
                  "ci_low", "ci_high"],
    "pairings": ["black_label", "white_label", "games", "black_wins", "white_wins", "draws",
                 "decided", "black_score", "ci_low", "ci_high"],
    "label_games": ["game", "side", "ply", "black", "white", "date", "event", "winner",
                    "reason"],
    "game_labels": ["side", "kind", "label", "ply", "primary"],
    "players": ["player", "name", "spellings", "games", "wins", "losses", "draws", "decided",
                "score", "ci_low", "ci_high"],
    "finding_counts_code": ["code", "severity", "count"],
    "finding_counts_path": ["path", "severity", "count"],
    "findings": ["game", "path", "index", "severity", "code", "line", "ply", "text", "message"],
    "novelties": ["game", "date", "black", "white", "event", "ply", "move", "earlier_games"],
    "twins": ["twin", "kind", "game", "black", "white", "date", "event", "moves", "winner",
              "path", "differences", "same_players"],
    "player_suggestions": ["written", "games", "undated", "candidates", "reason"],
    "player_spellings": ["name", "games", "spellings"],
    # the engine's analysis (analytics.judgement, analytics.accuracy, analytics.puzzles)
    "analyses": ["engine", "limit", "positions", "multipv", "k", "calibrated"],
    "game_analysis": ["ply", "usi", "mover", "engine", "limit", "score_black", "mate_black",
                      "pv", "win_black", "win_before", "loss", "accuracy", "judgement", "best"],
    "accuracy": ["games", "moves", "accuracy", "average_loss", "inaccuracies", "mistakes",
                 "blunders"],
    "mistakes": ["game", "ply", "date", "black", "white", "event", "mover", "player", "usi",
                 "ki2", "best", "best_ki2", "loss", "win_before", "win_after", "judgement",
                 "sfen"],
    "puzzles": ["game", "ply", "date", "black", "white", "event", "side", "sfen", "move", "ki2",
                "solution", "score_black", "mate_black", "win", "second_win", "second_move",
                "played", "found", "occurrences"],
}
#: the types of the analysis' columns (nulls where a position is not analysed)
_ANALYSIS_TYPES = {"score_black": pl.Int64, "mate_black": pl.Int64, "win_black": pl.Float64,
                   "win_before": pl.Float64, "loss": pl.Float64, "accuracy": pl.Float64,
                   "average_loss": pl.Float64, "inaccuracies": pl.Int64, "mistakes": pl.Int64,
                   "blunders": pl.Int64, "win": pl.Float64, "second_win": pl.Float64,
                   "win_after": pl.Float64, "occurrences": pl.Int64, "found": pl.Boolean,
                   "positions": pl.Int64, "multipv": pl.Int64, "k": pl.Float64,
                   "calibrated": pl.Boolean, "plies_from": pl.Int64, "plies_to": pl.Int64}
class PatternAnswer(NamedTuple):
    """What ``Database.pattern`` found: the search as ``kifudb pattern`` arguments
    (``pattern``), how many ``games`` met it, a page of them (``matches``) and the moves played
    next (``next_moves``)."""

    pattern: str
    games: int
    matches: pl.DataFrame
    next_moves: pl.DataFrame


#: The columns of lists of names.
_NAMES = {"candidates": pl.List(pl.String), "differences": pl.List(pl.String),
          "spellings": pl.List(pl.String)}


def frame(rows: list, columns: list, dtypes: Optional[dict] = None) -> pl.DataFrame:
    """Rows (dicts) as a DataFrame: ``columns`` first, in their order (an empty answer has
    just them), ISO dates as ``pl.Date``; ``dtypes`` sets columns' types (else ``DTYPES``, else
    what the values are; text for an empty answer).

    >>> frame([{"game": 1, "date": "2024-05-01"}, {"game": 2, "date": None}], ["game", "date"])
    shape: (2, 2)
    ┌──────┬────────────┐
    │ game ┆ date       │
    │ ---  ┆ ---        │
    │ i64  ┆ date       │
    ╞══════╪════════════╡
    │ 1    ┆ 2024-05-01 │
    │ 2    ┆ null       │
    └──────┴────────────┘
    >>> frame([], ["game", "event"]).schema
    Schema([('game', Int64), ('event', String)])
    """
    types = {**DTYPES, **(dtypes or {})}
    if not rows:
        return pl.DataFrame(schema={c: types.get(c, pl.String) for c in columns})
    names = list(dict.fromkeys([*columns, *rows[0]]))
    known = {c: types[c] for c in names if c in types and c not in _DATES}
    table = pl.from_dicts(rows, schema_overrides=known, infer_schema_length=None)
    table = table.select([c for c in names if c in table.columns])
    dates = [c for c in _DATES if c in table.columns and table.schema[c] == pl.String]
    if dates:
        table = table.with_columns(pl.col(c).str.to_date("%Y-%m-%d") for c in dates)
    return table


def arrow_frame(table, columns: list) -> pl.DataFrame:
    """An Arrow table (as DuckDB or an Arrow join made it) as a DataFrame, without a Python row
    in between: ``columns`` in their order, typed as ``frame`` types them (``DTYPES``).

    >>> import pyarrow as pa
    >>> arrow_frame(pa.table({"game": pa.array([1], pa.int32()), "event": ["竜王戦"]}),
    ...             ["game", "event"]).schema
    Schema([('game', Int64), ('event', String)])
    """
    data = pl.from_arrow(table)
    return data.select(pl.col(c).cast(DTYPES[c]) if c in DTYPES else pl.col(c) for c in columns)


#: The filters' older Python names (``GameFilter``'s fields), kept working with a warning.
_OLD_NAMES = {o.field: o.name for o in OPTIONS if o.field != o.name}


def game_filter(filters: Optional[GameFilter] = None, **given) -> GameFilter:
    """The games a question looks at: ``filters``, or a ``GameFilter`` of the keyword filters
    named as the other doors name them (``analytics.filter_options.OPTIONS``; both: the
    keywords change ``filters``); ``FilterError`` for a bad value, ``TypeError`` for an
    unknown keyword. The older names (``date_from=`` …) work, with a ``DeprecationWarning``.

    >>> game_filter(player="羽生", decided=True, since="2000-01-01")
    GameFilter(player='羽生', date_from=datetime.date(2000, 1, 1), decided=True)
    >>> game_filter(GameFilter(player="羽生"), min_moves=30, played_by="human")
    GameFilter(player='羽生', moves_from=30, engine=False)
    >>> game_filter(colour="black")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: unknown filter 'colour' (the filters: player, since, until, event, ...)
    """
    options = {o.name: o for o in OPTIONS}
    values = {}
    for name, value in given.items():
        if name in _OLD_NAMES and name not in options:
            new = _OLD_NAMES[name]
            warnings.warn(f"the filter {name}= is now {new}= (the name every door uses)",
                          DeprecationWarning, stacklevel=3)
            back = {v: k for k, v in (options[new].values or {}).items()}
            name, value = new, back.get(value, value)
        elif name not in options:
            raise TypeError(f"unknown filter {name!r} (the filters: {', '.join(options)})")
        values[name] = value
    if filters is not None and not isinstance(filters, GameFilter):
        raise TypeError(f"filters must be a GameFilter, not {type(filters).__name__}")
    chosen = from_options(values)
    if filters is None:
        return chosen
    unset = {options[name].field: None for name, value in values.items() if value is None}
    return filters.replace(**unset, **chosen.chosen()) if values else filters


def position_of(position, start: Union[str, Position] = "startpos") -> Position:
    """A ``Position`` from what a user gives: a ``Position`` (a copy), an SFEN (``startpos``
    works; ``sfen … moves …`` and ``position …`` lines too), or moves from ``start`` in any
    notation, as text or a list; ``ValueError`` saying what is wrong and where.

    >>> position_of("7g7f 3c3d") == position_of(["▲７六歩", "△３四歩"]) == position_of(
    ...     "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3")
    True
    >>> position_of("") == Position()
    True
    >>> position_of("7g7f 3c3d 2h2a")
    Traceback (most recent call last):
    ...
    ValueError: move 3 (2h2a): illegal: the rook on 2h cannot reach 2a: 2g is in the way [bad_geometry]
    """
    if isinstance(position, Position):
        return position.copy()
    if isinstance(position, (list, tuple)):
        if not all(isinstance(m, str) for m in position):
            raise ValueError("moves must be texts, such as '7g7f' or '▲７六歩'")
        position = " ".join(position)
    if not isinstance(position, str):
        raise ValueError(f"a position is an SFEN, a Position or moves, not "
                         f"{type(position).__name__}")
    text = position.strip()
    head = text.split(None, 1)[0] if text else ""
    if head == "startpos" and text != "startpos" or head in ("sfen", "position"):
        return position_input.position_from_moves(text)  # a USI position line
    if text == "startpos" or "/" in head:
        return position_input.position_from_sfen(text)
    if not isinstance(start, Position):
        start = position_input.position_from_sfen(start)
    return position_input.position_from_moves(text, start=start)


# ----- one game ----------------------------------------------------------------------------------


class GameMove(NamedTuple):
    """A main-line move: ``ply``, ``usi`` and ``ki2`` (None from the first move that could not
    be replayed), ``text`` as written (KIF for a JKF record), ``written`` (the text as stored),
    ``seconds`` spent, ``comment``, ``evaluation`` (an engine's, as the record gives it:
    a dict of ``analytics.queries.EVALUATION`` — ``score``, ``score_black``, ``mate``,
    ``depth``, ``nodes``, ``pv``, ``engine``, ``dialect`` —, or None) and ``analysis`` (the
    store's engine analysis of the move, ``analytics.game_record.move_analysis``: ``engine``,
    ``limit``, ``score_black``, ``mate_black``, ``win_black``, ``loss``, ``accuracy``,
    ``judgement``, ``best``; or None)."""

    ply: int
    usi: Optional[str]
    ki2: Optional[str]
    text: Optional[str]
    written: Optional[str]
    seconds: Optional[float]
    comment: Optional[str]
    evaluation: Optional[dict] = None
    analysis: Optional[dict] = None


class VariationMove(NamedTuple):
    """A move of a variation: ``line`` (its number, from 1), ``parent`` (the line it branches
    from, 0 for the main line), ``ply``, ``usi`` (None if not replayed), ``text`` as shown,
    ``written``, ``seconds``, ``comment``."""

    line: int
    parent: int
    ply: int
    usi: Optional[str]
    text: Optional[str]
    written: Optional[str]
    seconds: Optional[float]
    comment: Optional[str]


class Label(NamedTuple):
    """A castle (囲い) or opening (戦型) a side reached: ``side``, ``kind`` (castle, opening),
    ``label``, ``ply`` (first reached) and ``primary`` (the side's main one)."""

    side: str
    kind: str
    label: str
    ply: int
    primary: bool


#: The columns of a game's ``games`` row a ``Game`` gives in ``details`` (and ``as_dict``).
DETAILS = ("fingerprint", "end_date", "time_control", "place", "opening", "comments",
           "first_illegal_ply", "illegal_code", "declared_ending", "black_rating",
           "white_rating", "black_engine", "white_engine")


@dataclasses.dataclass(frozen=True)
class Game:
    """One stored game, as ``kifudb game ID`` and the dashboard's viewer show it: the headers
    (``black``, ``white``, ``date``, ``event``, ``handicap``, ``winner``, ``reason``, ``headers``
    as read), ``start_sfen``, ``sources`` (dicts of path, index, format, encoding; a KIF, KI2
    or CSA file first), ``moves`` (``GameMove``), ``sfens`` (the position after 0, 1 … replayed
    moves), ``variations`` (``VariationMove``) and ``labels`` (``Label``).

    >>> game = db.game(1)
    >>> game.black, game.white, game.date, game.winner, game.reason, len(game.moves)
    ('羽生善治', '藤井猛', datetime.date(2006, 12, 15), 'black', 'resign', 181)
    >>> [m.ki2 for m in game.moves[:3]], game.labels[2]
    (['▲７六歩', '△３四歩', '▲２六歩'], Label(side='white', kind='opening', label='ノーマル四間飛車', ply=6, primary=True))
    """

    id: int
    black: Optional[str]
    white: Optional[str]
    date: Optional[datetime.date]
    event: Optional[str]
    handicap: Optional[str]
    winner: str
    reason: str
    valid: bool
    start_sfen: str
    headers: dict
    sources: tuple
    moves: tuple
    sfens: tuple
    variations: tuple
    labels: tuple
    #: the game as a ``core.kifu.Kifu`` for the record writers (None: ``unwritable`` says why)
    kifu: Optional[object] = dataclasses.field(default=None, compare=False, repr=False)
    #: why the game cannot be written as a record (a move that could not be replayed), or None
    unwritable: Optional[str] = None
    #: which source gave each field (``{"date": {"path", "index"}, …}``: ``store.writer.
    #: reconcile`` merges a game's sources field by field), or None for a game stored before
    provenance: Optional[dict] = dataclasses.field(default=None, compare=False)
    #: the novelty (``{"ply", "earlier_games"}``, ``analytics.novelty``), or None
    novelty: Optional[dict] = dataclasses.field(default=None, compare=False)
    #: what the store's engine analysis says of the game (``analytics.judgement.
    #: game_judgement`` without its moves: ``engine``, ``limit``, ``k``, ``black``/``white``
    #: accuracy and judgements, ``turning_ply`` …), or None without analysis
    judgement: Optional[dict] = dataclasses.field(default=None, compare=False)
    #: the rest of the ``games`` row (``DETAILS``: ``end_date``, ``time_control``, ratings …)
    details: dict = dataclasses.field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_record(cls, record: dict, labels: list, kifu=None,
                    unwritable: Optional[str] = None, novelty: Optional[dict] = None) -> Game:
        """A ``Game`` from ``analytics.game_record.game_record``,
        ``analytics.stats.game_labels``, ``analytics.export.stored_kifu`` and
        ``analytics.novelty.game_novelty``."""
        info = record["info"]
        return cls(kifu=kifu, unwritable=unwritable, provenance=info.get("provenance"),
            novelty=novelty, details={name: info.get(name) for name in DETAILS},
            judgement=record.get("judgement"),
            id=info["game"], black=info["black"], white=info["white"],
            date=datetime.date.fromisoformat(info["date"]) if info["date"] else None,
            event=info["event"], handicap=info["handicap"], winner=info["winner"],
            reason=info["reason"], valid=bool(info["valid"]),
            start_sfen=info["start_sfen"] or position_input.STARTING_SFEN,
            headers=info["headers"] or {}, sources=tuple(info["sources"]),
            moves=tuple(GameMove(*(m.get(f) for f in GameMove._fields))
                        for m in record["moves"]),
            sfens=tuple(record["sfens"]),
            variations=tuple(VariationMove(*(v[f] for f in VariationMove._fields))
                             for v in record["variations"]),
            labels=tuple(Label(*(r[f] for f in Label._fields)) for r in labels))

    def position(self, ply: int = -1) -> Position:
        """The position after ``ply`` replayed main-line moves (0: the start; -1, the default:
        after the last one replayed); ``IndexError`` past the end.

        >>> db.game(1).position(2).sfen()
        'lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3'
        >>> db.game(1).position().sfen()
        '1l6l/k1+R6/p1s3+P2/3pps1Gp/spp2n3/N4p+b1P/1L1P4N/KGG2P3/1N6L w GPrbs6p 182'
        """
        return Position.from_sfen(self.sfens[ply])

    def moves_frame(self) -> pl.DataFrame:
        """The main-line moves as a DataFrame (one row a ``GameMove``, without evaluations:
        ``evaluations``).

        >>> db.game(1).moves_frame().columns
        ['ply', 'usi', 'ki2', 'text', 'written', 'seconds', 'comment']
        """
        fields = [f for f in GameMove._fields if f not in ("evaluation", "analysis")]
        return frame([{f: getattr(m, f) for f in fields} for m in self.moves], fields)

    def evaluations(self) -> pl.DataFrame:
        """The engine evaluations the record gives, a row per evaluated move: ``ply`` and
        ``analytics.queries.EVALUATION``'s columns (``score_black``: from Black's side).

        >>> db.game(1).evaluations().columns[:4]
        ['ply', 'score', 'score_black', 'mate']
        """
        from kifudb.analytics.queries import EVALUATION

        names = ["ply", *EVALUATION]
        return frame([{"ply": m.ply, **m.evaluation} for m in self.moves
                      if m.evaluation is not None], names,
                     {"score": pl.Int64, "score_black": pl.Int64, "mate": pl.Int64,
                      "depth": pl.Int64, "nodes": pl.Int64})

    def analysis(self) -> pl.DataFrame:
        """The store's engine analysis of the main-line moves, a row per move (``ply``,
        ``usi`` and ``analytics.game_record.ANALYSIS_FIELDS``: ``engine``, ``limit``,
        ``score_black``, ``mate_black``, ``win_black``, ``loss``, ``accuracy``,
        ``judgement``, ``best``; nulls where a position is not analysed); ``judgement`` has
        the game's figures (each side's accuracy, the turning ply). Without analysis in the
        store every value is null.

        >>> db.game(1).analysis().columns[:5], db.game(1).judgement
        (['ply', 'usi', 'engine', 'limit', 'score_black'], None)
        """
        from kifudb.analytics.game_record import ANALYSIS_FIELDS

        names = ["ply", "usi", *ANALYSIS_FIELDS]
        return frame([{"ply": m.ply, "usi": m.usi,
                       **(m.analysis or dict.fromkeys(ANALYSIS_FIELDS))} for m in self.moves],
                     names, _ANALYSIS_TYPES)

    def record(self, fmt: str = "kif") -> str:
        """The game as a record in ``fmt`` — ``kif``, ``ki2``, ``csa``, ``jkf`` or ``usi``
        (``core.writers``; ``kif()``, ``ki2()`` … say the same); ``ValueError`` for a game
        that cannot be written (``unwritable`` says why) or an unknown format.

        >>> db.game(1).record("usi").splitlines()[-1][:40]
        'position startpos moves 7g7f 3c3d 2g2f 4'
        >>> db.game(1).kif().splitlines()[-1]
        'まで181手で先手の勝ち'
        >>> db.game(13).kif()
        Traceback (most recent call last):
        ...
        ValueError: game 13 cannot be written as a record: move 3 '8h2a+' could not be played when the game was read ('kifudb validate' says why); a record holds legal moves only
        """
        from kifudb.core.writers import write

        if self.kifu is None:
            raise ValueError(f"game {self.id} cannot be written as a record: {self.unwritable}")
        return write(self.kifu, fmt)

    def kif(self) -> str:
        """The game as KIF text (``record("kif")``)."""
        return self.record("kif")

    def ki2(self) -> str:
        """The game as KI2 text (``record("ki2")``)."""
        return self.record("ki2")

    def csa(self) -> str:
        """The game as CSA V3.0 text (``record("csa")``)."""
        return self.record("csa")

    def jkf(self) -> str:
        """The game as JKF, JSON text (``record("jkf")``)."""
        return self.record("jkf")

    def usi(self) -> str:
        """The game as a USI position line (``record("usi")``)."""
        return self.record("usi")

    def as_dict(self) -> dict:
        """The game as plain values (JSON's: the date as ISO text, moves, variations and labels
        as dicts, ``details`` among the others), as ``GET /game/{id}`` and ``kifudb game ID
        --format json`` answer it.

        >>> shown = db.game(1).as_dict()
        >>> list(shown)[:4], shown["time_control"], shown["novelty"]
        (['game', 'black', 'white', 'date'], '6時間', {'ply': 4, 'earlier_games': 2})
        """
        value = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                 if f.name not in ("kifu", "details")}
        value.update(self.details)
        value = {"game": value.pop("id"), **value}  # a game's id is "game" in every answer
        value["date"] = self.date.isoformat() if self.date else None
        for name in ("moves", "variations", "labels"):
            value[name] = [row._asdict() for row in getattr(self, name)]
        value["sources"], value["sfens"] = list(self.sources), list(self.sfens)
        return value


# ----- the database ------------------------------------------------------------------------------


class Database:
    """A store, read-only: ``search``, ``explore``, ``games``, ``game``, ``twins``, ``stats``,
    ``sql``.
    Made by ``kifudb.open(folder)``; ``ValueError`` if the folder holds no store."""

    def __init__(self, path):
        store = as_store(path)
        if not store.manifest_path.exists():
            raise ValueError(f"no store at {store.root}: run 'kifudb ingest PATH... --store "
                             f"{path}' first")
        store.manifest()  # StoreDamaged (a ValueError) for a manifest that is not one
        self._store = store
        self.stats = Stats(store)

    @property
    def path(self) -> Path:
        """The store's folder."""
        return self._store.root

    @property
    def store(self) -> Store:
        """The ``store.folder.Store`` (for ``analytics`` functions not wrapped here)."""
        return self._store

    def __repr__(self) -> str:
        return f"Database({str(self.path)!r}, games={self.stats.overview()['games']})"

    def search(self, position, *, start="startpos", mirror: bool = False,
               limit: Optional[int] = None, offset: int = 0,
               one_per_game: bool = False, filters: Optional[GameFilter] = None,
               **fields) -> pl.DataFrame:
        """Every game and ply where ``position`` occurred (``kifudb search``) in the games of
        the filters, newest games first: ``game``, ``ply``, ``black``, ``white``, ``date``,
        ``event``, ``winner``, ``reason``, ``handicap``, ``path``, ``next_move`` (USI, null at
        the end) and ``mirrored`` (``analytics.explorer.SEARCH_HIT``). ``mirror=True`` adds the
        games that reached its mirror image; ``offset``/``limit`` give a page (of the hits the
        filters keep); ``one_per_game`` keeps a game's first occurrence.

        >>> hits = db.search("7g7f 3c3d 2g2f")
        >>> hits.select("game", "ply", "date", "next_move").rows()[:2]
        [(2, 3, datetime.date(2014, 9, 2), '4a3b'), (1, 3, datetime.date(2006, 12, 15), '4c4d')]
        >>> db.search("7g7f 3c3d 2g2f", limit=1, offset=1)["black"].to_list()
        ['羽生善治']
        >>> db.search("7g7f 3c3d 2g2f", since="2010-01-01")["game"].to_list()
        [2]
        """
        found = queries.search_table(self._store, position_of(position, start), mirror=mirror,
                                     limit=limit, offset=offset, one_per_game=one_per_game,
                                     filters=game_filter(filters, **fields))
        return arrow_frame(found, COLUMNS["search"])

    def occurrences(self, position, *, start="startpos", mirror: bool = False,
                    filters: Optional[GameFilter] = None, **fields) -> dict:
        """``{"occurrences", "games"}``: how many rows ``search`` gives (with the same
        filters), without fetching them.

        >>> db.occurrences("startpos"), db.occurrences("startpos", result="draw")
        ({'occurrences': 15, 'games': 15}, {'occurrences': 1, 'games': 1})
        """
        return queries.occurrences(self._store, position_of(position, start), mirror=mirror,
                                   filters=game_filter(filters, **fields))

    def explore(self, position=None, *, start=None, min_count: int = 1,
                filters: Optional[GameFilter] = None, **fields) -> pl.DataFrame:
        """The moves played next in ``position`` (``kifudb explore``; by default the start of
        the ``handicap`` filter's games, else the even start, where ``start`` also defaults
        to), most played first, in the games of the filters, as every door gives them
        (``analytics.explorer.EXPLORER_MOVE``): ``usi``, ``kif``, ``ki2``, ``games``, and the
        games Black won (``black_wins``), White won (``white_wins``), drawn (``draws``) or
        without a result (``other``), ``decided``, Black's score with its 95% interval
        (``black_score``, ``ci_low``, ``ci_high``), the ``average_rating`` of the players who
        chose the move and their ``performance`` (where rated) and the ``latest_date``.
        Counts are games: a repetition counts once.

        >>> db.explore().select("usi", "games", "latest_date").head(2).rows()
        [('7g7f', 12, datetime.date(2026, 7, 20)), ('2g2f', 2, datetime.date(2022, 5, 5))]
        >>> db.explore(player="羽生", since="2000-01-01").select("usi", "games").rows()
        [('7g7f', 3)]
        >>> db.explore("3c3d", handicap="香落ち").select("ki2", "games").rows()
        [('▲２六歩', 1), ('▲７六歩', 1)]
        """
        chosen = game_filter(filters, **fields)
        handicap = chosen.start_sfen() or "startpos"
        rows = queries.explore(self._store, position_of(
            handicap if position is None else position, start or handicap),
            filters=chosen, min_count=min_count)
        return frame([explorer_move(row) for row in rows], COLUMNS["explore"])

    def games(self, *, limit: int = 20, offset: int = 0, filters: Optional[GameFilter] = None,
              **fields) -> pl.DataFrame:
        """The games of the filters, newest first (undated last), a page of ``limit`` from
        ``offset``: ``game``, ``black``, ``white``, ``date``, ``event``, ``winner``,
        ``reason``, ``handicap``, ``moves``.

        >>> db.games(limit=2, result="draw").select("game", "black", "reason").rows()
        [(7, '妖怪惑星Qhapaq', 'sennichite')]
        """
        return arrow_frame(_stats.games_table(self._store, limit=limit, offset=offset,
                                              filters=game_filter(filters, **fields)),
                           COLUMNS["games"])

    def pattern(self, *conditions, turn: Optional[str] = None, min_ply: Optional[int] = None,
                max_ply: Optional[int] = None, mirror: bool = False, either_side: bool = False,
                limit: Optional[int] = None, offset: int = 0,
                filters: Optional[GameFilter] = None, **fields) -> "PatternAnswer":
        """The games whose main line reached a position where every condition holds
        (``kifudb pattern``; the grammar is ``core.pattern``'s), in the games of the filters:
        a ``PatternAnswer`` with the search as text, the number of ``games``, the ``matches``
        (a page: ``game``, ``ply`` first held, ``plies`` held, and the game's details, newest
        first) and the ``next_moves`` played at each game's first matching ply.

        >>> found = db.pattern("▲玉88", "▲金78", "▲銀77", limit=2)
        >>> found.games, found.matches.select("game", "ply", "plies").rows()
        (3, [(11, 41, 8), (2, 35, 10)])
        >>> db.pattern("▲飛2* ・27", max_ply=4).next_moves.select("usi", "games").head(1).rows()
        [('4a3b', 3)]
        """
        from kifudb.analytics.pattern import PatternSearch, find_pattern

        search = PatternSearch.of(list(conditions), turn=turn, min_ply=min_ply, max_ply=max_ply,
                                  mirror=mirror, either_side=either_side)
        found = find_pattern(self._store, search, filters=game_filter(filters, **fields),
                             limit=limit, offset=offset)
        return PatternAnswer(found["pattern"], found["games"],
                             frame(found["matches"], COLUMNS["pattern"]),
                             frame(found["next_moves"], COLUMNS["pattern_moves"]))

    def twins(self, min_moves: int = 40) -> pl.DataFrame:
        """The games that are probably one game stored twice (``kifudb twins``: the same
        moves under other metadata, or one record the beginning of another), one row a game:
        ``twin`` (the pair's number, from 1, most moves first), ``kind`` (``same moves`` or
        ``prefix``: then the longer game first), ``game``, ``black``, ``white``, ``date``,
        ``event``, ``moves``, ``winner``, ``path`` (a file it was read from), ``differences``
        (the fields whose values differ) and ``same_players`` (their canonical names agree).
        Nothing is merged: the user keeps both or deletes one record.

        >>> db.twins(min_moves=100).height
        0
        >>> db.twins(min_moves=1).filter(twin=1).select("kind", "game", "moves").rows()
        [('prefix', 1, 181), ('prefix', 13, 2)]
        """
        from kifudb.analytics.twins import twins

        rows = [{"twin": number, "kind": twin["kind"],
                 **{k: v for k, v in game.items() if k not in ("black_player", "white_player")},
                 "differences": twin["differences"], "same_players": twin["same_players"]}
                for number, twin in enumerate(twins(self._store, min_moves=min_moves), 1)
                for game in twin["games"]]
        return frame(rows, COLUMNS["twins"], {"twin": pl.Int64, **_NAMES})

    def game(self, game_id: int, *, engine: Optional[str] = None,
             engine_limit: Optional[str] = None) -> Game:
        """Game ``game_id`` (a ``Game``: moves, variations, labels, the engine's analysis of
        ``engine`` and ``engine_limit`` when given, else of the analysis with the most
        positions); ``KeyError`` if the store has no such game.

        >>> db.game(4).black, db.game(4).moves[-1].ki2
        ('羽生善治', '△８七歩')
        >>> db.game(999)
        Traceback (most recent call last):
        ...
        KeyError: 'the store has no game 999'
        """
        return stored_game(self._store, _game_id(game_id), engine, engine_limit)

    # ----- the engine's analysis (kifudb analyse): analytics.judgement, accuracy, puzzles -----

    def analyses(self) -> pl.DataFrame:
        """The engine analyses the store holds, one row per engine and limit, most analysed
        positions first: ``engine``, ``limit``, ``positions``, ``multipv`` (lines stored),
        ``k`` (the win coefficient its judgements use) and ``calibrated`` (``kifudb
        calibrate`` fitted it).

        >>> db.analyses().height
        0
        """
        from kifudb.analytics.judgement import analyses

        return frame(analyses(self._store), COLUMNS["analyses"], _ANALYSIS_TYPES)

    def game_analysis(self, game_id: int, *, engine: Optional[str] = None,
                      engine_limit: Optional[str] = None) -> pl.DataFrame:
        """Every main-line move of a game judged (``analytics.judgement.game_analysis``):
        ``ply``, ``usi``, ``mover``, ``engine``, ``limit``, ``score_black``, ``mate_black``,
        ``pv`` (of the position after the move), ``win_black`` (0–100, after it),
        ``win_before``, ``loss``, ``accuracy``, ``judgement`` (inaccuracy, mistake, blunder
        or null) and ``best`` (the engine's move, when judged). ``NoAnalysis`` (a
        ``ValueError``) without analysis:

        >>> db.game_analysis(1)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        kifudb.analytics.judgement.NoAnalysis: no engine analysis in ...: run 'kifudb analyse --store ... --engine ENGINE --nodes N' first
        """
        from kifudb.analytics.judgement import game_analysis

        return frame(game_analysis(self._store, _game_id(game_id), engine, engine_limit),
                     COLUMNS["game_analysis"], _ANALYSIS_TYPES)

    def accuracy(self, by: str = "total", *, bucket: int = 20, min_games: int = 1,
                 engine: Optional[str] = None, engine_limit: Optional[str] = None,
                 filters: Optional[GameFilter] = None, **fields) -> pl.DataFrame:
        """``kifudb stats accuracy``: the accuracy of the moves of the games of the filters,
        in total or ``by`` player, opening, castle, year or ply-range
        (``analytics.accuracy.accuracy``): the group's key, ``games``, ``moves``,
        ``accuracy``, ``average_loss``, ``inaccuracies``, ``mistakes``, ``blunders``."""
        from kifudb.analytics.accuracy import accuracy

        found = accuracy(self._store, by=by, bucket=bucket, min_games=min_games, engine=engine,
                         engine_limit=engine_limit, filters=game_filter(filters, **fields))
        keys = {"total": [], "ply-range": ["plies_from", "plies_to"]}.get(by, [by])
        return frame(found["groups"], keys + COLUMNS["accuracy"], _ANALYSIS_TYPES)

    def mistakes(self, *, limit: int = 20, offset: int = 0, of: Optional[str] = None,
                 least: str = "inaccuracy", engine: Optional[str] = None,
                 engine_limit: Optional[str] = None, filters: Optional[GameFilter] = None,
                 **fields) -> pl.DataFrame:
        """``kifudb stats mistakes``: the most costly moves (``analytics.accuracy.mistakes``),
        of the player ``of`` when given, judged at least ``least``, the largest loss first."""
        from kifudb.analytics.accuracy import mistakes

        found = mistakes(self._store, limit=limit, offset=offset, of=of, least=least,
                         engine=engine, engine_limit=engine_limit,
                         filters=game_filter(filters, **fields))
        return frame(found["moves"], COLUMNS["mistakes"], _ANALYSIS_TYPES)

    def puzzles(self, *, limit: int = 50, offset: int = 0, engine: Optional[str] = None,
                engine_limit: Optional[str] = None, filters: Optional[GameFilter] = None,
                **fields) -> pl.DataFrame:
        """``kifudb puzzles``: positions of the games of the filters where one move wins and
        the others do not (``analytics.puzzles``; the analysis needs two lines: ``kifudb
        analyse --multipv 2``): ``game``, ``ply``, ``sfen``, ``move``, ``solution`` …"""
        from kifudb.analytics.puzzles import puzzles

        found = puzzles(self._store, limit=limit, offset=offset, engine=engine,
                        engine_limit=engine_limit, filters=game_filter(filters, **fields))
        return frame(found["puzzles"], COLUMNS["puzzles"], _ANALYSIS_TYPES)

    def sql(self, text: str, *, limit: Optional[int] = 1000,
            timeout: Optional[float] = DEFAULT_TIMEOUT,
            memory_limit=DEFAULT_MEMORY_LIMIT) -> pl.DataFrame:
        """One read-only query on the store's views (``kifudb sql``: ``games``, ``sources``,
        ``moves``, ``positions``, ``findings``, ``files``, ``labels``), within ``timeout``
        seconds and ``memory_limit``, at most ``limit`` rows (a warning says when more were
        left out; None: all). ``store.sql.SqlError`` says why a query is refused or failed.

        >>> db.sql("SELECT winner, count(*) AS games FROM games GROUP BY 1 ORDER BY 2 DESC, 1")
        shape: (4, 2)
        ┌────────┬───────┐
        │ winner ┆ games │
        │ ---    ┆ ---   │
        │ str    ┆ i64   │
        ╞════════╪═══════╡
        │ white  ┆ 8     │
        │ black  ┆ 7     │
        │ none   ┆ 2     │
        │ draw   ┆ 1     │
        └────────┴───────┘
        >>> db.sql("DELETE FROM games")
        Traceback (most recent call last):
        ...
        kifudb.store.sql.SqlError: DELETE statements are not allowed: only a single read-only query is allowed (SELECT, WITH, FROM, VALUES, DESCRIBE, SHOW, SUMMARIZE)
        """
        result = run_sql(self._store, text, limit=limit, timeout=timeout,
                         memory_limit=memory_limit)
        if result.truncated:
            warnings.warn(f"only the first {limit} rows: limit=None for all", stacklevel=2)
        names, seen = [], {}
        for name in result.columns:  # SELECT 1, 1: polars wants distinct names
            seen[name] = seen.get(name, 0) + 1
            names.append(name if seen[name] == 1 else f"{name}_{seen[name] - 1}")
        return pl.DataFrame(result.rows, schema=names, orient="row", infer_schema_length=None)


def stored_game(store, game_id: int, engine: Optional[str] = None,
                limit: Optional[str] = None) -> Game:
    """Game ``game_id`` of ``store`` as a ``Game``; ``KeyError`` for an unknown game. Its moves'
    ``analysis`` is of ``engine`` and ``limit`` when given (``NoAnalysis``, a ``ValueError``,
    if the store has none of them), else of the analysis with the most positions."""
    from kifudb.analytics.export import stored_kifu
    from kifudb.core.kifu import UnwritableGame

    record = _game_record.game_record(store, game_id, engine, limit)
    if record is None:
        raise KeyError(f"the store has no game {game_id}")
    try:
        kifu, unwritable = stored_kifu(store, game_id), None
    except UnwritableGame as error:
        kifu, unwritable = None, str(error)
    from kifudb.analytics.novelty import game_novelty

    return Game.from_record(record, _stats.game_labels(store, game_id), kifu, unwritable,
                            game_novelty(store, game_id))


def _game_id(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"a game id is an integer, not {value!r}")
    return value


# ----- statistics --------------------------------------------------------------------------------


class Stats:
    """The statistics of ``kifudb stats`` (``analytics.stats``): ``db.stats.results()`` … Each
    takes the filters as ``Database.explore`` does; tables are DataFrames, the summaries dicts.
    """

    def __init__(self, store: Store):
        self._store = store

    def __repr__(self) -> str:
        return f"Stats({str(self._store.root)!r})"

    def overview(self) -> dict:
        """The size of the store and what it holds (``kifudb stats overview``).

        >>> {k: db.stats.overview()[k] for k in ("games", "positions", "date_from")}
        {'games': 18, 'positions': 2438, 'date_from': '1917-07-19'}
        """
        return _stats.overview(self._store)

    def results(self, *, filters: Optional[GameFilter] = None, **fields) -> dict:
        """Games, wins of each side, draws, ``other`` (no result), ``decided`` and Black's
        score with its 95% interval (``kifudb stats results``).

        >>> db.stats.results(reason="resign")
        ... # doctest: +NORMALIZE_WHITESPACE
        {'games': 5, 'black_wins': 3, 'white_wins': 2, 'draws': 0, 'other': 0, 'decided': 5,
         'black_score': 0.6, 'ci_low': 0.2307, 'ci_high': 0.8824}
        """
        return _stats.results(self._store, filters=game_filter(filters, **fields))

    def results_by_year(self, *, filters: Optional[GameFilter] = None,
                        **fields) -> pl.DataFrame:
        """``results`` per year (``kifudb stats results --by year``), oldest first.

        >>> db.stats.results_by_year().select("year", "games").head(2).rows()
        [(1917, 1), (2003, 3)]
        """
        return frame(_stats.results_by_year(self._store, filters=game_filter(filters, **fields)),
                     COLUMNS["results_by_year"])

    def results_by_reason(self, *, filters: Optional[GameFilter] = None,
                          **fields) -> pl.DataFrame:
        """Games by how they ended (``kifudb stats results --by reason``), most first.

        >>> db.stats.results_by_reason().select("reason", "games").row(1)
        ('resign', 5)
        """
        rows = _stats.results_by_reason(self._store, filters=game_filter(filters, **fields))
        return frame(rows, COLUMNS["results_by_reason"])

    def game_lengths(self, bucket: int = 10, *, filters: Optional[GameFilter] = None,
                     **fields) -> pl.DataFrame:
        """Games by length in moves, ``bucket`` moves a row (``kifudb stats results --by
        length``).

        >>> db.stats.game_lengths(bucket=100).rows()
        [(0, 99, 4), (100, 199, 12), (200, 299, 1), (400, 499, 1)]
        """
        rows = _stats.game_lengths(self._store, bucket, filters=game_filter(filters, **fields))
        return frame(rows, COLUMNS["game_lengths"])

    def label_frequencies(self, kind: str = "castle", *, by_year: bool = False,
                          min_games: int = 1, primary_only: bool = False,
                          filters: Optional[GameFilter] = None, **fields) -> pl.DataFrame:
        """How often each side reached each label of ``kind`` (``kifudb stats labels``).

        >>> db.stats.label_frequencies("opening", min_games=8).select("side", "label", "games").rows()
        [('black', '居飛車', 13), ('white', '居飛車', 12), ('black', '相居飛車', 8), ('white', '相居飛車', 8)]
        """
        rows = _stats.label_frequencies(self._store, kind, by_year=by_year, min_games=min_games,
                                        primary_only=primary_only,
                                        filters=game_filter(filters, **fields))
        return frame(rows, COLUMNS["label_frequencies_by_year" if by_year
                                   else "label_frequencies"])

    def win_rates(self, kind: str = "castle", *, min_games: int = 1, primary_only: bool = False,
                  filters: Optional[GameFilter] = None, **fields) -> pl.DataFrame:
        """How each label of ``kind`` scores for the side that reached it (``kifudb stats
        winrates``).

        >>> db.stats.win_rates("opening", min_games=10).select("side", "label", "score").rows()
        [('black', '居飛車', 0.5417), ('white', '居飛車', 0.7083)]
        """
        rows = _stats.win_rates(self._store, kind, min_games=min_games,
                                primary_only=primary_only, filters=game_filter(filters, **fields))
        return frame(rows, COLUMNS["win_rates"])

    def pairings(self, kind: str = "castle", against: Optional[str] = None, *,
                 min_games: int = 1, filters: Optional[GameFilter] = None,
                 **fields) -> pl.DataFrame:
        """Black's main castle or opening against White's, and Black's score (``kifudb stats
        pairings``).

        >>> db.stats.pairings("opening").select("black_label", "white_label", "games").rows()[:2]
        [('ゴキゲン中飛車', '右四間飛車急戦', 1), ('ゴキゲン中飛車', '対振り持久戦', 1)]
        """
        rows = _stats.pairings(self._store, kind, against, min_games=min_games,
                               filters=game_filter(filters, **fields))
        return frame(rows, COLUMNS["pairings"])

    def label_games(self, label: str, side: Optional[str] = None, limit: int = 20, *,
                    filters: Optional[GameFilter] = None, **fields) -> pl.DataFrame:
        """Games in which a side reached ``label``, newest first.

        >>> db.stats.label_games("四間飛車").select("game", "side", "ply").rows()
        [(2, 'white', 22), (1, 'white', 6)]
        """
        rows = _stats.label_games(self._store, label, side, limit,
                                  filters=game_filter(filters, **fields))
        return frame(rows, COLUMNS["label_games"])

    def game_labels(self, game: int) -> pl.DataFrame:
        """The labels of one game (castles, openings, techniques, notes), in the order reached.

        >>> db.stats.game_labels(1).filter(side="white", primary=True).select("kind", "label", "ply").rows()
        [('opening', 'ノーマル四間飛車', 6), ('castle', '振り飛車穴熊', 26)]
        """
        return frame(_stats.game_labels(self._store, game), COLUMNS["game_labels"])

    def label_names(self) -> dict:
        """Each castle's and opening's English name, by its name.

        >>> db.stats.label_names()["四間飛車"]
        'Fourth-file rook'
        """
        return _stats.label_names()

    def players(self, *, min_games: int = 1, limit: Optional[int] = None,
                filters: Optional[GameFilter] = None, **fields) -> pl.DataFrame:
        """Every player with games, wins, losses, draws and score, most games first
        (``kifudb stats players``).

        >>> db.stats.players(limit=1).select("player", "games").rows()
        [('羽生善治', 3)]
        """
        rows = _stats.players(self._store, min_games=min_games, limit=limit,
                              filters=game_filter(filters, **fields))
        return frame(rows, COLUMNS["players"])

    def player(self, name: str, *, filters: Optional[GameFilter] = None,
               **fields) -> Optional[dict]:
        """One player (a canonical name or a spelling): score as Black and White, openings,
        castles, opponents, recent games (``kifudb stats player NAME``); None if no game has the player.

        >>> summary = db.stats.player("羽生善治")
        >>> summary["games"], summary["as_black"]["wins"], summary["opponents"][0]["opponent"]
        (3, 2, '糸谷哲郎')
        """
        return _stats.player_summary(self._store, name, filters=game_filter(filters, **fields))

    def head_to_head(self, player: str, opponent: str, *, filters: Optional[GameFilter] = None,
                     **fields) -> dict:
        """The games between two players and ``player``'s record against ``opponent``
        (``kifudb stats player NAME --against OPPONENT``).

        >>> record = db.stats.head_to_head("羽生善治", "藤井猛")
        >>> record["wins"], record["losses"], [g["game"] for g in record["games"]]
        (1, 0, [1])
        """
        return _stats.head_to_head(self._store, player, opponent,
                                   filters=game_filter(filters, **fields))

    def player_spellings(self, limit: Optional[int] = None) -> pl.DataFrame:
        """Every player's canonical name with its ``games`` and the ``spellings`` the records
        use (most used first), most games first (``kifudb players``; ``labels.players``).

        >>> db.stats.player_spellings().filter(name="藤井聡太").row(0)
        ('藤井聡太', 1, ['藤井聡太王位'])
        """
        from kifudb.analytics.players import spellings

        return frame(spellings(self._store, limit=limit), COLUMNS["player_spellings"], _NAMES)

    def player_suggestions(self) -> pl.DataFrame:
        """The probable merges of names not made (``kifudb players --suggest``): ``written``,
        its ``games`` (``undated``: those without a date), the ``candidates`` it may be and the
        ``reason`` it was left as written.

        >>> db.stats.player_suggestions().columns
        ['written', 'games', 'undated', 'candidates', 'reason']
        """
        from kifudb.analytics.players import suggestions

        return frame(suggestions(self._store), COLUMNS["player_suggestions"],
                     {"undated": pl.Int64, **_NAMES})

    def novelties(self, limit: int = 20, offset: int = 0, *,
                  filters: Optional[GameFilter] = None, **fields) -> pl.DataFrame:
        """The novelties of the latest dated games of the filters (``kifudb stats
        novelties``), newest first, a page of ``limit`` games from ``offset``: ``game``,
        ``date``, ``black``, ``white``, ``event``, ``ply`` (the first ply whose position no
        earlier-dated game reached), ``move`` (USI) and ``earlier_games`` (those that reached
        the position before it).

        >>> db.stats.novelties(limit=2).select("game", "date", "ply", "move", "earlier_games").rows()
        [(9, datetime.date(2026, 7, 20), 3, '2h7h', 5), (11, datetime.date(2022, 5, 5), 5, '7g7f', 1)]
        >>> db.stats.novelties(player="藤井聡太").select("game", "ply", "earlier_games").rows()
        [(3, 1, 12)]
        """
        from kifudb.analytics.novelty import novelties

        rows = novelties(self._store, limit=limit, offset=offset,
                         filters=game_filter(filters, **fields))
        return frame(rows, COLUMNS["novelties"], {"earlier_games": pl.Int64})

    def novelty(self, game: int) -> Optional[dict]:
        """One game's novelty, ``{"ply", "earlier_games"}`` (``kifudb game ID``), or None: no
        date, or every position reached by an earlier game.

        >>> db.stats.novelty(3), db.stats.novelty(13)
        ({'ply': 1, 'earlier_games': 12}, None)
        """
        from kifudb.analytics.novelty import game_novelty

        return game_novelty(self._store, game)

    def finding_counts(self, by: str = "code", severity: Optional[str] = None) -> pl.DataFrame:
        """Validation findings counted by ``code`` or ``path`` and severity.

        >>> db.stats.finding_counts().rows()[:1]
        [('bad_geometry', 'error', 2)]
        """
        return frame(_stats.finding_counts(self._store, by, severity),
                     COLUMNS["finding_counts_path" if by == "path" else "finding_counts_code"])

    def findings(self, code: Optional[str] = None, severity: Optional[str] = None,
                 path: Optional[str] = None, limit: int = 100, offset: int = 0) -> pl.DataFrame:
        """The findings themselves, by file, line and ply (``kifudb stats findings``).

        >>> db.stats.findings(severity="error").select("code", "line", "ply", "text").rows()
        [('bad_geometry', 30, 3, '8h2a+'), ('bad_geometry', 11, 3, '２一角成(88)')]
        """
        rows = _stats.findings(self._store, code=code, severity=severity, path=path,
                               limit=limit, offset=offset)
        return frame(rows, COLUMNS["findings"])


def open_database(path) -> Database:
    """A read-only ``Database`` on the store in ``path`` (``kifudb.open``)."""
    return Database(path)
