"""Read the one-line "csa1" (2chkifu) format: two lines a game, a header and all its moves.

The header line is ``<no> <date> <black> <white> <result> <plies> <event> <opening>`` (result
``0`` draw, ``1`` Black won, ``2`` White won); the next line is every move as a 6-character CSA
token without a sign, all run together. Every game starts from the even position::

    >>> text = "1 2003/09/08 Habu Tanigawa 2 3 王位戦 その他の戦型\\n7776FU3334FU2726FU\\n"
    >>> [game] = read_csa1(text, source="2chkifu.csa1")
    >>> game.headers["black"], game.headers["result"], [m.text for m in game.moves]
    ('Habu', '2', ['7776FU', '3334FU', '2726FU'])
    >>> game.moves[0].line, game.moves[0].notation, game.format
    (2, 'csa', 'csa1')

Names may contain spaces (apery's ``kifu.csa1`` has ``the end of genesis T.N.K.evolution turbo
type D``). The fields around the names are fixed, so the words between the date and the result
are the two names; when there are more than two words, the split is settled by names that the
same file spells unambiguously elsewhere. A header that cannot be split keeps the words in
header ``players`` and gets an ``ambiguous_players`` finding. Header keys: ``no``, ``date`` (apery
writes a file name there), ``black``, ``white``, ``result``, ``plies``, ``event``, ``opening``.
"""

from __future__ import annotations

from kifudb.core.pieces import CSA_TYPES
from kifudb.core.numbers import ascii_digits
from kifudb.ingest.builder import Dialect, RecordBuilder
from kifudb.ingest.record import GameRecord, ERROR, WARNING, read_safely

__all__ = ["read_csa1", "looks_like_csa1"]

#: csa1 writes a result in its header, not an ending: the builder reads CSA moves, nothing else.
DIALECT = Dialect("csa", frozenset(), "csa1's endings (it has none)")
_PIECE_CODES = frozenset(CSA_TYPES)
_RESULTS = {"0": "draw", "1": "black", "2": "white"}


def _is_move_line(line: str) -> bool:
    """True if ``line`` begins like a run of unsigned CSA moves (``7776FU3334FU…``)."""
    return (len(line) >= 6 and " " not in line and ascii_digits(line[:4])
            and line[4:6] in _PIECE_CODES)


def _is_header(line: str) -> bool:
    fields = line.split()
    return len(fields) >= 2 and ascii_digits(fields[0])


def read_csa1(text: str, source: str = "", encoding: str = "") -> list:
    """The games of a csa1 text; never raises. A text with no game gives one record with a
    ``no_game`` finding."""
    return read_safely(lambda clean: _read(clean, source, encoding), text, source, encoding,
                       "csa1", "csa1")


def _read(text: str, source: str, encoding: str) -> list:
    games: list = []  # the builders of the games
    known: set = set()  # player names read from headers with exactly two name words
    pending: list = []  # (builder, name words, line number, line) of the other headers
    game = None
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        if _is_move_line(line):
            if game is None or game.record.moves:
                what = "no header line before it" if game is None else "a second move line"
                game = _new_game(games, source, encoding, number)
                game.add(WARNING, "unparsable_line", f"a csa1 move line with {what}; read as a "
                         f"game of its own", number, text=line)
            _moves(game, line, number)
            continue
        if not _is_header(line):
            if game is None:
                game = _new_game(games, source, encoding, number)
            game.add(WARNING, "unparsable_line", "neither a csa1 header (<no> <date> <black> "
                     "<white> <result> <plies> <event> <opening>) nor a line of moves "
                     "(7776FU3334FU...)", number, text=line)
            continue
        game = _new_game(games, source, encoding, number)
        words = line.split()
        if len(words) < 8:
            game.header("header", line)
            game.add(WARNING, "unparsable_line", "a csa1 header needs at least 8 fields: "
                     "<no> <date> <black> <white> <result> <plies> <event> <opening>",
                     number, text=line)
            continue
        game.recognise()  # a whole csa1 header: the line that starts a game
        for key, value in (("no", words[0]), ("date", words[1]), ("result", words[-4]),
                           ("plies", words[-3]), ("event", words[-2]), ("opening", words[-1])):
            game.header(key, value)
        if words[-4] not in _RESULTS:
            game.add(WARNING, "unparsable_line", f"result {words[-4]!r} is not 0 (draw), "
                     "1 (Black won) or 2 (White won)", number, text=line)
        names = words[2:-4]
        if len(names) == 2:
            game.header("black", names[0])
            game.header("white", names[1])
            known.update(names)
        else:
            pending.append((game, names, number, line))
    _split_names(pending, known)
    for game in games:
        headers = game.record.headers
        winner = _RESULTS.get(headers.get("result"))
        if winner is not None:  # the winner, but not how the game was won
            game.result(f"result={headers['result']}", game.record.first_line, winner)
        plies = headers.get("plies")
        if plies is not None and ascii_digits(plies):
            game.stated_moves(int(plies), game.record.first_line, "the header")
    if not games:
        record = GameRecord(source=source, index=0, format="csa1", encoding=encoding)
        record.add(ERROR, "no_game", "no csa1 game in the text")
        return [record]
    return [game.finish() for game in games]


