"""パターン検索 — pattern search: the games whose main line reached a position of a pattern
(``core.pattern``: pieces on squares, empty squares, pieces in hand, material), the first ply
where it held, and what was played next from there (``analytics.pattern.find_pattern``).

The pattern is put on a board square by square — a brush (a side and a piece, any piece of
the side, an empty square, "not", the eraser) and a click on a square — with the pieces in
hand and the material beside it; or typed as text (the command line's conditions, or a whole
``kifudb pattern …`` line pasted), and both say the same pattern. The page shows the
equivalent command line to copy.

The URL holds the pattern and its options under the HTTP API's names (``?q=▲玉88+▲金78&turn=
black&max_ply=60&mirror=true&either_side=true``) and the sidebar's filters: each change is one
browser history entry (Back and Forward step through the edits), and a link or a reload opens
the same search. A click on a match opens the game at the ply where the pattern first held.
"""

from __future__ import annotations

import math

import polars as pl
import streamlit as st

from kifudb.analytics.pattern import PatternSearch, find_pattern
from kifudb.analytics.results import Results
from kifudb.core.pattern import PatternError, parse_pattern
from kifudb.core.pieces import RANK_KANJI, FILE_DIGITS_FULL, SIDE_MARKS
from kifudb.dashboard import display, filters, nav
from kifudb.dashboard import pattern_form as form
from kifudb.dashboard.games_table import games_table
from kifudb.dashboard.state import require_store, store_root, stored

PAGE_SIZES = (25, 50, 100, 200)
#: Session keys: the text box, the URL's ``q`` it was last set from, a problem to show.
TEXT, SEEN, PROBLEM = "pattern-text", "pattern-seen", "pattern-problem"
#: Session keys of the brush.
SIDE, PIECE, NEGATED = "pattern-brush-side", "pattern-brush-piece", "pattern-brush-not"
#: Session keys of the options.
TURN, MIN_PLY, MAX_PLY, MIRROR, EITHER = ("pattern-turn", "pattern-min-ply", "pattern-max-ply",
                                          "pattern-mirror", "pattern-either-side")
EXAMPLES = {"矢倉囲い ▲玉88 ▲金78 ▲金67 ▲銀77": "▲玉88 ▲金78 ▲金67 ▲銀77",
            "角交換 ▲持角 △持角": "▲持角 △持角",
            "美濃囲い ▲玉28 ▲銀38 ▲金49": "▲玉28 ▲銀38 ▲金49",
            "振り飛車 ▲飛5*/6*/7*/8*": "▲飛5*/6*/7*/8* ▲玉2*/3*"}
_TURNS = {"black": "▲ to move", "white": "△ to move"}
_BRUSH_NAMES = {form.ANY: "＊ any", form.EMPTY: "・ empty", form.ERASE: "⌫ erase"}

#: The board's squares and labels (a grid of buttons) and the brush, as compact as a board.
CSS = """
.st-key-pattern-grid { gap: 0 !important; }
.st-key-pattern-grid [class*="st-key-pattern-rank-"] { gap: 0 !important; flex-wrap: nowrap; }
.st-key-pattern-grid button {
  width: 2.6rem; min-width: 2.6rem; height: 2.6rem; min-height: 2.6rem; padding: 0;
  border-radius: 0; border: 1px solid #8a6d3b; background: #f3d9a4; color: #1b1b1b;
  margin: -0.5px;
}
.st-key-pattern-grid button p { font-size: 0.78rem; line-height: 1; white-space: nowrap; }
.st-key-pattern-grid button[kind="primary"] { background: #ffe9b0; font-weight: 700; }
.st-key-pattern-grid button[kind="primary"] p { font-weight: 700; color: #7a1010; }
.st-key-pattern-grid button:hover { background: #ffd57a; }
.st-key-pattern-brush-piece [role="radiogroup"] { flex-wrap: wrap; }
.kifudb-pattern-files, .kifudb-pattern-rank {
  font-size: 0.8rem; color: rgba(49, 51, 63, 0.7); text-align: center;
}
.kifudb-pattern-files { display: flex; height: 1.3rem; margin-bottom: 1rem; }
.kifudb-pattern-files span { width: 2.6rem; display: inline-block; }
.kifudb-pattern-rank { width: 1.4rem; padding-left: 0.3rem; }
"""


