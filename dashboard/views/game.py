"""棋譜 — the game viewer: step through a game move by move (buttons, the ← → keys, the
slider, a click in the move list, or the game's next move played on the board; another move
played there opens the explorer with it; the engine's best move is an arrow); the KIF move
list with times and comments; the castles and openings each side reached, with the ply (a
click jumps there); the variations, read back on the board; the record's headers and
sources, and the game to download as KIF, KI2, CSA, JKF or USI
(``analytics.export.record_text``, with the store's engine analysis in ShogiHome's comments)
or to copy as KIF text; the position on the board to copy
as SFEN (under the board) or as a KIF board diagram. Under the title, the game's
novelty (``analytics.novelty``: the first position no earlier game reached), one click away.

With an engine's evaluations in the record, a graph of them (▲ Black's point of view; a click
goes to that ply) is under the board, and the move list has each move's score. With the store's
engine analysis (``kifudb analyse``; ``analytics.judgement``), the graph draws it too (both
when both exist, told apart), the move list marks each judged move (?! inaccuracy, ? mistake,
?? blunder) with the engine's better move and its score, the board shows the better move as
an arrow before a judged move, and under the title each side's accuracy, average loss and
judgements, and the ply where the game turned.

The URL holds the game and the ply: ``?game=12&ply=30``; every step changes it once, so the
browser's Back and Forward step through the moves. A game id or ply that is not one is said on
the page, which shows the latest games or the game's start; a ply past the end of the game is
said too, and its last position shown. In a handicap game the sides are 下手 (▲) and 上手 (△).
Every text of the record (players, event, comments, file names) is shown as text, never read as
Markdown or HTML (``display.plain``, or a table cell).
"""

from __future__ import annotations

from collections import defaultdict

import polars as pl
import streamlit as st

from kifudb.analytics import export, novelty, stats
from kifudb.core.handicap import handicap_name
from kifudb.core.move import Move
from kifudb.core.notation import ki2_move
from kifudb.core.notation.bod import bod_text
from kifudb.core.position import STARTING_SFEN, Position
from kifudb.core.writers import EXTENSIONS, FORMATS, MEDIA_TYPES
from kifudb.analytics import game_record as stored_game
from kifudb.dashboard import board, display, engine_analysis, evaluation_chart, filters, nav
from kifudb.dashboard.downloads import ENCODED, ENCODINGS
from kifudb.dashboard.games_table import games_table
from kifudb.dashboard.position_form import MAX_GAME, whole_number
from kifudb.dashboard.shogiboard import game_line, line_ply
from kifudb.dashboard.state import fragment, require_store, stored
from kifudb.dashboard.tables import CLICK, picked

game_record = stored(stored_game.game_record)
latest_games = stored(stats.games)

game_labels = stored(stats.game_labels)
game_novelty = stored(novelty.game_novelty)
record_text = stored(export.record_text)



#: Moves listed around the current one (the whole list is in an expander).
WINDOW = 15


def clock(seconds) -> str:
    """``1:05`` (or ``1:02:03``) for a move's time; blank when the record gives none."""
    if seconds is None or seconds != seconds:  # none given, or NaN
        return ""
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def go_to(game: int, ply: int = 0) -> None:
    """Show ``game`` at ``ply`` (the callback of every step: the URL is the state, changed once
    a step: one entry in the browser's history)."""
    nav.set_url(nav.game_params(game, ply))


def stepped(ply: int, game: int) -> None:
    """A step made on the board in the browser (a key or a step button): the page follows."""
    go_to(game, ply)


def slid(game: int) -> None:
    go_to(game, st.session_state["ply"])


def typed_game() -> None:
    if st.session_state.get("game") is not None:
        go_to(int(st.session_state["game"]), 0)


