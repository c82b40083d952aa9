"""勝敗 — results: ▲先手's score overall and over the years (with its 95% interval), how games
end (by reason and winner), and how long they last. A click on a reason or a length lists its
games and shows the final position of the latest one."""

from __future__ import annotations

import polars as pl
import streamlit as st

from kifudb.analytics import stats
from kifudb.analytics.filters import GameFilter
from kifudb.dashboard import board, charts, display, filters
from kifudb.dashboard.games_table import games_table
from kifudb.dashboard.state import require_store, stored
from kifudb.dashboard.tables import CLICK, picked, select_row

results = stored(stats.results)
results_by_year = stored(stats.results_by_year)
results_by_reason = stored(stats.results_by_reason)
game_lengths = stored(stats.game_lengths)
result_games = stored(stats.games)


def headline(total: dict) -> None:
    """The games, each result (wins and draws as shares of the decided games, the games
    without a result as a share of all), and ▲先手's score with the number of decided games
    it stands on."""
    cells = st.columns(6)
    cells[0].metric("Games", f"{total['games']:,}", border=True)
    games, decided = total["games"], total["decided"]
    for cell, name, count in ((cells[1], display.WINNERS["black"], total["black_wins"]),
                              (cells[2], display.WINNERS["draw"], total["draws"]),
                              (cells[3], display.WINNERS["white"], total["white_wins"])):
        cell.metric(name, f"{count:,}", delta=f"{display.percent(count, decided, 1)} of decided",
                    delta_color="off", delta_arrow="off", border=True)
    cells[4].metric("No result", f"{total['other']:,}", border=True,
                    delta=f"{display.percent(total['other'], games, 1)} of games",
                    delta_color="off", delta_arrow="off",
                    help="Games without a win or a draw: aborted, opening fragments, records "
                         "without an ending. 'Decided games only' in the sidebar leaves them "
                         "out.")
    cells[5].metric("▲先手's score", display.score_text(total["black_score"]), border=True,
                    delta=(f"of {decided:,} decided · 95%: "
                           f"{display.score_text(total['ci_low'])}–"
                           f"{display.score_text(total['ci_high'])}"
                           if total["ci_low"] is not None else "no decided game"),
                    delta_color="off", delta_arrow="off",
                    help=f"Over the {display.count(decided, 'decided game')} (a draw counts "
                         f"half); the {display.count(total['other'], 'game')} without a result "
                         f"are left out.")
    st.html(display.result_bar(total["black_wins"], total["draws"], total["white_wins"],
                               total["other"], height=28))


def reasons_section(rows: list, chosen: GameFilter) -> None:
    named = [{**r, "label": display.reason_text(r["reason"])} for r in rows]
    left, right = st.columns([7, 5], gap="large")
    with left:
        charts.draw(charts.results_by_reason, named)
    with right:
        frame = pl.from_dicts([{"reason": r["label"], "games": r["games"],
                                "black_wins": r["black_wins"], "draws": r["draws"],
                                "white_wins": r["white_wins"]} for r in named],
                              infer_schema_length=None)
        key = "reasons-" + "-".join(r["reason"] or "" for r in rows)  # new rows, new table
        shown = st.dataframe(frame, key=key, hide_index=True, on_select="rerun",
                             selection_mode=CLICK, width="stretch",
                             selection_default=select_row(next(
                                 (i for i, r in enumerate(rows) if r["reason"] != "unknown"),
                                 0), "reason"),
                              column_config={
                                 "reason": st.column_config.TextColumn(width=130),
                                 "games": st.column_config.NumberColumn(width=60),
                                 "black_wins": st.column_config.NumberColumn("▲ wins", width=60),
                                 "draws": st.column_config.NumberColumn(width=56),
                                 "white_wins": st.column_config.NumberColumn("△ wins",
                                                                             width=60)})
        st.caption("Click a reason for its games.")
    row = picked(shown.selection)
    if row is not None and row < len(rows):
        reason = rows[row]["reason"]
        examples(f"Games ended by {display.reason_text(reason)}",
                 result_games(limit=20, filters=chosen.replace(reason=reason)),
                 f"reason-{reason}")


def lengths_section(chosen: GameFilter) -> None:
    bucket = st.segmented_control("Moves per bar", [5, 10, 20, 50], default=10,
                                  key="length-bucket", required=True)
    rows = game_lengths(bucket=bucket, filters=chosen)
    left, right = st.columns([7, 5], gap="large")
    with left:
        charts.draw(charts.game_lengths, rows)
    with right:
        frame = pl.from_dicts([{"moves": f"{r['moves_from']}–{r['moves_to']}",
                                "games": r["games"]} for r in rows], infer_schema_length=None)
        shown = st.dataframe(frame, key=f"lengths-{bucket}", hide_index=True,
                             on_select="rerun", selection_mode=CLICK, width="stretch",
                             height=300)
        st.caption("Click a length for its games.")
    index = picked(shown.selection)
    if index is not None and index < len(rows):
        row = rows[index]
        examples(f"Games of {row['moves_from']}–{row['moves_to']} moves",
                 result_games(limit=20, filters=chosen.replace(moves_from=row["moves_from"],
                                                               moves_to=row["moves_to"])),
                 f"length-{bucket}-{row['moves_from']}")


def examples(title: str, games: list, key: str) -> None:
    """Games of a reason or a length, and the final position of the latest one."""
    st.markdown(f"**{display.plain(title)}**")
    if not games:
        st.caption("None in scope.")
        return
    left, right = st.columns([5, 7], gap="medium")
    with left:
        first = games[0]
        board.show_game_board(first["game"], first["moves"] or 0, size=380,
                              caption=f"Game {first['game']}, final position: "
                                      f"{display.result_text(first['winner'], first['reason'])}")
    with right:
        games_table(games, key=f"games-{key}", ply=False)


def main() -> None:
    require_store()
    st.title("勝敗 Results")
    chosen = filters.game_filter()
    try:
        total = results(filters=chosen)
    except ValueError as error:
        st.error(display.message(error), icon=":material/warning:")
        return
    if not total["games"]:
        st.info("No game in scope" + (f" ({filters.describe(chosen)})." if chosen else "."),
                icon=":material/inbox:")
        return
    headline(total)

    st.subheader("▲先手's score over the years")
    years = results_by_year(filters=chosen)
    if any(r["black_score"] is not None for r in years):
        charts.draw(charts.score_by_year, years)
    else:
        st.caption("No dated, decided game in scope.")
    st.subheader("How games end")
    reasons_section(results_by_reason(filters=chosen), chosen)
    st.subheader("Game lengths")
    lengths_section(chosen)


if __name__ == "__main__":
    main()