def _found(store, conditions: str, turn, min_ply, max_ply, mirror: bool, either_side: bool,
           chosen, limit: int, offset: int) -> dict:
    """``find_pattern`` of the search given as plain values (for the cache)."""
    search = PatternSearch.of(conditions, turn=turn, min_ply=min_ply, max_ply=max_ply,
                              mirror=mirror, either_side=either_side)
    return find_pattern(store, search, filters=chosen, limit=limit, offset=offset)


found_pattern = stored(_found)


# ----- the state: the URL -------------------------------------------------------------------------


def page_params() -> dict:
    """The pattern's parameters of the URL (text)."""
    return {name: st.query_params[name] for name in form.PARAMS if name in st.query_params}


def canonical(conditions) -> list:
    """The conditions (text or a list) as ``core.pattern`` writes them, each once;
    ``PatternError`` naming a condition that cannot be read or that contradicts another."""
    return list(dict.fromkeys(str(parse_pattern(conditions)).split()))


def current() -> tuple:
    """``(conditions, options)`` of the URL, the defaults where it says something wrong (the
    page says what, ``main``)."""
    params = page_params()
    try:
        words = canonical(params["q"]) if params.get("q") else []
    except PatternError:
        words = []
    try:
        options = form.options_from_url(params)
    except ValueError:
        options = form.options_from_url({})
    return words, options


def go(words, options: dict) -> bool:
    """Show the pattern of ``words`` with ``options``: one change of the URL (one history
    entry). A pattern that cannot be (a contradiction) is said, and nothing changes."""
    try:
        words = canonical(words) if words else []
    except PatternError as error:
        st.session_state[PROBLEM] = (str(error), None)
        return False
    nav.set_url(form.url_params(words, options))
    st.session_state.pop(SEEN, None)  # the text box follows the URL, written as it writes it
    return True


def follow_url() -> None:
    """Start the text box from the URL when the URL says another pattern than it was set from
    (a link, a reload, Back, Forward, an edit on the board), and the brush on its first run."""
    q = st.query_params.get("q", "")
    if st.session_state.get(SEEN) != q:
        st.session_state[TEXT] = q
        st.session_state[SEEN] = q
    st.session_state.setdefault(SIDE, SIDE_MARKS[0])
    st.session_state.setdefault(PIECE, "金")


# ----- the edits (callbacks) ----------------------------------------------------------------------


def painted(square: int) -> None:
    words, options = current()
    piece = st.session_state.get(PIECE)
    if piece is None:
        st.session_state[PROBLEM] = ("Choose a brush (a piece, ＊ any, ・ empty or ⌫ erase) "
                                     "before a square.", None)
        return
    condition = form.brush_condition(st.session_state.get(SIDE) or SIDE_MARKS[0], piece,
                                     bool(st.session_state.get(NEGATED)), square)
    go(form.paint(words, square, condition), options)


def hand_changed(colour: int, kind: str) -> None:
    words, options = current()
    n = st.session_state.get(f"pattern-hand-{colour}-{kind}") or 0
    go(form.set_hand(words, colour, kind, int(n)), options)


def empty_hand_changed(colour: int) -> None:
    words, options = current()
    go(form.set_empty_hand(words, colour, bool(st.session_state.get(f"pattern-empty-{colour}"))),
       options)


def material_added() -> None:
    words, options = current()
    text = form.material(st.session_state["pattern-material-side"],
                         st.session_state["pattern-material-kind"],
                         st.session_state["pattern-material-op"],
                         int(st.session_state["pattern-material-n"] or 0))
    go([*words, text], options)


def removed(text: str) -> None:
    words, options = current()
    go([w for w in words if w != text], options)


def cleared() -> None:
    go([], current()[1])


def options_changed() -> None:
    words, _ = current()
    go(words, {"turn": st.session_state.get(TURN), "min_ply": _ply(MIN_PLY),
               "max_ply": _ply(MAX_PLY), "mirror": bool(st.session_state.get(MIRROR)),
               "either_side": bool(st.session_state.get(EITHER))})


def _ply(key: str):
    value = st.session_state.get(key)
    return None if value is None else int(value)


