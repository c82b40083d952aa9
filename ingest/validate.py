"""Replay a ``GameRecord`` through the rules engine and report what is wrong, where and why.

Each move's text is read in its own notation against the position it is played in, then checked
by ``core``. The replay of a line stops at its first unreadable or illegal move (the later moves are
reported as not replayed); variations are replayed from their branch point the same way. The
result carries the keys (and on request the SFENs) of the main line, the normalized result, and a
fingerprint that is the same whatever format the game was read from::

    >>> from kifudb.ingest.record import GameRecord, MoveRecord
    >>> record = GameRecord("demo.usi", 0, "usi", "utf-8")
    >>> record.moves = [MoveRecord(t, line=1) for t in "7g7f 3c3d 7f7e 3d3e 7e7d 3e3f 7d7c+ 3f3g+ P*2e 2b3c".split()]
    >>> game = validate_record(record)
    >>> game.moves, game.first_illegal_ply, game.illegal_code
    (8, 9, 'nifu')
    >>> [str(f) for f in game.findings]  # doctest: +NORMALIZE_WHITESPACE
    ["error nifu (line 1, ply 9) 'P*2e': black already has an unpromoted pawn on file 2 (2g)",
     "info not_replayed (line 1, ply 10) '2b3c': the next move was not replayed"]
"""

from __future__ import annotations

import hashlib
from itertools import islice
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterable, Optional, Union

from kifudb.core.game import Game
from kifudb.core.move import Move
from kifudb.core.notation.csa import parse_csa_move
from kifudb.core.notation.jkf import parse_jkf_move
from kifudb.core.notation.ki2 import parse_ki2_move
from kifudb.core.notation.kif import parse_kif_move
from kifudb.core.notation.written import written_destination
from kifudb.core.position import Position, SfenError
from kifudb.ingest.builder import quote
from kifudb.ingest.headers import game_handicap, header_findings, normalize_headers
from kifudb.ingest.record import ERROR, WARNING, INFO, Finding, Findings, GameRecord, MoveRecord
from kifudb.ingest.result import settle


def _read_usi(position: Position, text: str) -> Move:
    return Move.from_usi(text)


#: notation -> reader(position, text) -> Move (KIF and KI2 read 同 from the position's last move)
READERS: dict[str, Callable[[Position, str], Move]] = {
    "usi": _read_usi, "csa": parse_csa_move, "kif": parse_kif_move, "ki2": parse_ki2_move,
    "jkf": parse_jkf_move}


def read_move(notation: str, position: Position, text: str) -> Move:
    """The move ``text`` says in ``position``, read in its ``notation`` (``READERS``); a
    ``ValueError`` (``NotationError``, bad USI, bad JSON) when it names none. The commonest
    notations are called directly (the compiled build then skips a generic call)::

        >>> read_move("csa", Position(), "+7776FU"), read_move("usi", Position(), "7g7f")
        (Move.from_usi('7g7f'), Move.from_usi('7g7f'))
    """
    if notation == "kif":
        return parse_kif_move(position, text)
    if notation == "csa":
        return parse_csa_move(position, text)
    reader = READERS.get(notation)
    if reader is None:
        raise ValueError(f"no reader for notation {notation!r}")
    return reader(position, text)


@dataclass
class LineReplay:
    """How far one line (the main line or a variation) replayed, and what stopped it."""

    #: the game the line was played in (a variation's is shared with the other variations and
    #: rewound for the next one: ``own_moves`` are the line's own moves)
    game: Optional[Game]
    first_illegal_ply: Optional[int] = None
    illegal_code: Optional[str] = None
    findings: list = field(default_factory=list)
    #: ply -> the position before that ply, where a variation branches off this line
    branches: dict = field(default_factory=dict)
    #: the moves of the line that replayed legally, from its first ply on
    own_moves: list = field(default_factory=list)


@dataclass
class ValidatedGame:
    """A record after replay: the record itself, the replayed main line, and every finding."""

    record: GameRecord
    headers: dict
    start_sfen: str
    moves: int
    usi_moves: list
    keys: list
    first_illegal_ply: Optional[int]
    illegal_code: Optional[str]
    final_sfen: Optional[str]
    winner: str
    reason: str
    fingerprint: str
    findings: list
    game: Optional[Game] = None
    #: for each variation of the record, its own moves that replayed legally (from its branch
    #: point up to its first illegal or unreadable move)
    variations: list = field(default_factory=list)

    @property
    def valid(self) -> bool:
        """True when no finding is an error."""
        return not any(f.severity == ERROR for f in self.findings)

    def sfens(self) -> list:
        """The SFEN of every main-line position (start included), rebuilt by replaying."""
        if self.game is None:
            return []
        replay = Game(self.start_sfen)
        out = [replay.position.sfen()]
        for move in self.game.moves:
            replay.position.push(move)
            out.append(replay.position.sfen())
        return out


