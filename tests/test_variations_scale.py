"""A variation costs its own moves, not the plies before it (issue 26, "Late variations are
still quadratic"): a long main line with many one-move variations near its end is validated and
converted to JKF, KIF and KI2 in time and memory that grow with the record, not with the main
line times the variations. Work is counted (lines of kifudb's code run) and memory measured
(``tracemalloc``'s peak), for a main line of N and 4N plies, never timed. Repetitions still count
the positions of the line a variation branches from (``Game.rewind``)."""

import json
import os
import random
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from kifudb.core._native import PURE_VARIABLE
from kifudb.core.game import Game
from kifudb.core.move import Move
from kifudb.core.position import Position
from kifudb.core.writers import write
from kifudb.ingest.kifu import read_kifus
from kifudb.ingest.pipeline import read_data
from test_replay_scale import kif_with_late_variations

ROOT = Path(__file__).resolve().parent.parent

#: the main lines' lengths, and the variations added (then as many again) near their ends
SHORT, LONG, VARIATIONS = 100, 400, 40


def legal_walk(plies: int, seed: int = 26) -> list:
    """``plies`` legal USI moves from the even start, chosen at random (seeded), that never
    repeat a position nor leave the side to move without a legal move: a long game that ends
    neither by repetition nor by mate (backing up when a choice leads nowhere)."""
    rng = random.Random(seed)
    position = Position()
    seen = {position.key()}
    played: list = []
    choices = [rng.sample(position.legal_moves(), k=len(position.legal_moves()))]
    while len(played) < plies:
        while choices[-1]:
            move = choices[-1].pop()
            position.push(move)
            if position.key() not in seen and position.has_legal_move():
                break
            position.pop()
        else:  # every move of this position leads nowhere: take back the one before
            choices.pop()
            seen.discard(position.key())
            position.pop()
            played.pop()
            continue
        seen.add(position.key())
        played.append(move.usi())
        moves = position.legal_moves()
        choices.append(rng.sample(moves, k=len(moves)))
    return played


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> dict:
    """``(main-line plies, variations) -> a KIF file``: a main line of SHORT and LONG plies
    (the first SHORT the same), with VARIATIONS and twice as many late variations."""
    folder = tmp_path_factory.mktemp("late")
    line = legal_walk(LONG)
    out = {}
    for plies in (SHORT, LONG):
        for count in (VARIATIONS, 2 * VARIATIONS):
            path = folder / f"late_{plies}x{count}.kif"
            path.write_bytes(kif_with_late_variations(line[:plies], count))
            out[plies, count] = path
    return out


def validate(path: Path) -> None:
    [game] = read_data(path.read_bytes(), path.name).games
    assert not [f for f in game.findings if f.severity == "error"]
    assert game.variations > 0


def convert(fmt: str):
    def run(path: Path) -> None:
        [game] = read_kifus(path).games
        assert game.problem is None, game.problem
        assert write(game.kifu, fmt).count("変化：" if fmt != "jkf" else '"forks"') > 0
    return run


def peak(job, path: Path) -> int:
    """The most memory (bytes, ``tracemalloc``) ``job(path)`` held at once, run a second time
    (imports and caches are not the record's)."""
    job(path)
    tracemalloc.start()
    try:
        job(path)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
@pytest.mark.parametrize("job", ["validate", "jkf", "kif", "ki2"])
def test_the_memory_a_variation_takes_does_not_grow_with_the_plies_before_it(records, job):
    """What VARIATIONS more late variations cost in memory, after a main line of SHORT and of
    LONG (4x) plies: about the same. Each variation copied its parent's history (the moves, the
    keys, the checks and a count of every position) and each was written after replaying the
    main line again: four times the plies, about four times the memory."""
    run = validate if job == "validate" else convert(job)
    extra = {plies: peak(run, records[plies, 2 * VARIATIONS])
             - peak(run, records[plies, VARIATIONS]) for plies in (SHORT, LONG)}
    assert 0 < extra[LONG] < 1.5 * extra[SHORT], extra


#: Counts the lines of kifudb's own code run to validate, or to convert, each file named, in a
#: child process on the interpreted source (compiled code runs no traced lines): work, not time.
COUNT_LINES = """
import json, sys
from pathlib import Path
from kifudb.core.writers import write
from kifudb.ingest.kifu import read_kifus
from kifudb.ingest.pipeline import read_data

ROOT, job, paths = sys.argv[1], sys.argv[2], sys.argv[3:]

def run(path):
    if job == "validate":
        [game] = read_data(Path(path).read_bytes(), "late.kif").games
        assert game.variations and not [f for f in game.findings if f.severity == "error"]
    else:
        [game] = read_kifus(path).games
        assert game.problem is None and write(game.kifu, job)

def lines_run(path):
    count = 0
    def line(frame, event, arg):
        nonlocal count
        count += event == "line"
        return line
    sys.settrace(lambda frame, event, arg: line if frame.f_code.co_filename.startswith(ROOT)
                 else None)
    try:
        run(path)
    finally:
        sys.settrace(None)
    return count

for path in paths:  # once untraced: imports and caches are not the records' work
    run(path)
print(json.dumps([lines_run(path) for path in paths]))
"""


