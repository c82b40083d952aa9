"""The store's tables: their Arrow schemas, and the compact integer code of a move.

A store is a folder of Parquet batches (see ``store.folder``); every batch holds the same
tables:

* ``games``: one row per distinct game (the same game read from several files is one game):
  ``game`` (a dense integer id), ``fingerprint``, the normalized headers, ``headers`` (all raw
  headers as JSON), ``start_sfen``, ``moves``, ``valid``, ``first_illegal_ply``, ``illegal_code``,
  ``winner``, ``reason``, ``declared_ending``, ``comments`` (the record's comments that belong to
  no move, one a line), ``black_rating``/``white_rating`` (shogi-server's rate lines),
  ``black_engine``/``white_engine`` (``ingest.evaluation.engines``), ``provenance`` (JSON:
  which source gave each field, ``{"date": {"path", "index"}, …}``), ``batch``. When a game
  already stored is read again from another source, its fields are merged
  (``store.writer.reconcile``: each field from the source that has it; where several have
  one, from the one that says most, then the first by path and index — whatever the order the
  files were read in), and a later batch holds a new row for it; the ``games`` view shows the
  latest.
* ``sources``: where each game was read: ``game``, ``path``, ``index`` (in the file),
  ``format``, ``encoding``, ``description`` (JSON: what this source alone says of the game —
  its normalized headers, result, ratings and engines, and ``detail``, how much it says —,
  what ``reconcile`` merges), ``batch`` (the batch that read it).
* ``moves``: every move of every line: ``game``, ``line`` (0 = main line, else the variation's
  number), ``parent`` (for a variation, the line it branches from: 0 for the main line; null on
  the main line), ``ply``, ``usi`` (null from the first move of the line that could not be
  replayed), ``text`` as written, ``seconds``, ``comment``, and the move's evaluation
  (``ingest.evaluation``; main line only, null without one): ``score`` as written,
  ``score_black`` (Black's point of view, a mate ±100000), ``mate`` (plies, signed), ``depth``,
  ``nodes``, ``pv`` (USI), ``engine``, ``dialect``.
* ``positions``: every main-line position, **sorted by key**: ``key`` (the 64-bit position key,
  unsigned), ``game``, ``ply``, ``black_to_move``, ``next_move`` (the code of the move played
  next, null at the end).
* ``findings``: every validation finding, as ``kifudb validate`` reports it (and ``batch``).
* ``files``: the files this batch read: ``path``, ``sha256``, ``size``, ``games`` (their ids),
  ``batch``.
* ``retired``: ``path``, ``batch``: a file read again because it changed; its sources, findings
  and files rows from earlier batches no longer count.
* ``placements``: where every piece of every main line stood, and from which ply to which
  (``core.placement``), what pattern search reads (``analytics.pattern``): ``game``, ``place``
  (a square 0..80, 81 a side's hand, 82 its material), ``piece`` (the board code ``type + 16 *
  colour``), ``count``, ``from_ply``, ``to_ply`` (not included); sorted by place, piece, game
  and ply, so a condition on one square reads the row groups of that square. A batch written
  before placements existed has none (``Store.table_files``); ``kifudb relabel`` adds them.
* ``labels``: the castles (囲い), openings (戦型), techniques (手筋) and notes (備考) of each
  side of a game (``labels.classify``): ``game``, ``side`` (black/white), ``kind`` (castle,
  opening, technique or note), ``label``, ``ply`` (when first reached; a technique's every ply,
  a note's the ply it speaks of), ``primary`` (the side's most specific castle or opening),
  ``batch``. The manifest's ``labels`` entry names the definitions' version and the batch from
  which labels count (``kifudb relabel`` writes a batch of labels for every game).
* ``analysis``: a USI engine's judgement of a position (``kifudb.analysis``), once per position
  whatever number of games reach it, **sorted by key**: ``key``, ``engine`` (the name the engine
  gives, with its version), ``limit`` (what bounded the search, as text: ``nodes=20000``),
  ``multipv`` (1 for the engine's best line, 2 for its second, …), ``score_black``
  (centipawns from Black's point of view; null when a mate is found), ``mate_black`` (plies to
  mate, positive when Black mates), ``best`` (the line's first move, USI), ``pv`` (at most 16
  USI moves, space-separated), ``depth``, ``nodes``, ``batch``. The ``analysis`` view shows one
  row per key, engine, limit and line (the latest). A batch written before analysis existed has
  none; an analysis batch holds only analysis rows.

Plies, line numbers and move counts are 32-bit: wide enough for any record a reader accepts
(a 64 MB file holds fewer than 2**31 moves). The move code fits 16 bits.

The move code (``core.move.move_code``) packs a move in 14 bits: a board move is
``from * 81 + to`` (+ 6561 when it promotes), a drop is ``13122 + (type - 1) * 81 + to``::

    >>> from kifudb.core import Move
    >>> move_code(Move.from_usi("7g7f")), move_code(Move.from_usi("P*5e"))
    (4919, 13162)
    >>> code_usi(4919), code_usi(13162)
    ('7g7f', 'P*5e')
"""

