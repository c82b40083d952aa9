"""The answers of the opening explorer and of position search as every door gives them — the
command line's ``--format json``, the HTTP API and the Python API —: one vocabulary, defined
here once.

A move of the explorer (``EXPLORER_MOVE``): ``usi``, ``kif``, ``ki2``, ``games``,
``black_wins``, ``white_wins``, ``draws``, ``other`` (no result), ``decided``,
``black_score`` with its 95% interval (``ci_low``, ``ci_high``), ``average_rating`` (of the
players who chose it, where rated), ``performance`` (theirs against rated opponents) and
``latest_date`` — the words of the statistics (``analytics.results.Results.as_dict``)::

    >>> import tempfile
    >>> from kifudb.store.writer import ingest_paths
    >>> from kifudb.analytics.position_input import position_from_moves
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["data/samples"], folder)
    >>> answer = explorer_answer(folder, position_from_moves("7g7f 3c3d"))
    >>> list(answer) == list(EXPLORER_ANSWER)
    True
    >>> answer["games"], answer["black_wins"], list(answer["moves"][0]) == list(EXPLORER_MOVE)
    (5, 2, True)
    >>> [(m["ki2"], m["games"], m["latest_date"]) for m in answer["moves"]][:1]
    [('▲２六歩', 4, '2014-09-02')]
    >>> found = search_answer(folder, position_from_moves("7g7f 3c3d 2g2f"), limit=1)
    >>> found["occurrences"], [(h["game"], h["ply"]) for h in found["hits"]]
    (4, [(2, 3)])
    >>> import shutil; shutil.rmtree(folder)
"""

from __future__ import annotations

from kifudb.analytics.filters import GameFilter
from kifudb.analytics.position_games import position_games
from kifudb.analytics import checks
from kifudb.analytics.queries import (SEARCH_HIT, explore, occurrences, search_table,
                                      unfiltered_search)
from kifudb.analytics.results import Results

__all__ = ["EXPLORER_MOVE", "EXPLORER_ANSWER", "SHOWN_GAME", "SEARCH_HIT", "explorer_move",
           "explorer_answer", "shown_game", "search_answer"]

#: The fields of a move of the explorer, in order.
EXPLORER_MOVE = ("usi", "kif", "ki2", "games", "black_wins", "white_wins", "draws", "other",
                 "decided", "black_score", "ci_low", "ci_high", "average_rating", "performance",
                 "latest_date")
#: The fields of the explorer's answer: the position, the results of the games that continue
#: from it (``Results.as_dict``'s words), its moves and games.
EXPLORER_ANSWER = ("position", "games", "black_wins", "white_wins", "draws", "other",
                   "decided", "black_score", "ci_low", "ci_high", "moves", "top_games",
                   "recent_games")
#: The fields of a game listed beside the explorer's moves.
SHOWN_GAME = ("game", "ply", "next_move", "black", "white", "date", "event", "winner",
              "reason", "handicap", "moves", "black_rating", "white_rating")


def explorer_move(row: dict) -> dict:
    """An ``analytics.queries.explore`` row in the doors' words (``EXPLORER_MOVE``)."""
    played = Results(row["black_wins"], row["white_wins"], row["draws"], row["other"])
    shown = {"usi": row["move"], "kif": row["kif"], "ki2": row["ki2"], **played.as_dict(),
             "average_rating": row.get("average_rating"), "performance": row.get("performance"),
             "latest_date": row["latest_date"]}
    return {name: shown[name] for name in EXPLORER_MOVE}


def described(position) -> dict:
    """``{"sfen", "key"}`` of a ``Position`` (the key as 16 hex digits)."""
    return {"sfen": position.sfen(), "key": f"{position.key():#018x}"}


def shown_game(row: dict) -> dict:
    """A ``position_games`` row in the doors' words (``SHOWN_GAME``)."""
    return {name: row[name] for name in SHOWN_GAME}


def explorer_answer(store, position, *, filters: GameFilter = GameFilter(), min_count: int = 1,
                    top_games: int = 4, recent_games: int = 4) -> dict:
    """The explorer's answer for ``position`` (a ``Position``) in the games of ``filters``
    (``EXPLORER_ANSWER``): ``position`` (``sfen``, ``key``), the results of the games that
    continue from it, the ``moves`` played next (``EXPLORER_MOVE``), and ``top_games`` and
    ``recent_games`` (``position_games``; ``SHOWN_GAME``)."""
    moves = [explorer_move(row)
             for row in explore(store, position, filters=filters, min_count=min_count)]
    total = Results(*(sum(m[name] for m in moves)
                      for name in ("black_wins", "white_wins", "draws", "other")))
    listed = {}
    for name, order, count in (("top_games", "top", top_games),
                               ("recent_games", "recent", recent_games)):
        listed[name] = ([shown_game(g) for g in position_games(
            store, position, filters=filters, order=order, limit=count)] if count else [])
    return {"position": described(position), **total.as_dict(), "moves": moves, **listed}


def search_answer(store, position, *, mirror: bool = False, offset: int = 0, limit=None,
                  one_per_game: bool = False, filters: GameFilter = GameFilter()) -> dict:
    """Position search's answer: ``position`` (``sfen``, ``key``), ``mirror``,
    ``occurrences`` and ``games`` (how many in all), ``offset``, ``limit`` and the page of
    ``hits`` (``SEARCH_HIT``), newest games first."""
    if not filters:  # every game: the count and the page from one answer in Arrow
        found = unfiltered_search(store, position, mirror, one_per_game, offset, limit)
        total, page = found.counts(), found.page()
    else:  # two queries on the position's rows, looked up once
        total = occurrences(store, position, mirror=mirror, filters=filters)
        page = search_table(store, position, mirror, limit, offset, one_per_game,
                            filters=filters)
    hits = checks.iso_dates(page.to_pylist(), "date")
    return {"position": described(position), "mirror": mirror, **total, "offset": offset,
            "limit": limit, "hits": [{name: hit[name] for name in SEARCH_HIT} for hit in hits]}