def typed() -> None:
    """The text box: conditions, or a ``kifudb pattern …`` line pasted (its options and
    filters then replace the page's)."""
    text = st.session_state.get(TEXT) or ""
    names = tuple(p.name for p in filters.PARAMS)
    try:
        conditions, options, chosen, left_out = form.read_command(text, filter_names=names)
        words = canonical(conditions) if conditions.strip() else []
    except ValueError as error:  # PatternError is one
        st.session_state[PROBLEM] = (str(error), text)
        return
    command = text.split()[:1] in (["kifudb"], ["pattern"]) or any(
        w.startswith("--") for w in text.split())
    if not command:
        go(words, current()[1])
        return
    options = {"turn": None, "min_ply": None, "max_ply": None, "mirror": False,
               "either_side": False, **options}
    params = form.url_params(words, options)
    st.query_params.from_dict({**params, **chosen})  # the command's filters, none other
    st.session_state.pop(SEEN, None)
    if left_out:
        st.session_state[PROBLEM] = (f"Left out (the page answers its own way): "
                                     f"{', '.join(left_out)}.", "info")


# ----- the page -----------------------------------------------------------------------------------


def brush() -> None:
    """The brush: the side, the piece (or any, empty, the eraser) and "not"."""
    with st.container(horizontal=True, vertical_alignment="bottom", gap="small"):
        st.segmented_control("Side", SIDE_MARKS, key=SIDE, required=True,
                             help="▲ Black (先手/下手), △ White (後手/上手).")
        st.toggle("not (!)", key=NEGATED,
                  help="The square must not hold it: !▲銀77 — no Black silver on 7g; !・55 — "
                       "5e is not empty.")
    st.pills("Brush", form.BRUSHES, key=PIECE, format_func=lambda p: _BRUSH_NAMES.get(p, p),
             help="Click a square to put the brush's condition there (a click with the same "
                  "brush takes it off). ＊: any piece of the side; ・: an empty square.")


def grid(shown: form.Layout) -> None:
    """The 9×9 board of buttons, file 9 on the left and rank 1 at the top, each showing its
    square's condition; a click paints the brush there."""
    with st.container(key="pattern-grid", gap=None):
        files = "".join(f"<span>{FILE_DIGITS_FULL[f]}</span>" for f in range(9, 0, -1))
        st.markdown(f'<div class="kifudb-pattern-files">{files}</div>',
                    unsafe_allow_html=True)
        for rank in range(1, 10):
            with st.container(horizontal=True, gap=None, key=f"pattern-rank-{rank}",
                              vertical_alignment="center"):
                for file in range(9, 0, -1):
                    square = form.square_of(file, rank)
                    texts = shown.squares.get(square, ())
                    label = " ".join(form.square_label(t) for t in texts)
                    st.button(display.plain(label) if label else "\u3000",
                              key=f"pattern-sq-{file}{rank}", on_click=painted,
                              args=(square,), type="primary" if texts else "secondary",
                              help=display.plain(" ".join(texts)) if texts else
                              f"{FILE_DIGITS_FULL[file]}{RANK_KANJI[rank]}")
                st.markdown(f'<div class="kifudb-pattern-rank">{RANK_KANJI[rank]}</div>',
                            unsafe_allow_html=True, width="content")
    st.caption("Choose a brush, then click squares. The board says what each square must "
               "(or, with !, must not) hold.")


def hands(shown: form.Layout) -> None:
    """Each side's pieces in hand (at least this many of a kind), and an empty hand."""
    for colour, mark in enumerate(SIDE_MARKS):
        st.markdown(f"**{mark} holds at least** (0: anything)")
        with st.container(horizontal=True, gap="small", vertical_alignment="bottom"):
            for kind in form.HAND_KINDS:
                key = f"pattern-hand-{colour}-{kind}"
                st.session_state[key] = shown.hands.get((colour, form.KANJI_TYPES[kind]), 0)
                st.number_input(kind, min_value=0, max_value=18, step=1, key=key, width=62,
                                on_change=hand_changed, args=(colour, kind))
            key = f"pattern-empty-{colour}"
            st.session_state[key] = colour in shown.empty_hands
            st.checkbox("持なし", key=key, on_change=empty_hand_changed, args=(colour,),
                        help=f"{mark}'s hand is empty ({mark}持なし).")