@pytest.mark.slow
@pytest.mark.parametrize("job", ["validate", "jkf", "kif", "ki2"])
def test_the_work_a_variation_takes_does_not_grow_with_the_plies_before_it(records, job):
    """What VARIATIONS more late variations cost in lines of code run, after a main line of
    SHORT and of LONG (4x) plies: about the same (each variation's start counted every
    position of the line before it, and each written variation replayed the main line)."""
    paths = [records[plies, count] for plies in (SHORT, LONG)
             for count in (VARIATIONS, 2 * VARIATIONS)]
    done = subprocess.run([sys.executable, "-c", COUNT_LINES, str(ROOT), job, *map(str, paths)],
                          cwd=ROOT, check=True, capture_output=True, text=True,
                          env={**os.environ, PURE_VARIABLE: "1"})
    short, short_more, long, long_more = json.loads(done.stdout)
    extra_short, extra_long = short_more - short, long_more - long
    assert 0 < extra_long < 1.2 * extra_short, (extra_short, extra_long)
    assert long < 5 * short, (short, long)  # and the main line costs its plies


# ----- the rules still hold: a rewound game is the game replayed from the start ----------------

#: a rook and a king going back and forth: the start position comes back every four plies
SHUFFLE = "2h5h 5a4b 5h2h 4b5a".split()


def replayed(usi_moves: list) -> Game:
    game = Game()
    for usi in usi_moves:
        assert game.play_usi(usi) is None, usi
    return game


def assert_same(game: Game, fresh: Game) -> None:
    assert game.moves == fresh.moves and game.keys == fresh.keys
    assert game.checks == fresh.checks and game.ending == fresh.ending
    assert game.position == fresh.position and game.position.last_move == fresh.position.last_move
    for ply in range(fresh.ply + 1):
        assert game.occurrences(ply) == fresh.occurrences(ply), ply


def test_a_variation_that_repeats_a_position_of_the_main_line_a_fourth_time_ends_the_game():
    """The main line reaches the start position a third time (plies 0, 4, 8) and goes on; a
    variation that branches later and comes back to it makes it the fourth: a draw by
    sennichite, counted with the main line's positions. Rewound before the third occurrence,
    the game forgets it: the same moves are then only a third occurrence."""
    main = SHUFFLE * 2 + "7g7f 3c3d 2g2f 8c8d".split()
    game = replayed(main)
    assert game.ending is None and game.occurrences(8) == [0, 4, 8]
    game.rewind(8, replayed(main[:8]).position)
    for usi in SHUFFLE:
        game.play_usi(usi)
    assert game.ending is not None and game.ending.ply == 12, game.ending
    assert game.ending.message == ("fourfold repetition of the position after ply 0 (plies 0, 4, "
                                   "8, 12): draw")
    assert_same(game, replayed(main[:8] + SHUFFLE))
    variation = main[:8] + SHUFFLE[:3]
    game.rewind(11, replayed(variation).position)  # before the fourth: no ending any more
    assert game.ending is None
    assert_same(game, replayed(variation))
    game.rewind(4, replayed(main[:4]).position)
    for usi in SHUFFLE:
        game.play_usi(usi)
    assert game.ending is None and game.occurrences() == [0, 4, 8]


def test_rewinding_to_every_ply_and_going_on_is_replaying_from_the_start():
    """Games with repetitions (fourfold, and not) and a long walk of random legal moves:
    rewound to any ply and sent on along another line, it is the game that line gives when
    replayed from the start, in every key, check, occurrence and ending."""
    rng = random.Random(7)
    walk = legal_walk(60, seed=3)
    lines = [SHUFFLE * 5 + "7g7f 3c3d".split(), walk,
             "7g7f 3c3d 2g2f 8c8d".split() + SHUFFLE * 4 + "2f2e 8d8e".split()]
    for main in lines:
        game = replayed(main)
        for _ in range(25):
            ply = rng.randrange(len(main) + 1)
            position = replayed(main[:ply]).position
            game.rewind(ply, position)
            assert_same(game, replayed(main[:ply]))
            other = list(main[:ply])
            probe = position.copy()
            for _ in range(rng.randrange(12)):
                legal = probe.legal_moves()
                if not legal:
                    break
                move = rng.choice(legal)
                probe.push(move)
                other.append(move.usi())
                assert game.play(move) is None
            assert_same(game, replayed(other))
            game = replayed(main)


def test_a_game_cannot_be_rewound_past_its_moves():
    game = replayed(SHUFFLE)
    with pytest.raises(ValueError, match="cannot rewind a game of 4 moves to ply 5"):
        game.rewind(5, Position())
    assert game.ply == 4 and Move.from_usi("4b5a") == game.moves[-1]
