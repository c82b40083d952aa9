"""How the doors ask for the games a question looks at: one ``FilterOption`` per field of
``analytics.filters.GameFilter``, in ``OPTIONS`` — the command line's options, the HTTP API's
query parameters and the Python API's keywords are made from this one table and say the same
names (``--min-moves``, ``min_moves=``), so that they cannot drift apart. (A module of its
own, importing nothing heavy: the command line reads it when it starts.)

    >>> [option.flag for option in OPTIONS][:3]
    ['--player', '--since', '--until']
    >>> next(o for o in OPTIONS if o.field == "moves_from").name
    'min_moves'
"""

from __future__ import annotations

import dataclasses
from typing import Optional

__all__ = ["FilterOption", "OPTIONS", "WINNERS", "RATING_OF"]

#: The values of a game's ``winner``.
WINNERS = ("black", "white", "draw", "none")
#: Whose rating a rating band is on: both players, or the player to move in the position.
RATING_OF = ("both", "mover")


@dataclasses.dataclass(frozen=True)
class FilterOption:
    """How the doors ask for a ``GameFilter`` field: the command line as ``--name`` (``_`` as
    ``-``; ``aliases`` are older flags that still work), the HTTP API as the query parameter
    ``name``. ``kind`` says what the value is: ``text``, ``date`` (YYYY-MM-DD), ``count`` (a
    whole number, at least 0), ``flag`` (True or False; the command line sets it True) or
    ``choice`` (one of
    ``choices``; ``values`` maps a choice to the field's value when they differ)."""

    field: str
    name: str
    kind: str
    help: str
    choices: tuple = ()
    values: Optional[dict] = None
    aliases: tuple = ()

    @property
    def flag(self) -> str:
        """The command line's option: ``--min-moves`` for ``min_moves``."""
        return "--" + self.name.replace("_", "-")


#: The filters every door offers, in the order they are listed (the command line's options,
#: the HTTP API's query parameters: one table, so they cannot drift apart).
OPTIONS = (
    FilterOption("player", "player", "text",
                 "Black or White contains this (case-insensitive), or it is a spelling of "
                 "their canonical name."),
    FilterOption("date_from", "since", "date", "Games on or after this date.",
                 aliases=("--from",)),
    FilterOption("date_to", "until", "date", "Games on or before this date.",
                 aliases=("--to",)),
    FilterOption("event", "event", "text", "The event contains this (case-insensitive)."),
    FilterOption("handicap", "handicap", "text",
                 "The handicap, e.g. 平手 or 香落ち (KY, 香落 … work too): the start "
                 "position's, or the header's."),
    FilterOption("decided", "decided", "flag",
                 "Only the games with a result (a win or a draw): fragments and aborted games "
                 "have none."),
    FilterOption("moves_from", "min_moves", "count", "Only the games of at least N moves."),
    FilterOption("moves_to", "max_moves", "count", "Only the games of at most N moves."),
    FilterOption("min_rating", "min_rating", "count",
                 "Only the games whose two players are rated at least N (shogi-server's rate "
                 "lines)."),
    FilterOption("max_rating", "max_rating", "count",
                 "Only the games whose two players are rated at most N (with the minimum: a "
                 "band)."),
    FilterOption("rating_of", "rating_of", "choice",
                 "Whose rating the band is on: both players (the default), or the mover: in "
                 "the explorer the player to move in the position (elsewhere either player).",
                 RATING_OF),
    FilterOption("winner", "result", "choice",
                 "Only the games with this result (none: no result).", WINNERS),
    FilterOption("reason", "reason", "text",
                 "Only the games that ended this way: resign, checkmate, time, sennichite, "
                 "illegal_move, abort … (as 'kifudb stats results --by reason' names them)."),
    FilterOption("time_control", "time_control", "text",
                 "The time control the record states contains this (case-insensitive)."),
    FilterOption("engine", "played_by", "choice",
                 "engine: the record shows an engine playing a side; human: it shows none.",
                 ("engine", "human"), {"engine": True, "human": False}),
    FilterOption("label", "label", "text",
                 "A castle, opening, technique or note (四間飛車, 美濃囲い, 垂れ歩 …) reached by "
                 "either side (or by the label's side); several, joined by commas, must all "
                 "be."),
    FilterOption("label_side", "label_side", "choice", "The label reached by this side only.",
                 ("black", "white")),
    FilterOption("label_family", "label_family", "flag",
                 "A label counts when one of its family is reached: 美濃囲い finds 高美濃囲い "
                 "and 銀冠 too."),
    FilterOption("label_from_ply", "label_from_ply", "count",
                 "The label reached (a technique played) at this ply or later."),
    FilterOption("label_to_ply", "label_to_ply", "count",
                 "The label reached (a technique played) at this ply or earlier."),
)
