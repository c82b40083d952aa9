"""Read JKF (JSON Kifu Format) records into ``GameRecord``s: headers, start, moves, comments, times,
forks (variations) and the declared ending.

The reader checks the shape of the JSON and hands what it says to ``ingest.builder.RecordBuilder``,
which owns the rules every format shares (the start position, moves with their times and comments,
the ending, moves after it, forks as variations with their parents).

Each move keeps its JKF move object as compact JSON (sorted keys) with ``notation="jkf"``; the
replay reads it with ``core.notation.jkf.parse_jkf_move``. ``line`` is the line of the move's
``"move"`` key (JSON has no lines of its own, but people read files with line numbers)::

    >>> text = '''{"header": {"先手": "A", "後手": "B"},
    ...  "moves": [{"comments": ["game comment"]},
    ...   {"move": {"from": {"x": 7, "y": 7}, "to": {"x": 7, "y": 6}, "piece": "FU", "color": 0},
    ...    "time": {"now": {"m": 0, "s": 12}, "total": {"h": 0, "m": 0, "s": 12}}},
    ...   {"move": {"from": {"x": 3, "y": 3}, "to": {"x": 3, "y": 4}, "piece": "FU", "color": 1},
    ...    "comments": ["a reply"],
    ...    "forks": [[{"move": {"from": {"x": 8, "y": 3}, "to": {"x": 8, "y": 4}, "piece": "FU", "color": 1}},
    ...               {"special": "TORYO"}]]},
    ...   {"special": "CHUDAN"}]}'''
    >>> [game] = read_jkf(text, source="demo.jkf")
    >>> game.headers, game.comments, len(game.moves)
    ({'先手': 'A', '後手': 'B'}, ['game comment'], 2)
    >>> first = game.moves[0]
    >>> first.text, first.line, first.notation, first.seconds, first.total_seconds
    ('{"color":0,"from":{"x":7,"y":7},"piece":"FU","to":{"x":7,"y":6}}', 3, 'jkf', 12, 12)
    >>> game.ending.word, game.ending.mover, game.ending.line
    ('CHUDAN', 0, 9)
    >>> [(v.start_ply, v.parent, len(v.moves), v.ending.word, v.ending.mover) for v in game.variations]
    [(2, None, 1, 'TORYO', 0)]

Bad input never raises: invalid JSON, or a document not shaped like JKF, gives a ``GameRecord`` with
an error ``Finding`` saying where (line and column for JSON errors, a JKF path such as
``moves[12].forks[0][3]`` for the rest) and what is wrong, keeping everything that could be read::

    >>> [game] = read_jkf('{"header": {}, "moves": [{}, {"move": ')
    >>> print(game.findings[0])
    error unparsable_file (line 1): not valid JSON at line 1, column 39: Expecting value

Several JSON documents in one file (concatenated, or one per line) are read as one game each.
"""

from __future__ import annotations

import json
import math
import re
from typing import Optional

from kifudb.core.handicap import canonical_name
from kifudb.core.kifu import ENDING_WORDS
from kifudb.core.numbers import MAX_DIGITS
from kifudb.core.pieces import CSA_TYPES, HAND_TYPES, piece, square
from kifudb.core.position import sfen_of
from kifudb.ingest.builder import Dialect, RecordBuilder
from kifudb.ingest.record import GameRecord, ERROR, WARNING

#: The ``special`` words JKF defines (CSA's ``%`` codes and a few more).
SPECIALS = ENDING_WORDS["jkf"]
#: What JKF calls the things the builder checks (``ingest.builder``).
DIALECT = Dialect("jkf", frozenset(SPECIALS), f"JKF's specials ({', '.join(SPECIALS)})",
                  unknown_ending="unknown_special", second_ending="second_ending",
                  after_ending="move_after_ending")

_TOP_KEYS = ("header", "initial", "moves")
_ENTRY_KEYS = ("move", "special", "time", "comments", "forks")
_SPACE = re.compile(r"[\s\ufeff]*")
_SNIFF = re.compile(r'"(?:header|moves|initial)"\s*:')
_LOCATED_KEYS = re.compile(r'"(?:move|special)"\s*:')
def _json_int(text: str):
    """A JSON integer; one of more than ``MAX_DIGITS`` digits reads as infinity, which no field
    of a record accepts (converting all its digits would take time that grows with the square
    of their number)."""
    return int(text) if len(text) - text.startswith("-") <= MAX_DIGITS else float(text)


