"""``kifudb analyse``: the real engines (Debian's fairy-stockfish and gpsusi) judge each distinct
position once, the run resumes after a kill, two runs at once share the work, and an engine that
is missing, not a USI engine, killed, hung or confused is said, restarted and retried."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ANALYSED_ENGINE, ANALYSED_GAMES, ANALYSED_LIMIT
from kifudb.analysis.run import analyse
from kifudb.analysis.usi import Engine, EngineError, Limit, find_engine
from kifudb.analytics.filters import GameFilter
from kifudb.store.folder import Store
from kifudb.store.writer import ingest_paths

KIFUDB = str(Path(sys.executable).parent / "kifudb")
START = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"


def rows(store, query: str) -> list:
    return Store(store).connect().execute(query).fetchall()


def mated(store) -> dict:
    """``{game: ply}`` of the games whose last position is a mate (no legal move), by our rules."""
    from kifudb.core import Position

    found = {}
    for game, start, line in rows(store, "SELECT g.game, g.start_sfen, list(m.usi ORDER BY m.ply) "
                                         "FROM games g JOIN moves m ON m.game = g.game AND "
                                         "m.line = 0 AND m.usi IS NOT NULL GROUP BY ALL"):
        position = Position.from_sfen(start)
        for usi in line:
            position.push_usi(usi)
        if not position.has_legal_move():
            found[game] = len(line)
    return found


def small_store(tmp_path, count: int = 2) -> Path:
    folder = tmp_path / "store"
    ingest_paths([str(p) for p in ANALYSED_GAMES[:count]], folder)
    return folder


def run(*args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([KIFUDB, *args], capture_output=True, text=True, timeout=600,
                          **kwargs)


def test_each_distinct_position_is_analysed_once(analysed_store):
    """Every position of the games is analysed but those without a legal move, once whatever
    number of games reach it, with two lines, scores from Black's point of view."""
    distinct, = rows(analysed_store, "SELECT count(DISTINCT key) FROM positions")[0]
    stored = rows(analysed_store, 'SELECT count(*), count(DISTINCT key), min(engine), '
                                  'min("limit"), max(multipv) FROM analysis_all')[0]
    mates = len(mated(analysed_store))
    lines, keys, engine, limit, multipv = stored
    assert engine.startswith("Fairy-Stockfish") and limit == ANALYSED_LIMIT and multipv == 2
    assert keys == distinct - mates and 0 < mates
    assert lines <= 2 * keys and lines > 1.5 * keys  # a second line where there are two moves
    # the start position: Black to move, the engine's best of the first line is its pv's first
    best, pv, score = rows(analysed_store, "SELECT best, pv, score_black FROM analysis a JOIN "
                                           "positions p USING (key) WHERE p.ply = 0 AND "
                                           "a.multipv = 1 LIMIT 1")[0]
    assert pv.split()[0] == best and abs(score) < 1000 and len(pv.split()) <= 16


def test_scores_are_from_blacks_point_of_view(analysed_store):
    """Before the last move of a game that ends in a mate, the side that mates is far ahead
    (a mate, or a winning score) from Black's point of view, whichever side it is."""
    ends = mated(analysed_store)
    found = rows(analysed_store, f"""
        SELECT a.mate_black, a.score_black, p.black_to_move FROM positions p
        JOIN analysis a ON a.key = p.key AND a.multipv = 1
        WHERE (p.game, p.ply) IN (SELECT (game, ply - 1) FROM (VALUES
            {', '.join(f'({g}, {p})' for g, p in ends.items())}) t(game, ply))""")
    assert len(found) == len(ends) >= 2 and {b for _, _, b in found} == {True, False}
    for mate, score, black in found:
        sign = 1 if black else -1
        assert (mate is not None and sign * mate > 0) or sign * score > 1000


