"""The games a question looks at: one ``GameFilter``, taken by the opening explorer
(``analytics.queries.explore``) and every statistic of ``analytics.stats``, made once where the
user's values come in (the command line's options, the dashboard's sidebar) and checked there.

A ``GameFilter`` is frozen and hashable, so it is also a cache key (the dashboard's cached
answers key on it), and it makes the conditions on the games in one place (``where``)::

    >>> chosen = GameFilter(player="羽生", date_from="2000-01-01")
    >>> chosen
    GameFilter(player='羽生', date_from=datetime.date(2000, 1, 1))
    >>> chosen == GameFilter(player="羽生", date_from=datetime.date(2000, 1, 1))
    True
    >>> len({chosen, GameFilter(player="羽生", date_from="2000-01-01")}), len(chosen.where())
    (1, 2)
    >>> bool(GameFilter()), bool(chosen), chosen.replace(player=None)
    (False, True, GameFilter(date_from=datetime.date(2000, 1, 1)))

Bad values are refused when the filter is made, saying which and why::

    >>> GameFilter(date_to="yesterday")
    Traceback (most recent call last):
    ...
    kifudb.analytics.filters.FilterError: date_to: not a date: 'yesterday' (expected YYYY-MM-DD)
    >>> GameFilter(winner="nobody")
    Traceback (most recent call last):
    ...
    kifudb.analytics.filters.FilterError: winner must be one of black, white, draw, none, not 'nobody'

On a mixed collection most games may have no result (opening fragments, aborted games):
``decided=True`` keeps the games with one (a win or a draw), and ``moves_from`` the games of
at least that many moves. A handicap is named as ``core.handicap`` names it, whatever the
spelling given::

    >>> GameFilter(decided=True, moves_from=20, handicap="KY")
    GameFilter(handicap='香落ち', decided=True, moves_from=20)
    >>> len(GameFilter(min_rating=3000).where())   # both players
    2
    >>> GameFilter(min_rating=2500, max_rating=3000, engine=False, label="四間飛車",
    ...            label_side="white", time_control="6時間")
    GameFilter(min_rating=2500, max_rating=3000, time_control='6時間', engine=False, label='四間飛車', label_side='white')
    >>> GameFilter(label="Fourth-file rook", handicap="lance")
    GameFilter(handicap='香落ち', label='四間飛車')
    >>> GameFilter(handicap="foo")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kifudb.analytics.filters.FilterError: handicap: unknown handicap 'foo' (known: 平手, 香落ち, ...)
    >>> GameFilter(label_side="sente")
    Traceback (most recent call last):
    ...
    kifudb.analytics.filters.FilterError: label_side must be one of black, white, not 'sente'

A rating band is on both players, or with ``rating_of="mover"`` on the player to move in the
explorer's position (``where(mover_rating=…)``; without a position, either player)::

    >>> band = GameFilter(min_rating=2500, max_rating=3000, rating_of="mover")
    >>> len(band.where()), len(GameFilter(min_rating=2500, max_rating=3000).where())
    (1, 4)
    >>> GameFilter(rating_of="mover")
    Traceback (most recent call last):
    ...
    kifudb.analytics.filters.FilterError: rating_of: needs min_rating or max_rating (the band)
"""

from __future__ import annotations

import dataclasses
import datetime
import operator
from typing import Optional

import sqlalchemy as sa

from kifudb.analytics import checks
from kifudb.analytics.filter_options import (  # noqa: F401 (re-exported)
    OPTIONS, RATING_OF, WINNERS, FilterOption)
from kifudb.analytics.names import handicap_name, label_family, label_name
from kifudb.core.handicap import HANDICAPS
from kifudb.labels.players import canonical as player_name
from kifudb.store.engine import game_summary, labels

__all__ = ["GameFilter", "FilterError", "WINNERS", "FilterOption", "OPTIONS", "from_options"]


