"""The game viewer's evaluation graph: the engines' scores of a game over its plies, from
Black's point of view (``score_black``), clipped to ±``CLIP`` (a mate, or a score beyond, is
drawn at the clip), with the current ply marked; a click on the graph goes to that ply.

    >>> moves = [{"ply": 1, "evaluation": {"score_black": 41, "mate": None}},
    ...          {"ply": 2, "evaluation": None},
    ...          {"ply": 3, "evaluation": {"score_black": -100000, "mate": 5}}]
    >>> [(r["ply"], r["score"], r["shown"]) for r in graph_rows(moves)]
    [(1, 41, '+41'), (3, -3000, '-M5')]
    >>> picked_ply({"selection": {"ply": [{"ply": 3}]}}, last=2), picked_ply({"selection": {}}, 2)
    (2, None)
"""

from __future__ import annotations

import altair as alt
import streamlit as st

from kifudb.analytics.game_record import score_text
from kifudb.dashboard.display import BLACK_COLOUR

#: the graph's range: scores beyond it (and mates) are drawn at it
CLIP = 3000
#: the name of the graph's click selection
SELECTION = "ply"


def graph_rows(moves: list) -> list:
    """The points of the graph: ``ply``, ``score`` (Black's view, clipped) and ``shown`` (the
    score as the move list writes it), for the moves with an evaluation."""
    rows = []
    for move in moves:
        evaluation = move.get("evaluation")
        if not evaluation or evaluation.get("score_black") is None:
            continue
        score = max(-CLIP, min(CLIP, evaluation["score_black"]))
        rows.append({"ply": move["ply"], "score": score, "shown": score_text(evaluation)})
    return rows


def chart(rows: list, ply: int) -> alt.LayerChart:
    """The graph of ``rows`` (``graph_rows``) with ``ply`` marked and a click selection on the
    nearest ply."""
    pick = alt.selection_point(name=SELECTION, fields=["ply"], on="click", nearest=True,
                               empty=False)
    data = alt.Data(values=rows)
    x = alt.X("ply:Q", title="ply", scale=alt.Scale(nice=False))
    y = alt.Y("score:Q", title="▲ score", scale=alt.Scale(domain=[-CLIP, CLIP]))
    base = alt.Chart(data).encode(x=x, y=y)
    area = base.mark_area(opacity=0.25, color=BLACK_COLOUR, interpolate="step-after")
    line = base.mark_line(color=BLACK_COLOUR, strokeWidth=1.5)
    points = base.mark_circle(size=30, opacity=0.01).encode(
        tooltip=[alt.Tooltip("ply:Q", title="ply"), alt.Tooltip("shown:N", title="score")]
    ).add_params(pick)
    zero = alt.Chart(alt.Data(values=[{"score": 0}])).mark_rule(color="#999").encode(
        y="score:Q")
    here = alt.Chart(alt.Data(values=[{"ply": ply}])).mark_rule(
        color="#ff8c1a", strokeWidth=2).encode(x="ply:Q")
    return alt.layer(area, line, zero, here, points).properties(height=160)


def picked_ply(event, last: int):
    """The ply a click on the graph chose (at most ``last``, the last replayed), or None."""
    selection = (event or {}).get("selection") or {}
    chosen = selection.get(SELECTION) or []
    if not chosen or chosen[0].get("ply") is None:
        return None
    return max(0, min(last, int(chosen[0]["ply"])))


def show(record: dict, ply: int, key: str):
    """The graph of ``record``'s main line (nothing when no move has a score); returns the ply
    a click chose, or None."""
    rows = graph_rows(record["moves"])
    if not rows:
        return None
    event = st.altair_chart(chart(rows, ply), on_select="rerun", selection_mode=SELECTION,
                            key=key, width="stretch")
    return picked_ply(event, len(record["sfens"]) - 1)
