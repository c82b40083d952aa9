"""概要 — the store at a glance: how much it holds (games, positions, players, events, dates),
what ingest and validation found, how games end, the most played first moves on a board, and
the most played openings and castles (a click opens one on the Openings & castles page)."""

from __future__ import annotations

import polars as pl
import streamlit as st

from kifudb.analytics import queries, stats
from kifudb.analytics.results import Results
from kifudb.core.position import Position
from kifudb.dashboard import board, display, nav
from kifudb.dashboard.state import require_store, stored
from kifudb.dashboard.tables import CLICK, picked

overview = stored(stats.overview)
label_frequencies = stored(stats.label_frequencies)
explore = stored(queries.explore)

TOP = 10


def size_metrics(size: dict) -> None:
    cells = st.columns([1, 1.25, 0.9, 0.9, 1.45])
    cells[0].metric("Games", f"{size['games']:,}", border=True)
    cells[1].metric("Positions", f"{size['positions']:,}", border=True)
    cells[2].metric("Players", f"{size['players']:,}", border=True)
    cells[3].metric("Events", f"{size['events']:,}", border=True)
    span = (f"{size['date_from'][:4]}–{size['date_to'][:4]}" if size["date_from"] else "—")
    cells[4].metric("Dates", span, border=True,
                    help=f"{size['date_from'] or '—'} … {size['date_to'] or '—'}")


def ingest_metrics(size: dict) -> None:
    findings = size["findings_by_severity"]
    cells = st.columns(5)
    cells[0].metric("Files read", f"{size['files']:,}", border=True)
    valid = size["valid_games"]
    cells[1].metric("Fully legal games", f"{valid:,}", border=True,
                    delta=display.percent(valid, size["games"], 1), delta_color="off",
                    delta_arrow="off")
    for cell, severity in zip(cells[2:], ("error", "warning", "info")):
        cell.metric(f":material/{severity}: {severity.capitalize()}s",
                    f"{findings.get(severity, 0):,}", border=True)
    st.page_link(nav.VALIDATION.path, label="Every finding, by code and by file",
                 icon=nav.VALIDATION.icon)


def results_glance(size: dict) -> None:
    by = size["results"]
    total = Results(by["black"], by["white"], by["draw"], by["none"])
    st.html(display.result_bar(total.black, total.draws, total.white, total.other, height=30))
    st.caption(f"▲先手勝ち {total.black:,} · 引き分け {total.draws:,} · △後手勝ち {total.white:,} · "
               f"no result {total.other:,} — ▲先手's score "
               f"{display.score_text(total.score(), *total.wilson())} over "
               f"{display.count(total.decided, 'decided game')}")
    st.page_link(nav.RESULTS.path, label="Results over time, by reason, game lengths",
                 icon=nav.RESULTS.icon)


def first_moves() -> None:
    """The even start with its most played first moves (the explorer's first step)."""
    start = Position()
    found = explore(start.sfen())
    board.show_board(start, size=380, sfen=False, caption="平手 — the most played first moves")
    total = sum(m["count"] for m in found)
    for m in found[:5]:
        cells = st.columns([1.6, 1, 3], vertical_alignment="center")
        if cells[0].button(m["ki2"], key=f"first-{m['move']}", width="stretch"):
            nav.open_explorer(None, [m["move"]])
        cells[1].markdown(f"**{m['count']:,}** <small>{display.percent(m['count'], total)}"
                          f"</small>", unsafe_allow_html=True)
        cells[2].html(display.result_bar(m["black_wins"], m["draws"], m["white_wins"],
                                         m["other"]))
    st.page_link(nav.EXPLORER.path, label="Open the explorer", icon=nav.EXPLORER.icon)


def top_labels(kind: str) -> None:
    """The most played castles or openings (each side's main one), ▲ and △ together."""
    rows = label_frequencies(kind=kind, primary_only=True)
    totals = {}
    for row in rows:
        entry = totals.setdefault(row["label"], {"label": row["label"], "black": 0, "white": 0})
        entry[row["side"]] = row["games"]
    top = sorted(totals.values(), key=lambda r: -(r["black"] + r["white"]))[:TOP]
    if not top:
        st.caption("No label yet.")
        return
    frame = pl.from_dicts([{"label": display.label_text(r["label"]), "▲先手": r["black"],
                            "△後手": r["white"], "games": r["black"] + r["white"]}
                           for r in top], infer_schema_length=None)
    shown = st.dataframe(frame, key=f"top-{kind}", hide_index=True, on_select="rerun",
                          selection_mode=CLICK, width="stretch",
                          column_config={
                              "label": st.column_config.TextColumn(display.KINDS[kind],
                                                                   width=220),
                              "▲先手": st.column_config.NumberColumn(width=60),
                              "△後手": st.column_config.NumberColumn(width=60),
                              "games": st.column_config.ProgressColumn(
                                  "sides", format="%d", min_value=0, width=130,
                                  max_value=int(frame["games"].max()),
                                  help="Games in which ▲ or △ played it (counted per side)")})
    row = picked(shown.selection)
    if row is not None and row < len(top):
        st.switch_page(nav.OPENINGS.path,
                       query_params=nav.with_filters({"kind": kind, "study": top[row]["label"]}))


def main() -> None:
    require_store()
    size = overview()
    st.title("☗ kifudb")
    st.caption("A shogi game-record database: every move checked by the rules, every position "
               "searchable.")
    if not size["games"]:
        st.info("The store is empty: ingest records with `kifudb ingest PATH...`.",
                icon=":material/inbox:")
        return
    size_metrics(size)
    ingest_metrics(size)
    if not size.get("labels_current", True):
        st.warning(f"The labels (castles, openings, techniques, notes) were computed with older "
                   f"definitions ({size['labels_version']}): run `kifudb relabel` to bring them "
                   f"up to date.",
                   icon=":material/label:")
    st.subheader("Results")
    results_glance(size)

    left, right = st.columns([5, 7], gap="medium")
    with left:
        st.subheader("First moves")
        first_moves()
    with right:
        st.subheader("Most played openings")
        top_labels("opening")
        st.subheader("Most played castles")
        top_labels("castle")
        st.caption("Click a row to study it on the Openings & castles page.")


if __name__ == "__main__":
    main()
