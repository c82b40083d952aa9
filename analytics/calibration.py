"""The win-rate curve of an engine and limit, fitted to the store's own decided games
(``kifudb calibrate``).

A centipawn means different things to different engines (and limits): lishogi's
``win = 2 / (1 + e^(−k·cp)) − 1`` with ``k = 0.0007`` (``judgement.WIN_K``) is made for
YaneuraOu's scale. Black's expected score in a position is ``(win + 1) / 2 = 1 / (1 +
e^(−k·cp))``, a logistic curve without intercept, so ``k`` is fitted by logistic regression of
the games' results (Black's points: 1 a win, ½ a draw, 0 a loss) on the scores
(``score_black``) of the analysed positions of the decided games — every position of every such
game, a position reached in several games once for each; positions scored as a mate, and
games without a result, are left out. The fit maximises the likelihood by Newton's method
(one parameter: its log-likelihood is concave), and gives the coefficient's standard error.

    >>> fit([(200, 1.0, 30), (200, 0.0, 10), (-200, 0.0, 30), (-200, 1.0, 10)])["k"]
    0.00549306
    >>> round(math.log(3) / 200, 8)      # p = 3/4 at 200 cp: e^(200·k) = 3
    0.00549306

``calibrate`` records the fit in the store's manifest (``calibration``: per engine and limit,
``k``, ``samples``, ``games``), and from then on the judgements of that engine and limit use it
(``judgement.analyses`` says which ``k`` each uses).
"""

from __future__ import annotations

import datetime
import math
from typing import Optional

import sqlalchemy as sa

from kifudb.analytics.judgement import WIN_K, analysis, calibration_key, chosen_analysis
from kifudb.store.engine import as_store, fetch, game_summary, positions

__all__ = ["fit", "samples", "calibrate", "forget"]

P, G = positions.c, game_summary.c


class CannotFit(ValueError):
    """The samples do not determine a win curve (too few, or no score that tells)."""


def fit(counted: list, start: float = WIN_K) -> dict:
    """The ``k`` of ``1 / (1 + e^(−k·cp))`` that fits ``counted``, a list of ``(cp, points,
    count)``: ``{"k", "error" (its standard error), "samples", "iterations"}`` (``k`` to
    six significant places). ``CannotFit`` when the samples cannot fix it: none with a
    non-zero score, or results that a steeper curve always fits better (every positive score
    won, every negative one lost: the curve is a step)."""
    counted = [(float(cp), float(points), int(n)) for cp, points, n in counted if n > 0]
    samples = sum(n for _, _, n in counted)
    if not any(cp for cp, _, _ in counted):
        raise CannotFit(f"no position with a score other than 0 among {samples} samples")
    k = start
    for iteration in range(1, 101):
        gradient = curvature = 0.0
        for cp, points, n in counted:
            p = 1 / (1 + math.exp(min(700.0, -k * cp)))
            gradient += n * (points - p) * cp
            curvature += n * p * (1 - p) * cp * cp
        if curvature <= 0:
            break
        step = gradient / curvature
        k += step
        if not math.isfinite(k) or k > 1:
            break
        if abs(step) <= 1e-12 + 1e-9 * abs(k):
            error = 1 / math.sqrt(curvature)
            if k < 1e-9:  # flat (or falling): 10,000 cp would not move the chance
                raise CannotFit(f"the results do not rise with the score (k = {k:.3g} over "
                                f"{samples} samples): a win curve cannot be fitted")
            return {"k": float(f"{k:.6g}"), "error": float(f"{error:.3g}"),
                    "samples": samples, "iterations": iteration}
    raise CannotFit(f"the fit does not converge over {samples} samples (every score that "
                    f"favours a side won?): too few decided games to calibrate on")


def samples(store, choice: dict) -> tuple:
    """The samples of the analysis ``choice`` (a row of ``judgement.analyses``): ``(counted,
    games)``, ``counted`` a list of ``(score_black, Black's points, positions)`` and
    ``games`` the decided games they come from."""
    points = sa.case((G.winner == sa.literal("black"), sa.literal(1.0)),
                     (G.winner == sa.literal("white"), sa.literal(0.0)),
                     else_=sa.literal(0.5))
    a = analysis.c
    scored = (sa.select(P.game, a.score_black, points.label("points"))
              .join_from(positions, game_summary, G.game == P.game)
              .join(analysis, sa.and_(a.key == P.key,
                                      a.engine == sa.bindparam("analysis_engine",
                                                               choice["engine"]),
                                      a["limit"] == sa.bindparam("analysis_limit",
                                                                 choice["limit"]),
                                      a.multipv == sa.literal(1)))
              .where(G.winner.in_(("black", "white", "draw")), a.score_black.is_not(None))
              .subquery("scored"))
    rows = fetch(store, sa.select(scored.c.score_black, scored.c.points,
                                  sa.func.count().label("n"))
                 .group_by(scored.c.score_black, scored.c.points))
    games = fetch(store, sa.select(sa.func.count(sa.distinct(scored.c.game)).label("n")))
    return [(r["score_black"], r["points"], r["n"]) for r in rows], games[0]["n"]


def calibrate(store, engine: Optional[str] = None, limit: Optional[str] = None,
              record: bool = True) -> dict:
    """Fit ``k`` for the analysis ``judgement.chosen_analysis(store, engine, limit)`` to the
    store's decided games and (``record``) write it in the manifest: ``{"engine", "limit",
    "k", "error", "samples", "games", "default_k", "previous_k"}`` (``previous_k``: the one
    used before, the default or an earlier fit). ``CannotFit`` (a ``ValueError``) when the
    games cannot fix it: the store is left as it was."""
    store = as_store(store)
    choice = chosen_analysis(store, engine, limit)
    counted, games = samples(store, choice)
    if not games:
        raise CannotFit(f"no decided game of {store.root} has a position analysed by "
                        f"{choice['engine']} at {choice['limit']}: nothing to calibrate on")
    fitted = fit(counted)
    entry = {"k": fitted["k"], "error": fitted["error"], "samples": fitted["samples"],
             "games": games,
             "fitted": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    if record:
        with store.writing():
            store.record_calibration(calibration_key(choice["engine"], choice["limit"]), entry)
    return {"engine": choice["engine"], "limit": choice["limit"], **entry,
            "default_k": WIN_K, "previous_k": choice["k"]}


def forget(store, engine: Optional[str] = None, limit: Optional[str] = None) -> dict:
    """Remove the fitted ``k`` of the analysis ``chosen_analysis(store, engine, limit)``: its
    judgements use ``WIN_K`` again. Answers ``{"engine", "limit", "previous_k"}``."""
    store = as_store(store)
    choice = chosen_analysis(store, engine, limit)
    with store.writing():
        store.record_calibration(calibration_key(choice["engine"], choice["limit"]), None)
    return {"engine": choice["engine"], "limit": choice["limit"], "previous_k": choice["k"]}
