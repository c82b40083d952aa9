"""A record read and replayed, as a ``core.kifu.Kifu`` the writers of ``core.writers`` take.

Every move of a ``Kifu`` is a legal move, so a game whose main line (or, when the variations are
written, one of its variations) stops at a move that cannot be read or played cannot be written:
``kifu_of`` raises ``UnwritableGame`` saying which move and why, and the other games go on::

    >>> from kifudb.ingest.usi_file import read_usi
    >>> [good, bad] = read_usi("startpos moves 7g7f 3c3d\\nstartpos moves 7g7f 7g7f\\n", "x.usi")
    >>> [m.usi() for m in kifu_of(good).moves]
    ['7g7f', '3c3d']
    >>> kifu_of(bad)
    Traceback (most recent call last):
    ...
    kifudb.core.kifu.UnwritableGame: move 2 '7g7f' cannot be played (no_piece: there is no piece on 7g); a record holds legal moves only

``read_kifus(path)`` reads a file and gives each game's ``Kifu`` or the reason it has none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from kifudb.core.findings import ERROR
from kifudb.core.kifu import Kifu, KifuEnding, KifuMove, KifuVariation, UnwritableGame
from kifudb.ingest.read import read_path
from kifudb.ingest.record import GameRecord
from kifudb.ingest.validate import ValidatedGame, validate_record

__all__ = ["kifu_of", "read_kifus", "UnwritableGame", "FileKifus", "GameKifu"]


def _refusal(replayed: ValidatedGame, ply: int, where: str = "") -> UnwritableGame:
    """The error for a line (``where``: a variation's label; the main line) stopped at
    ``ply``, in the words of the replay's finding about it."""
    head = f"{where}: move {ply}" if where else f"move {ply}"
    for f in replayed.findings:
        if f.severity == ERROR and f.ply == ply and (
                f.message.startswith(f"in {where}: ") if where else not f.message.startswith("in ")):
            message = f.message.removeprefix(f"in {where}: ")
            quoted = f" {f.text!r}" if f.text else ""
            return UnwritableGame(f"{head}{quoted} cannot be played ({f.code}: {message}); a "
                                  "record holds legal moves only")
        if where and f.message.startswith(where):  # its parent line never reached it
            return UnwritableGame(f"{f.message}: its moves cannot be written")
    return UnwritableGame(f"{head} cannot be played; a record holds legal moves only")


def _moves(written: list, played: list) -> list:
    return [KifuMove(move, m.seconds, m.total_seconds, list(m.comments), m.bookmark)
            for m, move in zip(written, played)]


def _ending(declared, winner: str = "none", reason: str = "unknown") -> Optional[KifuEnding]:
    if declared is None:
        return None
    return KifuEnding(declared.word, str(winner), str(reason), declared.seconds, declared.summary)


def kifu_of(record: GameRecord, replayed: Optional[ValidatedGame] = None, *,
            variations: bool = True) -> Kifu:
    """The ``Kifu`` of ``record`` (``replayed``: its ``validate_record``, when the caller has
    it); ``variations=False`` leaves the variations out, and then only the main line must be
    legal. Raises ``UnwritableGame``."""
    if replayed is None:
        replayed = validate_record(record)
    game = replayed.game
    if game is None:
        first = next((f for f in replayed.findings if f.severity == ERROR), None)
        raise UnwritableGame(f"the start position cannot be read"
                             f"{': ' + first.message if first else ''}")
    if replayed.first_illegal_ply is not None:
        raise _refusal(replayed, replayed.first_illegal_ply)
    kifu = Kifu(headers=list(record.headers.items()), start_sfen=game.start_sfen,
                moves=_moves(record.moves, game.moves), comments=list(record.comments),
                ending=_ending(record.ending, replayed.winner, replayed.reason))
    if not variations:
        return kifu
    for index, (variation, played) in enumerate(zip(record.variations, replayed.variations)):
        if len(played) < len(variation.moves):
            raise _refusal(replayed, variation.start_ply + len(played),
                           f"variation {index + 1} (from ply {variation.start_ply})")
        kifu.variations.append(KifuVariation(variation.start_ply,
                                             _moves(variation.moves, played),
                                             variation.parent, _ending(variation.ending)))
    return kifu


@dataclass
class GameKifu:
    """One game of a file: its number in the file (from 0), its ``Kifu`` or why it has none."""

    index: int
    kifu: Optional[Kifu]
    problem: Optional[str] = None
    #: the line of the file where the game starts
    line: Optional[int] = None
    #: the variations of the record left out (``variations=False``)
    dropped_variations: int = 0


@dataclass
class FileKifus:
    """What one file gave: its format and encoding, its games, and why it gave none (the
    file-level findings, as text)."""

    path: str
    format: Optional[str]
    encoding: str
    games: list = field(default_factory=list)
    problems: list = field(default_factory=list)


def read_kifus(path, variations: bool = True) -> FileKifus:
    """Read one file and make each game's ``Kifu`` (see ``kifu_of``); never raises on bad
    input: a file that is no record gives no game and its problems, a game that cannot be
    written its problem.

    >>> read = read_kifus("data/samples/games.usi", variations=False)
    >>> len(read.games), read.games[-1].problem[:40]
    (13, "move 3 '8h2a+' cannot be played (bad_geo")
    """
    read = read_path(path)
    result = FileKifus(str(path), read.format, read.encoding,
                       problems=[str(f) for f in read.findings if f.severity == ERROR])
    for record in read.records:
        try:
            kifu, problem = kifu_of(record, variations=variations), None
        except UnwritableGame as error:
            kifu, problem = None, str(error)
        except Exception as error:  # a safety net: one game's bug never stops the file
            kifu, problem = None, (f"kifudb failed writing this game: {type(error).__name__}: "
                                   f"{error} (please report this with the file)")
        result.games.append(GameKifu(record.index, kifu, problem, record.first_line,
                                     0 if variations else len(record.variations)))
    return result
