"""検証 — validation: every finding of the ingest by code and by file, filterable by severity,
code and path; each finding with its move text, message, and the board of the position where
the problem occurs (before the bad move), one click from the game viewer.

The URL holds the filters: ``severity``, ``code``, ``path``. A finding's message, move text
and file name come from the record: they are shown as text (``display.plain``, table cells).
"""

from __future__ import annotations

import os

import polars as pl
import streamlit as st

from kifudb.analytics import stats
from kifudb.core.position import Position
from kifudb.dashboard import board, nav
from kifudb.dashboard.tables import CLICK, picked, picked_in, select_row
from kifudb.dashboard.display import message, plain
from kifudb.dashboard.state import require_store, stored

finding_counts = stored(stats.finding_counts)
findings = stored(stats.findings)

PAGE = 50
SEVERITIES = {"error": "✖ error", "warning": "⚠ warning", "info": "ℹ info"}


def common_folder(paths: list) -> str:
    """The folder all ``paths`` are in ("" if none is shared)."""
    try:
        folder = os.path.commonpath(paths)
    except ValueError:
        return ""
    return os.path.dirname(folder) if folder in paths else folder


def first_page() -> None:
    st.session_state["v-page"] = 1


def counts_tables(severity: str | None) -> None:
    """Findings by code and by file; a click filters the list on that code or file."""
    left, right = st.columns(2, gap="large")
    with left:
        st.subheader("By code")
        by_code = finding_counts(by="code", severity=severity)
        show_counts(by_code, "code", "counts-code")
    with right:
        st.subheader("By file")
        by_path = finding_counts(by="path", severity=severity)
        show_counts(by_path, "path", "counts-path")


def show_counts(rows: list, column: str, key: str) -> None:
    if not rows:
        st.caption("No finding.")
        return
    base = common_folder([r[column] for r in rows]) if column == "path" else ""
    if base:
        st.caption(f"Files under {plain(base)}")
    frame = pl.from_dicts([{column: r[column][len(base):].lstrip("/") if base else r[column],
                            "severity": SEVERITIES.get(r["severity"], r["severity"]),
                            "count": r["count"]} for r in rows], infer_schema_length=None)

    def narrow():
        row = picked_in(key)
        if row is not None and row < len(rows):
            st.session_state[f"v-{column}"] = rows[row][column]
            st.session_state["v-page"] = 1

    st.dataframe(frame, key=key, hide_index=True, on_select=narrow, selection_mode=CLICK,
                 width="stretch", height=min(38 + 35 * len(rows), 320),
                 column_order=["count", "severity", column],
                 column_config={"count": st.column_config.NumberColumn("findings", width=70),
                                "severity": st.column_config.TextColumn(width=90),
                                column: st.column_config.TextColumn(width=280)})


def finding_detail(finding: dict) -> None:
    """The finding's position (before the move it is about), its move and message."""
    left, right = st.columns([5, 7], gap="medium")
    game, ply = finding["game"], finding["ply"]
    with right:
        severity = SEVERITIES.get(finding["severity"], finding["severity"])
        st.markdown(f"**{plain(severity)} · {plain(finding['code'])}**")
        st.markdown(plain(finding["message"] or "", lines=True))
        if finding["text"]:
            st.markdown(f"Move as written: **{plain(finding['text'])}**")
        where = finding["path"] + (f", line {finding['line']}" if finding["line"] else "")
        if finding["index"] is not None:
            where += f", game {finding['index'] + 1} of the file"
        st.caption(plain(where))
        if game is not None:
            nav.game_link(game, max(0, (ply or 1) - 1),
                          f"Open game {game}" + (f" before move {ply}" if ply else ""))
    with left:
        if game is None:
            st.info("The finding is about the file: no game was read from it.",
                    icon=":material/draft:")
            return
        before = max(0, (ply or 1) - 1)
        try:
            at = board.game_position(game, before)
        except ValueError:
            try:  # the replay stopped earlier: show where it stopped
                at = board.game_position(game, 0)
                before = 0
            except ValueError as error:
                st.warning(message(error))
                return
        caption = (f"Game {game} before move {ply} ({finding['text'] or '?'})" if ply
                   else f"Game {game}, start position (the finding is about the record)")
        board.show_board(Position.from_sfen(at["sfen"]), last_move=at["last_move"] or False,
                         size=400, sfen=False, caption=caption)


