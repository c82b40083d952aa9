"""The engine's analysis of a game (``kifudb analyse``, the store's ``analysis`` view) written
into its record's move comments in ShogiHome's dialect for an analysis (検討, ``#…=`` lines),
the form ``ingest.evaluation`` reads back as ``shogihome-research``: a record exported with
them and ingested again gives each move the same ``score_black``, ``mate`` and ``pv``.

Each main-line move gets the analysis of the position after it (ShogiHome's research mode
writes there: the search of the position on the board), from Black's point of view:

================  ====================================================================
line              value
================  ====================================================================
``#評価値=N``     ``score_black`` (centipawns; left out when the engine found a mate)
``#詰み=…``       ``先手勝ち:N手`` (Black mates in N plies) or ``後手勝ち:N手``
``#読み筋=…``     the principal variation in KI2 with ▲/△, no spaces (``同　歩`` as KI2
                  writes it), from the position after the move
``#深さ=N``       the search's depth, when known
``#ノード数=N``   its nodes, when known
``#エンジン=…``   the engine's name and version, then the limit (``Fairy-Stockfish 11.1
                  LB nodes=1000``)
================  ====================================================================

    >>> after = "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"
    >>> research_lines({"score_black": 41, "mate_black": None, "pv": "3c3d 2g2f",
    ...                 "depth": 9, "nodes": 1004, "engine": "Fairy-Stockfish 11.1 LB",
    ...                 "limit": "nodes=1000"}, after, "7g7f")
    ['#評価値=41', '#読み筋=△３四歩▲２六歩', '#深さ=9', '#ノード数=1004', '#エンジン=Fairy-Stockfish 11.1 LB nodes=1000']
    >>> research_lines({"score_black": None, "mate_black": -3, "pv": None}, after)
    ['#詰み=後手勝ち:3手']
    >>> research_lines({"score_black": None, "mate_black": None}, after)
    []

A move whose comments hold research lines already (the record's own analysis) keeps them and
gets none of ours: two analyses in one comment would read as one (``annotated``).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Optional

from kifudb.analytics.game_record import pv_ki2
from kifudb.core.kifu import Kifu
from kifudb.core.position import Position

__all__ = ["research_lines", "annotated", "RESEARCH_MARK", "KEYS"]

#: ShogiHome marks an analysis's comment lines with ``#`` (a player's own search with ``*``)
RESEARCH_MARK = "#"
#: ShogiHome's words for the fields of a search comment (``buildSearchComment``)
KEYS = {"score": "評価値", "mate": "詰み", "pv": "読み筋", "depth": "深さ", "nodes": "ノード数",
        "engine": "エンジン"}
_RESEARCH = re.compile(re.escape(RESEARCH_MARK) + "(?:" + "|".join(KEYS.values()) + ")=")


def _line(field: str, value) -> str:
    return f"{RESEARCH_MARK}{KEYS[field]}={value}"


def pv_text(pv: Optional[str], sfen_after: str, played: Optional[str] = None) -> str:
    """The USI moves of ``pv`` in KI2 with ▲/△ and no spaces between moves, as ShogiHome writes
    a 読み筋, replayed from ``sfen_after`` (``played``: the move that led there, the square 同
    refers to); it stops at a move that does not replay.

    >>> pv_text("8h2b+ 3a2b", "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3")
    '▲２二角成△同　銀'
    """
    return "".join(pv_ki2(pv, sfen_after, played))


def research_lines(analysis: dict, sfen_after: str, played: Optional[str] = None) -> list:
    """ShogiHome's research lines (``#評価値=`` …, the table above) of one position's
    ``analysis`` (a row of ``analytics.judgement.game_analysis``: ``score_black``,
    ``mate_black``, ``pv``, and ``depth``, ``nodes``, ``engine``, ``limit`` when it has them)
    at ``sfen_after``; none when it holds neither a score nor a mate."""
    score, mate = analysis.get("score_black"), analysis.get("mate_black")
    if mate is not None and mate != 0:
        lines = [_line("mate", f"{'先手勝ち' if mate > 0 else '後手勝ち'}:{abs(mate)}手")]
    elif score is not None:
        lines = [_line("score", int(score))]
    else:
        return []
    pv = pv_text(analysis.get("pv"), sfen_after, played)
    if pv:
        lines.append(_line("pv", pv))
    if analysis.get("depth"):
        lines.append(_line("depth", int(analysis["depth"])))
    if analysis.get("nodes"):
        lines.append(_line("nodes", int(analysis["nodes"])))
    engine = " ".join(str(analysis[k]) for k in ("engine", "limit") if analysis.get(k))
    if engine:
        lines.append(_line("engine", engine))
    return lines


def has_research(comments) -> bool:
    """True when ``comments`` (a move's lines) hold a research line already.

    >>> has_research(["互角", "#評価値=-102"]), has_research(["*評価値=3"])
    (True, False)
    """
    return any(_RESEARCH.match(line) for line in comments)


def annotated(kifu: Kifu, rows) -> tuple:
    """``(kifu with the analysis, moves annotated, moves that kept the record's own)``:
    ``kifu``'s main-line moves with the research lines (``research_lines``) of ``rows`` added
    to their comments — ``rows`` maps a ply (1 for the first move) to the analysis of the
    position after that move (a ply without one gets nothing). ``kifu`` itself is left as
    it is."""
    if not rows:
        return kifu, 0, 0
    position = Position.from_sfen(kifu.start_sfen)
    moves, added, kept = [], 0, 0
    for ply, kifu_move in enumerate(kifu.moves, 1):
        position.push(kifu_move.move)
        row = rows.get(ply)
        lines = research_lines(row, position.sfen(), kifu_move.usi()) if row else []
        if lines and has_research(kifu_move.comments):
            kept += 1
            lines = []
        if lines:
            added += 1
            kifu_move = replace(kifu_move, comments=list(kifu_move.comments) + lines)
        moves.append(kifu_move)
    return replace(kifu, moves=moves), added, kept
