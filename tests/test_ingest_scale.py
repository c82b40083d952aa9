"""Ingest work grows with the files and games read, not with their square (issue 26, "Many small
files are quadratic at ingest"): a folder of one-game files of the same opening, each with other
players, once made every game read be compared with every game of those moves stored before
(``store.writer.Catalogue``). The work is counted in lines of kifudb's code run, not timed, for
N and 4N files; and a long ingest of small files commits as it goes (``BATCH_FILES``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kifudb.core._native import PURE_VARIABLE
from kifudb.store.folder import Store
from kifudb.store.writer import Catalogue, IngestReport, _identity, ingest_paths, ingest_state

ROOT = Path(__file__).resolve().parent.parent

#: three-move openings: 9 × 9 × 15 = 1,215 different games of three moves
FIRST = ("7776FU", "2726FU", "5756FU", "1716FU", "9796FU", "3736FU", "6766FU", "4746FU", "8786FU")
SECOND = ("3334FU", "8384FU", "5354FU", "1314FU", "9394FU", "7374FU", "4344FU", "6364FU", "2324FU")
THIRD = ("6978KI", "4938KI", "5968OU", "7968GI", "3948GI", "2838HI", "2868HI", "2848HI", "2858HI",
         "1918KY", "9998KY", "6958KI", "4958KI", "5948OU", "5958OU")


def one_game_files(folder: Path, count: int, kind: str, prefix: str = "p") -> Path:
    """``count`` one-line CSA files of one game each: ``players``, the same three moves with
    other players each (``{prefix}1q`` … — no name begins another); ``moves``, other moves
    each, with the same players (``{prefix}black``)."""
    folder.mkdir(parents=True)
    for i in range(count):
        if kind == "players":
            moves, black = ("7776FU", "3334FU", "8822UM"), f"{prefix}{i + 1}q"
        else:
            moves = (FIRST[i % 9], SECOND[i // 9 % 9], THIRD[i // 81 % 15])
            black = f"{prefix}black"
        (folder / f"g{i:06d}.csa").write_text(
            f"V2.2,N+{black},N-white,PI,+,+{moves[0]},-{moves[1]},+{moves[2]}\n",
            encoding="utf-8")
    return folder


#: Counts the lines of kifudb's own code (all of it, and ``store/`` apart) run to ingest N
#: one-game files into a new store and N more into it, in a child process on the interpreted
#: source (compiled code runs no traced lines). Imports are done by a first, untraced ingest.
COUNT_LINES = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1] + "/tests")
from test_ingest_scale import one_game_files
from kifudb.store.writer import ingest_paths

ROOT, KIND, WORK = sys.argv[1], sys.argv[2], Path(sys.argv[3])
STORE = ROOT + "/store/"

def traced(paths, store):
    counts = {"all": 0, "store": 0}
    def line(frame, event, arg):
        if event == "line":
            counts["all"] += 1
            counts["store"] += frame.f_code.co_filename.startswith(STORE)
        return line
    sys.settrace(lambda frame, event, arg: line if frame.f_code.co_filename.startswith(ROOT)
                 and "/.venv/" not in frame.f_code.co_filename else None)
    try:
        report = ingest_paths(paths, store)
    finally:
        sys.settrace(None)
    return counts, report.games_added

def work(n):
    first = one_game_files(WORK / f"a{n}", n, KIND, f"a{n}x")
    more = one_game_files(WORK / f"b{n}", n, KIND, f"b{n}x")
    new, added = traced([first], WORK / f"store{n}")
    stored, added_more = traced([more], WORK / f"store{n}")  # against the n games stored
    return {"new": new, "stored": stored, "games": [added, added_more]}

ingest_paths([one_game_files(WORK / "warm", 3, KIND, "w")], WORK / "warm-store")
print(json.dumps([work(int(sys.argv[4])), work(4 * int(sys.argv[4]))]))
"""