def test_a_second_run_sends_nothing_and_filters_choose_the_games(tmp_path):
    store = small_store(tmp_path)
    first = run("analyse", "--store", str(store), "--engine", ANALYSED_ENGINE, "--nodes", "200",
                "--player", "Apery", "--no-progress")
    assert first.returncode == 0, first.stderr
    games = {g for g, in rows(store, "SELECT game FROM games WHERE black LIKE '%Apery%' OR "
                                     "white LIKE '%Apery%'")}
    analysed_games = {g for g, in rows(store, "SELECT DISTINCT p.game FROM positions p "
                                              "JOIN analysis USING (key)")}
    if games:
        assert analysed_games <= games | set()  # a shared opening position may be others' too
    again = run("analyze", "--store", str(store), "--engine", ANALYSED_ENGINE, "--nodes", "200",
                "--no-progress")
    assert again.returncode == 0, again.stderr
    assert "analysed before" in again.stdout
    third = run("analyse", "--store", str(store), "--engine", ANALYSED_ENGINE, "--nodes", "200",
                "--no-progress")
    assert third.stdout.startswith("nothing left to analyse"), third.stdout
    total, keys = rows(store, "SELECT count(*), count(DISTINCT key) FROM analysis_all")[0]
    assert total == keys


def test_an_empty_choice_is_said(tmp_path):
    store = small_store(tmp_path, 1)
    done = run("analyse", "--store", str(store), "--engine", ANALYSED_ENGINE, "--nodes", "100",
               "--player", "nobody-plays-here", "--no-progress")
    assert done.returncode == 0 and "the filters keep no game" in done.stdout


