"""How the dashboard writes shogi things: results, reasons, moves, scores and the
先手/引き分け/後手 result bar; and ``plain``, through which every text that comes from a record
(players, events, comments, file names, findings, labels) or from a user (a URL, a form) goes
before Streamlit reads it as Markdown (titles, captions, messages, metric and button labels).

    >>> result_text("black", "resign")
    '▲先手勝ち · 投了'
    >>> result_text("none", "abort")
    '中断'
    >>> result_text("white", "resign", handicap=True), side_name("black", is_handicap("香落ち"))
    ('△上手勝ち · 投了', '▲下手')
    >>> percent(1, 3), percent(1, 1), score_text(0.5432, 0.51, 0.573)
    ('33.3%', '100.0%', '54.3% (51.0–57.3)')
    >>> move_text("startpos", "7g7f")
    '▲７六歩'
    >>> print(plain("![x](evil.png) <b>"))
    \\!\\[x\\]\\(evil\\.png\\) &lt;b&gt;
"""

from __future__ import annotations

import base64
import re
from html import escape

from kifudb.analytics import stats
from kifudb.core.handicap import EVEN, canonical_name, handicap_name
from kifudb.core.move import Move
from kifudb.core.notation import ki2_move
from kifudb.core.pieces import COLOUR_NAMES, SIDE_KANJI, SIDE_MARKS
from kifudb.core.position import Position

#: Colours of the result bar and the charts: 先手 (Black) dark, draws grey, 後手 (White) light;
#: games without a result pale blue (hatched in the bar), never a shade of the draws' grey.
BLACK_COLOUR, DRAW_COLOUR, WHITE_COLOUR, OTHER_COLOUR = "#2b2b2b", "#9e9e9e", "#f3ead7", "#c9d5e2"
_NO_RESULT_FILL = f"repeating-linear-gradient(135deg,{OTHER_COLOUR} 0 5px,#e6edf4 5px 10px)"

#: ``_SIDES[handicap][side]``: ``▲先手``/``△後手``, or ``▲下手``/``△上手`` in a handicap game (the
#: weaker player, 下手, plays Black; the stronger, 上手, gives the handicap and moves first).
_SIDES = tuple({name: SIDE_MARKS[colour] + names[colour] for colour, name in enumerate(COLOUR_NAMES)}
               for names in SIDE_KANJI)
SIDES, HANDICAP_SIDES = _SIDES
WINNERS = {**{side: said + "勝ち" for side, said in SIDES.items()}, "draw": "引き分け", "none": "—"}
HANDICAP_WINNERS = {side: said + "勝ち" for side, said in HANDICAP_SIDES.items()}

#: The reasons of ``ingest.result``, in Japanese as a record says them.
REASONS = {
    "checkmate": "詰み", "resign": "投了", "time": "切れ負け", "illegal_move": "反則",
    "sennichite": "千日手", "perpetual_check": "連続王手の千日手", "jishogi": "持将棋",
    "declaration": "入玉宣言", "abort": "中断", "sealed": "封じ手", "max_moves": "最大手数",
    "unknown": "不明",
}


#: ASCII punctuation (CommonMark lets a backslash escape each one) and the HTML specials.
_SPECIAL = re.compile(r"[!-/:-@\[-`{-~]")
_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
#: Where Streamlit would make a link of plain text (GFM's autolinks: ``http://…``,
#: ``www.…``, ``name@host.…``, found in the text after escapes are read): an invisible word
#: joiner goes there, so that no address becomes a link.
_AUTOLINK = re.compile(r"(?i)(?<=https)(?=:)|(?<=http)(?=:)|(?<=www)(?=\.)|(?<=@)")
JOINER = "\u2060"
#: The longest message shown from an error (its first part: the rest is noise).
MESSAGE_CHARS = 600


def plain(text, lines: bool = False) -> str:
    """``text`` as Markdown that shows exactly that text: every ASCII punctuation mark escaped
    with a backslash (no image, link, emphasis, heading, list, table, ``$`` formula,
    ``:material/…:`` icon or ``:red[…]`` colour can start), ``<``, ``>`` and ``&`` as HTML
    entities (no HTML), controls dropped, and an invisible word joiner (``JOINER``) after
    ``http``, ``https``, ``www`` and ``@`` (Streamlit links bare addresses in text). Newlines
    become spaces, or line breaks with ``lines`` (a comment). For ``st.markdown``, captions,
    titles, headers, messages, metric, button and expander labels — not for ``st.text``,
    ``st.code`` or table cells, which show text as it is.

    >>> print(plain("**bold** $x$ :red[y]"))
    \\*\\*bold\\*\\* \\$x\\$ \\:red\\[y\\]
    >>> plain("one\\ntwo", lines=True)
    'one  \\ntwo'
    >>> print(plain("http://x.org www.x.org").replace(JOINER, "⁀"))
    http⁀\\:\\/\\/x\\.org www⁀\\.x\\.org
    """
    text = (text if isinstance(text, str) else str(text)).replace("\r\n", "\n")
    text = _AUTOLINK.sub(JOINER, _CONTROLS.sub("", text.replace("\r", "\n")))
    text = _SPECIAL.sub(lambda m: _ENTITIES.get(m.group(), "\\" + m.group()), text)
    return text.replace("\n", "  \n") if lines else " ".join(text.split("\n"))