@pytest.mark.slow  # traces two ingests of 1,000 small files: 20 s or more
@pytest.mark.parametrize("kind", ["players", "moves"])
def test_ingest_work_is_linear_in_the_files(tmp_path, kind):
    """``players`` is the worst case the issue met (one opening, every game its own players);
    4N files cost at most 4.5 times the work of N, in all of kifudb's code and in the store's.
    A linear scan of the games of each fingerprint made the store's work 8 to 11 times."""
    n = 100
    done = subprocess.run([sys.executable, "-c", COUNT_LINES, str(ROOT), kind, str(tmp_path),
                           str(n)], cwd=ROOT, check=True, capture_output=True, text=True,
                          env={**os.environ, PURE_VARIABLE: "1"})
    once, four = json.loads(done.stdout)
    assert once["games"] == [n, n] and four["games"] == [4 * n, 4 * n]  # every game apart
    for step in ("new", "stored"):
        for code in ("all", "store"):
            assert four[step][code] <= 4.5 * once[step][code], (step, code, once, four)


def count_lines(function, *args) -> int:
    """The lines of ``store/writer.py`` run by ``function(*args)``."""
    writer = str(ROOT / "store" / "writer.py")
    count = 0

    def line(frame, event, arg):
        nonlocal count
        count += event == "line"
        return line

    sys.settrace(lambda frame, event, arg: line if frame.f_code.co_filename == writer else None)
    try:
        function(*args)
    finally:
        sys.settrace(None)
    return count


def place_all(sources: list) -> Catalogue:
    catalogue = Catalogue(1)
    for identity in sources:
        catalogue.place("0123456789abcdef", 5, identity)
    return catalogue


@pytest.mark.parametrize("shape", ["players", "dates", "unknown black"])
def test_placing_games_of_one_opening_is_linear(shape):
    """Games of the same moves: each with its own players, or its own date, or a white player
    only (a source that may be any game of those whose white player it names); 4N games placed
    cost at most 4.5 times N. A comparison with every game of the fingerprint made it 16."""
    def sources(n: int) -> list:
        if shape == "players":
            return [_identity(None, f"p{i}q", "b") for i in range(n)]
        if shape == "dates":
            return [_identity(f"{2000 + i // 365:04d}-01-01", "a", f"w{i % 365}")
                    for i in range(n)]
        return [_identity(None, None, f"w{i}") for i in range(n)] + \
            [_identity(None, f"b{i}", f"w{i}") for i in range(n)]

    n = 500
    once, four = count_lines(place_all, sources(n)), count_lines(place_all, sources(4 * n))
    assert four <= 4.5 * once, (once, four)
    catalogue = place_all(sources(n))
    assert catalogue.next_game == 1 + n  # every game apart, each later source its own game's


def test_a_source_is_the_lowest_game_it_may_be():
    """Once a fingerprint's games are filed (more than eight), a source that names a player
    only is the lowest id of the games with that player, and one that names nothing is the
    lowest of all; a game that gains a date is found by it afterwards, and no longer by
    another date."""
    catalogue = Catalogue(1)
    ids = [catalogue.place("f", 1, _identity(None, f"b{i % 4}", f"w{i}"))[0] for i in range(12)]
    assert ids == list(range(1, 13))  # b1: games 2, 6, 10
    assert catalogue.place("f", 1, _identity(None, "b3", None)) == (4, False, False)
    assert catalogue.place("f", 1, _identity(None, None, None)) == (1, False, False)
    assert catalogue.place("f", 2, _identity("2024-05-05", "b1", "w5")) == (6, False, True)
    assert catalogue.place("f", 1, _identity("2024-05-05", None, "w5"))[0] == 6
    assert catalogue.place("f", 1, _identity("2024-05-06", "b1", "w5")) == (13, True, False)
    assert catalogue.place("f", 1, _identity("2024-05-06", "b1", None)) == (2, False, False)
    assert catalogue.place("f", 1, _identity("2024-05-07", "b1", None)) == (10, False, False)
    assert catalogue.place("f", 1, _identity(None, "b1", "w5"))[0] == 6