def test_a_killed_run_keeps_its_commits_and_the_next_one_finishes(tmp_path):
    store = small_store(tmp_path, 3)
    command = [KIFUDB, "analyse", "--store", str(store), "--engine", ANALYSED_ENGINE,
               "--nodes", "3000", "--commit-every", "40", "--no-progress"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while rows(store, "SELECT count(*) FROM analysis_all")[0][0] < 80 and \
            time.monotonic() < deadline:
        time.sleep(0.3)
    process.send_signal(signal.SIGKILL)
    process.wait()
    kept, = rows(store, "SELECT count(DISTINCT key) FROM analysis_all")[0]
    assert kept >= 80
    done = run(*command[1:])
    assert done.returncode == 0, done.stderr
    total, keys = rows(store, "SELECT count(*), count(DISTINCT key) FROM analysis_all")[0]
    distinct, = rows(store, "SELECT count(DISTINCT key) FROM positions")[0]
    assert total == keys and distinct - keys == len(mated(store))
    assert f"{kept:,} analysed before" in done.stdout


def test_an_interrupted_run_commits_what_it_has(tmp_path):
    store = small_store(tmp_path, 2)
    batches = len(Store(store).manifest()["batches"])
    process = subprocess.Popen([KIFUDB, "analyse", "--store", str(store), "--engine",
                                ANALYSED_ENGINE, "--nodes", "5000", "--commit-every", "20",
                                "--no-progress"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # interrupted once the run is analysing: its first commit has landed (however busy the
    # machine is), with positions still to go
    deadline = time.monotonic() + 300
    while len(Store(store).manifest()["batches"]) == batches and process.poll() is None:
        assert time.monotonic() < deadline, "no commit in 300 s"
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "interrupted" in out
    total, committed = rows(store, "SELECT count(*), count(DISTINCT key) FROM analysis_all")[0]
    assert committed > 0 and f"{committed:,} positions analysed" in out
    assert total == committed  # a commit the interrupt met is finished once, not made twice
    assert not list(store.glob("kifudb.duckdb.*.tmp"))


def test_two_runs_at_once_share_the_work(tmp_path):
    """Two runs on one store take the key ranges in turn (``OPEN_POSITIONS`` at a time): each
    analyses some, no position twice, none left."""
    store = small_store(tmp_path, 6)
    command = ["analyse", "--store", str(store), "--engine", ANALYSED_ENGINE, "--nodes", "400",
               "--commit-every", "50", "--no-progress"]
    processes = [subprocess.Popen([KIFUDB, *command], stdout=subprocess.PIPE, text=True)
                 for _ in range(2)]
    outputs = [p.communicate(timeout=600)[0] for p in processes]
    assert all(p.returncode == 0 for p in processes), outputs
    total, keys = rows(store, "SELECT count(*), count(DISTINCT key) FROM analysis_all")[0]
    assert total == keys  # no position twice
    # nine commits of 50 or more, merged tier by tier as they came (store.tiers)
    assert len(Store(store).manifest()["batches"]) <= 1 + 6
    analysed = [int(o.split()[0].replace(",", "")) if o[0].isdigit() else 0 for o in outputs]
    assert sum(analysed) == keys and min(analysed) > 0, outputs


def test_jobs_give_the_same_positions(tmp_path):
    store = small_store(tmp_path, 2)
    report = analyse(store, ANALYSED_ENGINE, "nodes=200", jobs=2)
    one = tmp_path / "one"
    ingest_paths([str(p) for p in ANALYSED_GAMES[:2]], one)
    single = analyse(one, ANALYSED_ENGINE, "nodes=200", jobs=1)
    assert report.analysed == single.analysed > 100
    assert rows(store, "SELECT list(key ORDER BY key) FROM analysis") == \
        rows(one, "SELECT list(key ORDER BY key) FROM analysis")


def test_gpsshogi_searches_to_a_depth(tmp_path):
    store = small_store(tmp_path, 1)
    report = analyse(store, "gpsusi", "depth=4", filters=GameFilter(moves_to=400))
    assert report.analysed == report.positions - 1 > 40 and not report.failed
    engine, depth = rows(store, "SELECT min(engine), max(depth) FROM analysis")[0]
    assert engine.startswith("gpsshogi") and depth >= 4
    with pytest.raises(EngineError, match="cannot search to nodes="):
        analyse(store, "gpsusi", "nodes=100")
    with pytest.raises(EngineError, match="one line only"):
        analyse(store, "gpsusi", "depth=4", multipv=2)
    with pytest.raises(EngineError, match="a depth of 4 to 10 .its option LimitDepth., not 3"):
        analyse(store, "gpsusi", "depth=3")


@pytest.mark.parametrize("engine, message", [
    ("no-such-engine", "not found on PATH nor in /usr/games"),
    ("/bin/true", "engine /bin/true: it stopped"),
    ("/nonexistent/engine", "no such program"),
])
def test_an_engine_that_cannot_be_used_is_said(tmp_path, engine, message):
    store = small_store(tmp_path, 1)
    done = run("analyse", "--store", str(store), "--engine", engine, "--no-progress")
    assert done.returncode == 1 and message in done.stderr and "Traceback" not in done.stderr
    assert rows(store, "SELECT count(*) FROM analysis_all") == [(0,)]


def test_bad_options_and_limits_are_said(tmp_path):
    store = small_store(tmp_path, 1)
    done = run("analyse", "--store", str(store), "--engine", ANALYSED_ENGINE,
               "--option", "Nonsense=1")
    assert done.returncode == 1 and "no option 'Nonsense'" in done.stderr and "Hash" in done.stderr
    done = run("analyse", "--store", str(store), "--engine", ANALYSED_ENGINE, "--nodes", "10",
               "--depth", "3")
    assert done.returncode == 2 and "one of --nodes, --depth and --movetime" in done.stderr
    with pytest.raises(EngineError, match="depth=N or movetime=MS"):
        Limit.parse("nodes=")


def _engines_of(pid: int) -> list:
    """The engine processes a kifudb process started (its children)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == pid and "fairy" in stat:
                found.append(int(entry))
    return found


@pytest.mark.parametrize("how", ["kill", "hang"])
def test_an_engine_that_dies_or_hangs_is_restarted_and_the_position_retried(tmp_path, how):
    store = small_store(tmp_path, 1)
    process = subprocess.Popen([KIFUDB, "analyse", "--store", str(store), "--engine",
                                ANALYSED_ENGINE, "--nodes", "20000", "--deadline", "3",
                                "--no-progress"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    engines: list = []
    deadline = time.monotonic() + 60
    while len(engines) == 0 and time.monotonic() < deadline:
        time.sleep(0.5)
        engines = _engines_of(process.pid)
        if engines:  # the probe's engine comes and goes first: wait for the worker's
            time.sleep(1.0)
            engines = _engines_of(process.pid)
    assert engines
    os.kill(engines[0], signal.SIGKILL if how == "kill" else signal.SIGSTOP)
    out, err = process.communicate(timeout=900)
    if how == "hang":  # restarted: the stopped engine was killed (if not, it is now)
        with contextlib.suppress(ProcessLookupError):
            os.kill(engines[0], signal.SIGKILL)
    assert process.returncode == 0, (out, err)
    assert "restarted and the position tried once more" in err
    assert ("it stopped" if how == "kill" else "no 'bestmove' within 3 s") in err
    assert "the engine was restarted 1 times" in out
    total, keys = rows(store, "SELECT count(*), count(DISTINCT key) FROM analysis_all")[0]
    distinct, = rows(store, "SELECT count(DISTINCT key) FROM positions")[0]
    assert total == keys and distinct - keys == len(mated(store))


def test_an_engine_that_answers_an_illegal_move_is_reported(tmp_path):
    """Fairy-Stockfish told to play another game (minishogi, on a 5×5 board) answers moves
    that are not legal in a shogi position (a gold dropped from an empty hand): each such
    position is tried twice, then reported with the engine and the position; nothing is
    stored for it, the others are, and the run ends with exit status 1."""
    engine = Engine(find_engine(ANALYSED_ENGINE), (("UCI_Variant", "minishogi"),))
    with pytest.raises(EngineError, match=r"Fairy-Stockfish.*: position lnsgkgsnl/.* bestmove "
                                          r"G\*2c is illegal there"):
        engine.analyse(START, Limit.parse("nodes=50"))
    engine.close()
    store = small_store(tmp_path, 1)
    done = run("analyse", "--store", str(store), "--engine", ANALYSED_ENGINE, "--nodes", "50",
               "--option", "UCI_Variant=minishogi", "--no-progress")
    failed = [line for line in done.stdout.splitlines() if line.startswith("failed: ")]
    assert done.returncode == 1 and failed, done.stdout
    assert all("(tried twice)" in line and "position " in line for line in failed)
    stored, = rows(store, "SELECT count(DISTINCT key) FROM analysis_all")[0]
    distinct, = rows(store, "SELECT count(DISTINCT key) FROM positions")[0]
    assert stored + len(failed) == distinct - len(mated(store))
    assert f"{stored:,} positions analysed" in done.stdout


def test_a_dask_cluster_analyses_the_same_positions(tmp_path):
    """``--cluster local:2``: a scheduler and two worker processes, an engine on each."""
    store = small_store(tmp_path, 1)
    done = run("analyse", "--store", str(store), "--engine", ANALYSED_ENGINE, "--nodes", "200",
               "--cluster", "local:2", "--no-progress")
    assert done.returncode == 0, done.stderr
    one = tmp_path / "one"
    ingest_paths([str(ANALYSED_GAMES[0])], one)
    analyse(one, ANALYSED_ENGINE, "nodes=200")
    assert rows(store, "SELECT list(key ORDER BY key), min(engine) FROM analysis") == \
        rows(one, "SELECT list(key ORDER BY key), min(engine) FROM analysis")
    bad = run("analyse", "--store", str(store), "--engine", ANALYSED_ENGINE, "--cluster",
              "tcp://127.0.0.1:", "--no-progress")
    assert bad.returncode == 1 and "not an address" in bad.stderr


def test_the_analysis_is_split_by_key_range_as_positions_are(analysed_store, tmp_path):
    """A compaction (or a merge) writes a large analysis as one file per key range
    (``store.partitions``), checked by ``kifudb check`` like the positions files; the rows
    are the same."""
    import shutil

    from kifudb.store.check import check_store

    copy = tmp_path / "store"
    shutil.copytree(analysed_store, copy)
    before = rows(copy, "SELECT list((key, multipv, score_black, pv) ORDER BY key, multipv) "
                       "FROM analysis")
    store = Store(copy, partition_rows=256)
    with store.writing():
        store.compact()
    batch = store.manifest()["batches"][-1]
    names = sorted(n for n in os.listdir(store.batch_dir(batch)) if n.startswith("analysis"))
    assert len(names) == 8 and names[0] == "analysis-3-0.parquet", names  # ~1,200 rows
    assert check_store(copy).sound
    assert rows(copy, "SELECT list((key, multipv, score_black, pv) ORDER BY key, multipv) "
                      "FROM analysis") == before
    (store.batch_dir(batch) / names[3]).unlink()
    report = check_store(copy)
    assert not report.sound and any(names[3] in str(d) and "missing" in str(d)
                                    for d in report.damaged)
