"""Helpers the notation modules share: finding which pieces can reach a square, promotion tests.

    >>> from kifudb.core.position import Position
    >>> from kifudb.core.pieces import BLACK, SILVER, GOLD, square, square_name
    >>> pos = Position()
    >>> [square_name(s) for s in reaching(pos, GOLD, square(5, 8))]
    ['4i', '6i']
    >>> may_promote(BLACK, SILVER, square(4, 4), square(4, 3)), may_promote(BLACK, GOLD, 0, 1)
    (True, False)
"""

from __future__ import annotations

from kifudb.core.move import Move
from kifudb.core.pieces import ROOK, PAWN, COLOUR_NAMES, HAND_TYPES, ZONE
from kifudb.core.tables import REACH
from kifudb.core.notation.errors import NotationError
from kifudb.core.position import Position, piece_name


_ORIGINS: dict = {}  # code -> per destination, the (from-square, squares between) pairs


def _origins(code: int) -> tuple:
    """For each destination, where a piece ``code`` could come from (``REACH`` turned around)."""
    table = _ORIGINS.get(code)
    if table is None:
        lists: list[list[tuple[int, tuple[int, ...]]]] = [[] for _ in range(81)]
        for f, reach in enumerate(REACH[code]):
            for to, between in reach.items():
                lists[to].append((f, between))
        table = _ORIGINS[code] = tuple(tuple(x) for x in lists)
    return table


def reaching(position: Position, piece_type: int, to: int) -> list:
    """Squares of the side to move's ``piece_type`` pieces that could move to ``to``: the
    geometry fits, nothing stands in the way, and ``to`` does not hold one of its own pieces."""
    b = position.board
    colour = position.turn
    target = b[to]
    if target and target >> 4 == colour:
        return []
    code = piece_type + 16 * colour
    return [f for f, between in _origins(code)[to]
            if b[f] == code and not any(b[s] for s in between)]


def may_promote(colour: int, piece_type: int, f: int, to: int) -> bool:
    """True if a ``piece_type`` moving from ``f`` to ``to`` has the choice (or duty) to promote."""
    zone = ZONE[colour]
    return PAWN <= piece_type <= ROOK and (zone[f] or zone[to])


def board_move_legal(position: Position, f: int, to: int) -> bool:
    """True if the piece on ``f`` may legally move to ``to``, promoting or not."""
    if position.illegality(Move(f, to, False, None)) is None:
        return True
    return position.illegality(Move(f, to, True, None)) is None


def resolve(position: Position, text: str, to: int, promotion: bool, candidates: list, nothing: str) -> Move:
    """The one move among ``candidates`` (from-squares that fit the text) to ``to``: several are
    narrowed to the legal ones; none or still several is a ``NotationError`` (``nothing`` is the
    message for none)."""
    if len(candidates) > 1:
        legal = [f for f in candidates if position.illegality(Move(f, to, promotion, None)) is None]
        if legal:
            candidates = legal
    if len(candidates) == 1:
        return Move(candidates[0], to, promotion, None)
    if not candidates:
        raise NotationError("no_matching_move", nothing, text)
    moves = ", ".join(Move(f, to, promotion, None).usi() for f in candidates)
    raise NotationError("ambiguous_move", f"{text.strip()} matches {len(candidates)} moves: "
                        f"{moves}", text)


def drop_of(position: Position, piece_type: int, to: int, text: str) -> Move:
    """The drop of ``piece_type`` on ``to``; ``NotationError`` if the side to move holds none."""
    if piece_type not in HAND_TYPES:
        raise NotationError("unparsable_move", f"a {piece_name(piece_type)} cannot be dropped",
                            text)
    if not position.hands[position.turn][piece_type]:
        raise NotationError("not_in_hand", f"{COLOUR_NAMES[position.turn]} has no "
                            f"{piece_name(piece_type)} in hand", text)
    return Move(None, to, False, piece_type)


def bounded_store(cache: dict, key, value, limit: int = 50_000):
    """Remember ``value`` under ``key``, forgetting everything once ``limit`` entries are held."""
    if len(cache) >= limit:
        cache.clear()
    cache[key] = value
    return value
