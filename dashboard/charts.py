"""The charts of the statistics pages (Altair), in the dashboard's colours: 先手 (Black) dark,
後手 (White) light, draws grey, games without a result in a colour of their own (not a shade of
the draws' grey); every score on a 0–100% axis with its 95% interval, and every point of a
per-year chart says how many games it stands on (a year of one decided game is a small point
marked 1 with a wide band, not an unmarked spike to 0% or 100%).

``draw(chart_function, rows…)`` shows one: building and checking an Altair chart costs tens of
milliseconds, so its Vega-Lite specification is kept (``st.cache_data``) for the same rows.
"""

from __future__ import annotations

import altair as alt
import polars as pl
import streamlit as st

from kifudb.analytics.results import Results
from kifudb.dashboard.display import BLACK_COLOUR, DRAW_COLOUR, OTHER_COLOUR

#: 後手's colour in charts: a little darker than the result bar's, to show on white.
WHITE_CHART = "#d2b48c"
SIDE_SCALE = alt.Scale(domain=["▲先手", "△後手"], range=[BLACK_COLOUR, WHITE_CHART])
RESULT_SCALE = alt.Scale(domain=["▲先手勝ち", "引き分け", "△後手勝ち", "no result"],
                         range=[BLACK_COLOUR, DRAW_COLOUR, WHITE_CHART, OTHER_COLOUR])
_PERCENT = alt.Axis(format="%")


@st.cache_data(show_spinner=False, max_entries=128)
def _spec(name: str, args: tuple, _function) -> dict:
    return _function(*args).to_dict()


def draw(function, *args) -> None:
    """Show the chart ``function(*args)`` across the column (its specification cached)."""
    st.vega_lite_chart(spec=_spec(function.__qualname__, args, function), width="stretch")


def share_over_time(rows: list, labels: list, side: str) -> alt.Chart:
    """The share of each year's games in which ``side`` (black or white) reached each of
    ``labels``: one line per label."""
    frame = pl.from_dicts([{"scope_games": None, **r} for r in rows
                           if r["label"] in labels and r["side"] == side],
                          schema={"year": pl.Int64, "side": pl.String, "label": pl.String,
                                  "games": pl.Int64, "share": pl.Float64,
                                  "scope_games": pl.Int64})
    base = alt.Chart(frame).encode(
        # a quantitative axis: 1917 and 2003 stand 86 years apart, not side by side
        x=alt.X("year:Q", title=None, axis=alt.Axis(format="d"),
                scale=alt.Scale(zero=False, nice=False)),
        y=alt.Y("share:Q", title="share of the year's games (point size: the year's games)",
                axis=_PERCENT),
        color=alt.Color("label:N", sort=labels, title=None,
                        legend=alt.Legend(orient="bottom", columns=4)),
        tooltip=["year", "label", alt.Tooltip("games:Q", title="games with it"),
                 alt.Tooltip("scope_games:Q", title="games that year"),
                 alt.Tooltip("share:Q", format=".1%")])
    points = base.mark_point(filled=True).encode(
        size=alt.Size("scope_games:Q", scale=alt.Scale(range=[15, 220]), legend=None))
    return (base.mark_line() + points).properties(height=340)


def win_rates(rows: list) -> alt.LayerChart:
    """Each label's score for the side that reached it, with its interval (a bar from
    ``ci_low`` to ``ci_high``), most played first; the 50% line for reference."""
    sides = {"black": "▲先手", "white": "△後手"}
    frame = pl.from_dicts([{**r, "side": sides[r["side"]]} for r in rows
                           if r["score"] is not None], infer_schema_length=None)
    order = list(dict.fromkeys(frame["label"]))
    base = alt.Chart(frame).encode(
        y=alt.Y("label:N", sort=order, title=None),
        yOffset=alt.YOffset("side:N", sort=["▲先手", "△後手"]),
        color=alt.Color("side:N", scale=SIDE_SCALE, title=None),
        tooltip=["label", "side", "games", "wins", "losses", "draws",
                 alt.Tooltip("score:Q", format=".1%"), alt.Tooltip("ci_low:Q", format=".1%"),
                 alt.Tooltip("ci_high:Q", format=".1%")])
    interval = base.mark_rule(strokeWidth=2).encode(
        x=alt.X("ci_low:Q", title="score (95% interval)", axis=_PERCENT,
                scale=alt.Scale(domain=[0, 1])), x2="ci_high:Q")
    point = base.mark_point(filled=True, size=60, stroke="#555", strokeWidth=0.6).encode(
        x="score:Q")
    middle = alt.Chart(pl.DataFrame({"x": [0.5]})).mark_rule(strokeDash=[4, 4],
                                                             color="#999").encode(x="x:Q")
    return (interval + point + middle).properties(height=60 + 34 * len(order))


#: Below this many decided games a year's point is drawn hollow (its score says little).
FEW_GAMES = 5


