"""戦型・囲い — openings and castles: pick one and see it on the board where a game reached it,
how often each side plays it and how it scores, and example games; then every label's share
over the years, win rates with their 95% intervals, and which castle (or opening) meets which.
Where the store holds an engine analysis (``kifudb analyse``), the accuracy, average loss and
judgements of the moves of the side that played each one (its main one: ``analytics.accuracy``),
with the games and moves behind them: beside the label studied, and for every label in a tab.

The URL holds ``kind`` (castle, opening, technique or note), ``study`` (the label studied) and the
sidebar's filters (``dashboard.filters``; ``label`` is the filter "castle, opening or technique reached").
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from kifudb.analytics import stats
from kifudb.analytics.filters import GameFilter
from kifudb.core.position import Position
from kifudb.dashboard import board, charts, display, engine_analysis, filters, nav
from kifudb.dashboard.games_table import games_table
from kifudb.dashboard.tables import CLICK, as_percent, percent_column, picked_in
from kifudb.dashboard.state import require_store, stored
from kifudb.labels.shapes import shape_sfen

label_frequencies = stored(stats.label_frequencies)
win_rates = stored(stats.win_rates)
pairings = stored(stats.pairings)
label_games = stored(stats.label_games)

#: Labels drawn in the charts (the most played).
CHART_LABELS = 8
GRID_LABELS = 10


def forget_label() -> None:
    """A new kind: study its most played label."""
    st.session_state.pop("study", None)
    if "study" in st.query_params:
        del st.query_params["study"]


def pick_label(rates: list, kind: str) -> str | None:
    """The label studied: from the URL (``study``), else the most played one."""
    labels = list(dict.fromkeys(r["label"] for r in rates))
    if not labels:
        return None
    wanted = st.query_params.get("study")
    if wanted and wanted not in labels and "study" not in st.session_state:
        st.warning(display.plain(f"No game in scope reached {display.shortened(wanted)!r} as "
                                 f"a {kind}; showing the most played one instead."),
                   icon=":material/label:")
    nav.from_url("study", labels, labels[0])
    if st.session_state["study"] not in labels:
        st.session_state["study"] = labels[0]
    label = st.selectbox("Study", labels, key="study", format_func=display.label_text,
                         width=420)
    nav.to_url("study", label)
    return label


def label_panel(label: str, rates: list, chosen: GameFilter, kind: str = "castle") -> None:
    """The board where the label was reached in its latest game, the shape its definition asks
    for, its numbers per side, and example games (a click opens one at that ply)."""
    examples = label_games(label, limit=20, filters=chosen)
    left, right = st.columns([5, 7], gap="medium")
    with left:
        shape = shape_sfen(label)
        in_game, drawn = st.tabs(["In a game", "Its shape"]) if shape else (st.container(), None)
        if examples:
            with in_game:
                first = examples[0]
                board.show_seat_board(first, first["ply"] or 0,
                                      f"{display.label_text(label)} — reached by "
                                      f"{display.SIDES[first['side']]} at ply {first['ply']} of "
                                      f"game {first['game']}")
        if drawn is not None:
            with drawn:
                board.show_board(Position.from_sfen(shape), last_move=False, sfen=False,
                                 caption=f"{label}: the shape its definition asks for, ▲ as its "
                                         f"owner (each piece on the first square it allows)")
    with right:
        cells = st.columns(2)
        for cell, side in zip(cells, ("black", "white")):
            row = next((r for r in rates if r["label"] == label and r["side"] == side), None)
            if row is None:
                cell.metric(display.SIDES[side], "—", help="No game in scope", border=True)
                continue
            cell.metric(f"{display.SIDES[side]} · {display.count(row['games'], 'game')}",
                        display.score_text(row["score"]), border=True,
                        delta=f"of {row['decided']:,} decided · 95%: "
                              f"{display.score_text(row['ci_low'])}–"
                              f"{display.score_text(row['ci_high'])}" if row["ci_low"] is not None
                        else "no decided game", delta_color="off", delta_arrow="off",
                        help=f"{row['wins']} wins, {row['losses']} losses, {row['draws']} draws "
                             f"for the side that played it; the score is over its "
                             f"{display.count(row['decided'], 'decided game')} (a draw counts "
                             f"half)")
        label_accuracy(label, kind, chosen)
        st.markdown("**Example games** (newest first)")
        games_table(examples, key=f"examples-{label}", height=min(38 + 35 * len(examples), 400))


def label_accuracy(label: str, kind: str, chosen: GameFilter) -> None:
    """The accuracy of the moves of the sides that played ``label`` as their main castle or
    opening, in the engine's analysis (nothing without one)."""
    figures = engine_analysis.accuracy(kind, chosen)
    if figures is None:
        return
    group = next((g for g in figures["groups"] if g[kind] == label), None)
    if group is None:
        st.caption(display.plain(f"Engine analysis: no move of a side that played "
                                 f"{label} (as its main {kind}) was judged."))
        return
    st.metric("Engine accuracy of the side that played it", f"{group['accuracy']:.1f}%",
              border=True, delta=engine_analysis.figures_text(group).split(" · ", 1)[1],
              delta_color="off", delta_arrow="off",
              help=f"The mean accuracy of the moves of the sides whose main {kind} it is, "
                   f"judged by {engine_analysis.source_text(figures)} (lishogi's formula); "
                   f"?? ? ?! count blunders, mistakes and inaccuracies")


