"""Replay games given as USI moves and describe each: moves, final position and verdict.

    >>> from ingest.usi_file import UsiGame
    >>> report = replay_game(UsiGame(1, "demo", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    ...                               ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"]))
    >>> report.legal_moves, report.illegal
    (5, None)
    >>> replay_game(UsiGame(1, "", "4k4/9/4P4/9/9/9/9/9/4K4 b P 1", ["P*5d"])).illegal.code
    'nifu'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from core.game import Ending, Game
from core.handicap import handicap_name
from core.impasse import Declaration, declaration, king_entered
from core.move import Move
from core.pieces import COLOUR_NAMES
from core.position import IllegalMove, SfenError


@dataclass
class ReplayReport:
    """What replaying one game found."""

    line: int
    note: str
    start: str
    legal_moves: int
    total_moves: int
    final_sfen: str
    illegal: Optional[IllegalMove] = None
    illegal_ply: Optional[int] = None
    illegal_text: str = ""
    ending: Optional[Ending] = None
    moves_after_end: int = 0
    declaration: Optional[Declaration] = None

    def verdict(self) -> str:
        """One line: legal or not, and how the rules say the game ended."""
        if self.illegal is not None:
            return (f"illegal move at ply {self.illegal_ply} ({self.illegal_text}): "
                    f"{self.illegal.code}: {self.illegal.message}")
        if self.ending is None and self.declaration is not None:
            return f"all moves legal; at the end {self.declaration.message} (27-point rule)"
        if self.ending is None:
            return "all moves legal; the rules decide nothing (the record's own ending stands)"
        winner = "draw" if self.ending.winner is None else f"{COLOUR_NAMES[self.ending.winner]} wins"
        extra = (f"; {self.moves_after_end} moves were played after that"
                 if self.moves_after_end else "")
        return f"all moves legal; {self.ending.reason} at ply {self.ending.ply}, {winner}{extra}"


def replay_game(usi_game) -> ReplayReport:
    """Replay one ``UsiGame`` and report on it; never raises on bad moves."""
    if usi_game.error:
        return ReplayReport(usi_game.line, usi_game.note, "", 0, 0, "",
                            IllegalMove("unparsable_line", usi_game.error), 0, "")
    try:
        game = Game(usi_game.start_sfen)
    except SfenError as error:
        return ReplayReport(usi_game.line, usi_game.note, usi_game.start_sfen, 0,
                            len(usi_game.moves), "", IllegalMove("bad_sfen", str(error)), 0, "")
    start = handicap_name(usi_game.start_sfen) or "from SFEN " + usi_game.start_sfen
    report = ReplayReport(usi_game.line, usi_game.note, start, 0, len(usi_game.moves), "")
    for ply, text in enumerate(usi_game.moves, start=1):
        try:
            reason = game.play(Move.from_usi(text))
        except ValueError as error:
            reason = IllegalMove("unparsable_move", str(error))
        if reason is not None:
            report.illegal, report.illegal_ply, report.illegal_text = reason, ply, text
            break
    report.legal_moves = game.ply
    report.final_sfen = game.position.sfen()
    report.ending = game.final_ending()
    if report.ending is not None:
        report.moves_after_end = game.ply - report.ending.ply
    elif king_entered(game.position, game.position.turn):
        report.declaration = declaration(game.position)
    return report
