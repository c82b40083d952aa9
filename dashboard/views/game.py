"""棋譜 — the game viewer: step through a game move by move (buttons, the ← → keys, the
slider, or a click in the move list); the KIF move list with times and comments; the castles
and openings each side reached, with the ply (a click jumps there); the variations, read back
on the board; the record's headers and sources.

The URL holds the game and the ply: ``?game=12&ply=30``; a game id or ply that is not one (or
out of range) is said on the page, which shows the latest games or the game's start. Every
text of the record (players, event, comments, file names) is shown as text, never read as
Markdown or HTML (``display.plain``, or a table cell).
"""

from __future__ import annotations

from collections import defaultdict

import pandas as pd
import streamlit as st

from analytics import stats
from core.position import STARTING_SFEN, Position
from analytics import game_record as stored_game
from dashboard import board, display, nav
from dashboard.games_table import games_table
from dashboard.position_form import MAX_GAME
from dashboard.state import require_store, stored

game_record = stored(stored_game.game_record)
latest_games = stored(stats.games)

game_labels = stored(stats.game_labels)


#: The ply a click in the move list asks for, taken up before the slider is drawn.
GOTO = "goto-ply"
#: A game picked in a table of this page, taken up before the game input is drawn.
PENDING = "pending-game"
#: A game id of the URL that is not one (the URL drops it), for the message.
BAD = "bad-game"
#: A ply of the URL that is not one of the game's, for the message.
BAD_PLY = "bad-ply"
#: Moves listed around the current one (the whole list is in an expander).
WINDOW = 15


def clock(seconds) -> str:
    """``1:05`` (or ``1:02:03``) for a move's time; blank when the record gives none."""
    if seconds is None or pd.isna(seconds):
        return ""
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def set_ply(ply: int) -> None:
    st.session_state["ply"] = ply


def _whole(text, low: int, high: int) -> int | None:
    """``text`` as a whole number from ``low`` to ``high`` (digits only), else None."""
    text = str(text).strip()
    if text.isascii() and text.isdigit() and len(text) <= 16 and low <= int(text) <= high:
        return int(text)
    return None


def _shown(text) -> str:
    text = str(text)
    return text if len(text) <= 32 else text[:32] + "…"


def url_ply(last: int) -> None:
    """On a page the URL opens (the slider not drawn yet): a ``ply`` that is not a whole number
    from 0 to ``last`` gets a warning and the start position (the URL loses it, and the page
    runs again: the slider seeds itself from the URL the run started with)."""
    bad = st.session_state.pop(BAD_PLY, None)
    if bad is not None:
        st.warning(display.plain(f"Not a ply of this game: {_shown(bad)!r} (a whole number from "
                                 f"0 to {last}); the start position is shown."),
                   icon=":material/warning:")
    raw = st.query_params.get("ply")
    if raw is None or "ply" in st.session_state or _whole(raw, 0, last) is not None:
        return
    del st.query_params["ply"]
    st.session_state["ply"] = 0
    if bad != raw:
        st.session_state[BAD_PLY] = raw
        st.rerun()


def ply_slider(last: int) -> int:
    """The slider (bound to the URL's ``ply``); the ply shown."""
    if last == 0:
        return 0
    return st.slider("Ply", 0, last, key="ply", bind="query-params",
                     label_visibility="collapsed")


def step_buttons(ply: int, last: int) -> None:
    """⏮ ◀ ▶ ⏭, also on the Home, ←, → and End keys."""
    cells = st.columns(4)
    cells[0].button("", icon=":material/first_page:", on_click=set_ply, args=(0,),
                    disabled=ply == 0, width="stretch", shortcut="Home", key="to-start",
                    help="The start position")
    cells[1].button("", icon=":material/chevron_left:", on_click=set_ply,
                    args=(max(0, ply - 1),), disabled=ply == 0, width="stretch",
                    shortcut="Left", key="back", help="One move back")
    cells[2].button("", icon=":material/chevron_right:", on_click=set_ply,
                    args=(min(last, ply + 1),), disabled=ply >= last, width="stretch",
                    shortcut="Right", key="forward", help="One move on")
    cells[3].button("", icon=":material/last_page:", on_click=set_ply, args=(last,),
                    disabled=ply >= last, width="stretch", shortcut="End", key="to-end",
                    help="The last move")