def test_a_long_ingest_of_small_files_commits_as_it_goes(tmp_path):
    """A batch holds ``batch_files`` files at most: 25 one-game files in batches of 10 are three
    commits (what a kill loses is the batch being read), and the store holds every game."""
    records = one_game_files(tmp_path / "records", 25, "players")
    report = ingest_paths([records], tmp_path / "store", batch_files=10)
    assert report.batches == ["b000001", "b000002", "b000003"] and report.games_added == 25
    store = Store(tmp_path / "store")
    assert store.connect().execute(
        "SELECT batch, count(*) FROM files GROUP BY batch ORDER BY batch").fetchall() == \
        [(1, 10), (2, 10), (3, 5)]


def test_what_an_ingest_holds_of_the_store_is_numbers(tmp_path):
    """An ingest starts from the store's games as numbers (fingerprint and id, ``_Index``) and
    its files as hashes (``FileDigests``), whatever the store holds (issue 31: 332 bytes a game
    were held before, 2.7 GB at a billion positions); a source of a stored game reads that
    game's players and date from the store, then places as before."""
    store_dir = tmp_path / "store"
    ingest_paths([one_game_files(tmp_path / "moves", 300, "moves")], store_dir,
                 batch_files=100)
    ingest_paths([one_game_files(tmp_path / "players", 20, "players")], store_dir)
    store = Store(store_dir)
    known, catalogue, _ = ingest_state(store, IngestReport())
    assert len(catalogue.index) == 320 and catalogue.recent == {}
    assert len(known.paths) == 320 and str(tmp_path / "moves" / "g000007.csa") in known
    assert str(tmp_path / "moves" / "elsewhere.csa") not in known
    connection = store.connect()
    fingerprint, game = connection.execute(
        "SELECT fingerprint, game FROM games WHERE black = 'p7q'").fetchone()
    assert catalogue.place(fingerprint, 1, _identity(None, "p7q", None)) == (game, False, False)
    assert len(catalogue.recent) == 1  # the 20 games of those moves, now held in full
    new, added, _ = catalogue.place(fingerprint, 1, _identity(None, "p21q", None))
    assert added and new == 321
    # once committed, numbers again (nothing a source completed): an ingest that reads the
    # same games again from another folder holds no more than a batch of them
    catalogue.committed(catalogue.next_game)
    assert catalogue.recent == {} and len(catalogue.index) == 321
    assert not catalogue.index.forgotten
    assert catalogue.place(fingerprint, 1, _identity(None, "p7q", None)) == (game, False, False)
    # a source that completes a game (a date): that game is held in full to the end
    assert catalogue.place(fingerprint, 1, _identity("2024-01-01", "p7q", None))[0] == game
    catalogue.committed(catalogue.next_game)
    assert len(catalogue.recent) == 1
    catalogue.close()


def test_an_ingest_of_stored_games_again_finds_each_in_the_store(tmp_path):
    """The same games in other files: every one is a source of a stored game, read from the
    store in one query per ``PREPARED_FILES`` files, across the batches the first ingest
    committed and the ones this ingest commits as it goes."""
    store_dir = tmp_path / "store"
    first = one_game_files(tmp_path / "a", 150, "moves")
    ingest_paths([first], store_dir, batch_files=40)
    again = tmp_path / "b"
    again.mkdir()
    for index, path in enumerate(sorted(first.iterdir())):  # each game twice more, elsewhere
        for copy in ("x", "y"):
            (again / f"{copy}{index:06d}.csa").write_bytes(path.read_bytes())
    report = ingest_paths([again], store_dir, batch_files=40)
    assert (report.games_added, report.games_known) == (0, 300)
    assert Store(store_dir).connect().execute(
        "SELECT count(*), count(DISTINCT fingerprint) FROM games").fetchone() == (150, 150)
