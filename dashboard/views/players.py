"""棋士 — players: everyone by games played; for one player, the score as ▲先手 and as
△後手 (with 95% intervals), favourite openings and castles, head-to-head records against each
opponent, and the latest games, the last one on the board. Where the store holds an engine
analysis (``kifudb analyse``), the player's accuracy, average loss and judgements (with the
games and moves behind them: ``analytics.accuracy``) and their most costly moves, each a
click away from the game at that move.

The URL holds ``name`` (the player's exact name as stored), ``opponent`` and the sidebar's
filters (``dashboard.filters``; ``player`` is the filter on either player's name). Names come
from the records: they are shown as text (``display.plain``, table cells), never read as
Markdown.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from kifudb.analytics import elo, stats
from kifudb.analytics.judgement import MARKS
from kifudb.analytics.filters import GameFilter
from kifudb.dashboard import board, charts, display, engine_analysis, filters, nav
from kifudb.dashboard.downloads import games_download
from kifudb.dashboard.games_table import games_table
from kifudb.dashboard.tables import CLICK, as_percent, percent_column, picked, picked_in
from kifudb.dashboard.state import require_store, stored

players = stored(stats.players)
computed_ratings = stored(elo.ratings)
player_summary = stored(stats.player_summary)
head_to_head = stored(stats.head_to_head)

#: Players offered in the picker (most games first); any other name can be typed.
LISTED = 2000


def seat_rows(rows: list, player: str, opponent: str | None = None) -> list:
    """``player_summary``/``head_to_head`` games (the player's side, the opponent) as
    ``games_table`` rows."""
    out = []
    for row in rows:
        other = row.get("opponent", opponent)
        black, white = (player, other) if row["side"] == "black" else (other, player)
        out.append({**row, "black": black, "white": white})
    return out


def score_metric(cell, title: str, side: dict) -> None:
    cell.metric(f"{title} · {display.count(side['games'], 'game')}",
                display.score_text(side["score"]),
                delta=decided_text(side), delta_color="off", delta_arrow="off", border=True,
                help=f"{side['wins']} wins, {side['losses']} losses, {side['draws']} draws; "
                     f"the score is over the {display.count(side['decided'], 'decided game')} "
                     f"(a draw counts half)")


def decided_text(record: dict) -> str:
    """The decided games a score stands on, and its 95% interval: "of N decided · 95%: a–b"."""
    if record.get("ci_low") is None:
        return "no decided game"
    return (f"of {record['decided']:,} decided · 95%: {display.score_text(record['ci_low'])}–"
            f"{display.score_text(record['ci_high'])}")


#: The columns of a score (games, +, −, =, decided games, the score), in the players' table and
#: the tables of a player's openings and castles.
SCORE_COLUMNS = {
    "games": st.column_config.NumberColumn(width=52),
    "wins": st.column_config.NumberColumn("+", width=40),
    "losses": st.column_config.NumberColumn("−", width=40),
    "draws": st.column_config.NumberColumn("=", width=40),
    "decided": st.column_config.NumberColumn("decided", width=60,
                                             help="The decided games the score stands on"),
    "score": percent_column("score", width=96),
}


def everyone(listed: list) -> None:
    """The table of players; a click opens one (at the top of the page)."""
    st.subheader(display.count(len(listed), "player")
                 + (" (the most active)" if len(listed) >= LISTED else ""))
    frame = pl.from_dicts(listed, schema=["player", "games", "wins", "losses", "draws",
                                          "decided", "score", "ci_low", "ci_high"],
                          infer_schema_length=None)
    frame = as_percent(frame, "score", "ci_low", "ci_high")

    def open_player():
        row = picked_in("players-table")
        if row is not None and row < len(listed):
            st.session_state["name"] = listed[row]["player"]

    st.dataframe(frame, key="players-table", hide_index=True, on_select=open_player,
                          selection_mode=CLICK, width="stretch", height=560,
                          placeholder="—",
                          # widths that fit every column in 566 px (under the board at 820 px)
                          column_config={
                              "player": st.column_config.TextColumn("player", width=124),
                              **SCORE_COLUMNS,
                              "ci_low": percent_column(
                                  "low", bar=False, width=52,
                                  help="The score's 95% interval: its lower end"),
                              "ci_high": percent_column(
                                  "high", bar=False, width=52,
                                  help="The score's 95% interval: its upper end")})


def labels_table(rows: list, kind: str, key: str) -> None:
    if not rows:
        st.caption("None recognised.")
        return
    frame = as_percent(pl.from_dicts([{**r, "name": display.label_text(r["label"])}
                                      for r in rows], infer_schema_length=None), "score")
    shown = st.dataframe(frame, key=key, hide_index=True, on_select="rerun",
                          selection_mode=CLICK, width="stretch", placeholder="—",
                          column_order=["name", "games", "wins", "losses", "draws", "decided",
                                        "score"],
                          column_config={
                              "name": st.column_config.TextColumn(display.KINDS[kind],
                                                                  width=116),
                              **SCORE_COLUMNS},
                          height=min(38 + 35 * len(rows), 320))
    row = picked(shown.selection)
    if row is not None and row < len(rows):
        st.switch_page(nav.OPENINGS.path, query_params=nav.with_filters(
            {"kind": kind, "study": rows[row]["label"]}))


def opponents_section(player: str, summary: dict, chosen: GameFilter) -> None:
    opponents = summary["opponents"]
    if not opponents:
        st.caption("No named opponent.")
        return
    names = [o["opponent"] for o in opponents]
    labels = {o["opponent"]: f"{o['opponent']} — {display.count(o['games'], 'game')}, "
                             f"+{o['wins']} −{o['losses']} ={o['draws']}" for o in opponents}
    nav.from_url("opponent", names, names[0])
    if st.session_state["opponent"] not in names:
        st.session_state["opponent"] = names[0]
    opponent = st.selectbox("Against", names, key="opponent", format_func=labels.get)
    nav.to_url("opponent", opponent)
    record = head_to_head(player, opponent, filters=chosen)
    cells = st.columns(3)
    cells[0].metric("Games", f"{len(record['games']):,}", border=True)
    cells[1].metric("Wins · draws · losses", f"{record['wins']} · {record['draws']} · "
                                             f"{record['losses']}", border=True)
    cells[2].metric(f"{display.plain(player)}'s score", display.score_text(record["score"]),
                    border=True, delta=decided_text(record),
                    delta_color="off", delta_arrow="off")
    games_table(seat_rows(record["games"], player, opponent), key=f"h2h-{player}-{opponent}",
                ply=False,
                height=min(38 + 35 * len(record["games"]), 400))


def rating_section(player: str, chosen: GameFilter) -> None:
    """The computed rating (``analytics.elo``: Elo over the decided, dated games in scope) and
    its history, a line chart; a caption when the player has no such game."""
    rated = computed_ratings(filters=chosen).get(player)
    if rated is None:
        st.caption("No computed rating: no decided, dated game against a named opponent.")
        return
    st.metric("Computed rating (Elo)", f"{rated['rating']:.0f}", border=True,
              delta=f"over {display.count(rated['games'], 'decided dated game')}",
              delta_color="off",
              delta_arrow="off",
              help="Elo from 1500, K = 20, over the store's decided, dated games in date order "
                   "(analytics/elo.py); few games make it say little.")
    charts.draw(charts.rating_history, list(rated["history"]))


def analysis_section(player: str, chosen: GameFilter) -> None:
    """The player's accuracy and mistakes in the engine's analysis (nothing when the store
    holds none): the figures over their analysed moves, and their most costly moves (a click
    opens the game at that move)."""
    figures = engine_analysis.accuracy("player", chosen.replace(player=player))
    if figures is None:
        return
    st.subheader("Engine analysis")
    own = next((g for g in figures["groups"] if g["player"] == player), None)
    if own is None:
        st.caption(display.plain(f"None of {player}'s moves in scope was judged by the engine's "
                                 f"analysis ({engine_analysis.source_text(figures)})."))
        return
    cells = st.columns(3)
    cells[0].metric("Accuracy", f"{own['accuracy']:.1f}%", border=True,
                    delta=f"over {display.count(own['games'], 'game')}, "
                          f"{display.count(own['moves'], 'move')}",
                    delta_color="off", delta_arrow="off",
                    help="The mean of the accuracies of the player's moves judged by the "
                         f"engine ({engine_analysis.source_text(figures)}; lishogi's formula)")
    cells[1].metric("Average loss", f"{own['average_loss']:.1f}", border=True,
                    help="Points of win chance lost a move, on average")
    cells[2].metric("Blunders · mistakes · inaccuracies",
                    f"{own['blunders']} · {own['mistakes']} · {own['inaccuracies']}",
                    border=True, help="?? a loss of 15 points of win chance or more, ? 10, ?! 5")
    costly = engine_analysis.mistakes(of=player, filters=chosen)
    rows = costly["moves"] if costly else []
    if not rows:
        st.caption("No mistake of the player's in scope.")
        return
    st.markdown("**Most costly moves**")
    table = [{**row, "move": (row["ki2"] or row["usi"] or "")
              + f" {MARKS[row['judgement']]}",
              "better": row["best_ki2"] or row["best"] or "",
              "chance": f"{row['win_before']:.0f}% → {row['win_after']:.0f}%"} for row in rows]
    frame = pl.from_dicts(table, infer_schema_length=None)
    key = f"mistakes-{player}"
    shown = st.dataframe(frame, key=key, hide_index=True, on_select="rerun",
                         selection_mode=CLICK, width="stretch", placeholder="—",
                         column_order=["game", "ply", "date", "move", "better", "loss",
                                       "chance"],
                         column_config={
                             "game": st.column_config.NumberColumn("Game", format="%d",
                                                                   width=52),
                             "ply": st.column_config.NumberColumn("Ply", width=40),
                             "date": st.column_config.TextColumn("Date", width=82),
                             "move": st.column_config.TextColumn("指し手 Move", width=96),
                             "better": st.column_config.TextColumn(
                                 "Better", width=84, help="The engine's move"),
                             "loss": st.column_config.NumberColumn(
                                 "loss", format="%.1f", width=52,
                                 help="Points of win chance lost"),
                             "chance": st.column_config.TextColumn(
                                 "Chance", width=96,
                                 help="The player's win chance before and after the move")},
                         height=min(38 + 35 * len(rows), 400))
    row = picked(shown.selection)
    if row is not None and row < len(rows):
        nav.open_game(rows[row]["game"], rows[row]["ply"])
    st.caption("Click a move to open its game there.")


def player_page(player: str, chosen: GameFilter) -> None:
    summary = player_summary(player, filters=chosen)
    if summary is None:
        shown = display.shortened(player, 64)
        st.warning(display.plain(f"No game in scope has a player named {shown!r}")
                   + (f" ({filters.describe(chosen)})" if chosen else "")
                   + ". Names must match as stored; pick one from the list.",
                   icon=":material/person_off:")
        return
    st.header(display.plain(summary.get("player", player)))
    written = [s for s in summary.get("spellings", []) if s != summary.get("player")]
    if written:
        st.caption(display.plain("Also written: " + " · ".join(written)))
    cells = st.columns(3)
    cells[0].metric("Games", f"{summary['games']:,}", border=True)
    score_metric(cells[1], display.SIDES["black"], summary["as_black"])
    score_metric(cells[2], display.SIDES["white"], summary["as_white"])
    rating_section(summary.get("player", player), chosen)
    analysis_section(summary.get("player", player), chosen)

    left, right = st.columns([5, 7], gap="medium")
    recent = seat_rows(summary["recent_games"], player)
    with left:
        if recent:
            last = recent[0]
            board.show_seat_board(last, last["moves"] or 0,
                                  f"Latest game ({last['date'] or 'undated'}), final position: "
                                  f"{display.result_text(last['winner'], last['reason'])}")
    with right:
        st.markdown("**Latest games**")
        games_table(recent, key=f"recent-{player}", ply=False,
                    height=min(38 + 35 * len(recent), 420))
        name = summary.get("player", player)
        games_download("player", f"{name}'s games" + (" that fit the filters" if chosen else ""),
                       "kifudb-player", filters=chosen.replace(player=name),
                       count=summary["games"])
    columns = st.columns(2, gap="large")
    with columns[0]:
        st.subheader("Favourite openings")
        labels_table(summary["openings"], "opening", f"openings-{player}")
    with columns[1]:
        st.subheader("Favourite castles")
        labels_table(summary["castles"], "castle", f"castles-{player}")
    st.subheader("Head to head")
    opponents_section(player, summary, chosen)


def main() -> None:
    require_store()
    st.title("棋士 Players")
    chosen = filters.game_filter()
    try:
        listed = players(limit=LISTED, filters=chosen)
    except ValueError as error:
        st.error(display.message(error), icon=":material/warning:")
        return
    names = [p["player"] for p in listed]
    if names and st.session_state.get("name") is None and "name" not in st.query_params:
        st.session_state["name"] = names[0]  # nothing asked for: the most active player
    player = st.selectbox("Player", names, index=None, key="name", bind="query-params",
                          placeholder="Type a name…", accept_new_options=True,
                          help="Any name as stored (a name not in the list can be typed)",
                          width=420)
    if player:
        player_page(player.strip(), chosen)
        st.divider()
    if listed:
        everyone(listed)
    else:
        st.info("No player in scope" + (f" ({filters.describe(chosen)})." if chosen else "."),
                icon=":material/person_off:")


if __name__ == "__main__":
    main()
