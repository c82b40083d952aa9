"""Numbers as records write them: ASCII digits, and no more of them than a record can mean.

A move number, a count or a time in a record has a few digits. A run of thousands is no number
any record means (a damaged or hostile file), and converting it would cost time that grows with
the square of its length (Python refuses past 4,300 digits, so one such run would stop a whole
file). Every reader takes a number only from text ``ascii_digits`` accepts, which bounds its
length::

    >>> ascii_digits("12"), ascii_digits("１２"), ascii_digits("²"), ascii_digits("")
    (True, False, False, False)
    >>> ascii_digits("9" * MAX_DIGITS), ascii_digits("9" * (MAX_DIGITS + 1))
    (True, False)
"""

from __future__ import annotations

from typing import Final

#: The most digits of a number a record may write (any such number fits in 64 bits).
MAX_DIGITS: Final = 18


def ascii_digits(text: str) -> bool:
    """True if ``text`` is one to ``MAX_DIGITS`` ASCII digits (``str.isdigit`` alone accepts
    '²' and '７')."""
    return 0 < len(text) <= MAX_DIGITS and text.isascii() and text.isdigit()