def url_ply(last: int, moves: int) -> int:
    """The ply the URL asks for (0 when it asks for none): a ply that is not a whole number is
    said and the start shown; a ply past the last position replayed (``last``; the record has
    ``moves`` moves) is said and the last position shown. The URL is put right."""
    raw = st.query_params.get("ply")
    if raw is None:
        return 0
    ply = whole_number(raw, 0, 2 ** 53)
    if ply is None:
        st.warning(display.plain(f"Not a ply of this game: {display.shortened(raw)!r} (a whole "
                                 f"number from 0 to {last}); the start position is shown."),
                   icon=":material/warning:")
        del st.query_params["ply"]
        return 0
    if ply > last:
        why = (f"the game ends at ply {last}" if last >= moves else
               f"the record has {moves} moves, but the replay stops at ply {last} (an illegal "
               f"move)")
        st.warning(display.plain(f"Ply {display.shortened(raw)} is past the end: {why}. Its "
                                 f"last position is shown."), icon=":material/last_page:")
        st.query_params["ply"] = str(last)
        return last
    return ply


def ply_slider(game: int, ply: int, last: int) -> None:
    """The slider (a move along it is a step of its own in the URL)."""
    if last == 0:
        return
    st.session_state["ply"] = ply
    st.slider("Ply", 0, last, key="ply", on_change=slid, args=(game,),
              label_visibility="collapsed")


def ply_arrows(record: dict, ply: int) -> list:
    """The arrows on the board at ``ply``: the engine's best move from the record's comment
    of the last move, else — when the next move was judged by the store's analysis — the
    engine's better move."""
    last = len(record["sfens"]) - 1
    arrows = board.engine_arrow(record["moves"][ply - 1]["evaluation"] if ply else None)
    if not arrows and ply < last and (record["moves"][ply].get("analysis") or {}).get("best"):
        arrows = board.engine_arrow({"pv": record["moves"][ply]["analysis"]["best"]})
    return arrows


def _board_line(root: str, game: int) -> list:
    """Every position of the game replayed (``shogiboard.line_ply``), for the board to step
    through in the browser (cached per game: ``board_line``)."""
    record = stored_game.game_record(root, game)
    return [line_ply(sfen, record["moves"][ply - 1]["usi"] if ply else None,
                     ply_arrows(record, ply))
            for ply, sfen in enumerate(record["sfens"])]


board_line = stored(_board_line)

#: The step buttons' keys, which the board takes over in the browser (no run of the page).
STEP_KEYS = ("to-start", "back", "forward", "to-end")


def step_buttons(game: int, ply: int, last: int) -> None:
    """⏮ ◀ ▶ ⏭, also on the Home, ←, → and End keys."""
    cells = st.columns(4)
    cells[0].button("", icon=":material/first_page:", on_click=go_to, args=(game, 0),
                    disabled=ply == 0, width="stretch", shortcut="Home", key="to-start",
                    help="The start position")
    cells[1].button("", icon=":material/chevron_left:", on_click=go_to,
                    args=(game, max(0, ply - 1)), disabled=ply == 0, width="stretch",
                    shortcut="Left", key="back", help="One move back")
    cells[2].button("", icon=":material/chevron_right:", on_click=go_to,
                    args=(game, min(last, ply + 1)), disabled=ply >= last, width="stretch",
                    shortcut="Right", key="forward", help="One move on")
    cells[3].button("", icon=":material/last_page:", on_click=go_to, args=(game, last),
                    disabled=ply >= last, width="stretch", shortcut="End", key="to-end",
                    help="The last move")


def handicap_game(info: dict) -> bool:
    """Whether the game is a handicap game (its sides are 下手 and 上手)."""
    return display.is_handicap(info.get("handicap"), info.get("start_sfen"))


def headline(info: dict) -> None:
    st.title(display.plain(f"▲{info['black'] or '?'}  対  △{info['white'] or '?'}"))
    facts = [info["date"] or "undated", info["event"] or "no event",
             display.result_text(info["winner"], info["reason"], handicap_game(info)),
             display.count(info['moves'], "move")]
    if handicap_game(info):
        name = handicap_name(info.get("start_sfen") or "") or info["handicap"]
        facts.insert(2, f"{name}: ▲下手 · △上手")
    elif info["handicap"] and info["handicap"] != "平手":
        facts.insert(2, info["handicap"])
    st.caption(display.plain(" · ".join(facts) + f" · game {info['game']}"))
    if not info["valid"]:
        st.warning(f"The record has an illegal move at ply {info['first_illegal_ply']} "
                   f"({info['illegal_code']}): the replay stops before it.",
                   icon=":material/warning:")


