"""Replay cost grows with the record, not with the record times its variations: each variation
starts from the position kept at its branch point (issue "Nothing lost, no way in", item 4).
The cost is counted in moves played by the rules engine, not timed."""

from pathlib import Path

import pytest

from core.game import Game
from core.move import Move
from core.notation import kif_move
from core.position import Position
from ingest.pipeline import read_data

ROOT = Path(__file__).resolve().parent.parent


def long_line() -> list:
    """The longest legal main line of the samples, as USI moves."""
    lines = [line.split(" moves ", 1)[1].split() for line in
             (ROOT / "data" / "samples" / "games.usi").read_text(encoding="utf-8").splitlines()
             if " moves " in line]
    return max(lines, key=len)[:150]


def kif_with_late_variations(moves: list, variations: int) -> bytes:
    """A KIF whose main line is ``moves`` and whose ``variations`` variations each replace one
    of the last moves by the same move written again (a legal alternative)."""
    position = Position()
    texts = []
    for usi in moves:
        move = Move.from_usi(usi)
        texts.append(kif_move(position, move, position.last_move.to_square
                              if position.last_move else None))
        position.push(move)
    out = ["手合割：平手", "手数----指手---------消費時間--"]
    out += [f"{i:4d} {text}" for i, text in enumerate(texts, start=1)]
    for n in range(variations):
        ply = len(moves) - n % 10
        out += ["", f"変化：{ply}手", f"{ply:4d} {texts[ply - 1]}"]
    return ("\n".join(out) + "\n").encode("utf-8")


@pytest.fixture
def plays(monkeypatch):
    """Count every move the rules engine plays (the real ``Game.play``, counted)."""
    counted = {"n": 0}
    real = Game.play

    def play(self, move, *args):
        counted["n"] += 1
        return real(self, move, *args)

    monkeypatch.setattr(Game, "play", play)
    return counted


@pytest.mark.parametrize("variations", [10, 400])
def test_each_variation_costs_its_own_moves_only(plays, variations):
    moves = long_line()
    read = read_data(kif_with_late_variations(moves, variations), "late.kif")
    [game] = read.games
    assert game.moves == len(moves) and game.variations == variations
    assert not [f for f in game.findings if f.severity == "error"], game.findings[:3]
    assert plays["n"] == len(moves) + variations