def _new_game(games: list, source: str, encoding: str, number: int) -> RecordBuilder:
    game = RecordBuilder(source, len(games), "csa1", encoding, DIALECT, number)
    games.append(game)
    return game


def _moves(game: RecordBuilder, line: str, number: int) -> None:
    """A line of unsigned CSA moves, 6 characters each, for the builder; what is not a move is
    kept as one (so the plies after it keep their numbers) and reported (``unparsable_line``)."""
    end = len(line) - len(line) % 6
    bad: list[str] = []
    more = 0  # the bad tokens after the first five, counted
    for i in range(0, end, 6):
        token = line[i:i + 6]
        if not (ascii_digits(token[:4]) and token[4:] in _PIECE_CODES):
            if len(bad) < 5:
                bad.append(f"{token!r} at column {i + 1}")
            else:
                more += 1
        game.move(token, number)
    if bad:
        game.add(ERROR, "unparsable_line", f"not CSA moves (kept as moves so the replay reports "
                 f"them at their plies): {', '.join(bad)}" + (f" … and {more:,} more" if more
                                                               else ""),
                 number, text=line)
    if end != len(line):
        game.add(ERROR, "unparsable_line", f"the move line ends with {line[end:]!r}, shorter "
                 f"than a 6-character move", number, text=line[end:])


def _split_names(pending: list, known: set) -> None:
    """Split the name words of headers with other than two, using names the file spells
    unambiguously: a cut is taken when it is the only one with a known name on either side."""
    settled = set()
    progress = True
    while progress:
        progress = False
        for k, (game, names, _, _) in enumerate(pending):
            if k in settled:
                continue
            splits = []
            for cut in range(1, len(names)):
                left, right = " ".join(names[:cut]), " ".join(names[cut:])
                if left in known or right in known:
                    splits.append((left, right))
            if len(splits) == 1:
                game.header("black", splits[0][0])
                game.header("white", splits[0][1])
                known.update(splits[0])
                settled.add(k)
                progress = True
    for k, (game, names, number, line) in enumerate(pending):
        if k not in settled:
            game.header("players", " ".join(names))
            game.add(WARNING, "ambiguous_players", f"cannot tell where Black's name ends in "
                     f"{' '.join(names)!r}; the words are kept in header 'players'", number,
                     text=line)


def looks_like_csa1(text: str) -> bool:
    """True if at least half of the first 40 non-blank lines are games: a csa1 header line
    followed by a line of unsigned moves (so that a junk line before them does not hide them;
    no game in the first four lines is no csa1).

    >>> looks_like_csa1("1 2003/09/08 a b 2 2 e o\\n7776FU3334FU\\n"), looks_like_csa1("PI\\n+\\n")
    (True, False)
    >>> looks_like_csa1("junk\\n1 2003/09/08 a b 2 2 e o\\n7776FU3334FU\\n")
    True
    """
    if not isinstance(text, str):
        return False
    lines = games = start = 0
    previous = ""
    text = text.lstrip("\ufeff")
    while lines < 40 and start < len(text):  # without splitting the whole text
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        line = text[start:min(end, start + 65536)].strip()
        start = end + 1
        if line:
            lines += 1
            if _is_move_line(line) and _is_header(previous) and len(previous.split()) >= 8:
                games += 1
            elif lines == 4 and not games:
                return False
            previous = line
    return games > 0 and 4 * games >= lines