def side_judgement(side: dict) -> str:
    """One side's figures of the engine's analysis: ``accuracy 87.3% · loss 2.1 · ?? 1 ? 0
    ?! 2 (52 moves)``."""
    if not side or side.get("accuracy") is None:
        return "no move judged"
    counts = " ".join(f"{mark} {side[name]}" for name, mark in engine_analysis.COUNTS.items())
    return (f"accuracy {side['accuracy']:.1f}% · average loss {side['average_loss']:.1f} · "
            f"{counts} ({display.count(side['moves'], 'move')})")


def judgement_note(game: int, record: dict, ply: int, handicap: bool) -> None:
    """What the store's engine analysis says of the game (``analytics.judgement``): each
    side's accuracy, average loss and judgements, and the ply where the game turned (a
    button goes there); nothing without an analysis."""
    judged = record.get("judgement")
    if not judged:
        return
    sides = " · ".join(f"{display.side_name(side, handicap)}: {side_judgement(judged[side])}"
                       for side in ("black", "white"))
    st.caption(display.plain(f"Engine analysis ({judged['engine']}, {judged['limit']}): "
                             f"{sides}"),
               help="lishogi's formulas (analytics/judgement.py): a move's loss is the drop "
                    "of the mover's win chance, its accuracy falls with the loss, and ?! ? ?? "
                    "mark an inaccuracy, a mistake, a blunder")
    turned = judged.get("turning_ply")
    if turned:
        if st.button(f"The game turned at ply {turned}", key=f"turned-{game}",
                     icon=":material/swap_vert:", disabled=turned == ply,
                     help="The move after which the winner never again fell below an even "
                          "position in the engine's analysis"):
            go_to(game, turned)
            st.rerun()


def judged_move_note(record: dict, ply: int) -> None:
    """Under the board, at a judged move: what the engine thought of it, and its better
    move."""
    if not ply:
        return
    analysis = record["moves"][ply - 1].get("analysis") or {}
    if not analysis.get("judgement"):
        return
    mover = "black" if record["sfens"][ply - 1].split()[1] == "b" else "white"
    row = record["moves"][ply - 1]
    said = (f"{row['ki2']}{stored_game.judgement_mark(analysis)}: {analysis['judgement']} "
            f"(the mover's chance fell by {analysis['loss']:.1f} points")
    if analysis.get("win_black") is not None:
        chance = analysis["win_black"] if mover == "black" else 100 - analysis["win_black"]
        said += f", to {chance:.0f}%"
    said += ")"
    better = better_move(record, ply)
    if better:
        said += f"; the engine preferred {better}"
    st.warning(display.plain(said), icon=":material/report:")


def novelty_note(game: int, record: dict, ply: int) -> None:
    """Where the game left the earlier games' path (``analytics.novelty``), with a button to
    go there; nothing for an undated game."""
    found = game_novelty(game)
    if record["info"]["date"] is None:
        return
    if found is None:
        st.caption("No novelty: an earlier game of the store reached every position.")
        return
    move = record["moves"][found["ply"] - 1]["ki2"] if found["ply"] <= len(record["moves"]) else ""
    st.caption(display.plain(f"★ Novelty: {found['ply']}手 {move or ''} — the first position "
                             f"no earlier game reached "
                             f"({display.count(found['earlier_games'], 'earlier game')} had "
                             f"reached the one before)."))
    # shown at the novelty too (disabled): the page keeps its shape, and the board its frame
    if st.button("Go to novelty", key=f"novelty-{game}", icon=":material/star:",
                 disabled=found["ply"] == ply):
        go_to(game, found["ply"])
        st.rerun()