class FilterError(ValueError):
    """A filter value that is refused: ``field`` names the filter, ``problem`` says what is
    wrong with the value (the message without the field's name in front)."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.field = field
        self.problem = message.removeprefix(f"{field}: ")


@dataclasses.dataclass(frozen=True)
class GameFilter:
    """Which games count (every field None: all of them).

    - ``player``: a case-insensitive part of ▲'s or △'s name, as written or canonical
      (``labels.players``: 羽生 finds 羽生善治竜王), or any spelling of a player's canonical
      name (羽生善治王位 finds 羽生善治's games however written);
    - ``date_from``, ``date_to``: the game's date, inclusive (a ``date`` or ISO text; undated
      games are left out once either is given);
    - ``event``: a case-insensitive part of the event's name;
    - ``handicap``: the game's handicap exactly (``平手``, ``香落ち`` …: what its start position
      is, else what its header says; any spelling ``core.handicap`` knows, ``KY`` or ``香落``,
      is its KIF name; an unknown name is refused, with the nearest: ``analytics.names``);
    - ``reason``: how the game ended, exactly (``resign``, ``checkmate`` …);
    - ``winner``: ``black``, ``white``, ``draw`` or ``none``;
    - ``decided``: True keeps the games with a result (a win or a draw), False those without;
    - ``moves_from``, ``moves_to``: the number of moves replayed, inclusive (``moves_from`` is
      a minimum length: fragments and aborted games are short);
    - ``min_rating``: both players rated at least this (shogi-server's rate lines; games
      without ratings are left out);
    - ``max_rating``: both players rated at most this (with ``min_rating``, a rating band);
    - ``rating_of``: whose rating the band is on: ``both`` players (the default) or the
      ``mover``, the player to move in the explorer's position (a question without a position
      — the statistics — keeps the games in which either player is in the band);
    - ``time_control``: a case-insensitive part of the time control the record states
      (``持ち時間``, CSA ``$TIME_LIMIT``; games that state none are left out);
    - ``engine``: True keeps the games in which the record shows an engine playing (a side's
      engine name, ``ingest.evaluation.engines``), False those in which it shows none;
    - ``label``: a castle, opening, technique or note (``labels.classify``; several joined by
      commas: each of them) reached by either side, or by ``label_side`` (``black`` or
      ``white``) only; named as its definition names it, by an alias or by its English name
      (``Fourth-file rook`` is ``四間飛車``); an unknown name is refused, with the nearest
      (``analytics.names``); ``label_family``: one of its family counts too (``美濃囲い``
      finds ``高美濃囲い``); ``label_from_ply``, ``label_to_ply``: reached (a technique played)
      within these plies, inclusive.
    """

    player: Optional[str] = None
    date_from: Optional[datetime.date] = None
    date_to: Optional[datetime.date] = None
    event: Optional[str] = None
    handicap: Optional[str] = None
    reason: Optional[str] = None
    winner: Optional[str] = None
    decided: Optional[bool] = None
    moves_from: Optional[int] = None
    moves_to: Optional[int] = None
    min_rating: Optional[int] = None
    max_rating: Optional[int] = None
    rating_of: Optional[str] = None
    time_control: Optional[str] = None
    engine: Optional[bool] = None
    label: Optional[str] = None
    label_side: Optional[str] = None
    label_family: Optional[bool] = None
    label_from_ply: Optional[int] = None
    label_to_ply: Optional[int] = None

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is not None:
                try:
                    value = _CHECKS[field.name](value, field.name)
                except ValueError as error:
                    raise FilterError(str(error), field.name) from None
                object.__setattr__(self, field.name, value)
        for name in ("label_side", "label_family", "label_from_ply", "label_to_ply"):
            if getattr(self, name) is not None and self.label is None:
                raise FilterError(f"{name}: needs a label (the castle, opening, technique or "
                                  f"note it is about)", name)
        if self.rating_of is not None and self.min_rating is None and self.max_rating is None:
            raise FilterError("rating_of: needs min_rating or max_rating (the band)",
                              "rating_of")

    def __repr__(self) -> str:
        chosen = ", ".join(f"{name}={value!r}" for name, value in self.chosen().items())
        return f"GameFilter({chosen})"

    def __bool__(self) -> bool:
        """True when any filter is set (an empty filter lets every game through)."""
        return bool(self.chosen())

    def chosen(self) -> dict:
        """The filters that are set, by name, in the order of the fields."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)
                if getattr(self, field.name) is not None}

    def start_sfen(self) -> Optional[str]:
        """The SFEN the games of the chosen handicap start from — where the explorer starts, and
        where moves given without a start are played from —; None without a handicap (or for
        one without a standard start, such as その他)::

            >>> GameFilter(handicap="KY").start_sfen()
            'lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1'
            >>> GameFilter().start_sfen() is None
            True
        """
        return HANDICAPS.get(self.handicap)

    def replace(self, **changes) -> GameFilter:
        """This filter with some fields changed (None unsets one); checked like a new one."""
        return dataclasses.replace(self, **changes)

    def where(self, mover_rating=None) -> list:
        """The conditions on ``store.engine.game_summary`` (the games view, one row a game)
        that keep the games of this filter; every value is a bound parameter.
        ``mover_rating``: the column of the rating of the player to move in a position (the
        explorer's), which a band with ``rating_of="mover"`` is on."""
        g = game_summary.c
        conditions = []
        for name in ("player", "event", "time_control"):
            value = getattr(self, name)
            if value is None:
                continue
            needle = sa.bindparam(name, value.lower())
            columns = ((g.black, g.white, g.black_player, g.white_player) if name == "player"
                       else (g[name],))
            matches = [sa.func.contains(sa.func.lower(c), needle) for c in columns]
            if name == "player":  # a spelling of a player (羽生善治竜王): its canonical name too
                known = player_name(value)
                if known.name != value and not known.ambiguous:
                    matches += [c == sa.bindparam("player_name", known.name)
                                for c in (g.black_player, g.white_player)]
            conditions.append(sa.or_(*matches))
        for name, column, compare in (
                ("handicap", g.handicap, operator.eq), ("reason", g.reason, operator.eq),
                ("winner", g.winner, operator.eq), ("date_from", g.date, operator.ge),
                ("date_to", g.date, operator.le), ("moves_from", g.moves, operator.ge),
                ("moves_to", g.moves, operator.le)):
            value = getattr(self, name)
            if value is not None:
                conditions.append(compare(column, sa.bindparam(name, value)))
        conditions.extend(self._rating_band(mover_rating))
        if self.engine is not None:
            shown = sa.or_(g.black_engine.is_not(None), g.white_engine.is_not(None))
            conditions.append(shown if self.engine else sa.not_(shown))
        conditions.extend(self._labels_reached())
        if self.decided is not None:  # a game without a result has the winner "none"
            compare = operator.ne if self.decided else operator.eq
            conditions.append(compare(g.winner, sa.bindparam("no_result", "none")))
        return conditions

    def _labels_reached(self) -> list:
        """One condition for each label named: the game is among those in which it (or one of
        its family) was reached, by the side and within the plies chosen."""
        if self.label is None:
            return []
        L = labels.c
        conditions = []
        for index, name in enumerate(self.label.split(",")):
            names = label_family(name) if self.label_family else (name,)
            reached = [L.label.in_(sa.bindparam(f"label_{index}", list(names), expanding=True))]
            for field, compare in (("label_side", operator.eq), ("label_from_ply", operator.ge),
                                   ("label_to_ply", operator.le)):
                value = getattr(self, field)
                if value is not None:
                    column = L.side if field == "label_side" else L.ply
                    reached.append(compare(column, sa.bindparam(f"{field}_{index}", value)))
            conditions.append(game_summary.c.game.in_(sa.select(L.game).where(*reached)))
        return conditions

    def _rating_band(self, mover_rating) -> list:
        """The conditions of the rating band: on both players, on the mover, or (``mover``
        without a position) on either player."""
        g = game_summary.c

        def in_band(column) -> list:
            return [compare(column, sa.bindparam(name, getattr(self, name)))
                    for name, compare in (("min_rating", operator.ge),
                                          ("max_rating", operator.le))
                    if getattr(self, name) is not None]

        if self.rating_of != "mover":
            return in_band(g.black_rating) + in_band(g.white_rating)
        if mover_rating is not None:
            return in_band(mover_rating)
        return [sa.or_(sa.and_(*in_band(g.black_rating)), sa.and_(*in_band(g.white_rating)))]


