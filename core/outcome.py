"""How a game ended: ``Winner`` (who won) and ``Reason`` (why the game ended), as python-chess has
``Outcome`` and ``Termination``.

``core.game`` (the rules' verdict), ``core.impasse`` (the 24-point rule) and ``ingest.result``
(what a record says, cross-checked with the rules) speak these two words, and they are what the
store's ``winner`` and ``reason`` columns hold. Both are ``StrEnum``\\ s: a member *is* its value,
a plain ``str``, so it compares equal to that text and goes into JSON, Parquet and SQL parameters
as it::

    >>> Winner.of(1)
    <Winner.WHITE: 'white'>
    >>> Winner.BLACK == "black", str(Reason.PERPETUAL_CHECK), f"{Reason.RESIGN} by {Winner.WHITE}"
    (True, 'perpetual_check', 'resign by white')
    >>> import json
    >>> json.dumps({"winner": Winner.DRAW, "reason": Reason.SENNICHITE})
    '{"winner": "draw", "reason": "sennichite"}'
    >>> Winner("none") is Winner.NONE, Reason("jishogi") is Reason.JISHOGI
    (True, True)
"""

from __future__ import annotations

import enum


class Winner(enum.StrEnum):
    """Who won: ``BLACK`` (先手, 下手 in a handicap game), ``WHITE`` (後手, 上手), ``DRAW``, or
    ``NONE`` when the game has no result (aborted, sealed, or the record does not say).

    >>> [str(w) for w in Winner]
    ['black', 'white', 'draw', 'none']
    """

    BLACK = "black"
    WHITE = "white"
    DRAW = "draw"
    NONE = "none"

    @classmethod
    def of(cls, colour: int) -> Winner:
        """The win of ``colour`` (``core.pieces.BLACK`` or ``WHITE``).

        >>> Winner.of(0)
        <Winner.BLACK: 'black'>
        """
        return _BY_COLOUR[colour]


#: index = colour
_BY_COLOUR = (Winner.BLACK, Winner.WHITE)


class Reason(enum.StrEnum):
    """Why a game ended.

    By the rules (``core.game``): ``CHECKMATE`` (詰み), ``NO_LEGAL_MOVES`` (the side to move has
    no legal move, and loses: shogi has no stalemate), ``SENNICHITE`` (千日手, fourfold repetition:
    a draw) and ``PERPETUAL_CHECK`` (連続王手の千日手: the side that gave check with every move
    loses).

    By what a record says (``ingest.result``), besides those: ``RESIGN`` (投了), ``TIME``
    (切れ負け, 時間切れ), ``ILLEGAL_MOVE`` (反則), ``JISHOGI`` (持将棋, impasse), ``DECLARATION``
    (入玉宣言, a win declared by the 27-point rule), ``ABORT`` (中断), ``SEALED`` (封じ手, the game
    was adjourned), ``MAX_MOVES`` (最大手数, a move limit reached) and ``UNKNOWN``.

    >>> Reason.CHECKMATE, len(Reason)
    (<Reason.CHECKMATE: 'checkmate'>, 13)
    """

    CHECKMATE = "checkmate"
    NO_LEGAL_MOVES = "no_legal_moves"
    RESIGN = "resign"
    TIME = "time"
    ILLEGAL_MOVE = "illegal_move"
    SENNICHITE = "sennichite"
    PERPETUAL_CHECK = "perpetual_check"
    JISHOGI = "jishogi"
    DECLARATION = "declaration"
    ABORT = "abort"
    SEALED = "sealed"
    MAX_MOVES = "max_moves"
    UNKNOWN = "unknown"


__all__ = ["Winner", "Reason"]