def shortened(text, chars: int = 32) -> str:
    """``text`` cut to ``chars`` characters and ``…`` (a value of a URL or a record quoted in a
    message).

    >>> shortened("x" * 40, 4), shortened(12)
    ('xxxx…', '12')
    """
    text = str(text)
    return text if len(text) <= chars else text[:chars] + "…"


def message(error) -> str:
    """An error's message for ``st.error``/``st.warning``: ``plain``, and cut short (a user's
    text quoted in it may be long)."""
    return plain(shortened(error, MESSAGE_CHARS))


KINDS = {"castle": "囲い castles", "opening": "戦型 openings", "technique": "手筋 techniques",
         "note": "備考 notes"}


def label_text(label: str | None) -> str:
    """``美濃囲い · Mino castle`` (the label alone when it has no English name)."""
    if not label:
        return "—"
    english = stats.label_names().get(label)
    return f"{label} · {english}" if english else label


def line_labels(start_sfen: str, moves: list, handicap: bool = False) -> str:
    """The opening and castle each side has reached along a line (``labels.classify``: each
    side's main one, else the last reached), as the explorer names it above its moves, the
    way lichess names the opening; empty when none is reached yet.

    >>> line_labels("startpos", "7g7f 3c3d 2h6h 8c8d".split())
    '▲先手 四間飛車 · Fourth-file rook  —  △後手 居飛車 · Static rook'
    >>> line_labels("startpos", [])
    ''
    """
    from kifudb.labels.classify import classify_game

    reached = classify_game(start_sfen, moves)
    parts = []
    for side, labels in (("black", reached.black), ("white", reached.white)):
        names = [name for name in (
            labels.primary_opening or (labels.openings[-1].name if labels.openings else None),
            labels.primary_castle or (labels.castles[-1].name if labels.castles else None))
            if name]
        if names:
            parts.append(f"{side_name(side, handicap)} " + " · ".join(
                label_text(name) for name in names))
    return "  —  ".join(parts)


def reason_text(reason: str | None) -> str:
    """``投了 (resign)``: the reason in Japanese and as the store names it."""
    if not reason:
        return "—"
    return f"{REASONS.get(reason, reason)} ({reason})"


def is_handicap(handicap: str | None = None, start_sfen: str | None = None) -> bool:
    """Whether a game is a handicap game (its sides are 下手 and 上手): its start position is a
    handicap's (``core.handicap``), else its header names one (``香落ち``, ``KY``…; not 平手).

    >>> is_handicap(start_sfen="lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1")
    True
    >>> is_handicap("平手"), is_handicap("KY"), is_handicap(None), is_handicap("その他")
    (False, True, False, False)
    """
    if start_sfen:
        name = handicap_name(start_sfen)
        if name is not None:
            return name != EVEN
    if handicap:
        try:
            return canonical_name(handicap) != EVEN
        except KeyError:
            return False
    return False


def side_name(side: str, handicap: bool = False) -> str:
    """``▲先手``/``△後手``, or ``▲下手``/``△上手`` in a handicap game."""
    return (HANDICAP_SIDES if handicap else SIDES)[side]


def result_text(winner: str | None, reason: str | None, handicap: bool = False) -> str:
    """What a game's result reads as: ``▲先手勝ち · 投了``, ``引き分け · 千日手``, ``中断``; in a
    handicap game ``△上手勝ち · 投了``."""
    how = REASONS.get(reason or "unknown", reason)
    if winner in ("black", "white", "draw"):
        said = HANDICAP_WINNERS.get(winner, WINNERS[winner]) if handicap else WINNERS[winner]
        return said + ("" if reason in (None, "unknown") else f" · {how}")
    return "—" if reason in (None, "unknown") else how