_DECODER = json.JSONDecoder(parse_int=_json_int)
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def looks_like_jkf(text: str) -> bool:
    """True if ``text`` starts like a JKF document: a JSON object with a ``header``, ``moves`` or
    ``initial`` key near its start. Cheap: nothing is parsed.

    >>> looks_like_jkf('{"header": {}, "moves": [{}]}'), looks_like_jkf('[1, 2]')
    (True, False)
    >>> looks_like_jkf("手合割：平手"), looks_like_jkf('{"name": "not a record"}')
    (False, False)
    """
    if not isinstance(text, str):
        return False
    head = text[:8192]
    start = _SPACE.match(head).end()
    return head[start:start + 1] == "{" and _SNIFF.search(head, start) is not None


def read_jkf(text: str, source: str = "", encoding: str = "") -> list:
    """The games of a JKF text, one ``GameRecord`` per JSON document; never raises.

    >>> [game] = read_jkf('{"header": {}, "initial": {"preset": "KY"}, "moves": [{}]}')
    >>> game.start_sfen, game.handicap, game.findings
    ('lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1', '香落ち', [])
    >>> [game] = read_jkf('[]')
    >>> print(game.findings[0])
    error unparsable_file (line 1): a JKF document is a JSON object with "header" and "moves", not an array
    """
    if not isinstance(text, str):
        record = GameRecord(source, 0, "jkf", encoding)
        record.add(ERROR, "unparsable_file", f"a JKF record must be text, not {type(text).__name__}")
        return [record]
    games = []
    position = _SPACE.match(text).end()
    while True:
        if position >= len(text) and games:
            return games
        builder = RecordBuilder(source, len(games), "jkf", encoding, DIALECT,
                                text.count("\n", 0, position) + 1)
        builder.recognise()  # the sniffing saw a JKF document: each one is a game's record
        record = builder.record
        games.append(record)
        try:
            document, end = _DECODER.raw_decode(text, position)
        except json.JSONDecodeError as error:
            where = f"line {error.lineno}, column {error.colno}"
            what = "no JSON document (the text is empty)" if not text.strip() else \
                f"not valid JSON at {where}: {error.msg}"
            record.add(ERROR, "unparsable_file", what, line=error.lineno,
                       text=text[error.pos:error.pos + 40])
            return games
        except (ValueError, RecursionError) as error:  # e.g. a document nested too deeply
            record.add(ERROR, "unparsable_file", f"not readable as JSON: {error}",
                       line=record.first_line)
            return games
        try:
            _Reader(builder, _key_lines(text, position, end, document)).read(document)
            builder.finish()
        except RecursionError:
            record.add(ERROR, "unparsable_file", "the document is nested too deeply to read",
                       line=record.first_line)
        except Exception as error:  # a safety net: one bad document must not stop the ingest
            record.add(ERROR, "unparsable_file", f"could not read the document "
                       f"({type(error).__name__}: {error})", line=record.first_line)
        position = _SPACE.match(text, end).end()


# ----- where things are -----------------------------------------------------------------------


def _key_lines(text: str, start: int, end: int, document) -> dict:
    """The line of every ``"move"`` and ``"special"`` key of ``document``, which is
    ``text[start:end]``: ``{(id(owner object), key): line}``.

    The keys are found in the text with a regular expression (a key's opening quote is never
    escaped; a quote inside a string always is) and matched, in order, with the keys met walking
    the document's move entries in text order (the order of a dict's keys). If the counts differ
    (a duplicate key, or "move" somewhere JKF has none), no lines are given.
    """
    lines = []
    line, previous = text.count("\n", 0, start) + 1, start
    for match in _LOCATED_KEYS.finditer(text, start, end):
        at = match.start()
        slashes = 0
        while text[at - 1 - slashes] == "\\":
            slashes += 1
        if slashes % 2:
            continue  # inside a string: \"move\":
        line += text.count("\n", previous, at)
        previous = at
        lines.append(line)
    if not lines or not isinstance(document, dict):
        return {}
    order: list = []
    try:
        for key, value in document.items():
            if key == "moves" and isinstance(value, list):
                _entry_keys(value, order)
            else:
                _all_keys(document if key in ("move", "special") else None, key, value, order)
    except RecursionError:
        return {}
    return dict(zip(order, lines)) if len(order) == len(lines) else {}


