"""``kifudb replay``: describe each game of a USI file — moves, final position, the rules' verdict.

The replay is ``kifudb validate``'s (``ingest.validate``); this module only words its result::

    >>> from kifudb.ingest.usi_file import read_usi
    >>> [record] = read_usi("sfen 4k4/9/4P4/9/9/9/9/9/4K4 b P 1 moves P*5d\\n")
    >>> report = replay_report(record)
    >>> report.moves, report.verdict
    (0, 'illegal move at ply 1 (P*5d): nifu: black already has an unpromoted pawn on file 5 (5c)')
"""

from __future__ import annotations

from dataclasses import dataclass

from kifudb.core.handicap import handicap_name
from kifudb.core.impasse import declaration, king_entered
from kifudb.core.outcome import Winner
from kifudb.ingest.record import ERROR
from kifudb.ingest.validate import validate_record
from kifudb.output import plural, printable


@dataclass
class ReplayReport:
    """What replaying one game found, in words."""

    line: int
    note: str
    start: str
    moves: int
    total_moves: int
    final_sfen: str
    verdict: str
    legal: bool


def replay_report(record) -> ReplayReport:
    """Replay one ``GameRecord`` and describe it; never raises on bad input."""
    game = validate_record(record)
    start = handicap_name(record.start_sfen) or f"from SFEN {record.start_sfen}"
    errors = [f for f in game.findings if f.severity == ERROR]
    return ReplayReport(record.first_line, " ".join(record.comments), start, game.moves,
                        len(record.moves), game.final_sfen or "", _verdict(game, errors),
                        not errors)


def render_report(path, report: ReplayReport) -> str:
    """The lines ``kifudb replay`` prints for one game (no newline at the end); the file name
    and what comes from the record are ``printable``.

    >>> from kifudb.ingest.usi_file import read_usi
    >>> [record] = read_usi("# \\x1b[2Jhi\\nstartpos moves 7g7f\\n")
    >>> print(render_report("a.usi", replay_report(record)).splitlines()[0])
    a.usi:2  \\x1b[2Jhi
    """
    return "\n".join([f"{printable(path)}:{report.line}  {printable(report.note)}",
                      f"  start:   {printable(report.start)}",
                      f"  moves:   {report.moves} of {report.total_moves} replayed",
                      f"  final:   {printable(report.final_sfen)}",
                      f"  verdict: {printable(report.verdict)}"])


def _verdict(game, errors) -> str:
    if errors:
        first = errors[0]
        if first.ply is not None and game.first_illegal_ply == first.ply:
            return (f"illegal move at ply {first.ply} ({first.text}): {first.code}: "
                    f"{first.message}")
        return f"{first.code}: {first.message}"
    replay = game.game
    ending = replay.final_ending()
    if ending is None:
        position = replay.position
        if king_entered(position, position.turn):
            return f"all moves legal; at the end {declaration(position).message} (27-point rule)"
        return "all moves legal; the rules decide nothing (the record's own ending stands)"
    winner = "draw" if ending.winner is Winner.DRAW else f"{ending.winner} wins"
    after = replay.ply - ending.ply
    extra = (f"; {plural(after, 'move')} {'was' if after == 1 else 'were'} played after that"
             if after else "")
    return f"all moves legal; {ending.reason} at ply {ending.ply}, {winner}{extra}"