#: A comment line that is an engine's log (CSA ``** 24 +8877GI -3122GI``, floodgate's way).
ENGINE_LINE = "**"


def comment_text(record: dict, ply: int) -> str:
    """The comment of the move at ``ply`` as a reader wants it: an engine's raw line (``** 24
    +8877GI -3122GI``) becomes its score and principal variation in Japanese notation
    (``analytics.game_record.evaluation_shown``: ``評価値 +24 ▲８八銀 △２二銀``); the other
    lines as written."""
    row = record["moves"][ply - 1]
    lines = (row["comment"] or "").splitlines()
    kept = [line for line in lines if not line.lstrip().startswith(ENGINE_LINE)]
    if len(kept) < len(lines) and ply < len(record["sfens"]):
        shown = stored_game.evaluation_shown(row.get("evaluation"), record["sfens"][ply],
                                             row["usi"])
        if shown is not None:
            kept.insert(0, f"評価値 {shown['text']}")
    return "\n".join(kept)


def better_move(record: dict, ply: int) -> str:
    """The engine's better move (KI2) in the position before the move at ``ply``, when the
    analysis judged that move; else empty."""
    analysis = record["moves"][ply - 1].get("analysis") or {}
    if not analysis.get("best") or ply >= len(record["sfens"]):
        return ""
    position = Position.from_sfen(record["sfens"][ply - 1])
    previous = Move.from_usi(record["moves"][ply - 2]["usi"]).to_square if ply > 1 else None
    try:
        move = Move.from_usi(analysis["best"])
    except ValueError:
        return ""
    if position.illegality(move) is not None:
        return ""
    return ki2_move(position, move, previous)


def move_table(record: dict) -> pl.DataFrame:
    """The main line: each move in KI2 (marked ?!, ?, ?? when the engine's analysis judged it)
    and as the record wrote it — or, in an engine's game or an analysed one, with the scores
    in place of the text as written: the record's (``score``) and the analysis's
    (``engine``, with its ``better`` move beside a judged one) —, its time and the side's
    total, and its comments."""
    black_first = record["sfens"][0].split()[1] == "b"
    spent = {True: 0.0, False: 0.0}
    table = []
    for row in record["moves"]:
        black = (row["ply"] % 2 == 1) == black_first
        if row["seconds"] is not None:
            spent[black] += row["seconds"]
        analysis = row.get("analysis")
        mark = stored_game.judgement_mark(analysis)
        table.append({"ply": row["ply"],
                      "move": (row["ki2"] or f"✗ {row['text']}") + (f" {mark}" if mark else ""),
                      "written": row["text"], "time": clock(row["seconds"]),
                      "total": clock(spent[black]) if row["seconds"] is not None else "",
                      "score": stored_game.score_text(row.get("evaluation")),
                      "engine": stored_game.score_text(
                          evaluation_chart.analysis_evaluation(analysis)),
                      "better": better_move(record, row["ply"]),
                      "comment": comment_text(record, row["ply"])})
    columns = ["ply", "move", "written", "time", "total", "score", "engine", "better", "comment"]
    # an engine's game shows its scores in place of the moves as written (a CSA log's
    # +7776FU: in the Record tab still); another game has no score to show
    scored = any(row["score"] for row in table)
    analysed = any(row["engine"] for row in table)
    if scored or analysed:
        columns.remove("written")
    if not scored:
        columns.remove("score")
    if not analysed:
        columns.remove("engine")
        columns.remove("better")
    return pl.from_dicts(table, schema=columns, infer_schema_length=None)