def _entry_keys(entries: list, order: list) -> None:
    """Append the ``(id, key)`` of each move entry's "move" and "special" key, forks included,
    in text order; other values of an entry (times, comments) are not looked into."""
    for entry in entries:
        if not isinstance(entry, dict):
            _all_keys(None, None, entry, order)
            continue
        for key, value in entry.items():
            if key == "move" or key == "special":
                order.append((id(entry), key))
            elif key == "forks" and isinstance(value, list):
                for fork in value:
                    if isinstance(fork, list):
                        _entry_keys(fork, order)


def _all_keys(owner, key, value, order: list) -> None:
    """Append every "move" and "special" key in ``value`` (and ``key`` itself, of ``owner``)."""
    if owner is not None:
        order.append((id(owner), key))
    if isinstance(value, dict):
        for k, v in value.items():
            _all_keys(value if k in ("move", "special") else None, k, v, order)
    elif isinstance(value, list):
        for v in value:
            _all_keys(None, None, v, order)


def _compact(value) -> str:
    """JSON text of a value, as ``MoveRecord.text`` keeps a JKF move: compact, keys sorted."""
    return _ENCODER.encode(value)


def _number(value) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


class _BadStart(ValueError):
    """``initial`` does not describe a position."""


def _colour(value, where: str) -> int:
    if value is True or value is False:  # the first JKF versions: true = Black (先手)
        return 0 if value else 1
    if value in (0, 1) and isinstance(value, int):
        return value
    raise _BadStart(f"{where} must be 0 (Black) or 1 (White), not {_compact(value)}")


def _sfen_of_data(data) -> str:
    """The SFEN of ``initial.data``: ``color`` to move, ``board[x-1][y-1]``, ``hands``."""
    if not isinstance(data, dict):
        raise _BadStart("initial.data must be an object with color, board and hands")
    if "color" not in data:
        raise _BadStart("initial.data has no 'color' (the side to move)")
    side = _colour(data["color"], "initial.data.color")
    board = data.get("board")
    if board is None or board == {}:
        board = [[{}] * 9 for _ in range(9)]
    if not (isinstance(board, list) and len(board) == 9
            and all(isinstance(column, list) and len(column) == 9 for column in board)):
        raise _BadStart("initial.data.board must be 9 columns (x = 1..9) of 9 squares (y = 1..9)")
    codes = [0] * 81
    for y in range(9):
        for x in range(8, -1, -1):
            cell = board[x][y]
            where = f"initial.data.board[{x}][{y}] (square {x + 1}{y + 1})"
            if not isinstance(cell, dict):
                raise _BadStart(f"{where} must be an object like {{\"color\": 0, \"kind\": \"FU\"}}")
            kind = cell.get("kind")
            if kind is None:
                continue
            t = CSA_TYPES.get(kind) if isinstance(kind, str) else None
            if t is None:
                raise _BadStart(f"{where}: unknown piece kind {_compact(kind)}")
            codes[square(x + 1, y + 1)] = piece(_colour(cell.get("color"), f"{where} color"), t)
    hands = data.get("hands")
    if hands is None:
        hands = [{}, {}]
    if not (isinstance(hands, list) and len(hands) == 2 and all(isinstance(h, dict) for h in hands)):
        raise _BadStart("initial.data.hands must be two objects (Black's, White's) of piece counts")
    counts = [[0] * 8, [0] * 8]
    for colour, hand in enumerate(hands):
        for code, count in hand.items():
            t = CSA_TYPES.get(code)
            if t not in HAND_TYPES:
                raise _BadStart(f"initial.data.hands[{colour}]: {code!r} cannot be held in hand")
            if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= 18:
                raise _BadStart(f"initial.data.hands[{colour}].{code}: {_compact(count)} "
                                "is not a count of pieces")
            counts[colour][t] = count
    return sfen_of(codes, counts, side)


