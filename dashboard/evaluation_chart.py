"""The game viewer's evaluation graph: the scores of a game over its plies, from Black's point of
view (``score_black``), clipped to ±``CLIP`` (a mate, or a score beyond, is drawn at the clip),
with the current ply marked; a click on the graph goes to that ply.

Two series, told apart by colour, dash and legend: the evaluations the record carries (an
engine's comments, ``record``) and the store's engine analysis (``kifudb analyse``,
``engine``: the position after each move). A game with either has a graph; with both, both
are drawn (the record's filled). The moves the analysis judged are marked on its line (?!
inaccuracy, ? mistake, ?? blunder).

    >>> moves = [{"ply": 1, "evaluation": {"score_black": 41, "mate": None}},
    ...          {"ply": 2, "evaluation": None},
    ...          {"ply": 3, "evaluation": {"score_black": -100000, "mate": 5}}]
    >>> [(r["ply"], r["score"], r["shown"], r["source"]) for r in graph_rows(moves)]
    [(1, 41, '+41', 'record'), (3, -3000, '-M5', 'record')]
    >>> moves[1]["analysis"] = {"score_black": -250, "mate_black": None, "judgement": "mistake",
    ...                         "engine": "Fairy-Stockfish 11.1 LB", "limit": "nodes=1000"}
    >>> [(r["ply"], r["shown"], r["source"], r["mark"]) for r in graph_rows(moves)]
    [(1, '+41', 'record', ''), (3, '-M5', 'record', ''), (2, '-250', 'engine', '?')]
    >>> picked_ply({"selection": {"ply": [{"ply": 3}]}}, last=2), picked_ply({"selection": {}}, 2)
    (2, None)
"""

from __future__ import annotations

import altair as alt
import streamlit as st

from kifudb.analytics.game_record import judgement_mark, score_text
from kifudb.dashboard.display import BLACK_COLOUR
from kifudb.store.schema import MATE

#: the graph's range: scores beyond it (and mates) are drawn at it
CLIP = 3000
#: the name of the graph's click selection
SELECTION = "ply"
#: the two series: the record's evaluations and the engine's analysis
SOURCES = {"record": "the record's evaluations", "engine": "the engine's analysis"}
ENGINE_COLOUR = "#1f77b4"
#: the colours of the judgements' marks
JUDGEMENT_COLOURS = {"?!": "#e0b000", "?": "#ff7f0e", "??": "#d62728"}


def analysis_evaluation(analysis) -> dict | None:
    """A move's engine analysis (``game_record``'s ``analysis``) as a record's evaluation
    (``score_black``, a mate ±``MATE``; ``mate``), for ``score_text``; None without one.

    >>> analysis_evaluation({"score_black": None, "mate_black": -3})
    {'score_black': -100000, 'mate': -3}
    >>> score_text(analysis_evaluation({"score_black": 120, "mate_black": None}))
    '+120'
    """
    if not analysis:
        return None
    mate = analysis.get("mate_black")
    if mate:
        return {"score_black": MATE if mate > 0 else -MATE, "mate": mate}
    if analysis.get("score_black") is None:
        return None
    return {"score_black": analysis["score_black"], "mate": None}


def _point(ply: int, evaluation: dict, source: str, mark: str = "") -> dict:
    score = max(-CLIP, min(CLIP, evaluation["score_black"]))
    return {"ply": ply, "score": score, "shown": score_text(evaluation), "source": source,
            "mark": mark}


def graph_rows(moves: list) -> list:
    """The points of the graph: ``ply``, ``score`` (Black's view, clipped), ``shown`` (the
    score as the move list writes it), ``source`` (``record`` or ``engine``) and ``mark``
    (the engine's judgement of the move, ``?!``, ``?``, ``??``), for the moves with an
    evaluation in the record, then for those with the engine's analysis."""
    rows = []
    for move in moves:
        evaluation = move.get("evaluation")
        if evaluation and evaluation.get("score_black") is not None:
            rows.append(_point(move["ply"], evaluation, "record"))
    for move in moves:
        analysis = move.get("analysis")
        evaluation = analysis_evaluation(analysis)
        if evaluation is not None:
            rows.append(_point(move["ply"], evaluation, "engine", judgement_mark(analysis)))
    return rows