def _handicap(value, name: str) -> str:
    """A handicap's KIF name, whatever spelling ``core.handicap`` knows (``KY``, ``香落``); an
    unknown one is refused with the nearest names (``analytics.names``)."""
    return handicap_name(checks.text(value, name), name)


def _label(value, name: str) -> str:
    """Labels' names (the definitions'), each given as it, an alias or in English: one name,
    several joined by commas, or (from Python) a list of them; an unknown one is refused with
    the nearest names (``analytics.names``)."""
    given = value.split(",") if isinstance(value, str) else value
    if not isinstance(given, (list, tuple)) or not given:
        raise ValueError(f"{name} must be a label's name or several joined by commas, not "
                         f"{value!r}")
    return ",".join(dict.fromkeys(label_name(one, name) for one in given))


def _flag(value, name: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, not {value!r}")
    return value


_CHECKS = {
    "player": checks.text, "event": checks.text, "handicap": _handicap, "decided": _flag,
    "date_from": checks.date, "date_to": checks.date,
    "reason": checks.name,
    "winner": lambda value, name: checks.choice(value, name, WINNERS),
    "moves_from": lambda value, name: checks.at_least(value, name, 0),
    "moves_to": lambda value, name: checks.at_least(value, name, 0),
    "min_rating": lambda value, name: checks.at_least(value, name, 0),
    "max_rating": lambda value, name: checks.at_least(value, name, 0),
    "rating_of": lambda value, name: checks.choice(value, name, RATING_OF),
    "time_control": checks.text, "engine": _flag, "label": _label,
    "label_side": lambda value, name: checks.choice(value, name, ("black", "white")),
    "label_family": _flag,
    "label_from_ply": lambda value, name: checks.at_least(value, name, 0),
    "label_to_ply": lambda value, name: checks.at_least(value, name, 0),
}


def from_options(values: dict) -> GameFilter:
    """The ``GameFilter`` of the doors' values, by ``FilterOption.name`` (None: not given; a
    flag False keeps the games without: ``decided=False``, those without a result);
    ``FilterError`` names the option of a bad value::

        >>> from_options({"since": "2000-01-01", "played_by": "human", "decided": None})
        GameFilter(date_from=datetime.date(2000, 1, 1), engine=False)
        >>> from_options({"min_moves": -1})
        Traceback (most recent call last):
        ...
        kifudb.analytics.filters.FilterError: min_moves must be an integer of at least 0, not -1
    """
    fields = {}
    for option in OPTIONS:
        value = values.get(option.name)
        if value is None:
            continue
        fields[option.field] = option.values.get(value, value) if option.values else value
    try:
        return GameFilter(**fields)
    except FilterError as error:
        named = next(o.name for o in OPTIONS if o.field == error.field)
        said = str(error).removeprefix(error.field)  # "<field>: why" or "<field> must be …"
        raise FilterError(named + said, named) from None

