"""The store's engine analysis (``kifudb analyse``) where the statistics pages show it: the
accuracy and mistakes of a player, of each opening and castle (``analytics.accuracy``), and
the puzzles (``analytics.puzzles``), cached until the store's next commit like every answer
(``dashboard.state.stored``). A store without an analysis gives None here, and the pages
show nothing of it.

    >>> figures_text({"games": 3, "moves": 120, "accuracy": 87.34, "average_loss": 2.5,
    ...               "inaccuracies": 4, "mistakes": 1, "blunders": 0})
    '87.3% · average loss 2.5 · ?? 0 ? 1 ?! 4 · 3 games, 120 moves'
"""

from __future__ import annotations

import streamlit as st

from kifudb.analytics import accuracy as collection
from kifudb.analytics import judgement
from kifudb.analytics import puzzles as found_puzzles
from kifudb.analytics.filters import GameFilter
from kifudb.dashboard import display
from kifudb.dashboard.state import stored

analyses = stored(judgement.analyses)
_accuracy = stored(collection.accuracy)
_mistakes = stored(collection.mistakes)
_puzzles = stored(found_puzzles.puzzles)

#: the counts of each judgement and their marks, worst first
COUNTS = {"blunders": judgement.MARKS["blunder"], "mistakes": judgement.MARKS["mistake"],
          "inaccuracies": judgement.MARKS["inaccuracy"]}


def analysed() -> bool:
    """Whether the store holds an engine analysis."""
    return bool(analyses())


def accuracy(by: str, filters: GameFilter = GameFilter(), min_games: int = 1) -> dict | None:
    """``analytics.accuracy.accuracy`` (the analysis with the most positions), or None when
    the store holds no analysis."""
    if not analysed():
        return None
    return _accuracy(by=by, min_games=min_games, filters=filters)


def mistakes(of: str | None = None, filters: GameFilter = GameFilter(), limit: int = 10,
             least: str = "inaccuracy") -> dict | None:
    """``analytics.accuracy.mistakes``: the most costly moves (of the player ``of``), or None
    without an analysis."""
    if not analysed():
        return None
    return _mistakes(limit=limit, of=of, least=least, filters=filters)


def puzzles(filters: GameFilter = GameFilter(), limit: int = 50, offset: int = 0):
    """``(answer, problem)``: ``analytics.puzzles.puzzles``, or None and why not (no
    analysis, or one without its second lines)."""
    try:
        return _puzzles(limit=limit, offset=offset, filters=filters), None
    except judgement.NoAnalysis as error:
        return None, str(error)


def figures_text(group: dict) -> str:
    """A group's accuracy, average loss and judgements, with the games and moves behind
    them."""
    counts = " ".join(f"{mark} {group[name]}" for name, mark in COUNTS.items())
    return (f"{group['accuracy']:.1f}% · average loss {group['average_loss']:.1f} · {counts} · "
            f"{display.count(group['games'], 'game')}, {display.count(group['moves'], 'move')}")


def source_text(answer: dict) -> str:
    """Which analysis an answer comes from: ``Fairy-Stockfish 11.1 LB at nodes=1000``."""
    return f"{answer['engine']} at {answer['limit']}"


#: the columns of a table of accuracy figures (``accuracy`` groups)
COLUMNS = {
    "games": st.column_config.NumberColumn("games", width=52,
                                           help="The analysed games behind the figures"),
    "moves": st.column_config.NumberColumn("moves", width=56,
                                           help="The moves judged (both positions analysed)"),
    "accuracy": st.column_config.ProgressColumn("accuracy", format="%.1f%%", min_value=0.0,
                                                max_value=100.0, width=96,
                                                help="The mean of the moves' accuracies "
                                                     "(lishogi's formula)"),
    "average_loss": st.column_config.NumberColumn("loss", format="%.1f", width=52,
                                                  help="The mean loss of win chance a move, "
                                                       "in points"),
    "blunders": st.column_config.NumberColumn("??", width=40, help="Blunders"),
    "mistakes": st.column_config.NumberColumn("?", width=40, help="Mistakes"),
    "inaccuracies": st.column_config.NumberColumn("?!", width=40, help="Inaccuracies"),
}