def material_form() -> None:
    """A material condition to add: a side has (=, ≥, ≤, >, <) N of a kind on the board and in
    hand together, promoted or not."""
    st.markdown("**Material** (on the board and in hand together)")
    with st.container(horizontal=True, gap="small", vertical_alignment="bottom"):
        st.selectbox("Side", SIDE_MARKS, key="pattern-material-side", width=72)
        st.selectbox("Piece", form.MATERIAL_KINDS, key="pattern-material-kind", width=80)
        st.selectbox("Compared", form.COMPARISONS, key="pattern-material-op", width=90)
        st.number_input("Count", min_value=0, max_value=18, value=2, step=1,
                        key="pattern-material-n", width=96)
        st.button("Add", key="pattern-material-add", on_click=material_added,
                  icon=":material/add:")


def others(shown: form.Layout) -> None:
    """The conditions the board and the widgets do not show, each with a button that takes it
    off."""
    if not shown.others:
        return
    st.markdown("**Other conditions** (edit them in the text)")
    with st.container(horizontal=True, gap="small"):
        for text in shown.others:
            st.button(display.plain(text), key=f"pattern-remove-{text}", on_click=removed,
                      args=(text,), icon=":material/close:", type="tertiary",
                      help="Take this condition off")


def options_row(options: dict) -> None:
    """The side to move, the plies, the mirror image and the other side."""
    st.session_state[TURN] = options["turn"]
    st.session_state[MIN_PLY] = options["min_ply"]
    st.session_state[MAX_PLY] = options["max_ply"]
    st.session_state[MIRROR] = options["mirror"]
    st.session_state[EITHER] = options["either_side"]
    with st.container(horizontal=True, gap="small", vertical_alignment="bottom"):
        st.segmented_control("Side to move", list(_TURNS), key=TURN, format_func=_TURNS.get,
                             on_change=options_changed,
                             help="Only positions with this side to move (none chosen: "
                                  "either).")
        st.number_input("From ply", min_value=0, max_value=form.MAX_PLY, value=None, step=1,
                        key=MIN_PLY, on_change=options_changed, width=120,
                        placeholder="start", help="0: the start position")
        st.number_input("To ply", min_value=0, max_value=form.MAX_PLY, value=None, step=1,
                        key=MAX_PLY, on_change=options_changed, width=120, placeholder="end",
                        help="Up to this ply (included)")
    with st.container(horizontal=True, gap="medium"):
        st.toggle("Also the mirror image (left ↔ right)", key=MIRROR,
                  on_change=options_changed)
        st.toggle("Also for the other side (▲ ↔ △)", key=EITHER, on_change=options_changed,
                  help="The pattern given to the other side: colours exchanged, the board "
                       "turned half a turn (and the side to move with it).")


def text_box() -> None:
    st.text_input("Pattern", key=TEXT, on_change=typed,
                  placeholder="▲玉88 ▲金78 ▲銀77 ・55 !△角22 ▲持角 △持なし ▲飛=2",
                  help="Conditions separated by spaces, as `kifudb pattern` takes them: ▲金58 "
                       "(a gold on 5h), △飛2* (a rook on file 2), ▲玉28/39 (either square), "
                       "▲金/銀67 (either piece), ▲*77 (any piece), ・55 (empty), !▲銀77 (not), "
                       "▲持角 / ▲持歩3 (in hand), △持なし (an empty hand), ▲飛=2 (material; "
                       ">= <= > < too). A whole `kifudb pattern …` line pasted here sets the "
                       "options and the filters too. Press Enter to apply.")


def show_problem() -> None:
    """The problem an edit left (a bad text while it is still in the box, else once)."""
    problem = st.session_state.get(PROBLEM)
    if not problem:
        return
    text, about = problem
    if about == "info":
        st.info(display.message(text), icon=":material/info:")
        st.session_state.pop(PROBLEM)
    elif about is None or about == st.session_state.get(TEXT):
        st.error(display.message(text), icon=":material/warning:")
        if about is None:
            st.session_state.pop(PROBLEM)
    else:
        st.session_state.pop(PROBLEM)


def examples() -> None:
    st.caption("Or try one of these:")
    with st.container(horizontal=True):
        for label, q in EXAMPLES.items():
            st.page_link(nav.PATTERN.path, label=label, query_params=nav.with_filters({"q": q}),
                         icon=":material/grid_on:")