def accuracy_tab(kind: str, chosen: GameFilter, min_games: int) -> None:
    """Every label's accuracy in the engine's analysis; a click studies the label."""
    figures = engine_analysis.accuracy(kind, chosen, min_games=min_games)
    groups = figures["groups"] if figures else []
    if not groups:
        st.caption(f"No {kind} played in at least {display.count(min_games, 'analysed game')}.")
        return
    st.caption(display.plain(f"The moves of the side that played each {kind} (its main one), "
                             f"judged by {engine_analysis.source_text(figures)}; the most "
                             f"analysed games first."))
    frame = pl.from_dicts([{**g, "name": display.label_text(g[kind])} for g in groups],
                          infer_schema_length=None)
    key = f"accuracy-{kind}"
    st.dataframe(frame, key=key, hide_index=True,
                 on_select=study(key, [g[kind] for g in groups]), selection_mode=CLICK,
                 width="stretch",
                 column_order=["name", "games", "moves", "accuracy", "average_loss", "blunders",
                               "mistakes", "inaccuracies"],
                 column_config={"name": st.column_config.TextColumn(display.KINDS[kind]),
                                **engine_analysis.COLUMNS})


def frequencies_tab(kind: str, top: list, chosen: GameFilter, min_games: int,
                    primary: bool) -> None:
    rows = label_frequencies(kind=kind, by_year=True, min_games=1, primary_only=primary,
                             filters=chosen)
    if rows:
        for column, side in zip(st.columns(2), ("black", "white")):
            with column:
                st.markdown(f"**{display.SIDES[side]}** — share of each year's games")
                charts.draw(charts.share_over_time, rows, top, side)
    else:
        st.caption("No dated game in scope.")
    overall = label_frequencies(kind=kind, min_games=min_games, primary_only=primary,
                                filters=chosen)
    table = {}
    for row in overall:
        entry = table.setdefault(row["label"], {"label": row["label"]})
        entry[f"{row['side']}_games"] = row["games"]
        entry[f"{row['side']}_share"] = row["share"]
    frame = pl.from_dicts([{**entry, "name": display.label_text(entry["label"])}
                           for entry in table.values()],
                          schema=["label", "black_games", "black_share", "white_games",
                                  "white_share", "name"], infer_schema_length=None)
    key = f"frequencies-{kind}"
    frame = as_percent(frame, "black_share", "white_share")
    st.dataframe(frame, key=key, hide_index=True, on_select=study(key, list(table)),
                          selection_mode=CLICK, width="stretch",
                          column_order=["name", "black_games", "black_share", "white_games",
                                        "white_share"],
                          column_config={
                              "name": st.column_config.TextColumn(display.KINDS[kind]),
                              "black_games": st.column_config.NumberColumn("▲ games"),
                              "black_share": percent_column("▲ share"),
                              "white_games": st.column_config.NumberColumn("△ games"),
                              "white_share": percent_column("△ share")})


def study(key: str, labels: list):
    """The ``on_select`` callback of a table of labels: a click on a row studies that label (at
    the top of the page)."""
    def picked():
        row = picked_in(key)
        if row is not None and row < len(labels):
            st.session_state["study"] = labels[row]
    return picked


