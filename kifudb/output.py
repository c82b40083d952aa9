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

And two helpers for what every command writes: ``plural(n, "file")`` (``1 file``, ``2 files``),
and ``PathNames``, which shows a record's path relative to the folder it was found in (or the
current folder), so that a row is not 260 characters of the same prefix.
"""

from __future__ import annotations

import csv
import decimal
import io
import json
import os
import re
from typing import Iterable, Optional

__all__ = ["printable", "csv_cell", "csv_text", "json_text", "plural", "PathNames",
           "CSV_BOM", "progress_option", "replaced_files"]

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


#: The UTF-8 byte-order mark a CSV file starts with, so that a spreadsheet (Excel) reads it as
#: UTF-8 and not in the machine's code page (Japanese names would come out garbled).
CSV_BOM = "\ufeff"


_IRREGULAR = {"batch": "batches", "match": "matches", "entry": "entries"}


def plural(count: int, word: str, words: Optional[str] = None) -> str:
    """``count`` and ``word``, in the plural unless ``count`` is 1 (``words``, or the word with
    an ``s``); the one way every command counts things.

    >>> plural(1, "file"), plural(2, "file"), plural(0, "occurrence"), plural(3, "batch")
    ('1 file', '2 files', '0 occurrences', '3 batches')
    >>> plural(1, "game", "games"), plural(1_500, "move")
    ('1 game', '1500 moves')
    """
    if count == 1:
        return f"{count} {word}"
    return f"{count} {words or _IRREGULAR.get(word) or word + 's'}"


def replaced_files(paths: list, shown: int = 4) -> str:
    """What ``--overwrite`` wrote over, said in one line (empty when nothing was).

    >>> replaced_files(["out/a.csa"]), replaced_files([])
    ('1 file replaced: out/a.csa', '')
    >>> replaced_files([f"{n}.kif" for n in range(6)])
    '6 files replaced: 0.kif, 1.kif, 2.kif, 3.kif and 2 more'
    """
    if not paths:
        return ""
    more = len(paths) - shown
    listed = ", ".join(map(str, paths[:shown])) + (f" and {more} more" if more > 0 else "")
    return printable(f"{plural(len(paths), 'file')} replaced: {listed}")


def progress_option(command):
    """``--progress/--no-progress``: a progress bar on standard error (by default when it is a
    terminal); the command gets ``progress`` True or False (see ``wants_progress``)."""
    import click

    return click.option("--progress/--no-progress", default=None,
                        help="A progress bar: bytes read and games found (default: on a "
                             "terminal).")(command)


def wants_progress(progress: Optional[bool]) -> bool:
    """The ``--progress`` choice, or whether standard error is a terminal."""
    import sys

    return sys.stderr.isatty() if progress is None else progress


class PathNames:
    """How a command shows the paths of the records it read from ``arguments`` (the files,
    folders and globs given): a path inside a folder given is shown relative to that folder
    (``folders`` says which, for a line above), any other relative to the current folder
    when it is inside it, else as it is.

    >>> names = PathNames(["data/samples"])
    >>> names("data/samples/records/illegal_move.kif"), names("/elsewhere/x.kif")
    ('records/illegal_move.kif', '/elsewhere/x.kif')
    >>> names.folders
    ['data/samples']
    """

    def __init__(self, arguments=(), relative_to_folders: bool = True):
        self.folders = [str(a) for a in arguments
                        if relative_to_folders and os.path.isdir(str(a))]
        self._roots = sorted(((os.path.abspath(f), f) for f in self.folders),
                             key=lambda pair: -len(pair[0]))
        self._here = os.getcwd()

    def folder_of(self, path) -> Optional[str]:
        """The folder given that holds ``path`` (as given), or None (also for the current
        folder, which needs no saying)."""
        absolute = os.path.abspath(str(path))
        for root, given in self._roots:
            if absolute.startswith(root.rstrip(os.sep) + os.sep):
                return None if root == self._here else given
        return None

    def __call__(self, path) -> str:
        if path is None:
            return ""
        text = str(path)
        absolute = os.path.abspath(text)
        for root, _ in self._roots:
            if absolute.startswith(root.rstrip(os.sep) + os.sep):
                return os.path.relpath(absolute, root)
        if os.path.isabs(text) and absolute.startswith(self._here.rstrip(os.sep) + os.sep):
            return os.path.relpath(absolute, self._here)
        return text