def count(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` and ``noun`` in the singular or the plural (never "1 moves", "game(s)").

    >>> count(1, "move"), count(2, "game"), count(1234, "occurrence"), count(0, "match", "matches")
    ('1 move', '2 games', '1,234 occurrences', '0 matches')
    """
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"


def percent(part: float, whole: float, digits: int = 1) -> str:
    """``part`` of ``whole`` as a percentage, one decimal (``—`` for an empty whole)."""
    return f"{100 * part / whole:.{digits}f}%" if whole else "—"


def score_text(score: float | None, low: float | None = None, high: float | None = None) -> str:
    """A score (0…1) as a percentage, with its confidence interval when given."""
    if score is None:
        return "—"
    text = f"{100 * score:.1f}%"
    if low is not None and high is not None:
        text += f" ({100 * low:.1f}–{100 * high:.1f})"
    return text


def move_text(position: Position | str, usi: str) -> str:
    """A move in KI2 with its ▲/△ mark as played in ``position`` (an SFEN works), or the USI
    text when it is not legal there."""
    if isinstance(position, str):
        position = Position.from_sfen(position)
    move = Move.from_usi(usi)
    if position.illegality(move) is not None:
        return usi
    return ki2_move(position, move)


def result_bar(black: int, draws: int, white: int, other: int = 0, height: int = 22,
               short: bool = False) -> str:
    """A horizontal bar (HTML) of the **decided** games — Black's wins, draws, White's wins,
    each segment labelled with its share (one decimal) when there is room, as lichess draws
    it —, and beside it the games without a result (``other``: opening fragments, aborted
    games), which are not in the bar (``short``: their number alone, under a header that names
    it). A mixed collection's bar reads its decided games' results (it used to read "no result
    99%").

    >>> bar = result_bar(3, 1, 4, other=992)
    >>> "37.5%" in bar and "50.0%" in bar and "992 no result" in bar
    True
    >>> "no decided game" in result_bar(0, 0, 0, other=5), result_bar(0, 0, 0)
    (True, '')
    """
    decided = black + draws + white
    if not decided + other:
        return ""
    parts = []
    for games, colour, ink, title in ((black, BLACK_COLOUR, "#ffffff", "▲先手勝ち"),
                                      (draws, DRAW_COLOUR, "#ffffff", "引き分け"),
                                      (white, WHITE_COLOUR, "#222222", "△後手勝ち")):
        if not games:
            continue
        share = 100 * games / decided
        label = f"{share:.1f}%" if share >= 16 else ""
        parts.append(f'<div title="{escape(title)}: {games:,} ({share:.1f}% of the decided '
                     f'games)" style="width:{share:.3f}%;background:{colour};color:{ink};'
                     f'text-align:center;overflow:hidden;white-space:nowrap">{label}</div>')
    if not decided:
        parts.append(f'<div title="no decided game" style="width:100%;background:'
                     f'{_NO_RESULT_FILL};color:#555555;text-align:center;overflow:hidden;'
                     f'white-space:nowrap">no decided game</div>')
    bar = (f'<div class="kifudb-bar" style="display:flex;flex:1 1 auto;min-width:0;height:'
           f'{height}px;line-height:{height}px;font-size:12px;border:1px solid #8a8a8a;'
           f'border-radius:3px;overflow:hidden">{"".join(parts)}</div>')
    note = (f'<span class="kifudb-undecided" title="{count(other, "game")} without a result '
            f'(opening fragments, aborted games, records without an ending), not in the bar" '
            f'style="flex:none;font-size:11px;color:#5a6b7d;white-space:nowrap">{other:,}'
            f'{"" if short else " no result"}</span>' if other else "")
    return (f'<div class="kifudb-result" style="display:flex;align-items:center;gap:6px;'
            f'min-width:0">{bar}{note}</div>')


#: The size of ``result_bar_image`` (the shape of a table cell ``RESULT_BAR_WIDTH`` wide).
_BAR_W, _BAR_H = 220, 24
RESULT_BAR_WIDTH = 230


def result_bar_image(black: int, draws: int, white: int, other: int = 0) -> str:
    """``result_bar`` as an SVG data URI, for an image column of a table: the decided games'
    results (shares with one decimal), and the games without a result named at its end."""
    decided = black + draws + white
    if not decided + other:
        return ""
    note = f"+{other:,} n/r" if other else ""
    width = _BAR_W - (7 * len(note) + 6 if note else 0)
    x, parts = 0.0, []
    for count, colour, ink in ((black, BLACK_COLOUR, "#ffffff"), (draws, DRAW_COLOUR, "#ffffff"),
                               (white, WHITE_COLOUR, "#222222")):
        if not count:
            continue
        part = width * count / decided
        parts.append(f'<rect x="{x:.2f}" width="{part:.2f}" height="{_BAR_H}" '
                     f'fill="{colour}"/>')
        if part >= 40:
            parts.append(f'<text x="{x + part / 2:.2f}" y="{_BAR_H / 2 + 4:.1f}" font-size="11" '
                         f'fill="{ink}" text-anchor="middle" font-family="sans-serif">'
                         f'{100 * count / decided:.1f}%</text>')
        x += part
    if not decided:
        parts.append(f'<rect width="{width}" height="{_BAR_H}" fill="{OTHER_COLOUR}"/>')
    if note:
        parts.append(f'<text x="{_BAR_W - 2}" y="{_BAR_H / 2 + 4:.1f}" font-size="11" '
                     f'fill="#5a6b7d" text-anchor="end" font-family="sans-serif">{note}</text>')
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_BAR_W}" height="{_BAR_H}" '
           f'viewBox="0 0 {_BAR_W} {_BAR_H}">{"".join(parts)}<rect width="{width}" '
           f'height="{_BAR_H}" fill="none" stroke="#8a8a8a"/></svg>')
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