def score_by_year(rows: list) -> alt.LayerChart:
    """Black's score per year with its interval as a band, and the 50% line; each point sized
    by the year's decided games and labelled with their number (hollow below ``FEW_GAMES``)."""
    frame = pl.from_dicts([r for r in rows if r["black_score"] is not None],
                          infer_schema_length=None)
    band = alt.Chart(frame).mark_area(opacity=0.25, color=BLACK_COLOUR).encode(
        x=alt.X("year:Q", title=None, axis=alt.Axis(format="d"),
                scale=alt.Scale(zero=False, nice=False)),
        y=alt.Y("ci_low:Q", title="▲先手's score (the number: decided games)", axis=_PERCENT,
                scale=alt.Scale(domain=[0, 1])),
        y2="ci_high:Q")
    tooltip = ["year", "games", alt.Tooltip("decided:Q", title="decided games"), "black_wins",
               "white_wins", "draws", alt.Tooltip("black_score:Q", format=".1%", title="▲ score"),
               alt.Tooltip("ci_low:Q", format=".1%"), alt.Tooltip("ci_high:Q", format=".1%")]
    line = alt.Chart(frame).mark_line(color=BLACK_COLOUR).encode(x="year:Q", y="black_score:Q")
    points = alt.Chart(frame).mark_point(color=BLACK_COLOUR, strokeWidth=1.5).encode(
        x="year:Q", y="black_score:Q",
        size=alt.Size("decided:Q", scale=alt.Scale(range=[20, 260]), legend=None),
        fill=alt.condition(f"datum.decided < {FEW_GAMES}", alt.value("white"),
                           alt.value(BLACK_COLOUR)),
        tooltip=tooltip)
    counts = alt.Chart(frame).mark_text(dy=-13, fontSize=10, color="#555").encode(
        x="year:Q", y="black_score:Q", text="decided:Q", tooltip=tooltip)
    middle = alt.Chart(pl.DataFrame({"y": [0.5]})).mark_rule(strokeDash=[4, 4],
                                                             color="#999").encode(y="y:Q")
    return (band + line + points + counts + middle).properties(height=280)


def results_by_reason(rows: list) -> alt.Chart:
    """How games ended: one stacked bar per reason, split by who won."""
    long = []
    for r in rows:
        counted = Results.from_row(r)
        for result, count in (("▲先手勝ち", counted.black), ("引き分け", counted.draws),
                              ("△後手勝ち", counted.white), ("no result", counted.other)):
            if count:
                long.append({"reason": r["label"], "result": result, "games": count})
    frame = pl.from_dicts(long, schema={"reason": pl.String, "result": pl.String,
                                        "games": pl.Int64})
    order = [r["label"] for r in rows]
    return (alt.Chart(frame).mark_bar()
            .encode(y=alt.Y("reason:N", sort=order, title=None),
                    x=alt.X("games:Q", title="games", stack="zero"),
                    color=alt.Color("result:N", scale=RESULT_SCALE, title=None),
                    order=alt.Order("result_order:Q"),
                    tooltip=["reason", "result", "games"])
            .transform_calculate(result_order="indexof(['▲先手勝ち','引き分け','△後手勝ち',"
                                              "'no result'], datum.result)")
            .properties(height=90 + 32 * len(order)))


def game_lengths(rows: list) -> alt.Chart:
    """Games by length (moves), one bar per bucket."""
    frame = pl.from_dicts(rows, schema={"moves_from": pl.Int64, "moves_to": pl.Int64,
                                        "games": pl.Int64})
    frame = frame.with_columns(moves=pl.format("{}–{}", "moves_from", "moves_to"))
    return (alt.Chart(frame).mark_bar(color=BLACK_COLOUR)
            .encode(x=alt.X("moves_from:Q", bin="binned", title="moves"),
                    x2="end:Q", y=alt.Y("games:Q", title="games"),
                    tooltip=["moves", "games"])
            .transform_calculate(end="datum.moves_to + 1")
            .properties(height=260))


def pairing_grid(rows: list, black_labels: list, white_labels: list) -> alt.LayerChart:
    """Black's score for each pairing of Black's label (rows) with White's (columns), the
    number of games written in each cell."""
    frame = pl.from_dicts([r for r in rows if r["black_label"] in black_labels
                           and r["white_label"] in white_labels], infer_schema_length=None)
    base = alt.Chart(frame).encode(
        y=alt.Y("black_label:N", sort=black_labels, title="▲先手"),
        x=alt.X("white_label:N", sort=white_labels, title="△後手",
                axis=alt.Axis(labelAngle=-45, orient="top", labelOverlap=False,
                              labelLimit=140)))  # every column named, however narrow
    cells = base.mark_rect().encode(
        color=alt.Color("black_score:Q", title="▲ score", scale=alt.Scale(
            domain=[0, 0.5, 1], range=[WHITE_CHART, "#f4f4f4", BLACK_COLOUR])),
        tooltip=["black_label", "white_label", "games", "black_wins", "white_wins", "draws",
                 alt.Tooltip("black_score:Q", format=".1%"),
                 alt.Tooltip("ci_low:Q", format=".1%"), alt.Tooltip("ci_high:Q", format=".1%")])
    text = base.mark_text(fontSize=11).encode(
        text="games:Q",
        color=alt.condition("datum.black_score > 0.6", alt.value("white"), alt.value("black")))
    # the height holds the axes too (Streamlit fits the chart to it)
    return (cells + text).properties(height=140 + 34 * len(black_labels))


def rating_history(rows: list) -> alt.Chart:
    """A player's computed rating after each dated game (``analytics.elo``: ``date`` ISO,
    ``rating``): dates on a time axis whose labels carry the year, the rating axis around the
    line (not from 0: a line at 1,493–1,501 is not drawn flat)."""
    frame = pl.from_dicts(rows, infer_schema_length=None).select("date", "rating")
    return (alt.Chart(frame).mark_line(point=True, color=BLACK_COLOUR)
            .encode(x=alt.X("date:T", title=None,
                            axis=alt.Axis(format="%Y-%m", labelAngle=0, tickCount=6)),
                    y=alt.Y("rating:Q", title="rating (Elo)", scale=alt.Scale(zero=False),
                            axis=alt.Axis(format=",.0f")),
                    tooltip=[alt.Tooltip("date:T", format="%Y-%m-%d"),
                             alt.Tooltip("rating:Q", format=",.0f")])
            .properties(height=220))