# ----- reading a document ----------------------------------------------------------------------


class _Reader:
    """Reads one parsed JKF document: recognises its objects (header, initial, move entries,
    forks) and hands what they say to ``builder``; ``lines`` locates move and special keys.
    What is not shaped like JKF is reported here, with its JKF path (``moves[12].forks[0][3]``)."""

    def __init__(self, builder: RecordBuilder, lines: dict):
        self.b = builder
        self.record = builder.record
        self.lines = lines
        self.unknown: dict = {}  # unknown entry key -> (count, first path, first line)

    def line(self, owner, key: str) -> Optional[int]:
        """The line of ``owner``'s ``"move"`` or ``"special"`` key, if it was located."""
        return self.lines.get((id(owner), key))

    def read(self, document) -> None:
        """The whole document: header, initial and the main line (``moves[0]`` holds the comments
        on the start). Findings: ``unparsable_file`` (not an object, no ``moves`` list),
        ``unknown_key``, ``first_entry_is_move``."""
        b = self.b
        first_line = self.record.first_line
        if not isinstance(document, dict):
            kind = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
                type(document), "a number")
            b.add(ERROR, "unparsable_file", 'a JKF document is a JSON object with "header" '
                  f'and "moves", not {kind}', first_line)
            return
        extra = [key for key in document if key not in _TOP_KEYS]
        if extra:
            b.add(WARNING, "unknown_key", "keys JKF does not define, ignored: " +
                  ", ".join(f"{key} = {_compact(document[key])[:60]}" for key in extra),
                  first_line)
        self.read_header(document.get("header"))
        self.read_initial(document.get("initial"))
        moves = document.get("moves")
        if "moves" not in document:
            b.add(ERROR, "unparsable_file", 'the document has no "moves" list: not a JKF '
                  "record (or an empty one)", first_line)
            return
        if not isinstance(moves, list):
            b.add(ERROR, "unparsable_file", f'"moves" must be a list, not {_compact(moves)[:60]}',
                  first_line)
            return
        entries = moves
        if moves:
            first = moves[0]
            if isinstance(first, dict) and (first.get("move") is not None
                                            or first.get("special") is not None):
                b.add(WARNING, "first_entry_is_move", "moves[0] holds a move or special, "
                      "though JKF keeps moves[0] for comments on the start position: "
                      "read as ply 1", self.line(first, "move") or first_line)
            else:
                entries = moves[1:]
                self.read_start_entry(first)
        self.read_line(entries, "moves", len(moves) - len(entries))
        for key, (count, path, line) in self.unknown.items():
            b.add(WARNING, "unknown_key", f"{count} move entr{'ies' if count > 1 else 'y'} "
                  f"hold the key {key!r}, which JKF does not define (first at {path}): ignored",
                  line)

    def read_header(self, header) -> None:
        """``header``: each key and text value to the builder; a value that is not text is kept as
        its JSON text (``header_not_text``)."""
        b = self.b
        if header is None:
            return
        if not isinstance(header, dict):
            b.add(ERROR, "unparsable_file", f'"header" must be an object of texts, not '
                  f"{_compact(header)[:60]}: ignored", self.record.first_line)
            return
        for key, value in header.items():
            if not isinstance(value, str):
                b.add(WARNING, "header_not_text", f"header {key!r} is {_compact(value)[:60]}, "
                      "not text: kept as its JSON text", self.record.first_line)
                value = _compact(value)
            b.header(key, value)

    def read_initial(self, initial) -> None:
        """``initial``: a ``preset`` (a handicap name) or, with ``OTHER``, the board of ``data``
        for the builder to settle the start. One that describes no position leaves the record
        without a start (``""``: the replay plays nothing) and is reported
        (``bad_start_position``, an error); ``data`` beside another preset is only compared
        (``start_position_mismatch``)."""
        b = self.b
        if initial is None:
            return
        first_line = self.record.first_line
        try:
            if not isinstance(initial, dict):
                raise _BadStart(f'"initial" must be an object with "preset", not '
                                f"{_compact(initial)[:60]}")
            preset, data = initial.get("preset"), initial.get("data")
            if preset == "OTHER" or (preset is None and data is not None):
                b.start(_sfen_of_data(data), line=first_line, check=True)
            elif preset is None:
                b.add(WARNING, "bad_start_position", '"initial" has no "preset": the even '
                      "start is assumed", first_line)
            else:
                if not isinstance(preset, str):
                    raise _BadStart(f"unknown preset {_compact(preset)[:40]}")
                try:
                    name = canonical_name(preset)
                except KeyError:
                    raise _BadStart(f"unknown preset {preset!r}; JKF's are HIRATE, KY, KY_R, KA, "
                                    "HI, HIKY, 2, 3, 4, 5, 5_L, 6, 7_L, 7_R, 8, 10 and OTHER") from None
                b.start(name=name)
                if data is not None:
                    self.compare_data(preset, data)
        except _BadStart as error:
            b.start("")  # no start position: the replay reports it, plays nothing
            b.add(ERROR, "bad_start_position", f"initial: {error}", first_line)

    def compare_data(self, preset: str, data) -> None:
        """``data`` given beside a preset: reported when it is no position or another one
        (``start_position_mismatch``); the preset stays the start."""
        try:
            sfen = _sfen_of_data(data)
        except _BadStart as error:
            message = f"initial.data is not a position ({error})"
        else:
            if sfen.split()[:3] == self.record.start_sfen.split()[:3]:
                return
            message = f"initial.data ({sfen}) is not the position of the preset"
        self.b.add(WARNING, "start_position_mismatch", f"{message}; the preset {preset!r} "
                   "is used", self.record.first_line)

    def read_start_entry(self, entry) -> None:
        """``moves[0]``: the comments on the start position (``comments``, or the schema's
        ``comment``); anything else in it is reported (``unknown_key``)."""
        b = self.b
        if not isinstance(entry, dict):
            b.add(WARNING, "unparsable_move", f"moves[0] should be an object (comments on the "
                  f"start position), not {_compact(entry)[:60]}: ignored", self.record.first_line)
            return
        comments = self.comments(entry, "moves[0]")
        if entry.get("comment") is not None:  # the schema's spelling for moves[0]
            comments += self.comments(entry, "moves[0]", "comment")
        for body in comments:
            b.comment(body, self.record.first_line)
        extra = [key for key in entry if key not in ("comments", "comment")]
        if extra:
            b.add(WARNING, "unknown_key", f"moves[0] (the start position) holds "
                  f"{', '.join(extra)}: ignored", self.record.first_line)

    def comments(self, entry: dict, path: str, key: str = "comments") -> list:
        """The comments of an entry as texts; what is not text is kept as its JSON text
        (``bad_comment``)."""
        value = entry.get(key)
        if value is None:
            return []
        if isinstance(value, str):
            return value.split("\n")
        if not isinstance(value, list):
            self.b.add(WARNING, "bad_comment", f"{path}.{key} is not a list of texts: kept as its "
                       "JSON text", text=_compact(value)[:60])
            return [_compact(value)]
        out = []
        for item in value:
            if not isinstance(item, str):
                self.b.add(WARNING, "bad_comment", f"{path}.{key} holds {_compact(item)[:40]}, "
                           "not text: kept as its JSON text")
                item = _compact(item)
            out.append(item)
        return out

    def time(self, entry: dict, path: str, ply: int, line) -> tuple:
        """``(seconds, total)`` of an entry's ``time``; one not shaped like JKF's is reported
        (``bad_time``) and keeps what could be read."""
        value = entry.get("time")
        if value is None:
            return None, None
        spent = total = None
        if isinstance(value, dict):
            spent, total = _seconds(value.get("now")), _seconds(value.get("total"))
        if spent is None or total is None:
            good = ", ".join(k for k, v in (("now", spent), ("total", total)) if v is not None)
            self.b.add(WARNING, "bad_time", f"{path}.time is not "
                       '{"now": {"m", "s"}, "total": {"h", "m", "s"}}'
                       + (f" (kept: {good})" if good else ""), line, ply, _compact(value)[:80])
        return spent, total

    def read_line(self, entries: list, path: str, first_index: int) -> None:
        """Read ``entries`` (the move entries at ``path``, from ``first_index``) into the builder's
        current line: a ``move`` with its time and comments, a ``special`` as the line's ending,
        the comments of an entry without a move on what came before, ``forks`` as variations.
        Findings: ``unparsable_move`` (an entry or move that is not an object, kept so the replay
        stops there), ``empty_entry``, ``bad_time``, ``bad_comment``, unknown keys (counted)."""
        b = self.b
        for index, entry in enumerate(entries, start=first_index):
            where = f"{path}[{index}]"
            ply = b.current.ply  # the ply of the entry's move, and where its forks branch
            if not isinstance(entry, dict):
                b.add(ERROR, "unparsable_move", f"{where} should be a move entry (an object with "
                      f"move, special, time, comments, forks), not {_compact(entry)[:60]}",
                      ply=ply, text=_compact(entry)[:80])
                b.move(_compact(entry), raw=where)  # the replay stops here
                continue
            for key in entry:
                if key not in _ENTRY_KEYS:
                    count, first, line = self.unknown.get(key, (0, where, None))
                    if not count:
                        line = self.line(entry, "move") or self.line(entry, "special")
                    self.unknown[key] = (count + 1, first, line)
            move, special = entry.get("move"), entry.get("special")
            comments = self.comments(entry, where)
            if move is not None:
                line = self.line(entry, "move")
                written = b.move(_compact(move), line, comments=comments, raw=where)
                if not isinstance(move, dict):
                    b.add(ERROR, "unparsable_move", f"{where}.move should be an object with from, "
                          f"to and piece, not {_compact(move)[:60]}", line, ply,
                          _compact(move)[:80])
                written.seconds, written.total_seconds = self.time(entry, where, ply, line)
            if special is not None:
                line = self.line(entry, "special")
                word = special if isinstance(special, str) else _compact(special)
                spent = None if move is not None else self.time(entry, where, ply, line)[0]
                b.end(word, line, spent, where)
            if move is None:
                if special is None:
                    b.add(WARNING, "empty_entry", f"{where} holds no move and no special"
                          + (": its comments go with the move before" if comments else ""),
                          ply=ply)
                for body in comments:
                    b.comment(body, self.line(entry, "special"))
            forks = entry.get("forks")
            if forks is not None:
                self.read_forks(forks, ply, where)

    def read_forks(self, forks, ply: int, where: str) -> None:
        """``forks`` of the entry at ``where``: each a variation from ``ply`` of the current line,
        opened in the builder, read, and closed. One that is not a non-empty list is reported
        (``bad_fork``)."""
        b = self.b
        if not isinstance(forks, list):
            b.add(WARNING, "bad_fork", f"{where}.forks should be a list of move lists, not "
                  f"{_compact(forks)[:60]}: ignored", ply=ply)
            return
        for number, fork in enumerate(forks):
            path = f"{where}.forks[{number}]"
            if not isinstance(fork, list) or not fork:
                b.add(WARNING, "bad_fork", f"{path} should be a non-empty list of move "
                      f"entries, not {_compact(fork)[:60]}: ignored", ply=ply)
                continue
            first = fork[0]
            line = (self.line(first, "move") or self.line(first, "special")
                    if isinstance(first, dict) else None)
            b.begin_variation(ply, line)
            self.read_line(fork, path, 0)
            b.end_variation()


def _seconds(value) -> Optional[float]:
    """Seconds of a JKF time ``{"h": …, "m": …, "s": …}`` (``h`` optional), or None."""
    if not isinstance(value, dict) or not _number(value.get("m")) or not _number(value.get("s")):
        return None
    hours = value.get("h")
    if hours is not None and not _number(hours):
        return None
    return (hours or 0) * 3600 + value["m"] * 60 + value["s"]


__all__ = ["read_jkf", "looks_like_jkf", "SPECIALS"]