def win_rates_tab(kind: str, rates: list, min_games: int) -> None:
    shown = [r for r in rates if r["games"] >= min_games]
    if not shown:
        st.caption(f"No {kind} played in at least {display.count(min_games, 'game')}.")
        return
    top = list(dict.fromkeys(r["label"] for r in shown))[:15]
    charts.draw(charts.win_rates, [r for r in shown if r["label"] in top])
    frame = pl.from_dicts([{**r, "name": display.label_text(r["label"]),
                            "side": display.SIDES[r["side"]],
                            "interval": display.score_text(r["ci_low"], None, None) + " – "
                            + display.score_text(r["ci_high"])} for r in shown],
                          infer_schema_length=None)
    frame = as_percent(frame, "score")
    key = f"rates-{kind}"
    st.dataframe(frame, key=key, hide_index=True, on_select=study(key, [r["label"] for r in shown]),
                          selection_mode=CLICK, width="stretch",
                          column_order=["name", "side", "games", "wins", "losses", "draws",
                                        "decided", "score", "interval"],
                          column_config={
                              "name": st.column_config.TextColumn(display.KINDS[kind]),
                              "decided": st.column_config.NumberColumn(
                                  "decided", help="The decided games the score stands on"),
                              "score": percent_column("score"),
                              "interval": st.column_config.TextColumn("95% interval")})


def pairings_tab(kind: str, chosen: GameFilter, min_games: int) -> None:
    against = st.segmented_control("△後手's side", list(display.KINDS), default=kind,
                                   format_func=display.KINDS.get, key=f"against-{kind}",
                                   required=True)
    rows = pairings(kind=kind, against=against, min_games=min_games, filters=chosen)
    if not rows:
        st.caption("No pairing in scope.")
        return
    black = list(dict.fromkeys(r["black_label"] for r in rows))[:GRID_LABELS]
    white = list(dict.fromkeys(r["white_label"] for r in rows))[:GRID_LABELS]
    charts.draw(charts.pairing_grid, rows, black, white)
    frame = pl.from_dicts([{**r, "black": display.label_text(r["black_label"]),
                            "white": display.label_text(r["white_label"]),
                            "interval": display.score_text(r["ci_low"]) + " – "
                            + display.score_text(r["ci_high"])} for r in rows],
                          infer_schema_length=None)
    frame = as_percent(frame, "black_score")
    st.dataframe(frame, hide_index=True, width="stretch",
                 column_order=["black", "white", "games", "black_wins", "white_wins", "draws",
                               "decided", "black_score", "interval"],
                 column_config={
                     "black": st.column_config.TextColumn("▲先手"),
                     "white": st.column_config.TextColumn("△後手"),
                     "black_wins": st.column_config.NumberColumn("▲ wins"),
                     "decided": st.column_config.NumberColumn(
                         "decided", help="The decided games the score stands on"),
                     "white_wins": st.column_config.NumberColumn("△ wins"),
                     "black_score": percent_column("▲ score"),
                     "interval": st.column_config.TextColumn("95% interval")})


def main() -> None:
    require_store()
    st.title("戦型・囲い Openings & castles")
    chosen = filters.game_filter()
    min_games = filters.at_least("Labels played in at least", "openings-min",
                                 help="games (for the tables and charts)")
    primary = st.sidebar.toggle("Main label of each side only", key="openings-primary",
                                persist_state="session", help="Count only each side's most "
                                "specific castle or opening of the game")
    if st.query_params.get("kind") not in (None, *display.KINDS):
        st.warning(display.plain(f"Unknown kind {display.shortened(st.query_params['kind'])!r}: "
                                 f"castles are shown."))
    nav.from_url("kind", tuple(display.KINDS), "castle")
    kind = st.segmented_control("Kind", list(display.KINDS), key="kind",
                                format_func=display.KINDS.get, required=True,
                                on_change=forget_label)
    nav.to_url("kind", kind, "castle")
    try:
        rates = win_rates(kind=kind, primary_only=primary, filters=chosen)
    except ValueError as error:
        st.error(display.message(error), icon=":material/warning:")
        return
    if not rates:
        st.info(f"No game in scope reached a {kind}"
                + (f" ({filters.describe(chosen)})." if chosen else "."), icon=":material/label:")
        return
    label = pick_label(rates, kind)
    label_panel(label, rates, chosen, kind)

    top = list(dict.fromkeys(r["label"] for r in rates))[:CHART_LABELS]
    names = ["Over the years", "Win rates", "▲ vs △"]
    if engine_analysis.analysed():
        names.append("Engine accuracy")
    tabs = st.tabs(names, key="openings-tabs")
    with tabs[0]:
        frequencies_tab(kind, top, chosen, min_games, primary)
    with tabs[1]:
        win_rates_tab(kind, rates, min_games)
    with tabs[2]:
        pairings_tab(kind, chosen, min_games)
    if len(tabs) > 3:
        with tabs[3]:
            accuracy_tab(kind, chosen, min_games)


if __name__ == "__main__":
    main()