def chart(rows: list, ply: int, engine: str | None = None) -> alt.LayerChart:
    """The graph of ``rows`` (``graph_rows``) with ``ply`` marked and a click selection on the
    nearest ply; ``engine`` names the analysis in the legend."""
    pick = alt.selection_point(name=SELECTION, fields=["ply"], on="click", nearest=True,
                               empty=False)
    names = {"record": "record", "engine": f"engine{f' ({engine})' if engine else ''}"}
    sources = [s for s in SOURCES if any(r["source"] == s for r in rows)]
    for row in rows:
        row["series"] = names[row["source"]]
    first = [r for r in rows if r["source"] == sources[0]]
    x = alt.X("ply:Q", title="ply", scale=alt.Scale(nice=False))
    y = alt.Y("score:Q", title="▲ score", scale=alt.Scale(domain=[-CLIP, CLIP]))
    colour = alt.Color("series:N", title=None, legend=alt.Legend(orient="top") if len(sources) > 1
                       else None,
                       scale=alt.Scale(domain=[names[s] for s in sources],
                                       range=[BLACK_COLOUR if s == "record" else ENGINE_COLOUR
                                              for s in sources]))
    dash = alt.StrokeDash("series:N", legend=None,
                          scale=alt.Scale(domain=[names[s] for s in sources],
                                          range=[[1, 0] if s == "record" else [4, 2]
                                                 for s in sources]))
    area = alt.Chart(alt.Data(values=first)).mark_area(
        opacity=0.25, interpolate="step-after",
        color=BLACK_COLOUR if sources[0] == "record" else ENGINE_COLOUR).encode(x=x, y=y)
    line = alt.Chart(alt.Data(values=rows)).mark_line(strokeWidth=1.5).encode(
        x=x, y=y, color=colour, strokeDash=dash)
    layers = [area, line]
    judged = [r for r in rows if r["mark"]]
    if judged:
        layers.append(alt.Chart(alt.Data(values=judged)).mark_point(
            filled=True, size=60, shape="triangle-down").encode(
            x=x, y=y, color=alt.Color("mark:N", title=None, legend=None, scale=alt.Scale(
                domain=list(JUDGEMENT_COLOURS), range=list(JUDGEMENT_COLOURS.values()))),
            tooltip=[alt.Tooltip("ply:Q", title="ply"), alt.Tooltip("mark:N", title="judged"),
                     alt.Tooltip("shown:N", title="engine")]))
    zero = alt.Chart(alt.Data(values=[{"score": 0}])).mark_rule(color="#999").encode(
        y="score:Q")
    here = alt.Chart(alt.Data(values=[{"ply": ply}])).mark_rule(
        color="#ff8c1a", strokeWidth=2).encode(x="ply:Q")
    points = alt.Chart(alt.Data(values=rows)).mark_circle(size=30, opacity=0.01).encode(
        x=x, y=y, tooltip=[alt.Tooltip("ply:Q", title="ply"), alt.Tooltip("shown:N", title="score"),
                           alt.Tooltip("series:N", title="from")]).add_params(pick)
    return alt.layer(*layers, zero, here, points).properties(height=160)


def picked_ply(event, last: int):
    """The ply a click on the graph chose (at most ``last``, the last replayed), or None."""
    selection = (event or {}).get("selection") or {}
    chosen = selection.get(SELECTION) or []
    if not chosen or chosen[0].get("ply") is None:
        return None
    return max(0, min(last, int(chosen[0]["ply"])))


def show(record: dict, ply: int, key: str):
    """The graph of ``record``'s main line (nothing when no move has a score, in the record
    or in the engine's analysis); returns the ply a click chose, or None."""
    rows = graph_rows(record["moves"])
    if not rows:
        return None
    judged = record.get("judgement") or {}
    engine = " ".join(str(judged[k]) for k in ("engine", "limit") if judged.get(k)) or None
    event = st.altair_chart(chart(rows, ply, engine), on_select="rerun",
                            selection_mode=SELECTION, key=key, width="stretch")
    return picked_ply(event, len(record["sfens"]) - 1)
