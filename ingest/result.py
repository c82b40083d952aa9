"""Normalize how a record says the game ended into a ``Winner`` and a ``Reason`` (``core.outcome``),
and cross-check it with what the replay found.

One table says what each terminal word means: a KIF/KI2 word (``投了``), a CSA ``%`` code or a
JKF ``special`` (``TORYO``; the ``%`` is optional) gives a reason and either the winner or how to
find it from the side to move when the ending was written (``Mover``)::

    >>> ending_meaning("投了")
    (<Reason.RESIGN: 'resign'>, <Mover.LOSES: 'mover_loses'>)
    >>> ending_meaning("%+ILLEGAL_ACTION")
    (<Reason.ILLEGAL_MOVE: 'illegal_move'>, <Winner.WHITE: 'white'>)
    >>> ending_meaning("resign"), ending_meaning("rep_draw")
    ((<Reason.RESIGN: 'resign'>, <Mover.LOSES: 'mover_loses'>), (<Reason.SENNICHITE: 'sennichite'>, <Winner.DRAW: 'draw'>))
    >>> ending_meaning("まで")
    (<Reason.UNKNOWN: 'unknown'>, <Winner.NONE: 'none'>)
"""

from __future__ import annotations

import enum
from typing import Union

from kifudb.core.impasse import declaration
from kifudb.core.outcome import Reason, Winner
from kifudb.core.pieces import SIDES_NAMED
from kifudb.core.tables import LINE
from kifudb.ingest.record import ERROR, WARNING, INFO, Finding


class Mover(enum.StrEnum):
    """A word that names no side: the side to move when the ending is written (after the last
    recorded move) loses (``投了``) or wins (``反則勝ち``, ``入玉勝ち``)."""

    LOSES = "mover_loses"
    WINS = "mover_wins"


#: (words, reason, winner or ``Mover``): every terminal word, CSA code and JKF special.
_TABLE: tuple = (
    (("TORYO", "投了"), Reason.RESIGN, Mover.LOSES),
    (("TSUMI", "詰み", "詰"), Reason.CHECKMATE, Mover.LOSES),
    (("TIME_UP", "切れ負け", "時間切れ"), Reason.TIME, Mover.LOSES),
    (("ILLEGAL_MOVE", "反則負け"), Reason.ILLEGAL_MOVE, Mover.LOSES),
    (("反則勝ち",), Reason.ILLEGAL_MOVE, Mover.WINS),
    (("+ILLEGAL_ACTION",), Reason.ILLEGAL_MOVE, Winner.WHITE),  # a foul by Black
    (("-ILLEGAL_ACTION",), Reason.ILLEGAL_MOVE, Winner.BLACK),  # a foul by White
    (("SENNICHITE", "千日手"), Reason.SENNICHITE, Winner.DRAW),
    (("JISHOGI", "持将棋", "HIKIWAKE", "引き分け"), Reason.JISHOGI, Winner.DRAW),
    (("KACHI", "入玉勝ち", "宣言勝ち"), Reason.DECLARATION, Mover.WINS),
    (("CHUDAN", "中断", "MATTA", "ERROR"), Reason.ABORT, Winner.NONE),
    (("封じ手", "SEALED"), Reason.SEALED, Winner.NONE),
    (("MAX_MOVES", "最大手数"), Reason.MAX_MOVES, Winner.DRAW),
    (("FUZUMI", "不詰"), Reason.UNKNOWN, Winner.NONE),
    # the words GUIs write at the end of a USI game line (``ingest.usi_file``), about the side
    # to move then: it resigned, declared a win, lost, ran out of time, played an illegal move
    (("resign",), Reason.RESIGN, Mover.LOSES),
    (("mate",), Reason.CHECKMATE, Mover.LOSES),
    (("win",), Reason.DECLARATION, Mover.WINS),
    (("lose",), Reason.UNKNOWN, Mover.LOSES),
    (("timeout",), Reason.TIME, Mover.LOSES),
    (("illegal",), Reason.ILLEGAL_MOVE, Mover.LOSES),
    (("rep_draw",), Reason.SENNICHITE, Winner.DRAW),
    (("rep_win",), Reason.PERPETUAL_CHECK, Mover.WINS),
    (("rep_lose",), Reason.PERPETUAL_CHECK, Mover.LOSES),
    (("jishogi",), Reason.JISHOGI, Winner.DRAW),
    (("max_moves",), Reason.MAX_MOVES, Winner.DRAW),
    (("draw",), Reason.UNKNOWN, Winner.DRAW),
    (("break",), Reason.ABORT, Winner.NONE),
    (("rep_sup", "rep_inf"), Reason.UNKNOWN, Winner.NONE),  # a superior/inferior repetition
)
_MEANINGS = {word: (reason, who) for words, reason, who in _TABLE for word in words}
_UNKNOWN = (Reason.UNKNOWN, Winner.NONE)
#: the sides a KIF/KI2 ``まで…の勝ち`` line may name
_SUMMARY_SIDES = tuple((name, Winner.of(colour)) for name, colour in SIDES_NAMED)


