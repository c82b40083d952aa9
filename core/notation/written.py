"""What a move text says on its own, before any position: the square it names as its
destination, whatever the notation. Two records of the same moves in different notations name
the same destinations, so the moves after a record's first illegal move (which the rules engine
cannot read against a position) can still identify the game::

    >>> [written_destination(n, t) for n, t in (("usi", "8h2a+"), ("csa", "+8821KA"),
    ...                                         ("kif", "２一角成(88)"), ("ki2", "▲２一角成"))]
    ['2a', '2a', '2a', '2a']
    >>> written_destination("kif", "同　銀(31)", previous="2a"), written_destination("kif", "?")
    ('2a', None)
"""

from __future__ import annotations

import json
from typing import Optional

from kifudb.core.move import Move
from kifudb.core.notation._japanese import tokens
from kifudb.core.notation.csa import _tokens as csa_tokens
from kifudb.core.notation.jkf import _square
from kifudb.core.pieces import square_name


def written_destination(notation: str, text, previous: Optional[str] = None) -> Optional[str]:
    """The USI name of the square ``text`` (in ``notation``: usi, csa, kif, ki2, jkf) names as
    its destination; ``previous`` (the destination before it) for 同 and JKF's ``same``; None
    when the text names no square."""
    try:
        if notation == "usi":
            return square_name(Move.from_usi(text).to_square)
        if notation == "csa":
            return square_name(csa_tokens(text)[2])
        if notation in ("kif", "ki2"):
            to = tokens(text).to
            return previous if to is None else square_name(to)
        if notation == "jkf":
            move = json.loads(text) if isinstance(text, str) else text
            if move.get("same") and "to" not in move:
                return previous
            return square_name(_square(move.get("to"), "to", str(text)))
    except (ValueError, TypeError, AttributeError, RecursionError):
        return None
    return None
