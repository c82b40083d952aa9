"""What may be played on the board: every legal move of a position, from ``kifudb.core``, in
the shape shogiground takes (``movable.dests``, ``droppable.dests`` and the promotion choice).
The board knows no rule of shogi: it offers exactly these, and nothing else can be played.

``board_moves(position)`` gives:

* ``moves``: each square with a piece that can move, and the squares it can move to
  (shogiground's keys are USI's square names: ``7g``, ``5e``);
* ``drops``: each piece in hand (its USI letter) and the squares it can be dropped on (no
  pawn on a file with one of the mover's pawns, none that mates by a pawn drop, none on a
  square it could never leave);
* ``promotions``: each move that promotes or may promote, ``"choice"`` when the move is legal
  both ways (the board asks), ``"forced"`` when only the promotion is (a pawn, lance or knight
  that could not move again).

    >>> from kifudb.core.position import Position
    >>> start = board_moves(Position())
    >>> start["moves"]["7g"], start["moves"]["2h"], start["drops"], start["promotions"]
    (['7f'], ['1h', '3h', '4h', '5h', '6h', '7h'], {}, {})
    >>> sum(len(to) for to in start["moves"].values())
    30
    >>> after = Position.from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b P 1")
    >>> moved = board_moves(after)
    >>> moved["promotions"], sorted(moved["moves"]["5c"])
    ({'5c5b': 'choice'}, ['5b'])
    >>> len(moved["drops"]["P"]), "5b" in moved["drops"]["P"], "4a" in moved["drops"]["P"]
    (64, False, False)
    >>> usi_of(after, "5c5b+"), usi_of(after, "P*5b")
    ('5c5b+', None)
"""

from __future__ import annotations

from kifudb.core.move import Move
from kifudb.core.pieces import USI_LETTERS
from kifudb.core.position import Position


def board_moves(position: Position) -> dict:
    """The legal moves of ``position`` as the board takes them (see the module)."""
    moves: dict[str, list] = {}
    drops: dict[str, list] = {}
    ways: dict[str, set] = {}
    for move in position.legal_moves():
        text = move.usi()
        to = text[-3:-1] if move.promotion else text[-2:]
        if move.is_drop:
            drops.setdefault(USI_LETTERS[move.drop], []).append(to)
            continue
        origin = text[:2]
        targets = moves.setdefault(origin, [])
        if to not in targets:
            targets.append(to)
        ways.setdefault(origin + to, set()).add(move.promotion)
    promotions = {pair: "choice" if len(kinds) == 2 else "forced"
                  for pair, kinds in ways.items() if True in kinds}
    return {"moves": {origin: sorted(to) for origin, to in sorted(moves.items())},
            "drops": {letter: sorted(to) for letter, to in sorted(drops.items())},
            "promotions": dict(sorted(promotions.items()))}


def usi_of(position: Position, text: object) -> str | None:
    """``text`` as the USI of a legal move of ``position``, else None (what came back from the
    browser is checked again, never trusted)."""
    try:
        move = Move.from_usi(text)
    except ValueError:
        return None
    return move.usi() if position.illegality(move) is None else None