def ending_meaning(word: str) -> tuple[Reason, Union[Winner, Mover]]:
    """``(reason, winner or Mover)`` for a terminal word or CSA/JKF code (``%`` optional)."""
    return _MEANINGS.get(word.strip().lstrip("%"), _UNKNOWN)


def _winner(who: Union[Winner, Mover], mover: int) -> Winner:
    if who is Mover.LOSES:
        return Winner.of(mover ^ 1)
    if who is Mover.WINS:
        return Winner.of(mover)
    return who


def settle(declared, game, replay_complete: bool) -> tuple[Winner, Reason, list]:
    """``(winner, reason, findings)`` for a game from its declared ending (``DeclaredEnding`` or
    None) and its replay (``core.game.Game``). ``replay_complete`` is False when an illegal or
    unreadable move stopped the replay, in which case the record's word is taken as written."""
    findings: list = []
    rules = game.final_ending() if replay_complete else None
    if declared is None:
        if rules is None:
            return Winner.NONE, Reason.UNKNOWN, findings
        return rules.winner, rules.reason, findings
    reason, who = ending_meaning(declared.word)
    mover = declared.mover if declared.mover is not None else game.position.turn
    winner = _winner(who, mover)
    where = dict(line=declared.line, ply=game.ply, text=declared.word)
    if reason is Reason.UNKNOWN and winner is Winner.NONE:
        winner = Winner(declared.winner) if declared.winner else _summary_winner(declared.summary)
        if rules is not None and replay_complete:  # the rules settle what the record leaves open
            if winner is Winner.NONE or winner is rules.winner:
                return rules.winner, rules.reason, findings
    if not replay_complete:
        return winner, reason, findings
    if reason is Reason.CHECKMATE and (rules is None or rules.reason is not Reason.CHECKMATE):
        if mate_but_for_useless_interpositions(game.position):
            findings.append(Finding(INFO, "useless_interposition", "checkmate once useless "
                                    "interpositions (無駄合) are set aside, as tsume records do",
                                    **where))
        else:
            findings.append(Finding(ERROR, "result_mismatch", "the record says checkmate, but "
                                    "the final position is not checkmate", **where))
    elif reason is Reason.SENNICHITE:
        if rules is None or rules.reason not in (Reason.SENNICHITE, Reason.PERPETUAL_CHECK):
            findings.append(Finding(ERROR, "result_mismatch", "the record says sennichite, but no "
                                    "position occurred four times", **where))
        elif rules.reason is Reason.PERPETUAL_CHECK:
            reason, winner = Reason.PERPETUAL_CHECK, rules.winner
    elif reason is Reason.DECLARATION:
        verdict = declaration(game.position)
        if not verdict.valid:
            findings.append(Finding(ERROR, "result_mismatch", "the record claims a win by "
                                    f"declaration, but {verdict.message}", **where))
    elif rules is not None and rules.reason is Reason.CHECKMATE \
            and reason not in (Reason.CHECKMATE, Reason.RESIGN, Reason.TIME):
        findings.append(Finding(INFO, "result_mismatch", f"the final position is checkmate, but "
                                f"the record ends with {declared.word}", **where))
    if rules is not None and rules.reason in (Reason.SENNICHITE, Reason.PERPETUAL_CHECK) \
            and reason not in (Reason.SENNICHITE, Reason.PERPETUAL_CHECK) and game.ply == rules.ply:
        if reason is Reason.ILLEGAL_MOVE and rules.reason is Reason.PERPETUAL_CHECK \
                and winner is rules.winner:
            reason = Reason.PERPETUAL_CHECK  # the foul the record names is the perpetual check
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


def _summary_winner(summary: str) -> Winner:
    """The winner a KIF/KI2 ``まで…`` line names (``先手の勝ち``), else ``Winner.NONE``."""
    for side, winner in _SUMMARY_SIDES:
        if f"{side}の勝ち" in summary:
            return winner
    return Winner.NONE