#: The move list's columns: widths that fit beside the board at 1400 px and under it at 820 px
#: (448 px in all: an engine's game shows its score in place of the move as written; a long
#: comment is cut short in the list, and shown whole under the board at its move).
_MOVE_COLUMNS = {
    "ply": st.column_config.NumberColumn("手", width=40, help="手数: the ply"),
    "move": st.column_config.TextColumn("指し手 Move", width=92),
    "written": st.column_config.TextColumn("表記 As written", width=96),
    "time": st.column_config.TextColumn("Time", width=52),
    "total": st.column_config.TextColumn("Total", width=64, help="The side's time so far"),
    "score": st.column_config.TextColumn("Score", width=64,
                                         help="The engine's score in the record, from ▲ Black's "
                                              "point of view (+M7: ▲ mates in 7)"),
    "engine": st.column_config.TextColumn("Engine", width=64,
                                          help="The store's engine analysis of the position "
                                               "after the move, from ▲ Black's point of view "
                                               "(kifudb analyse)"),
    "better": st.column_config.TextColumn("Better", width=84,
                                          help="The engine's move where it judged the one "
                                               "played ?! an inaccuracy, ? a mistake, ?? a "
                                               "blunder"),
    "comment": st.column_config.TextColumn("コメント Comment", width=104)}