def headline(info: dict) -> None:
    st.title(display.plain(f"▲{info['black'] or '?'}  対  △{info['white'] or '?'}"))
    facts = [info["date"] or "undated", info["event"] or "no event",
             display.result_text(info["winner"], info["reason"]),
             f"{info['moves']} moves"]
    if info["handicap"] and info["handicap"] != "平手":
        facts.insert(2, info["handicap"])
    st.caption(display.plain(" · ".join(facts) + f" · game {info['game']}"))
    if not info["valid"]:
        st.warning(f"The record has an illegal move at ply {info['first_illegal_ply']} "
                   f"({info['illegal_code']}): the replay stops before it.",
                   icon=":material/warning:")


def move_table(record: dict) -> pd.DataFrame:
    """The main line as the record wrote it, with the KI2 reading, each move's time and the
    side's total, and the comments."""
    black_first = record["sfens"][0].split()[1] == "b"
    spent = {True: 0.0, False: 0.0}
    table = []
    for row in record["moves"]:
        black = (row["ply"] % 2 == 1) == black_first
        if row["seconds"] is not None:
            spent[black] += row["seconds"]
        table.append({"ply": row["ply"], "move": row["ki2"] or f"✗ {row['text']}",
                      "written": row["text"], "time": clock(row["seconds"]),
                      "total": clock(spent[black]) if row["seconds"] is not None else "",
                      "comment": row["comment"] or ""})
    return pd.DataFrame(table, columns=["ply", "move", "written", "time", "total", "comment"])


_MOVE_COLUMNS = {
    "ply": st.column_config.NumberColumn("手", width="small"),
    "move": st.column_config.TextColumn("Move"),
    "written": st.column_config.TextColumn("As written"),
    "time": st.column_config.TextColumn("Time", width="small"),
    "total": st.column_config.TextColumn("Total", width="small", help="The side's time so far"),
    "comment": st.column_config.TextColumn("Comment", width="large")}


