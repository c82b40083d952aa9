"""What kifudb writes must not act on what reads it: a terminal, a spreadsheet, a JSON reader.
Records are hostile input — a player's name, a comment, a file name may hold anything.

- ``printable(text)``: for terminals. Control characters (C0, DEL, C1), the Unicode line and
  paragraph separators and the bidirectional overrides and isolates become visible escapes
  (``\\x1b``, ``\\n``, ``\\u202e``), so that a record cannot clear the screen, set the window's
  title, ring the bell, move the cursor, start a new line inside a field or turn text around.
  Everything else — Japanese text, full-width characters, emoji — is left as it is::

      >>> printable("羽生善治\\x1b]0;pwned\\x07\\nnext")
      '羽生善治\\\\x1b]0;pwned\\\\x07\\\\nnext'
      >>> printable("▲７六歩　(77)")
      '▲７六歩　(77)'

- ``csv_cell(value)`` and ``csv_text(columns, rows)``: for spreadsheets (the OWASP rule against
  CSV injection). A text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
  return gets a leading ``'``, so that a spreadsheet shows it instead of running it as a
  formula; numbers (int, float, Decimal) stay numbers, a negative one included::

      >>> csv_cell("=HYPERLINK(\\"http://x\\")"), csv_cell(-3), csv_cell("-3"), csv_cell(None)
      ('\\'=HYPERLINK("http://x")', -3, "'-3", '')

- ``json_text(data)``: ``json.dumps`` with ``ensure_ascii=False`` escapes C0 controls but
  writes DEL, C1 controls (U+009B is a CSI on some terminals) and U+2028/U+2029 as they are;
  this escapes them too (the same JSON value)::

      >>> json_text({"name": "a\\x1b\\x9bb"})
      '{"name": "a\\\\u001b\\\\u009bb"}'
"""

from __future__ import annotations

import csv
import decimal
import io
import json
import re
from typing import Iterable

__all__ = ["printable", "csv_cell", "csv_text", "json_text"]

# C0, DEL, C1; line and paragraph separators; bidi embeddings, overrides and isolates
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_UNSAFE_LINES = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(value, lines: bool = False) -> str:
    """``value`` as text a terminal shows as it is: controls become escapes (``\\x1b``,
    ``\\n``); with ``lines`` True, newlines are kept (a message of several lines)."""
    text = value if isinstance(value, str) else str(value)
    return (_UNSAFE_LINES if lines else _UNSAFE).sub(_escape, text)


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """A cell a spreadsheet will not run: text starting with = + - @ tab or CR gets a leading
    ``'``; numbers stay as they are; None is empty; anything else becomes its text first."""
    if value is None:
        return ""
    if isinstance(value, (int, float, decimal.Decimal)):  # bool too: written True/False
        return value
    text = value if isinstance(value, str) else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def csv_text(columns: list, rows: Iterable, lineterminator: str = "\r\n") -> str:
    """CSV with a header of ``columns`` and one line per row (a sequence of cells, or a dict
    read by column name), every cell through ``csv_cell``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=lineterminator)
    writer.writerow([csv_cell(c) for c in columns])
    for row in rows:
        cells = [row.get(c) for c in columns] if isinstance(row, dict) else row
        writer.writerow([csv_cell(v) for v in cells])
    return out.getvalue()


_JSON_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_text(data, **options) -> str:
    """``json.dumps(data, ensure_ascii=False, **options)`` with DEL, C1 controls, line
    separators and bidi controls escaped as ``\\uXXXX`` (they can only be inside strings)."""
    text = json.dumps(data, ensure_ascii=False, **options)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
