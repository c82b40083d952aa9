"""The checks every question of ``analytics`` makes of the values it is given, each raising
``ValueError`` with a message that names the argument and says what is wrong, and the ISO
text of dates in answers.

    >>> at_least(0, "min_games", 1)
    Traceback (most recent call last):
    ...
    ValueError: min_games must be an integer of at least 1, not 0
    >>> date("2024-2-30", "date_from")
    Traceback (most recent call last):
    ...
    ValueError: date_from: not a date: '2024-2-30' (expected YYYY-MM-DD)
"""

from __future__ import annotations

import datetime
from typing import Optional


def text(value, name: str) -> str:
    """``value`` if it is text."""
    if not isinstance(value, str):
        raise ValueError(f"{name} must be text, not {type(value).__name__}")
    return value


def name(value, what: str) -> str:
    """``value`` stripped, if it is text with something in it (a label, a player's name)."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty name, not {value!r}")
    return value.strip()


def date(value, name: str) -> datetime.date:
    """A ``date`` from a date, a datetime (its day) or ISO text."""
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    try:
        return datetime.date.fromisoformat(str(value).strip())
    except ValueError:
        raise ValueError(f"{name}: not a date: {value!r} (expected YYYY-MM-DD)") from None


def choice(value, name: str, choices: tuple):
    """``value`` if it is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, not {value!r}")
    return value


def at_least(value, name: str, minimum: int) -> int:
    """``value`` if it is an integer (not a bool) of at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer of at least {minimum}, not {value!r}")
    return value


def game_id(value) -> int:
    """``value`` if it is an integer (a game's id)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"a game id is an integer, not {value!r}")
    return value


def iso(value) -> Optional[str]:
    """A date as ISO text (None stays None)."""
    return value.isoformat() if value is not None else None


def iso_dates(rows: list, *columns) -> list:
    """``rows`` with the dates of ``columns`` as ISO text (in place)."""
    for row in rows:
        for column in columns:
            row[column] = iso(row.get(column))
    return rows
