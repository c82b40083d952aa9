"""An opening book in YaneuraOu's standard format (``#YANEURAOU-DB2016 1.00``, the book.db
that YaneuraOu, ShogiHome and ShogiGUI load), built from the moves played in the store's games.

The file is a header line, then for each position a line ``sfen <SFEN>`` followed by one line
per move played there: ``<move> <ponder> <value> <depth> <count>``, all USI:

* ``move``: the move played; ``ponder``: the reply played most often after it in these games
  (``none`` when no game went on);
* ``value``: the mean of the stored evaluations of the move (the side to move's view, on
  YaneuraOu's scale, ``analytics.played.engine_score``), 0 when none is stored; ``depth``: the
  deepest stored search depth of those evaluations, 0 when none is stored;
* ``count``: the number of games that played the move there (a game that reached the position
  twice and played the same move counts once, as the explorer counts).

As YaneuraOu writes a book (``MemoryBook::write_book``): the positions sorted by their ``sfen``
line (byte order, which its on-the-fly reader's binary search needs), each position once with the
smallest move number it was reached at, and its moves by count then value, most first.
``min_games`` drops the moves played in fewer games (and the positions left without a move),
``max_ply`` stops each game after that many moves::

    >>> import tempfile, os
    >>> from kifudb.store.writer import ingest_paths
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["data/samples/games.usi"], folder)
    >>> path = os.path.join(folder, "book.db")
    >>> write_book(folder, path, max_ply=2, min_games=3)
    {'positions': 2, 'moves': 2, 'games': 13, 'replaced': False}
    >>> print(open(path, encoding="ascii").read(), end="")
    #YANEURAOU-DB2016 1.00
    sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2
    3c3d none 0 0 5
    sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1
    7g7f 3c3d 0 0 8
    >>> write_book(folder, path, max_ply=1)["moves"]  # 7g7f, 2g2f, 3i4h; 3c3d of a 香落ち game
    4
    >>> import shutil; shutil.rmtree(folder)
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Optional

from kifudb.analytics import checks
from kifudb.analytics.files import OutputFile
from kifudb.analytics.filters import GameFilter
from kifudb.analytics.played import engine_score, played_games
from kifudb.core.move import Move
from kifudb.core.pieces import BLACK
from kifudb.core.position import Position

__all__ = ["write_book", "book_entries", "HEADER"]

HEADER = "#YANEURAOU-DB2016 1.00"


class _Played:
    """What the games did with one move in one position."""

    __slots__ = ("games", "scores", "depth", "replies")

    def __init__(self):
        self.games = 0
        self.scores: list = []
        self.depth = 0
        self.replies: Counter = Counter()


def book_entries(store, *, filters: GameFilter = GameFilter(), min_games: int = 1,
                 max_ply: Optional[int] = None) -> list:
    """The book as values, sorted as written: ``(sfen, [(move, ponder, value, depth, count)])``
    per position, ``sfen`` with the smallest move number it was reached at."""
    return _collect(store, filters, min_games, max_ply)[0]


def _collect(store, filters: GameFilter, min_games: int, max_ply: Optional[int]) -> tuple:
    """``(book_entries, games that gave moves)``."""
    checks.at_least(min_games, "min_games", 1)
    positions: dict = {}  # SFEN without the move number -> {usi: _Played}
    first_seen: dict = {}  # SFEN without the move number -> smallest move number
    games = 0
    for played in played_games(store, filters, max_ply=max_ply):
        if not played.moves:
            continue
        games += 1
        position = Position.from_sfen(played.start_sfen)
        counted = set()  # (position, move) pairs this game counted already
        previous = None  # the _Played of the move before: its reply is this one
        for played_move in played.moves:
            sfen, number = position.sfen().rsplit(" ", 1)
            number = int(number)
            if first_seen.get(sfen, number + 1) > number:
                first_seen[sfen] = number
            usi = played_move.usi
            entry = positions.setdefault(sfen, {}).get(usi)
            if entry is None:
                entry = positions[sfen][usi] = _Played()
            if (sfen, usi) not in counted:
                counted.add((sfen, usi))
                entry.games += 1
            score = engine_score(played_move.score_black, played_move.mate,
                                 position.turn == BLACK)
            if score is not None:
                entry.scores.append(score)
                entry.depth = max(entry.depth, played_move.depth or 0)
            if previous is not None:
                previous.replies[usi] += 1
            previous = entry
            position.push(Move.from_usi(usi))
    entries = []
    for sfen, played_moves in positions.items():
        lines = []
        for usi, entry in played_moves.items():
            if entry.games < min_games:
                continue
            value = round(sum(entry.scores) / len(entry.scores)) if entry.scores else 0
            ponder = (min(entry.replies.items(), key=lambda item: (-item[1], item[0]))[0]
                      if entry.replies else "none")
            lines.append((usi, ponder, value, entry.depth, entry.games))
        if lines:
            lines.sort(key=lambda line: (-line[4], -line[2], line[0]))
            entries.append((f"{sfen} {first_seen[sfen]}", lines))
    entries.sort(key=lambda item: item[0])  # as the "sfen …" lines sort
    return entries, games


def write_book(store, output, *, filters: GameFilter = GameFilter(), min_games: int = 1,
               max_ply: Optional[int] = None, overwrite: bool = True) -> dict:
    """Write the book of the games of ``filters`` to the file ``output``, made whole
    (``analytics.files``; a file there is replaced once complete if ``overwrite``, else
    ``OutputRefused`` before the work), and say its size: ``positions``, ``moves`` and
    ``games`` (that gave moves), and whether a file was ``replaced``."""
    out = OutputFile(output, overwrite=overwrite)
    out.check()
    entries, games = _collect(store, filters, min_games, max_ply)
    with out.stream("w", encoding="ascii", newline="\n") as stream:
        stream.write(HEADER + "\n")
        for sfen, lines in entries:
            stream.write(f"sfen {sfen}\n")
            stream.writelines(f"{m} {p} {v} {d} {c}\n" for m, p, v, d, c in lines)
    return {"positions": len(entries), "moves": sum(len(lines) for _, lines in entries),
            "games": games, "replaced": bool(out.replaced)}