def next_moves_table(moves: list) -> None:
    """What was played at each game's first matching ply: the move, its games and their
    results."""
    if not moves:
        st.caption("No move was played after the matching positions (the games end there).")
        return
    rows = []
    for m in moves:
        played = Results(m["black_wins"], m["white_wins"], m["draws"], m["other"])
        rows.append({"move": form.move_label(m["usi"]), "usi": m["usi"], "games": m["games"],
                     "results": display.result_bar_image(m["black_wins"], m["draws"],
                                                         m["white_wins"], m["other"]),
                     "score": display.score_text(played.score(), m.get("ci_low"),
                                                 m.get("ci_high")),
                     "decided": played.decided})
    st.dataframe(pl.from_dicts(rows), key="pattern-next", hide_index=True, width="stretch",
                 height=min(38 + 35 * len(rows), 400), column_config={
                     "move": st.column_config.TextColumn("Move", width=90,
                                                         help="The square reached (from)"),
                     "usi": st.column_config.TextColumn("USI", width=64),
                     "games": st.column_config.NumberColumn("Games", format="%d", width=60),
                     "results": st.column_config.ImageColumn(
                         "▲勝 · 分 · △勝", width=display.RESULT_BAR_WIDTH,
                         help="▲ wins, draws, △ wins and games without a result"),
                     "score": st.column_config.TextColumn(
                         "▲ score", width=140,
                         help="▲'s score over the decided games (a draw counts half), with its "
                              "95% interval"),
                     "decided": st.column_config.NumberColumn("Decided", format="%d",
                                                              width=64)})
    st.caption("Played next: the move each game played at the first ply where the pattern "
               "held, in its own orientation (a mirrored or exchanged match plays its own).")


def results(search: PatternSearch, chosen) -> None:
    """The count, a page of the matches (a click opens the game at that ply) and the moves
    played next."""
    size = st.session_state.get("pattern-size", PAGE_SIZES[1])
    arguments = (str(search.pattern), search.turn, search.min_ply, search.max_ply,
                 search.mirror, search.either_side, chosen)
    first = found_pattern(*arguments, size, 0)
    total = first["games"]
    if not total:
        st.info("No game reached this pattern" + (f" ({filters.describe(chosen)})." if chosen
                                                    else "."), icon=":material/search_off:")
        return
    st.subheader(f"{total:,} {'game' if total == 1 else 'games'} reached it"
                 + (f" · {filters.describe(chosen)}" if chosen else ""))
    pages = max(1, math.ceil(total / size))
    page = st.pagination(pages, key=f"pattern-page-{search.text()}-{size}-{total}",
                         max_visible_pages=7)
    page = min(max(1, page), pages)
    found = first if page == 1 else found_pattern(*arguments, size, (page - 1) * size)
    matches = found["matches"]
    start = (page - 1) * size + 1
    st.caption(f"Games {start:,}–{start + len(matches) - 1:,} of {total:,}, newest first; ply: "
               f"where the pattern first held, plies: at how many plies it held")
    games_table(matches, key=f"pattern-matches-{page}", extra=("plies",),
                height=min(38 + 35 * len(matches), 740))
    st.selectbox("Rows per page", PAGE_SIZES, index=1, key="pattern-size", width=160)
    st.subheader("Played next")
    next_moves_table(found["next_moves"])


def main() -> None:
    require_store()
    st.title("パターン検索 Pattern search")
    chosen = filters.game_filter()
    st.markdown(f"<style>{CSS}</style>", unsafe_allow_html=True)
    follow_url()
    words, options = current()
    shown = form.layout(words)
    text_box()
    show_problem()
    left, right = st.columns([5, 7], gap="medium")
    with left:
        brush()
        grid(shown)
    with right:
        options_row(options)
        hands(shown)
        material_form()
        others(shown)
        st.button("Clear the pattern", key="pattern-clear", on_click=cleared,
                  icon=":material/delete:", disabled=not words)
    params = page_params()
    try:
        form.options_from_url(params)
        search = PatternSearch.of(params["q"], **options) if params.get("q") else None
    except ValueError as error:  # a link's bad condition or option (PatternError is one)
        st.error(f"This pattern cannot be searched: {display.message(error)}",
                 icon=":material/warning:")
        return
    if search is None:
        st.info("Put conditions on the board (a brush, then squares), in hand or on the "
                "material, or type them above, to list every game that reached such a "
                "position.", icon=":material/grid_on:")
        examples()
        return
    st.caption("The same search on the command line:")
    st.code(form.command_line(search, filters.url_params(), str(store_root())),
            language="bash", wrap_lines=True)
    results(search, chosen)


if __name__ == "__main__":
    main()