def replay_line(start: Union[Game, str], moves: list, first_ply: int = 1,
                branch_plies: Iterable[int] = (), start_line: Optional[int] = None) -> LineReplay:
    """Replay ``moves`` (``MoveRecord``s) from ``start`` (an SFEN, written on the record's line
    ``start_line``, or a ``Game`` to go on with); ``first_ply`` is the ply number of the first
    of ``moves``. The position before each
    ply of ``branch_plies`` (where variations branch off this line) is kept in
    ``LineReplay.branches``, so that each variation starts from it without replaying the line:
    each move of a record is played once, however many variations it has (``validate_record``
    plays the variations in one game, rewound to each one's branch point: ``Game.rewind``)."""
    if isinstance(start, Game):
        game = start
    else:
        try:
            game = Game(start)
        except SfenError as bad_start:
            return LineReplay(None, first_ply if moves else None, "bad_start_position",
                              [Finding(ERROR, "bad_start_position", str(bad_start),
                                       start_line)])
    result = LineReplay(game)
    position = game.position
    played_before = game.ply
    wanted = set(branch_plies)
    record: MoveRecord
    for i, record in enumerate(moves):
        if wanted and first_ply + i in wanted:
            result.branches[first_ply + i] = position.copy(last_move=True)
        try:
            move = read_move(record.notation, position, record.text)
        except ValueError as error:  # NotationError, bad USI, bad JSON are all ValueErrors
            code = getattr(error, "code", "unparsable_move")
            message = getattr(error, "message", None) or str(error)
            result.findings.append(Finding(ERROR, code, message, record.line, first_ply + i,
                                           quote(record.text)))
            result.first_illegal_ply, result.illegal_code = first_ply + i, code
            break
        reason = game.play(move)
        if reason is not None:
            result.findings.append(Finding(ERROR, reason.code, reason.message, record.line,
                                           first_ply + i, quote(record.text)))
            result.first_illegal_ply, result.illegal_code = first_ply + i, reason.code
            break
    else:
        if wanted and first_ply + len(moves) in wanted:  # a variation of the last move
            result.branches[first_ply + len(moves)] = position.copy(last_move=True)
    result.own_moves = game.moves[played_before:]
    if result.first_illegal_ply is not None:
        skipped = len(moves) - (result.first_illegal_ply - first_ply) - 1
        if skipped > 0:
            result.findings.append(Finding(INFO, "not_replayed", (f"{skipped} later moves were not replayed"
                                            if skipped > 1 else "the next move was not replayed"), moves[-skipped].line,
                                           result.first_illegal_ply + 1, quote(moves[-skipped].text)))
    return result


@lru_cache(maxsize=256)
def _irregularities(start_sfen: str) -> tuple:
    return tuple(Position.from_sfen(start_sfen).irregularities())


def fingerprint(start_sfen: str, usi_moves, illegal_ply=None, rest=()) -> str:
    """16 hex digits identifying a game by its start position and moves, whatever its format:
    BLAKE2b (8 bytes) of ``<board side hands>|<usi moves, space-separated>``, plus, when the
    record goes on with an illegal or unreadable move at ply ``illegal_ply``, ``|!<ply>`` and
    what that move and every later one say (``rest``: the squares they name), so that two
    records that break at the same move but differ after it stay two games::

        >>> start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -"
        >>> fingerprint(start + " 1", ["7g7f"]) == fingerprint(start + " 9", ["7g7f"])
        True
        >>> a = fingerprint(start, ["7g7f"], 2, ["8h", "8h"])
        >>> a == fingerprint(start, ["7g7f"], 2, ["8h", "7g"])
        False
    """
    start = " ".join(start_sfen.split()[:3])
    digest = hashlib.blake2b(f"{start}|{' '.join(usi_moves)}".encode("ascii", "replace"),
                             digest_size=8)
    if illegal_ply is not None:
        digest.update(f"|!{illegal_ply}".encode())
        separator = b"|"  # then "\n" between them: fed one by one (``rest`` may be an iterator)
        for said in rest:
            digest.update(separator + said.encode("utf-8", "replace"))
            separator = b"\n"
    return digest.hexdigest()


