"""One file in, plain values out: read → replay → label, behind one safety net, in one or several
processes. ``kifudb validate``, ``kifudb ingest`` (``store.writer``), ``kifudb classify`` and the
benchmarks all go through ``read_file`` / ``read_files``::

    >>> read = read_file("data/samples/games.usi", labels=True)
    >>> len(read.games), read.games[-1].illegal_code, read.games[-1].first_illegal_ply
    (13, 'bad_geometry', 3)
    >>> game = read.games[0]
    >>> game.moves, game.winner, game.reason, game.labels.black.primary_opening
    (181, <Winner.NONE: 'none'>, <Reason.UNKNOWN: 'unknown'>, '対振り持久戦')

A file that is not a readable record gives no game and a file-level finding; a bug in a reader
or in the replay of one game becomes an ``internal_error`` finding and the other games go on::

    >>> read_file("no/such/file.kif").findings[0].code
    'unreadable_file'
"""

from __future__ import annotations

import os
import sys
from array import array
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Iterator, Optional

from kifudb.core.findings import ERROR, Finding
from kifudb.core.move import Move, move_code
from kifudb.core.outcome import Reason, Winner
from kifudb.ingest import evaluation
from kifudb.ingest.read import FileRead, decoded, load, parse, worker_context
from kifudb.ingest.record import GameRecord
from kifudb.ingest.validate import ValidatedGame, fingerprint, validate_record
from kifudb.labels.classify import GameLabels, classify_game

#: one row of ``StoredGame.move_rows``: a move as written, on its line, with its replayed USI
#: ``(line, parent, ply, usi or None, text, seconds, comment)`` — line 0 is the main line,
#: variation N is line N and branches off line ``parent`` (0 = the main line)
MoveRow = tuple


@dataclass(slots=True)
class StoredGame:
    """One game of a file after reading and replay, as every door needs it: plain values only
    (no ``Game`` or reader state), so that it crosses process boundaries cheaply."""

    path: str
    index: int
    format: str
    encoding: str
    #: the line of the file where the game starts
    line: Optional[int]
    #: the normalized headers (``ingest.headers``) and the headers as written
    headers: dict
    raw_headers: dict
    start_sfen: str
    #: the main-line moves that replayed legally, as ``core.move.move_code``s (an array of
    #: small ints pickles as bytes: workers hand games back cheaply)
    move_codes: array
    #: the 64-bit key of every main-line position, the start included
    keys: array
    first_illegal_ply: Optional[int]
    illegal_code: Optional[str]
    final_sfen: Optional[str]
    winner: Winner
    reason: Reason
    declared_ending: Optional[str]
    fingerprint: str
    findings: list
    #: moves written on the main line (replayed or not), variations, comment lines
    written_moves: int
    variations: int
    comments: list
    move_comments: int
    #: every move of every line as written (``MoveRow``), when asked for (``lines=True``)
    move_rows: list = field(default_factory=list)
    #: the castles and openings of each side (``labels.classify``), when asked for
    labels: Optional[GameLabels] = None
    #: the SFEN of every main-line position, when asked for (``positions=True``)
    sfens: Optional[list] = None
    #: ``{ply: ingest.evaluation.Evaluation}`` of the main-line moves whose comments hold one,
    #: with the lines (``lines=True``)
    evaluations: dict = field(default_factory=dict)
    #: the players' ratings (shogi-server's ``black_rate``/``white_rate`` lines) and, with the
    #: lines, the engines the record says each side played with (``ingest.evaluation.engines``)
    black_rating: Optional[float] = None
    white_rating: Optional[float] = None
    black_engine: Optional[str] = None
    white_engine: Optional[str] = None

    @property
    def moves(self) -> int:
        """How many main-line moves replayed legally."""
        return len(self.move_codes)

    @property
    def valid(self) -> bool:
        """True when no finding is an error."""
        return not any(f.severity == ERROR for f in self.findings)

    @property
    def black_first(self) -> bool:
        """True when Black moves first (the start position's side to move)."""
        return self.start_sfen.split()[1] == "b" if self.start_sfen else True


