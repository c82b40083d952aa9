"""The history of a position: its games month by month (the explorer's "when was this played"),
with the results, over the games of a ``GameFilter``.

    >>> import tempfile
    >>> from kifudb.store.writer import ingest_paths
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["tests/fixtures/players"], folder)
    >>> [(m["month"], m["games"], m["black_wins"]) for m in position_history(folder, "startpos")][:3]
    [('1948-02', 1, 0), ('1985-01', 1, 0), ('2005-11', 1, 1)]

A game counts once in a month however often it reached the position; undated games are left
out.
"""

from __future__ import annotations

import sqlalchemy as sa

from kifudb.analytics.filters import GameFilter
from kifudb.analytics.queries import hit_keys
from kifudb.analytics.results import Results, count_columns
from kifudb.store.engine import fetch, game_summary, hits

__all__ = ["position_history"]

G = game_summary.c


def position_history(store, position, *, filters: GameFilter = GameFilter()) -> list:
    """The dated games of ``filters`` that reached ``position`` (a ``Position``, an SFEN or a
    key), per month, oldest first: dicts of ``month`` (``YYYY-MM``), ``games``,
    ``black_wins``, ``white_wins``, ``draws``, ``decided``, ``black_score`` and its 95%
    interval (``ci_low``, ``ci_high``)."""
    reached = sa.select(hits.c.game, hits.c.black_to_move).distinct().subquery("reached")
    mover_rating = sa.case((reached.c.black_to_move, G.black_rating), else_=G.white_rating)
    month = sa.func.strftime(G.date, sa.literal("%Y-%m")).label("month")
    rows = fetch(store, sa.select(month, *count_columns(G.winner))
                 .join_from(reached, game_summary, G.game == reached.c.game)
                 .where(G.date.is_not(None), *filters.where(mover_rating))
                 .group_by(month).order_by(month), keys=hit_keys(position))
    return [{"month": r["month"], **Results.from_row(r).as_dict(other=False)} for r in rows]