def validate_record(record: GameRecord) -> ValidatedGame:
    """Replay the main line and every variation of ``record``; never raises on bad input."""
    branch_plies = _branch_plies(record)
    main = replay_line(record.start_sfen, record.moves, 1, branch_plies.get(None, ()),
                       record.first_line)
    headers = normalize_headers(record.headers)
    # one capped list (``ingest.record.Findings``) for the record's findings and the replay's
    findings = record.findings.copy() if isinstance(record.findings, Findings) else Findings()
    if not isinstance(record.findings, Findings):
        findings.add_all(record.findings)
    findings.add_all(header_findings(record.headers, headers, record.start_sfen))
    findings.add_all(main.findings)
    game = main.game
    headers["handicap"] = game_handicap(game.start_sfen if game is not None else record.start_sfen,
                                        headers["handicap"])
    if game is not None:
        findings[:0] = [Finding(WARNING, "irregular_start_position", f"the start position breaks "
                                f"the rules: {reason.message}", record.first_line, 0, reason.code)
                        for reason in _irregularities(game.start_sfen)]
    if game is None:
        return ValidatedGame(record, headers, record.start_sfen, 0, [], [],
                             main.first_illegal_ply, main.illegal_code, None, "none", "unknown",
                             fingerprint(record.start_sfen, [], main.first_illegal_ply,
                                         _written_from(record, main.first_illegal_ply)),
                             findings)
    if game.ending is not None and game.ply > game.ending.ply:
        findings.append(Finding(WARNING, "repetition_not_ended", f"{game.ending.message}, but "
                                f"the record goes on for {game.ply - game.ending.ply} more moves",
                                record.moves[game.ending.ply].line, game.ending.ply + 1,
                                record.moves[game.ending.ply].text))
    winner, reason, result_findings = settle(record.ending, game, main.first_illegal_ply is None)
    findings += result_findings
    variations = _replay_variations(record, main, branch_plies)
    for variation_findings in variations.findings:
        findings.add_all(variation_findings)
    usi = list(map(Move.usi, game.moves))
    return ValidatedGame(record, headers, game.start_sfen, game.ply, usi,
                         game.keys, main.first_illegal_ply, main.illegal_code,
                         game.position.sfen(), winner, reason,
                         fingerprint(game.start_sfen, usi, main.first_illegal_ply,
                                     _written_from(record, main.first_illegal_ply)),
                         findings, game, variations.moves)


def _written_from(record: GameRecord, ply):
    """What the main-line moves from ``ply`` on say, read without a position (none without a
    stop): the square each names, the same in every notation, or its text as written (yielded
    one by one: a record may go on for a million moves after its stop)."""
    if ply is None:
        return
    previous = None
    for move in islice(record.moves, ply - 1, None):
        square = written_destination(move.notation, move.text, previous)
        yield square or f"?{move.text}"
        previous = square or previous


def _branch_plies(record: GameRecord) -> dict:
    """``{line: the plies at which variations branch off it}`` (line None: the main line; a
    variation: its index), made once for the record."""
    plies: dict = {}
    for variation in record.variations:
        plies.setdefault(variation.parent, set()).add(variation.start_ply)
    return plies


@dataclass
class _Variations:
    """What the replay of a record's variations gave, each in the record's order: its moves
    that replayed (``ValidatedGame.variations``) and its findings."""

    moves: list
    findings: list


def _replay_variations(record: GameRecord, main: LineReplay, branch_plies: dict) -> _Variations:
    """Replay every variation from its branch point, kept by the replay of its parent line
    (``main``'s, or an earlier variation's). They are played in one game, a copy of the main
    line's, depth first and from the latest branch point back, rewinding it to each one's start
    (``Game.rewind``): a variation costs its own moves in time and memory, not the plies before
    it, and repetitions still count every position from the start. A variation whose parent
    line did not reach its branch point (or comes after it in the record) is not replayed."""
    variations = record.variations
    done = _Variations([[] for _ in variations], [None] * len(variations))
    kids: dict = {}  # line -> its variations in the record's order (each after its parent)
    for index, variation in enumerate(variations):
        parent = variation.parent
        if parent is None or 0 <= parent < index:
            kids.setdefault(parent, []).append(index)
    main_game = main.game
    if main_game is not None and None in kids:
        game = main_game.branch(main_game.ply, main_game.position)
        # (line's branch points, a variation of it), the latest branch point on top
        stack = [(main.branches, index) for index in _by_start(kids[None], variations)]
        while stack:
            branches, index = stack.pop()
            variation = variations[index]
            at = branches.get(variation.start_ply)
            if at is None:
                continue
            game.rewind(variation.start_ply - 1, at)
            line = replay_line(game, variation.moves, variation.start_ply,
                               branch_plies.get(index, ()))
            label = f"variation {index + 1} (from ply {variation.start_ply})"
            for finding in line.findings:
                finding.message = f"in {label}: {finding.message}"
            done.moves[index], done.findings[index] = line.own_moves, line.findings
            if index in kids:
                stack += [(line.branches, child) for child in _by_start(kids[index], variations)]
    for index, variation in enumerate(variations):
        if done.findings[index] is None:
            done.findings[index] = [Finding(
                WARNING, "variation_not_replayed", f"variation {index + 1} (from ply "
                f"{variation.start_ply}) branches where its parent line was not replayed",
                variation.line, variation.start_ply)]
    return done


def _by_start(indexes: list, variations: list) -> list:
    """Variations by the ply they start at, the latest last (the next one a stack gives)."""
    return sorted(indexes, key=lambda index: variations[index].start_ply)