@dataclass(slots=True)
class FileGames:
    """What one file gave: its format and encoding, its games, and file-level findings (why it
    gave no game, or what its bytes said: a wrong declared encoding, say)."""

    path: str
    format: Optional[str]
    encoding: str
    games: list = field(default_factory=list)
    findings: list = field(default_factory=list)


def read_file(path, labels: bool = False, positions: bool = False,
              lines: bool = False, on_game: Optional[Callable[[int, int], None]] = None
              ) -> FileGames:
    """Read, replay and (``labels``) label every game of one file; never raises. ``positions``
    adds each game's SFENs, ``lines`` every move of every line as written (``move_rows``).
    ``on_game(done, total)`` is called after each game is replayed (a progress bar moves
    while one big file is read)."""
    return _read_games(*load(path), labels, positions, lines, on_game)


def read_data(data: bytes, path: str = "", labels: bool = False, positions: bool = False,
              lines: bool = False) -> FileGames:
    """``read_file`` of bytes already in memory (``path`` names them in findings)."""
    return _read_games(*decoded(data, path), labels, positions, lines)


def _read_games(read: FileRead, text: Optional[str], labels: bool, positions: bool,
                lines: bool, on_game: Optional[Callable[[int, int], None]] = None
                ) -> FileGames:
    """The safety net: a reader bug costs this file, a replay bug this game, never the run."""
    if text is not None:
        try:
            parse(read, text)
        except Exception as error:
            read.records = []
            read.findings.append(Finding(ERROR, "reader_error", f"the {read.format} reader "
                                         f"failed: {type(error).__name__}: {error}"))
    result = FileGames(read.path, read.format, read.encoding, findings=read.findings)
    total = len(read.records)
    for done, record in enumerate(read.records, 1):
        try:
            result.games.append(stored_game(read.path, record, labels, positions, lines))
        except Exception as error:
            result.games.append(_broken_game(read, record, error))
        if on_game is not None:
            on_game(done, total)
    return result


def stored_game(path: str, record: GameRecord, labels: bool = False, positions: bool = False,
                lines: bool = False) -> StoredGame:
    """Replay one record (``ingest.validate``) and turn it into a ``StoredGame``."""
    replayed = validate_record(record)
    game = replayed.game
    main_line = game.moves if game is not None else []
    stored = StoredGame(
        path, record.index, record.format, record.encoding, record.first_line, replayed.headers,
        record.headers, replayed.start_sfen, array("H", map(move_code, main_line)),
        array("Q", replayed.keys),
        replayed.first_illegal_ply, replayed.illegal_code, replayed.final_sfen, replayed.winner,
        replayed.reason, record.ending.word if record.ending else None, replayed.fingerprint,
        replayed.findings, len(record.moves), len(record.variations), list(record.comments),
        record.move_comment_count())
    if record.comments:
        stored.black_rating, stored.white_rating = evaluation.ratings(record.comments)
    if lines:
        stored.move_rows = _move_rows(record, replayed)
        if stored.move_comments:  # a game without move comments pays nothing for evaluations
            _evaluate(stored, record, replayed.start_sfen, main_line)
    if labels:
        stored.labels = (classify_game(replayed.start_sfen, main_line) if game is not None
                         else GameLabels())
    if positions:
        stored.sfens = replayed.sfens()
    return stored


def _evaluate(stored: StoredGame, record: GameRecord, start_sfen: str, played: list) -> None:
    """The engines' evaluations of the main line (``ingest.evaluation``), their PVs in USI, and
    the engines each side played with. Only with the lines (``lines=True``: the store keeps
    them beside the moves): reading and validating a record need none of it, and an engine log
    carries a PV of thirty moves on every move."""
    found = evaluation.main_line(record.moves, start_sfen)
    if found:
        evaluation.replay_pvs(found, start_sfen, played)
        stored.evaluations = found
        stored.black_engine, stored.white_engine = evaluation.engines(
            found, start_sfen, stored.headers.get("black"), stored.headers.get("white"))


def _move_rows(record: GameRecord, replayed: ValidatedGame) -> list:
    """The ``MoveRow`` of every move of every line of ``record``."""
    main = replayed.game.moves if replayed.game is not None else []
    rows = _line_rows(0, None, 1, record.moves, main)
    for number, variation in enumerate(record.variations, start=1):
        parent = 0 if variation.parent is None else variation.parent + 1
        rows += _line_rows(number, parent, variation.start_ply, variation.moves,
                           replayed.variations[number - 1] if replayed.game else [])
    return rows


