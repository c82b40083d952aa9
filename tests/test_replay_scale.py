"""Replay cost grows with the record, not with the record times its variations: each variation
starts from the position kept at its branch point (issue "Nothing lost, no way in", item 4).
The cost is counted in moves played by the rules engine, not timed."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kifudb.core._native import PURE_VARIABLE
from kifudb.core.move import Move
from kifudb.core.notation import kif_move
from kifudb.core.position import Position

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


#: Run in a child process on the interpreted source (``KIFUDB_PURE=1``): compiled code calls
#: ``Game.play`` directly, so only there does a wrapper put on it see every move played.
COUNT_PLAYS = """
import json, sys
from kifudb.core.game import Game
from kifudb.ingest.pipeline import read_data

counted = 0
real = Game.play

def play(self, move, *args):
    global counted
    counted += 1
    return real(self, move, *args)

Game.play = play
[game] = read_data(open(sys.argv[1], "rb").read(), "late.kif").games
print(json.dumps([game.moves, game.variations, counted,
                  [str(f) for f in game.findings if f.severity == "error"]]))
"""


@pytest.mark.parametrize("variations", [10, 400])
def test_each_variation_costs_its_own_moves_only(tmp_path, variations):
    """Every move the rules engine plays is counted (the real ``Game.play``, wrapped)."""
    moves = long_line()
    record = tmp_path / "late.kif"
    record.write_bytes(kif_with_late_variations(moves, variations))
    done = subprocess.run([sys.executable, "-c", COUNT_PLAYS, str(record)], cwd=ROOT, check=True,
                          capture_output=True, text=True, env={**os.environ, PURE_VARIABLE: "1"})
    read_moves, read_variations, plays, errors = json.loads(done.stdout)
    assert read_moves == len(moves) and read_variations == variations
    assert not errors, errors[:3]
    assert plays == len(moves) + variations


#: Counts the lines of kifudb's own code run to read a KIF of N chained variations, in a child
#: process on the interpreted source (compiled code runs no traced lines): work, not time.
COUNT_LINES = """
import json, sys
from kifudb.ingest.pipeline import read_data

ROOT, MARK = sys.argv[1], sys.argv[2]

def lines_run(variations):
    data = ("手合割：平手\\n   1 ７六歩(77)" + MARK + "\\n" + "".join(
        f"\\n変化：1手\\n   1 ２六歩(27){MARK}\\n" for _ in range(variations))).encode()
    count = 0
    def line(frame, event, arg):
        nonlocal count
        count += event == "line"
        return line
    sys.settrace(lambda frame, event, arg: line if frame.f_code.co_filename.startswith(ROOT)
                 else None)
    try:
        [game] = read_data(data, "chain.kif").games
    finally:
        sys.settrace(None)
    assert game.variations == variations
    return count

print(json.dumps([lines_run(500), lines_run(1000)]))
"""


@pytest.mark.parametrize("mark", ["+", ""])
def test_reading_and_replaying_variations_is_linear_in_their_number(mark):
    """Each variation branches from the one before it (a chain, as deep as the record is long),
    with or without KIF's ``+`` marks: twice the variations cost about twice the work, where
    finding each branch point by scanning every line read before (and each line's branch plies by
    scanning every variation) made it about three and a half times."""
    done = subprocess.run([sys.executable, "-c", COUNT_LINES, str(ROOT), mark], cwd=ROOT,
                          check=True, capture_output=True, text=True,
                          env={**os.environ, PURE_VARIABLE: "1"})
    once, twice = json.loads(done.stdout)
    assert twice <= 2.1 * once, (once, twice)