def main() -> None:
    require_store()
    st.title("検証 Validation")
    st.caption("What the readers and the rules found in the ingested records.")
    cells = st.columns([3, 3, 3], vertical_alignment="bottom")
    nav.from_url("severity", SEVERITIES)
    severity = cells[0].segmented_control("Severity", list(SEVERITIES),
                                          format_func=SEVERITIES.get, key="severity",
                                          on_change=first_page)
    nav.to_url("severity", severity)
    codes = sorted({r["code"] for r in finding_counts(by="code")})
    if st.session_state.get("v-code") not in (None, *codes):
        st.session_state["v-code"] = None
    code = cells[1].selectbox("Code", codes, index=None, key="v-code", placeholder="any code",
                            on_change=first_page)
    path = cells[2].text_input("File path contains", key="v-path", placeholder="kifu-for-js",
                            on_change=first_page)

    counts_tables(severity)

    page = st.session_state.setdefault("v-page", 1)
    rows = findings(code=code, severity=severity, path=path.strip() or None, limit=PAGE + 1,
                    offset=(page - 1) * PAGE)
    more, rows = len(rows) > PAGE, rows[:PAGE]
    st.subheader("Findings")
    if not rows:
        st.info("No finding with these filters." if (code or severity or path)
                else "No finding: every record read cleanly.", icon=":material/task_alt:")
        return
    frame = pl.from_dicts([{"severity": SEVERITIES.get(r["severity"], r["severity"]),
                            "code": r["code"], "game": r["game"], "ply": r["ply"],
                            "text": r["text"], "message": r["message"],
                            "file": r["path"].rsplit("/", 1)[-1], "line": r["line"]}
                           for r in rows], infer_schema_length=None)
    key = f"findings-{severity}-{code}-{path}-{page}"
    shown = st.dataframe(frame, key=key, hide_index=True, on_select="rerun",
                          selection_mode=CLICK, width="stretch", placeholder="—",
                          selection_default=select_row(_first_on_board(rows), "code"),
                          height=min(38 + 35 * len(rows), 460),
                          column_config={
                              "severity": st.column_config.TextColumn(width=90),
                              "code": st.column_config.TextColumn(width=150),
                              "game": st.column_config.NumberColumn(format="%d", width=56),
                              "ply": st.column_config.NumberColumn(width=44),
                              "text": st.column_config.TextColumn("move", width=110),
                              "message": st.column_config.TextColumn("message", width=340),
                              "file": st.column_config.TextColumn(width=140),
                              "line": st.column_config.NumberColumn(width=50)})
    pager = st.container(horizontal=True, vertical_alignment="center")
    if pager.button("Previous", icon=":material/chevron_left:", disabled=page == 1,
                       key="v-previous"):
        st.session_state["v-page"] = page - 1
        st.rerun()
    if pager.button("Next", icon=":material/chevron_right:", disabled=not more,
                       key="v-next"):
        st.session_state["v-page"] = page + 1
        st.rerun()
    pager.caption(f"Findings {(page - 1) * PAGE + 1}–{(page - 1) * PAGE + len(rows)}"
                     + (", more on the next page" if more else "")
                     + ". Click a finding for its position.")
    chosen = picked(shown.selection)
    finding_detail(rows[chosen if chosen is not None and chosen < len(rows)
                        else _first_on_board(rows)])


def _first_on_board(rows: list) -> int:
    """The first finding of a game at a ply (the most telling board), else the first."""
    return next((i for i, r in enumerate(rows) if r["game"] is not None and r["ply"]), 0)


if __name__ == "__main__":
    main()
