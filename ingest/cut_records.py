"""Records to write out (``kifudb convert``), a game whose main line stops at an illegal or
unreadable move included: a record holds legal moves only, so such a game is written with the
moves before it and ends as the formats end a game lost by an illegal move — CSA
``%ILLEGAL_MOVE``, KIF and KI2 ``反則負け`` (the side to move lost), JKF ``ILLEGAL_MOVE``, USI
``illegal`` (``core.kifu.ending_word``) —, and the move as written is kept in a comment on the
last legal move (on the game's comments when there is none), with why it could not be played::

    >>> read = read_records("data/samples/records/illegal_move.kif")
    >>> game = read.games[0]
    >>> [m.usi() for m in game.kifu.moves], game.kifu.ending.word, game.kifu.ending.winner
    (['7g7f', '3c3d'], '%ILLEGAL_MOVE', 'white')
    >>> game.kifu.moves[-1].comments[-1]
    "illegal move 3 as written: ２一角成(88) (bad_geometry: the bishop on 8h cannot move to 2a); the record's ending was 中断"
    >>> game.cut
    "move 3 '２一角成(88)' cannot be played (bad_geometry: the bishop on 8h cannot move to 2a): written up to move 2, ending with the illegal move"
    >>> from kifudb.core.writers import write
    >>> write(game.kifu, "kif").splitlines()[-2:]
    ['   3 反則負け', 'まで2手で先手の反則負け']
    >>> write(game.kifu, "csa").splitlines()[-1]
    '%ILLEGAL_MOVE'

The variations of such a game that branch before the illegal move and replay legally are kept;
the others are left out and counted (``dropped_variations``). A game whose start position
cannot be read has no record (``problem``), as in ``ingest.kifu.read_kifus``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from kifudb.core.findings import ERROR
from kifudb.core.kifu import Kifu, KifuEnding, KifuMove, KifuVariation, UnwritableGame
from kifudb.ingest.kifu import FileKifus, GameKifu, kifu_of
from kifudb.ingest.read import read_path
from kifudb.ingest.validate import ValidatedGame, validate_record

__all__ = ["read_records", "CutGame", "cut_kifu", "ILLEGAL_ENDING"]

#: The ending of a game cut at an illegal move (``core.kifu.ending_word`` says it in each
#: format: ``%ILLEGAL_MOVE``, ``反則負け``, ``ILLEGAL_MOVE``, ``illegal``).
ILLEGAL_ENDING = "%ILLEGAL_MOVE"


@dataclass
class CutGame(GameKifu):
    """A ``GameKifu`` that may be cut at its illegal move: ``cut`` says where and why (None
    for a game written whole)."""

    cut: Optional[str] = None


def _illegal_finding(replayed: ValidatedGame, ply: int):
    """The main line's error finding about ``ply`` (the move that could not be played)."""
    return next((f for f in replayed.findings if f.severity == ERROR and f.ply == ply
                 and not f.message.startswith("in ")), None)


def cut_kifu(replayed: ValidatedGame, variations: bool = True) -> tuple:
    """``(Kifu, dropped variations, why)`` of a replayed game whose main line stops at an
    illegal or unreadable move: its legal moves, the ``ILLEGAL_ENDING``, the move as written
    in a comment. ``UnwritableGame`` when its start position cannot be read."""
    record, game = replayed.record, replayed.game
    if game is None:
        first = next((f for f in replayed.findings if f.severity == ERROR), None)
        raise UnwritableGame(f"the start position cannot be read"
                             f"{': ' + first.message if first else ''}")
    ply = replayed.first_illegal_ply
    legal = len(game.moves)
    written = record.moves[legal] if legal < len(record.moves) else None
    found = _illegal_finding(replayed, ply)
    why = f"{found.code}: {found.message}" if found is not None else "it cannot be played"
    text = written.text if written is not None else (found.text if found else "?")
    note = f"illegal move {ply} as written: {text} ({why})"
    if record.ending is not None:
        note += f"; the record's ending was {record.ending.word}"
    moves = [KifuMove(move, m.seconds, m.total_seconds, list(m.comments), m.bookmark)
             for m, move in zip(record.moves, game.moves)]
    comments = list(record.comments)
    (moves[-1].comments if moves else comments).append(note)
    mover = ("black", "white")[Kifu(start_sfen=game.start_sfen).mover_after(legal)]
    winner = "white" if mover == "black" else "black"
    kifu = Kifu(headers=list(record.headers.items()), start_sfen=game.start_sfen, moves=moves,
                comments=comments, ending=KifuEnding(ILLEGAL_ENDING, winner, "illegal_move"))
    # a variation's index in the record -> in the kifu (None: the main line)
    dropped, kept = 0, {None: None}
    if variations:
        for number, (variation, played) in enumerate(zip(record.variations,
                                                         replayed.variations)):
            on_main = variation.parent is None
            if len(played) == len(variation.moves) and variation.parent in kept and (
                    not on_main or variation.start_ply <= legal + 1):
                kifu.variations.append(KifuVariation(
                    variation.start_ply,
                    [KifuMove(move, m.seconds, m.total_seconds, list(m.comments), m.bookmark)
                     for m, move in zip(variation.moves, played)], kept[variation.parent],
                    None))
                kept[number] = len(kifu.variations) - 1
            else:
                dropped += 1
    quoted = f" {text!r}" if text else ""
    return kifu, dropped, (f"move {ply}{quoted} cannot be played ({why}): written up to move "
                           f"{legal}, ending with the illegal move")


def read_records(path, variations: bool = True) -> FileKifus:
    """``ingest.kifu.read_kifus``, but a game whose main line stops at an illegal move is
    written up to it (``cut_kifu``; its ``CutGame.cut`` says so) instead of left out."""
    read = read_path(path)
    result = FileKifus(str(path), read.format, read.encoding,
                       problems=[str(f) for f in read.findings if f.severity == ERROR])
    for record in read.records:
        kifu = problem = cut = None
        dropped = 0 if variations else len(record.variations)
        try:
            replayed = validate_record(record)
            if replayed.first_illegal_ply is not None and replayed.game is not None:
                kifu, cut_dropped, cut = cut_kifu(replayed, variations)
                dropped += cut_dropped
            else:
                kifu = kifu_of(record, replayed, variations=variations)
        except UnwritableGame as error:
            problem = str(error)
        except Exception as error:  # a safety net: one game's bug never stops the file
            problem = (f"kifudb failed writing this game: {type(error).__name__}: {error} "
                       f"(please report this with the file)")
        result.games.append(CutGame(record.index, kifu, problem, record.first_line, dropped,
                                    cut))
    return result