def move_list(record: dict, ply: int, game: int) -> None:
    """The moves around the current one (highlighted), then the whole list in an expander; a
    click on a move goes there."""
    frame = move_table(record)
    first = max(0, min(ply - 1 - WINDOW // 2, len(frame) - WINDOW))
    pick_move(frame.iloc[first:first + WINDOW], f"moves-{game}-{ply}", record, ply)
    if len(frame) > WINDOW:
        st.caption(f"Moves {first + 1}–{min(first + WINDOW, len(frame))} of {len(frame)}.")
        with st.expander(f"All {len(frame)} moves"):
            pick_move(frame, f"all-moves-{game}-{ply}", record, ply)


def pick_move(part: pd.DataFrame, key: str, record: dict, ply: int) -> None:
    """A table of moves (the current one highlighted); a click on a replayed move goes there."""
    styled = part.style.apply(
        lambda r: ["background-color: rgba(255,140,26,0.30)" if r["ply"] == ply else ""] * len(r),
        axis=1)
    picked = st.dataframe(styled, key=key, hide_index=True, on_select="rerun",
                          selection_mode="single-row", height=min(38 + 35 * len(part), 560),
                          column_config=_MOVE_COLUMNS)
    if picked.selection.rows:
        target = int(part.iloc[picked.selection.rows[0]]["ply"])
        if record["moves"][target - 1]["usi"] is not None and target != ply:
            st.session_state[GOTO] = target  # the slider is drawn: set it on the rerun
            st.rerun()


def labels_tab(game: int, last: int) -> None:
    """Each side's castles and openings in the order reached (★ the side's main one); a click
    goes to the ply where it was reached."""
    found = game_labels(game)
    if not found:
        st.caption("No castle or opening recognised in this game.")
        return
    by_side = defaultdict(list)
    for label in found:
        by_side[label["side"]].append(label)
    for side in ("black", "white"):
        st.markdown(f"**{display.SIDES[side]}**")
        with st.container(horizontal=True):
            for label in by_side.get(side, ()):
                kind = "囲い" if label["kind"] == "castle" else "戦型"
                star = "★ " if label["primary"] else ""
                english = stats.label_names().get(label["label"])
                st.button(display.plain(f"{star}{label['label']} · {kind} · {label['ply']}手"),
                          key=f"label-{side}-{label['kind']}-{label['label']}",
                          on_click=set_ply, args=(min(label["ply"] or 0, last),),
                          help=(f"{display.plain(english)}. " if english else "")
                          + "Go to the ply where it was reached"
                          + (" (the side's main one)" if star else ""))


def variations_tab(record: dict) -> None:
    rows = record["variations"]
    if not rows:
        st.caption("The record has no variations.")
        return
    lines = stored_game.variation_lines(rows)
    options = {}
    for number, moves in lines.items():
        parent = moves[0]["parent"]
        branch = f"off 変化 {parent}" if parent else "off the main line"
        options[number] = (f"変化 {number} · from ply {moves[0]['ply']} {branch} · "
                           f"{moves[0]['text']} …")
    game = record["info"]["game"]
    number = st.selectbox("Variation", list(options), format_func=options.get,
                          key=f"variation-{game}")
    moves = lines[number]
    main_usi = [m["usi"] for m in record["moves"] if m["usi"] is not None]
    line = stored_game.variation_line(record["info"]["start_sfen"] or STARTING_SFEN, main_usi,
                                      rows, number)
    start_ply, sfens = line["start_ply"], line["sfens"]
    left, right = st.columns([5, 7])
    with right:
        frame = pd.DataFrame([{"ply": m["ply"], "written": m["text"],
                               "time": clock(m["seconds"]), "comment": m["comment"] or ""}
                              for m in moves])
        st.dataframe(frame, hide_index=True, width="stretch")
        if not sfens:
            st.warning(f"It branches off at ply {start_ply}, where the line it comes from was "
                       f"not replayed.")
        elif len(sfens) - 1 < len(moves):
            st.caption(f"Replayed up to ply {start_ply + len(sfens) - 2}: the next move is not "
                       f"legal (see the Validation page).")
    with left:
        if len(sfens) > 1:
            step = st.slider("Moves into the variation", 1, len(sfens) - 1, len(sfens) - 1,
                             key=f"variation-step-{game}-{number}") if len(sfens) > 2 else 1
            shown = Position.from_sfen(sfens[step])
            board.show_board(shown, last_move=moves[step - 1]["usi"], size=360, sfen=False,
                             caption=f"変化 {number} after ply {start_ply + step - 1}")


def headers_tab(info: dict) -> None:
    facts = {"Date": info["date"], "End date": info["end_date"], "Event": info["event"],
             "Handicap": info["handicap"], "Time control": info["time_control"],
             "Place": info["place"], "Opening (record)": info["opening"],
             "Result": display.result_text(info["winner"], info["reason"]),
             "Declared ending": info["declared_ending"], "Fingerprint": info["fingerprint"]}
    st.dataframe(pd.DataFrame([{"field": k, "value": "" if v is None else str(v)}
                               for k, v in facts.items()]), hide_index=True, width="stretch")
    if info["headers"]:
        with st.expander("All headers as written"):
            st.json(info["headers"])
    if info.get("comments"):
        st.markdown("**Comments**")
        st.text(info["comments"])
    st.markdown("**Read from**")
    for source in info["sources"]:
        number = source["index"] + 1 if source["index"] is not None else "?"
        st.caption(display.plain(f"{source['path']} · game {number} · {source['format']} · "
                                 f"{source['encoding']}"))


def open_here(row: dict) -> None:
    """Show another game (its id is set before the game input is drawn, on the rerun)."""
    if row["game"] != st.session_state.get("game"):
        st.session_state[PENDING] = row["game"]
        st.rerun()


def pick_game(current) -> None:
    """The latest games; a click opens one here (each game shown has its own table, so a
    click is taken once)."""
    games_table(latest_games(limit=20), key=f"game-pick-{current}", ply=False, on_pick=open_here)


def main() -> None:
    require_store()
    if PENDING in st.session_state:
        st.session_state["game"] = st.session_state.pop(PENDING)
        st.session_state["ply"] = 0
        st.session_state.pop(BAD, None)
    # the game the URL asks for (a bad id leaves the URL at once: it is kept for the message)
    raw = st.query_params.get("game")
    if raw is not None and _whole(raw, 1, MAX_GAME) is None:  # 1.5, -1, abc: not read as 1
        again = st.session_state.get(BAD) == raw
        st.session_state[BAD] = raw
        del st.query_params["game"]
        st.session_state.pop("game", None)
        if not again:
            st.rerun()  # the game input seeds itself from the URL the run started with
    asked = st.query_params.get("game", st.session_state.get(BAD))
    if st.session_state.get("game") is None and asked is None:
        latest = latest_games(limit=1)
        if latest:  # nothing asked for: the newest game
            st.session_state["game"] = latest[0]["game"]
    game = st.sidebar.number_input("Game", min_value=1, step=1, value=None, key="game",
                                   bind="query-params", placeholder="a game id",
                                   help="The game's id in the store (every table of games "
                                        "links here)", width=200, on_change=set_ply, args=(0,))
    if game is None:
        st.title("棋譜 Game viewer")
        if asked is not None:
            st.session_state[BAD] = asked
            st.error(display.plain(f"Not a game id: {_shown(asked)!r} (a game id is a whole "
                                   f"number from 1)."), icon=":material/block:")
            st.subheader("Latest games")
            pick_game(asked)
        else:
            st.info("The store holds no game yet.", icon=":material/description:")
        return
    st.session_state.pop(BAD, None)
    record = game_record(int(game))
    if record is None:
        st.title("棋譜 Game viewer")
        st.error(f"No game {int(game)} in the store.", icon=":material/block:")
        st.subheader("Latest games")
        pick_game(game)
        return

    info, sfens = record["info"], record["sfens"]
    last = len(sfens) - 1
    url_ply(last)
    if GOTO in st.session_state:
        st.session_state["ply"] = st.session_state.pop(GOTO)
    if st.session_state.get("ply", 0) > last:
        st.session_state["ply"] = last
    headline(info)

    left, right = st.columns([5, 7], gap="large")
    with left:
        board_area, buttons_area, slider_area = st.container(), st.container(), st.container()
        with slider_area:  # first: on a fresh page the slider reads the ply from the URL
            ply = ply_slider(last)
        with buttons_area:
            step_buttons(ply, last)
        with board_area:
            position = Position.from_sfen(sfens[ply])
            last_move = record["moves"][ply - 1]["usi"] if ply else False
            note = (f"{ply}手 {record['moves'][ply - 1]['ki2']}" if ply else "開始局面") \
                + f" · {board.turn_text(position)}"
            board.show_board(position, last_move=last_move, caption=note)
        comment = record["moves"][ply - 1]["comment"] if ply else None
        if comment:
            st.info(display.plain(comment, lines=True), icon=":material/chat:")
        links = st.columns(2)
        if links[0].button("Explore from here", icon=nav.EXPLORER.icon, width="stretch"):
            nav.open_explorer(info["start_sfen"], [m["usi"] for m in record["moves"][:ply]])
        if links[1].button("Other games here", icon=nav.SEARCH.icon, width="stretch"):
            nav.open_search(position.sfen())
    with right:
        tabs = st.tabs(["Moves", "Castles & openings", "Variations", "Record"],
                       key="game-tabs")
        with tabs[0]:
            move_list(record, ply, int(game))
        with tabs[1]:
            labels_tab(int(game), last)
        with tabs[2]:
            variations_tab(record)
        with tabs[3]:
            headers_tab(info)
    with st.expander("Latest games of the store"):
        pick_game(game)


if __name__ == "__main__":
    main()