def _line_rows(line: int, parent, first_ply: int, written: list, replayed: list) -> list:
    return [(line, parent, first_ply + i, Move.usi(replayed[i]) if i < len(replayed) else None,
             m.text, m.seconds, "\n".join(m.comments) or None) for i, m in enumerate(written)]


def _internal(error: Exception, line, doing: str) -> Finding:
    return Finding(ERROR, "internal_error", f"kifudb failed {doing}: {type(error).__name__}: "
                   f"{error} (please report this with the file)", line)


def _broken_game(read: FileRead, record: GameRecord, error: Exception) -> StoredGame:
    """A game whose replay failed inside kifudb: no moves, and the finding that says so."""
    finding = _internal(error, record.first_line, "replaying this game")
    # identified by its moves as written, so that two broken games never become one
    identity = fingerprint(record.start_sfen, [], 0, [m.text for m in record.moves])
    return StoredGame(read.path, record.index, record.format, record.encoding, record.first_line,
                      {}, record.headers, record.start_sfen, array("H"), array("Q"), None, None,
                      None, Winner.NONE, Reason.UNKNOWN,
                      record.ending.word if record.ending else None, identity, [finding],
                      len(record.moves), len(record.variations), list(record.comments), 0)


def read_files(paths: list, jobs: int = 1, progress: Optional[str] = None,
               **options) -> Iterator[FileGames]:
    """Yield ``read_file(path, **options)`` of each path, in the order given, using ``jobs``
    processes; ``progress`` names a progress bar on standard error. With several jobs, files go
    to the workers in small chunks and at most a few chunks per worker are read ahead, so
    results never pile up while the caller writes them. The bar counts the bytes read (a big
    file moves it as much as its size, not as one file of many) and says the games found; a
    file read in this process moves it game by game while it is replayed."""
    paths = list(paths)
    bar = sizes = None
    # the file being read, the bytes of it already shown, the games of the files done
    state = {"file": 0, "shown": 0, "games": 0}
    if progress:
        from tqdm import tqdm
        sizes = [_size(path) for path in paths]
        # miniters=1: redrawn every mininterval (the byte steps are too uneven for tqdm's guess)
        bar = tqdm(total=sum(sizes), unit="B", unit_scale=True, unit_divisor=1024,
                   file=sys.stderr, desc=progress, leave=False, miniters=1)

        def show(games: int, shown: int) -> None:
            bar.set_postfix_str(f"file {state['file'] + 1} of {len(paths)}, games {games:,}",
                                refresh=False)
            bar.update(shown - state["shown"])
            state["shown"] = shown

        if jobs <= 1 or len(paths) < 2:  # read here: the bar moves game by game
            options = {**options, "on_game": lambda done, total: show(
                state["games"] + done, sizes[state["file"]] * done // total)}
    try:
        for read in _read_all(paths, jobs, options):
            if bar is not None:
                state["games"] += len(read.games)
                show(state["games"], sizes[state["file"]])
                state["file"] += 1
                state["shown"] = 0
            yield read
    finally:
        if bar is not None:
            bar.close()


def _size(path) -> int:
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return 0


def _read_chunk(paths: list, options: dict) -> list:
    return [read_file(path, **options) for path in paths]


def _read_all(paths: list, jobs: int, options: dict) -> Iterator[FileGames]:
    if jobs <= 1 or len(paths) < 2:
        for path in paths:
            yield read_file(path, **options)
        return
    size = max(1, min(64, len(paths) // (jobs * 8)))
    chunks = [paths[i:i + size] for i in range(0, len(paths), size)]
    with ProcessPoolExecutor(max_workers=jobs, mp_context=worker_context()) as pool:
        pending: deque = deque()
        try:
            for chunk in chunks:
                pending.append(pool.submit(_read_chunk, chunk, options))
                if len(pending) >= jobs * 4:
                    yield from pending.popleft().result()
            while pending:
                yield from pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()