from __future__ import annotations

import pyarrow as pa

from kifudb.core.move import code_move, code_usi, move_code  # noqa: F401 (the store's move code)
from kifudb.ingest.evaluation import MATE  # noqa: F401 (a mate's score_black)

#: the evaluation of a move (``ingest.evaluation``): null where its comments hold none
EVALUATION = [
    ("score", pa.int32()), ("score_black", pa.int32()), ("mate", pa.int32()),
    ("depth", pa.int32()), ("nodes", pa.int64()), ("pv", pa.string()), ("engine", pa.string()),
    ("dialect", pa.string()),
]
#: the columns each store format added (a view over older batches gives them as nulls)
ADDED = {5: {"games": ("black_rating", "white_rating", "black_engine", "white_engine"),
             "moves": tuple(name for name, _ in EVALUATION)},
         6: {"games": ("provenance",), "sources": ("description",)}}

GAMES = pa.schema([
    ("game", pa.int32()), ("fingerprint", pa.string()), ("event", pa.string()),
    ("date", pa.date32()), ("end_date", pa.date32()), ("black", pa.string()),
    ("white", pa.string()), ("handicap", pa.string()), ("time_control", pa.string()),
    ("place", pa.string()), ("opening", pa.string()), ("headers", pa.string()),
    ("start_sfen", pa.string()), ("moves", pa.int32()), ("valid", pa.bool_()),
    ("first_illegal_ply", pa.int32()), ("illegal_code", pa.string()), ("winner", pa.string()),
    ("reason", pa.string()), ("declared_ending", pa.string()), ("comments", pa.string()),
    ("black_rating", pa.float32()), ("white_rating", pa.float32()),
    ("black_engine", pa.string()), ("white_engine", pa.string()),
    ("provenance", pa.string()),
    ("batch", pa.int32()),
])
SOURCES = pa.schema([
    ("game", pa.int32()), ("path", pa.string()), ("index", pa.int32()),
    ("format", pa.string()), ("encoding", pa.string()), ("description", pa.string()),
    ("batch", pa.int32()),
])
MOVES = pa.schema([
    ("game", pa.int32()), ("line", pa.int32()), ("parent", pa.int32()), ("ply", pa.int32()),
    ("usi", pa.string()),
    ("text", pa.string()), ("seconds", pa.float32()), ("comment", pa.string()),
    *EVALUATION,
])
POSITIONS = pa.schema([
    ("key", pa.uint64()), ("game", pa.int32()), ("ply", pa.int32()),
    ("black_to_move", pa.bool_()), ("next_move", pa.int16()),
])
FINDINGS = pa.schema([
    ("game", pa.int32()), ("path", pa.string()), ("index", pa.int32()),
    ("severity", pa.string()), ("code", pa.string()), ("line", pa.int32()),
    ("ply", pa.int32()), ("text", pa.string()), ("message", pa.string()), ("batch", pa.int32()),
])
FILES = pa.schema([
    ("path", pa.string()), ("sha256", pa.string()), ("size", pa.int64()),
    ("games", pa.list_(pa.int32())), ("batch", pa.int32()),
])
RETIRED = pa.schema([("path", pa.string()), ("batch", pa.int32())])
LABELS = pa.schema([
    ("game", pa.int32()), ("side", pa.string()), ("kind", pa.string()), ("label", pa.string()),
    ("ply", pa.int32()), ("primary", pa.bool_()), ("batch", pa.int32()),
])

PLACEMENTS = pa.schema([
    ("game", pa.int32()), ("place", pa.int8()), ("piece", pa.int8()), ("count", pa.int8()),
    ("from_ply", pa.int32()), ("to_ply", pa.int32()),
])

ANALYSIS = pa.schema([
    ("key", pa.uint64()), ("engine", pa.string()), ("limit", pa.string()),
    ("multipv", pa.int8()), ("score_black", pa.int32()), ("mate_black", pa.int32()),
    ("best", pa.string()), ("pv", pa.string()), ("depth", pa.int32()), ("nodes", pa.int64()),
    ("batch", pa.int32()),
])

TABLES = {"games": GAMES, "sources": SOURCES, "moves": MOVES, "positions": POSITIONS,
          "findings": FINDINGS, "files": FILES, "retired": RETIRED, "labels": LABELS,
          "placements": PLACEMENTS, "analysis": ANALYSIS}
#: the order of the rows of the tables kept sorted (a key or a square's rows read together)
SORTED = {"positions": ("key", "game", "ply"),
          "placements": ("place", "piece", "game", "from_ply"),
          "analysis": ("key", "engine", "limit", "multipv")}
#: tables a batch of an older kifudb may lack (its games then have none of their rows)
OPTIONAL = ("placements", "analysis")
