"""Normalize how a record says the game ended into a winner and a reason, and cross-check it with
what the replay found.

Winners are ``black``, ``white``, ``draw`` or ``none``; reasons are ``checkmate``, ``resign``,
``time``, ``illegal_move``, ``sennichite``, ``perpetual_check``, ``jishogi``, ``declaration``,
``abort``, ``sealed``, ``max_moves`` or ``unknown``::

    >>> ending_meaning("投了")
    ('resign', 'mover_loses')
    >>> ending_meaning("%+ILLEGAL_ACTION")
    ('illegal_move', 'black_loses')
    >>> ending_meaning("まで")
    ('unknown', 'none')
"""

from __future__ import annotations

from typing import Optional

from core.impasse import declaration
from core.tables import LINE
from ingest.record import ERROR, WARNING, INFO, Finding

# word -> (reason, who): who is mover_loses, mover_wins, black_loses, white_loses, draw or none.
# "mover" is the side to move when the ending is written (after the last recorded move).
_MEANINGS = {
    "TORYO": ("resign", "mover_loses"), "投了": ("resign", "mover_loses"),
    "TSUMI": ("checkmate", "mover_loses"), "詰み": ("checkmate", "mover_loses"),
    "詰": ("checkmate", "mover_loses"),
    "TIME_UP": ("time", "mover_loses"), "切れ負け": ("time", "mover_loses"),
    "時間切れ": ("time", "mover_loses"),
    "ILLEGAL_MOVE": ("illegal_move", "mover_loses"), "反則負け": ("illegal_move", "mover_loses"),
    "反則勝ち": ("illegal_move", "mover_wins"),
    "+ILLEGAL_ACTION": ("illegal_move", "black_loses"),
    "-ILLEGAL_ACTION": ("illegal_move", "white_loses"),
    "SENNICHITE": ("sennichite", "draw"), "千日手": ("sennichite", "draw"),
    "JISHOGI": ("jishogi", "draw"), "持将棋": ("jishogi", "draw"),
    "HIKIWAKE": ("jishogi", "draw"), "引き分け": ("jishogi", "draw"),
    "KACHI": ("declaration", "mover_wins"), "入玉勝ち": ("declaration", "mover_wins"),
    "宣言勝ち": ("declaration", "mover_wins"),
    "CHUDAN": ("abort", "none"), "中断": ("abort", "none"),
    "FUZUMI": ("unknown", "none"), "不詰": ("unknown", "none"),
    "MATTA": ("abort", "none"), "ERROR": ("abort", "none"),
    "封じ手": ("sealed", "none"), "SEALED": ("sealed", "none"),
    "MAX_MOVES": ("max_moves", "draw"), "最大手数": ("max_moves", "draw"),
}
_COLOUR = ("black", "white")


def ending_meaning(word: str):
    """``(reason, who)`` for a terminal word or CSA/JKF code (``%`` optional)."""
    key = word.strip().lstrip("%")
    return _MEANINGS.get(key, ("unknown", "none"))


def _winner(who: str, mover: Optional[int]) -> str:
    if who == "draw":
        return "draw"
    if who == "black_loses":
        return "white"
    if who == "white_loses":
        return "black"
    if who in ("mover_loses", "mover_wins") and mover is not None:
        return _COLOUR[mover ^ 1] if who == "mover_loses" else _COLOUR[mover]
    return "none"


def settle(declared, game, replay_complete: bool):
    """``(winner, reason, findings)`` for a game from its declared ending (``DeclaredEnding`` or
    None) and its replay (``core.game.Game``). ``replay_complete`` is False when an illegal or
    unreadable move stopped the replay, in which case the record's word is taken as written."""
    findings = []
    rules = game.final_ending() if replay_complete else None
    if declared is None:
        if rules is None:
            return "none", "unknown", findings
        winner = "draw" if rules.winner is None else _COLOUR[rules.winner]
        return winner, rules.reason, findings
    reason, who = ending_meaning(declared.word)
    mover = declared.mover if declared.mover is not None else game.position.turn
    winner = _winner(who, mover)
    where = dict(line=declared.line, ply=game.ply, text=declared.word)
    if reason == "unknown" and winner == "none":
        winner = declared.winner or _summary_winner(declared.summary)
        if rules is not None and replay_complete:  # the rules settle what the record leaves open
            rules_winner = "draw" if rules.winner is None else _COLOUR[rules.winner]
            if winner in ("none", rules_winner):
                return rules_winner, rules.reason, findings
    if not replay_complete:
        return winner, reason, findings
    if reason == "checkmate" and (rules is None or rules.reason != "checkmate"):
        if mate_but_for_useless_interpositions(game.position):
            findings.append(Finding(INFO, "useless_interposition", "checkmate once useless "
                                    "interpositions (無駄合) are set aside, as tsume records do",
                                    **where))
        else:
            findings.append(Finding(ERROR, "result_mismatch", "the record says checkmate, but "
                                    "the final position is not checkmate", **where))
    elif reason == "sennichite":
        if rules is None or rules.reason not in ("sennichite", "perpetual_check"):
            findings.append(Finding(ERROR, "result_mismatch", "the record says sennichite, but no "
                                    "position occurred four times", **where))
        elif rules.reason == "perpetual_check":
            reason, winner = "perpetual_check", _COLOUR[rules.winner]
    elif reason == "declaration":
        verdict = declaration(game.position)
        if not verdict.valid:
            findings.append(Finding(ERROR, "result_mismatch", "the record claims a win by "
                                    f"declaration, but {verdict.message}", **where))
    elif rules is not None and rules.reason == "checkmate" \
            and reason not in ("checkmate", "resign", "time"):
        findings.append(Finding(INFO, "result_mismatch", f"the final position is checkmate, but "
                                f"the record ends with {declared.word}", **where))
    if rules is not None and rules.reason in ("sennichite", "perpetual_check") \
            and reason not in ("sennichite", "perpetual_check") and game.ply == rules.ply:
        if reason == "illegal_move" and rules.winner is not None \
                and winner == _COLOUR[rules.winner]:
            reason = "perpetual_check"  # the foul the record names is the perpetual check
        else:
            findings.append(Finding(WARNING, "result_mismatch", f"the last move repeats a "
                                    f"position for the fourth time ({rules.reason}), but the "
                                    f"record ends with {declared.word}", **where))
    return winner, reason, findings


def mate_but_for_useless_interpositions(position) -> bool:
    """True if the side to move is in check by one distant piece, and every legal reply puts a
    piece between it and the king where capturing that piece mates at once (無駄合)."""
    if not position.is_check():
        return False
    king = position.king_squares[position.turn]
    checkers = position.attackers(king, position.turn ^ 1)
    if len(checkers) != 1 or not LINE[king][checkers[0]]:
        return False
    between = set(LINE[king][checkers[0]])
    replies = position.legal_moves()
    if not replies:
        return False
    for reply in replies:
        if reply.to_square not in between:
            return False
        position.push(reply)
        try:
            mates = any(m.to_square == reply.to_square and _mates(position, m)
                        for m in position.legal_moves())
        finally:
            position.pop()
        if not mates:
            return False
    return True


def _mates(position, move) -> bool:
    position.push(move)
    try:
        return position.is_checkmate()
    finally:
        position.pop()


def _summary_winner(summary: str) -> str:
    """The winner a KIF/KI2 ``まで…`` line names (``先手の勝ち``), else ``none``."""
    for side, colour in (("先手", "black"), ("下手", "black"), ("後手", "white"),
                         ("上手", "white")):
        if f"{side}の勝ち" in summary:
            return colour
    return "none"