def move_list(record: dict, ply: int, game: int) -> None:
    """The moves around the current one (highlighted), then the whole list in an expander; a
    click on a move goes there."""
    frame = move_table(record)
    first = max(0, min(ply - 1 - WINDOW // 2, len(frame) - WINDOW))
    pick_move(frame.slice(first, WINDOW), f"moves-{game}-{ply}", record, ply, game)
    if len(frame) > WINDOW:
        st.caption(f"Moves {first + 1}–{min(first + WINDOW, len(frame))} of {len(frame)}.")
        with st.expander(f"All {display.count(len(frame), 'move')}"):
            pick_move(frame, f"all-moves-{game}-{ply}", record, ply, game)


def pick_move(part: pl.DataFrame, key: str, record: dict, ply: int, game: int) -> None:
    """A table of moves (the current one highlighted: Streamlit styles a pandas ``Styler``
    only, so the table is handed over as one); a click on a replayed move (anywhere on its
    row) goes there."""
    styled = part.to_pandas().style.apply(
        lambda r: ["background-color: rgba(255,140,26,0.30)" if r["ply"] == ply else ""] * len(r),
        axis=1)
    event = st.dataframe(styled, key=key, hide_index=True, on_select="rerun",
                         selection_mode=CLICK, height=min(38 + 35 * len(part), 560),
                         width="stretch", column_config=_MOVE_COLUMNS)
    row = picked(event.selection)
    if row is not None and row < len(part):
        target = int(part["ply"][row])
        if record["moves"][target - 1]["usi"] is not None and target != ply:
            go_to(game, target)
            st.rerun()


def labels_tab(game: int, last: int, handicap: bool) -> None:
    """Each side's castles, openings, techniques (at every ply one was played) and notes, in
    the order reached (★ the side's main castle and opening); a click goes to the ply where it
    was reached."""
    found = game_labels(game)
    if not found:
        st.caption("No castle, opening, technique or note recognised in this game.")
        return
    by_side = defaultdict(list)
    for label in found:
        by_side[label["side"], label["kind"]].append(label)
    for side in ("black", "white"):
        st.markdown(f"**{display.side_name(side, handicap)}**")
        for kind, title in display.KINDS.items():
            reached = by_side.get((side, kind), ())
            if not reached:
                continue
            short = title.split()[0]  # 囲い, 戦型, 手筋, 備考
            with st.container(horizontal=True):
                for label in reached:
                    star = "★ " if label["primary"] else ""
                    english = stats.label_names().get(label["label"])
                    st.button(display.plain(f"{star}{label['label']} · {short} · "
                                            f"{label['ply']}手"),
                              key=f"label-{side}-{kind}-{label['label']}-{label['ply']}",
                              on_click=go_to, args=(game, min(label["ply"] or 0, last)),
                              help=(f"{display.plain(english)}. " if english else "")
                              + "Go to the ply where it was reached"
                              + (" (the side's main one)" if star else ""))


def variations_tab(record: dict, handicap: bool = False) -> None:
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
        frame = pl.from_dicts([{"ply": m["ply"], "written": m["text"],
                                "time": clock(m["seconds"]), "comment": m["comment"] or ""}
                               for m in moves], infer_schema_length=None)
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
            board.show_board(shown, last_move=moves[step - 1]["usi"], size=400, sfen=False,
                             caption=f"変化 {number} after ply {start_ply + step - 1}",
                             handicap=handicap)


def headers_tab(info: dict) -> None:
    facts = {"Date": info["date"], "End date": info["end_date"], "Event": info["event"],
             "Handicap": info["handicap"], "Time control": info["time_control"],
             "Place": info["place"], "Opening (record)": info["opening"],
             "Result": display.result_text(info["winner"], info["reason"]),
             "Declared ending": info["declared_ending"], "Fingerprint": info["fingerprint"]}
    st.dataframe(pl.from_dicts([{"field": k, "value": "" if v is None else str(v)}
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


def downloads(game: int) -> None:
    """The game as a file of each format (a format that cannot hold all of it says what it
    leaves out; a game that cannot be written says why), and its KIF text to copy."""
    st.markdown("**Download**")
    encoding = st.segmented_control(
        "Encoding of KIF, KI2 and CSA", list(ENCODINGS), format_func=ENCODINGS.get,
        default="utf-8", required=True, key=f"download-encoding-{game}",
        help="UTF-8, or Shift_JIS (cp932) for old Windows tools; the file declares it (JKF "
             "and USI are always UTF-8).")
    cells = st.columns(len(FORMATS))
    for cell, fmt in zip(cells, FORMATS):
        chosen = encoding if fmt in ENCODED else "utf-8"
        written = record_text(game, fmt, chosen, analysis=True)
        data = None
        if written["text"] is not None:
            try:
                data = written["text"].encode(chosen)
            except UnicodeEncodeError as error:
                written = {**written, "problem": f"{chosen} has no character "
                                                 f"{error.object[error.start]!r} of this game"}
        if data is None:
            cell.button(fmt.upper(), disabled=True, key=f"download-{fmt}-{game}",
                        help=display.plain(written["problem"]), width="stretch")
            continue
        said = written["left_out"]
        cell.download_button(fmt.upper(), data,
                             file_name=f"game-{game}{EXTENSIONS[fmt]}", mime=MEDIA_TYPES[fmt],
                             key=f"download-{fmt}-{game}", on_click="ignore", width="stretch",
                             icon=":material/download:",
                             help=display.plain(f"{fmt.upper()} cannot hold, so leaves out: "
                                                f"{'; '.join(said)}") if said else None)
    kif = record_text(game, "kif", analysis=True)
    if kif["text"] is None:
        st.caption(display.plain(f"The game cannot be written: {kif['problem']}"))
        return
    with st.expander("KIF text (to copy)"):
        st.code(kif["text"], language=None)


def copy_position(position: Position, handicap: bool) -> None:
    """The position on the board as a KIF board diagram, with a copy button (its SFEN is
    under the board already)."""
    with st.expander("KIF board diagram (to copy)"):
        st.code(bod_text(position, handicap=handicap), language=None)


def open_here(row: dict) -> None:
    """Show another game, at its start."""
    go_to(row["game"], 0)
    st.rerun()


def pick_game(current, chosen=None) -> None:
    """The latest games (of the sidebar's filters ``chosen``); a click opens one here (each
    game shown has its own table, so a click is taken once)."""
    chosen = chosen if chosen is not None else filters.GameFilter()
    found = latest_games(limit=20, filters=chosen)
    if not found:
        st.caption("No game" + (f" ({filters.describe(chosen)})." if chosen else "."))
    games_table(found, key=f"game-pick-{current}", ply=False, on_pick=open_here)


def game_input(game: int | None) -> None:
    """The sidebar's game id (the game shown); a new id opens that game at its start."""
    st.session_state["game"] = game
    st.sidebar.number_input("Game", min_value=1, step=1, value=None, key="game",
                            placeholder="a game id", on_change=typed_game, width=200,
                            help="The game's id in the store (every table of games links here)")


@fragment
def ply_view(game: int, record: dict) -> None:
    """Everything of the game viewer that changes with the ply (the URL's ``ply``): the
    notes under the title, the board and its steps, the graph, the tabs. A fragment: a step
    runs it alone, not the sidebar, the headline and the list of latest games."""
    info, sfens = record["info"], record["sfens"]
    last = len(sfens) - 1
    handicap = handicap_game(info)
    ply = url_ply(last, len(record["moves"]))
    novelty_note(game, record, ply)
    judgement_note(game, record, ply, handicap)

    left, right = st.columns([5, 7], gap="medium")
    with left:
        position = Position.from_sfen(sfens[ply])
        last_move = record["moves"][ply - 1]["usi"] if ply else False
        note = (f"{ply}手 {record['moves'][ply - 1]['ki2']}" if ply else "開始局面") \
            + f" · {board.turn_text(position, handicap)}"
        following = record["moves"][ply]["usi"] if ply < last else None
        played = board.play_board(
            position, key="game-board", last_move=last_move or None, caption=note,
            handicap=handicap, on_move=board.game_step, args=(game, ply, following),
            arrows=ply_arrows(record, ply),
            line=game_line(board_line(game), ply, STEP_KEYS), on_step=stepped,
            step_args=(game,))
        if played:  # another move than the game's: the explorer from here, with it
            nav.open_explorer(info["start_sfen"],
                              [m["usi"] for m in record["moves"][:ply]] + [played])
        step_buttons(game, ply, last)
        ply_slider(game, ply, last)
        target = evaluation_chart.show(record, ply, key=f"evaluation-{game}-{ply}")
        if target is not None and target != ply:  # a click on the graph
            go_to(game, target)
            st.rerun()
        judged_move_note(record, ply)
        comment = comment_text(record, ply) if ply else None
        if comment:
            st.info(display.plain(comment, lines=True), icon=":material/chat:")
        copy_position(position, handicap)
        links = st.columns(2)
        if links[0].button("Explore from here", icon=nav.EXPLORER.icon, width="stretch"):
            nav.open_explorer(info["start_sfen"], [m["usi"] for m in record["moves"][:ply]])
        if links[1].button("Other games here", icon=nav.SEARCH.icon, width="stretch"):
            nav.open_search(position.sfen())
    with right:
        tabs = st.tabs(["Moves", "Castles & openings", "Variations", "Record"],
                       key="game-tabs")
        with tabs[0]:
            move_list(record, ply, game)
        with tabs[1]:
            labels_tab(game, last, handicap)
        with tabs[2]:
            variations_tab(record, handicap)
        with tabs[3]:
            headers_tab(info)
            downloads(game)


def main() -> None:
    require_store()
    chosen = filters.game_filter()
    raw = st.query_params.get("game")
    game = None if raw is None else whole_number(raw, 1, MAX_GAME)
    if raw is None:  # nothing asked for: the newest game
        latest = latest_games(limit=1, filters=chosen)
        game = latest[0]["game"] if latest else None
    game_input(game)
    if game is None:
        st.title("棋譜 Game viewer")
        if raw is not None:  # 1.5, -1, abc: not read as 1
            st.error(display.plain(f"Not a game id: {display.shortened(raw)!r} (a game id is a "
                                   f"whole number from 1)."), icon=":material/block:")
            st.subheader("Latest games")
            pick_game(raw, chosen)
        else:
            st.info("The store holds no game yet.", icon=":material/description:")
        return
    record = game_record(game)
    if record is None:
        st.title("棋譜 Game viewer")
        st.error(f"No game {game} in the store.", icon=":material/block:")
        st.subheader("Latest games")
        pick_game(game, chosen)
        return

    headline(record["info"])
    ply_view(game, record)
    with st.expander("Latest games of the store"
                     + (f" · {filters.describe(chosen)}" if chosen else "")):
        pick_game(game, chosen)


if __name__ == "__main__":
    main()
