"""Position search without a query (issue 30): the key lookup in Arrow (``store.lookup``), the
unfiltered search joined in Arrow (``analytics.queries.unfiltered_search``) held to the
answers of the SQL statements, and ``kifudb serve --workers``."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import duckdb
import httpx2
import numpy as np
import pytest

from bench.serve import start_server
from kifudb.analytics.queries import (hit_keys, occurrences_statement, search_statement,
                                      unfiltered_search, with_usi)
from kifudb.core.position import Position
from kifudb.store.engine import fetch, fetch_arrow, positions
from kifudb.store.folder import Store, StoreDamaged
from kifudb.store.lookup import KeyIndex
from kifudb.store.writer import ingest_paths

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "tests" / "fixtures" / "records"


def _positions_of(store_dir, games: int = 4) -> list:
    """Every position of the first ``games`` stored games (their main lines), as SFENs."""
    import kifudb

    db = kifudb.open(store_dir)
    return [sfen for game_id in range(1, games + 1) for sfen in db.game(game_id).sfens]


def _by_query(store_dir, sfen: str, mirror: bool, one_per_game: bool, offset: int, limit):
    """What the SQL statements answer (the search as it runs with filters)."""
    keys = hit_keys(sfen, mirror)
    counts = fetch(store_dir, occurrences_statement(sfen), keys=keys)[0]
    rows = with_usi(fetch_arrow(store_dir, search_statement(
        sfen, limit=limit, offset=offset, one_per_game=one_per_game), keys=keys)).to_pylist()
    return counts, rows


def test_unfiltered_search_answers_as_the_query(dashboard_store):
    """On every position of four real games (and the start, found in most games), with and
    without the mirror image, one row per game or every occurrence, pages and whole: the same
    counts and the same rows in the same order."""
    sfens = ["startpos"] + _positions_of(dashboard_store)
    compared = 0
    for number, sfen in enumerate(sfens):
        mirror = number % 2 == 1
        for one_per_game, offset, limit in ((False, 0, None), (True, 0, None), (False, 2, 5)):
            counts, rows = _by_query(dashboard_store, sfen, mirror, one_per_game, offset, limit)
            found = unfiltered_search(dashboard_store, sfen, mirror, one_per_game, offset, limit)
            assert found.counts() == counts, sfen
            assert found.page().to_pylist() == rows, (sfen, mirror, one_per_game)
            compared += len(rows)
    assert compared > 300


def test_a_search_that_keeps_its_page_as_rows_come_answers_as_the_query(dashboard_store,
                                                                        monkeypatch):
    """The page kept as the rows come, reduced after every row group (not after thousands of
    rows, as in a store of this size): the same answers as the query, with and without the
    mirror image and one row per game, on the start (in most games) and a later position."""
    from kifudb.analytics import queries
    from kifudb.analytics.position_input import position_from_moves

    monkeypatch.setattr(queries, "POSITIONS_ROW_GROUP", 0)
    later = position_from_moves("7g7f 3c3d").sfen()
    for sfen in ("startpos", later):
        for mirror, one_per_game, offset, limit in ((False, False, 0, 1), (True, True, 2, 3),
                                                    (False, True, 5, 4), (True, False, 1, 6)):
            counts, rows = _by_query(dashboard_store, sfen, mirror, one_per_game, offset, limit)
            found = unfiltered_search(dashboard_store, sfen, mirror, one_per_game, offset, limit)
            assert found.counts() == counts and len(rows) == limit, (sfen, mirror)
            assert found.page().to_pylist() == rows, (sfen, mirror, one_per_game, offset)


def test_a_search_holds_its_page_whatever_the_occurrences(monkeypatch):
    """``_newest`` on 50 and on 200 row groups of rows (repeated games, undated games, the
    mirror image): the page of the whole sort, and at most the same rows held at once."""
    import numpy as np
    import pyarrow as pa

    from kifudb.analytics import queries

    def chunks(count: int):
        random = np.random.default_rng(count)
        for _ in range(count):
            games = np.sort(random.integers(1, 40 * count, 1000)).astype(np.int32)
            hits = pa.table({"game": games, "ply": random.integers(0, 200, 1000, np.int32),
                             "next_move": np.zeros(1000, np.int16),
                             "black_to_move": np.ones(1000, bool),
                             "mirrored": random.integers(0, 2, 1000).astype(bool)})
            days = pa.array(games % 3000, pa.int32()).cast(pa.date32())
            yield hits, pa.array(days.to_pylist(), mask=games % 7 == 0)  # some undated

    held = []
    ordered = queries._ordered
    monkeypatch.setattr(queries, "_ordered", lambda rows, one: held.append(rows.num_rows)
                        or ordered(rows, one))
    peaks = []
    for count in (50, 200):
        for one_per_game in (False, True):
            whole, occurrences, games = queries._newest(chunks(count), None, one_per_game)
            held.clear()
            page, counted, distinct = queries._newest(chunks(count), 30, one_per_game)
            assert page.equals(whole.slice(0, 30)) and page.num_rows == 30
            assert counted == occurrences == 1000 * count
            assert distinct == games == len(np.unique(np.concatenate(
                [h.column("game").to_numpy() for h, _ in chunks(count)])))
            peaks.append(max(held))
    assert max(peaks) <= 2 * 30 + queries.POSITIONS_ROW_GROUP + 1000


def test_lookup_equals_the_positions_view_across_batches_and_key_ranges(tmp_path, monkeypatch):
    """A store of several batches whose positions are split into key ranges of a few
    thousand rows, read in row groups of 256: every key of it (and keys it does not hold) gives the rows
    that the ``positions`` view holds for it."""
    from kifudb.store import folder as store_folder

    monkeypatch.setattr(store_folder, "POSITIONS_ROW_GROUP", 256)
    store_dir = tmp_path / "store"
    store = Store(store_dir, partition_rows=2_000)
    for part in ("apery-wcsc28", "kifu-for-js", "shogi-kifu-converter"):
        ingest_paths([str(RECORDS / part)], store, batch_positions=8_000)
    manifest = store.manifest()
    names = [store.positions_files(b) for b in manifest["batches"]]
    assert len(names) >= 2 and any(len(n) > 1 for n in names), names  # split by key range
    index = KeyIndex({store.batch_dir(b): store.positions_files(b) for b in manifest["batches"]},
                     store.root)
    import sqlalchemy as sa
    view = fetch(store_dir, sa.select(positions.c.key, positions.c.game, positions.c.ply,
                                      positions.c.next_move, positions.c.black_to_move))
    expected: dict = {}
    for row in view:
        expected.setdefault(row["key"], []).append((row["game"], row["ply"], row["next_move"],
                                                    row["black_to_move"]))
    assert len(expected) > 3000
    for key, rows in expected.items():
        found = index.rows({key: True}).to_pylist()
        assert sorted((r["game"], r["ply"], r["next_move"], r["black_to_move"]) for r in found) \
            == sorted(rows)
        assert all(r["mirrored"] for r in found)
    for missing in (0, 1, 2 ** 64 - 1, 0x5A2210B47D303401):
        assert index.rows({missing: False}).num_rows == 0


def test_a_damaged_positions_file_is_named(tmp_path):
    """A positions file whose row group is not Parquet any more: the lookup says which file of
    which batch is damaged and how to repair it, not an Arrow traceback."""
    store_dir = tmp_path / "store"
    ingest_paths([str(RECORDS / "apery-wcsc28")], store_dir)
    store = Store(store_dir)
    batch = store.manifest()["batches"][0]
    index = KeyIndex({store.batch_dir(batch): store.positions_files(batch)}, store.root)
    index.rows({Position().key(): False})  # the footer read and kept
    path = store.batch_dir(batch) / store.positions_files(batch)[0]
    data = bytearray(path.read_bytes())
    data[4:4 + 4096] = b"\xff" * 4096  # the first pages: what a disk error leaves
    path.write_bytes(bytes(data))
    with pytest.raises(StoreDamaged) as damaged:
        index.rows({Position().key(): False})
    assert f"batch {batch}, file {path.name}" in str(damaged.value)
    assert "kifudb check --repair" in str(damaged.value)


@pytest.mark.parametrize("order", ["game", "game DESC"])
def test_the_summaries_are_mapped_in_the_games_order_however_written(order, tmp_path,
                                                                      monkeypatch):
    """A ``game_summary`` written in the games' order is mapped as read; one written otherwise
    is read again sorted: a game's row is found either way."""
    from kifudb.store import engine

    reads, write = [], engine._write_summaries
    monkeypatch.setattr(engine, "_write_summaries", lambda *args: reads.append(args[2])
                        or write(*args))

    database = duckdb.connect()
    database.execute(f"CREATE TABLE game_summary AS SELECT (i * 3)::INTEGER AS game, "
                     f"'b' || i AS black, 'w' || i AS white, DATE '2020-01-01' + i::INTEGER "
                     f"AS date, 'e' AS event, 'black' AS winner, 'resign' AS reason, "
                     f"'平手' AS handicap, 'p' || i AS path FROM range(5000) t(i) ORDER BY {order}")
    mapped = engine.map_summaries(database, tmp_path)
    rows, shown = mapped.rows(np.array([14_997, 4, 3, 0], np.int32), ("game", "black"))
    assert reads == ([""] if order == "game" else ["", " ORDER BY game"])
    assert shown.tolist() == [True, False, True, True]
    assert rows.to_pylist() == [{"game": 14_997, "black": "b4999"}, {"game": None, "black": None},
                                {"game": 3, "black": "b1"}, {"game": 0, "black": "b0"}]


def _keyed_answers(store_dir) -> dict:
    """The answers of every question that reads a position's rows (``hits``)."""
    from kifudb.analytics.explorer import explorer_answer, search_answer
    from kifudb.analytics.export import chosen_games
    from kifudb.analytics.filters import GameFilter
    from kifudb.analytics.position_history import position_history
    from kifudb.analytics.position_input import position_from_moves
    from kifudb.analytics.queries import occurrences

    longer = GameFilter(moves_from=20)
    answers = {}
    for moves in ("", "7g7f 3c3d"):
        position = position_from_moves(moves)
        answers[moves] = [explorer_answer(store_dir, position),
                          explorer_answer(store_dir, position, filters=longer),
                          search_answer(store_dir, position, mirror=True, limit=7,
                                        filters=longer),
                          occurrences(store_dir, position, mirror=True, filters=longer),
                          position_history(store_dir, position),
                          chosen_games(store_dir, longer, position=position)]
    return answers


def test_a_position_in_many_games_is_streamed_into_its_query(dashboard_store, monkeypatch):
    """Every question on a position's rows, with the rows kept (as for a rare position) and
    streamed into a table of the query's connection (as for a position of the openings):
    the same answers, and, asked twice, nothing of the first left on the pooled connections."""
    from kifudb.store import engine

    kept = _keyed_answers(dashboard_store)
    monkeypatch.setattr(engine, "STREAMED_ROWS", 0)
    engine._handle(Store(dashboard_store)).lookups.clear()
    for _ in range(2):
        assert _keyed_answers(dashboard_store) == kept
    assert all(len(answer["moves"]) > 1 for answer in kept[""][:2])
    assert all(answer["games"] > 1 for answer in (kept["7g7f 3c3d"][0], kept[""][2]))


def test_a_damaged_positions_file_met_by_a_streamed_query_is_named(tmp_path, monkeypatch):
    """The damaged file of ``test_a_damaged_positions_file_is_named`` read by a query of the
    explorer as a stream: the lookup's message (which file, how to repair it), not DuckDB's
    error around it."""
    from kifudb.analytics.queries import explore
    from kifudb.store import engine

    monkeypatch.setattr(engine, "STREAMED_ROWS", 0)
    store_dir = tmp_path / "store"
    ingest_paths([str(RECORDS / "apery-wcsc28")], store_dir)
    store = Store(store_dir)
    assert explore(store_dir, Position())  # the footers read and kept
    batch = store.manifest()["batches"][0]
    path = store.batch_dir(batch) / store.positions_files(batch)[0]
    data = bytearray(path.read_bytes())
    data[4:4 + 4096] = b"\xff" * 4096
    path.write_bytes(bytes(data))
    with pytest.raises(StoreDamaged) as damaged:
        explore(store_dir, Position())
    assert f"batch {batch}, file {path.name}" in str(damaged.value)
    assert "kifudb check --repair" in str(damaged.value)


def _children(pid: int) -> list:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


@pytest.mark.slow
def test_serve_answers_from_several_workers_and_stops_when_one_dies(dashboard_store):
    """``kifudb serve --workers 2``: two processes answer on one port (each connection to one
    of them), the answers are those of one worker; a worker killed ends the server with exit
    code 1 and a line that names it, the other worker stopped too."""
    server, base = start_server(dashboard_store, "--workers", "2")
    try:
        workers = []
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline:
            workers = [p for p in _children(server.pid)
                       if "spawn_main" in Path(f"/proc/{p}/cmdline").read_text()]
            time.sleep(0.2)
        assert len(workers) == 2, _children(server.pid)
        answers = set()
        for _ in range(8):  # a new connection each: the kernel spreads them
            with httpx2.Client(base_url=base, timeout=30) as http:
                found = http.get("/search", params={"moves": "7g7f,3c3d", "limit": 3}).json()
                answers.add((found["occurrences"], tuple(h["game"] for h in found["hits"])))
        assert len(answers) == 1 and len(next(iter(answers))[1]) == 3
        os.kill(workers[0], signal.SIGKILL)
        out, err = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    assert server.returncode == 1
    assert "worker" in err and "stopped (exit code -9)" in err, err
    assert "Traceback" not in err
    for pid in workers[1:]:
        assert not Path(f"/proc/{pid}").exists() or \
            "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
    assert "2 workers" in out


def test_serve_refuses_a_bad_number_of_workers(dashboard_store):
    done = subprocess.run([str(ROOT / ".venv" / "bin" / "kifudb"), "serve", "--store",
                           str(dashboard_store), "--workers", "0"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "--workers" in done.stderr


def test_a_reading_process_holds_no_row_per_game(dashboard_store):
    """The summaries of the games a search shows are a table on disk, in a DuckDB file of the
    process's own temporary folder (deleted once built: DuckDB keeps it open), read as a
    search needs them: after a search of the start (every game found), the summary is a table
    of that file, not a temporary (in-memory) one, and DuckDB may hold at most
    ``HANDLE_MEMORY`` of it; what a search shows of its games is an Arrow file mapped into
    memory, not read into it; the folder goes when the process ends."""
    from kifudb.store import engine

    found = unfiltered_search(dashboard_store, "startpos", limit=5)
    assert found.games > 5 and [r["game"] for r in found.page().to_pylist()] == \
        found.rows.column("game").to_pylist()
    handle = engine._handle(Store(dashboard_store))
    (path, temporary, limit), = handle.database.sql(
        "SELECT d.path, t.temporary, current_setting('memory_limit') FROM duckdb_tables() t "
        "JOIN duckdb_databases() d USING (database_name) "
        "WHERE t.table_name = 'game_summary'").fetchall()
    assert Path(path).parent == engine.own_folder() and not os.path.exists(path) and not temporary
    # what a search shows of the games is mapped from a file, not read into Arrow's memory
    import pyarrow as pa

    before = pa.total_allocated_bytes()
    mapped = engine.map_summaries(handle.database, engine.own_folder())
    table = pa.Table.from_batches(mapped.batches)
    assert table.num_rows >= found.games and table.nbytes > 10_000
    assert pa.total_allocated_bytes() - before < table.nbytes / 10
    # a page's rows, in the order asked, a game not shown a row of nulls
    ends = table.column("game").to_numpy()[[0, -1]]
    rows, shown = mapped.rows(np.array([ends[1], 10 ** 9, ends[0]], np.int32))
    assert shown.tolist() == [True, False, True]
    assert rows.column("game").to_pylist() == [ends[1], None, ends[0]]
    limited = duckdb.connect()
    limited.execute(f"SET memory_limit = '{engine.HANDLE_MEMORY}'")
    assert limit == limited.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    program = ("import sys; from kifudb.analytics.queries import search; "
               "from kifudb.store import engine; search(sys.argv[1], 'startpos', limit=1); "
               "print(engine.own_folder())")
    done = subprocess.run([os.sys.executable, "-c", program, str(dashboard_store)],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    folder = Path(done.stdout.strip())
    assert folder.name.startswith("kifudb-engine-") and not folder.exists()


def test_the_folder_of_a_killed_reader_is_removed_by_the_next_and_a_living_ones_kept(
        dashboard_store, tmp_path):
    """A reading process killed (SIGKILL: no exit handler runs) leaves its temporary folder
    (the summary's database, at 1B about a gigabyte); the next process that makes one removes
    it, and leaves the folder of a process that still runs."""
    import signal

    from kifudb.store.scratch import remove_abandoned

    program = ("import os, sys; from kifudb.analytics.queries import search; "
               "from kifudb.store import engine; search(sys.argv[1], 'startpos', limit=1); "
               "print(engine.own_folder(), flush=True); sys.stdin.readline()")
    environment = {**os.environ, "TMPDIR": str(tmp_path)}
    readers = [subprocess.Popen([os.sys.executable, "-c", program, str(dashboard_store)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                cwd=ROOT, env=environment) for _ in range(2)]
    killed, living = [Path(reader.stdout.readline().strip()) for reader in readers]
    assert killed.parent == living.parent == tmp_path and any(killed.iterdir())
    readers[0].send_signal(signal.SIGKILL)
    readers[0].wait()
    assert killed.exists() and remove_abandoned(tmp_path) == [killed] and living.exists()
    # the same on a reader's first search, through the engine
    readers.append(subprocess.Popen([os.sys.executable, "-c", program, str(dashboard_store)],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                    cwd=ROOT, env=environment))
    killed = Path(readers[2].stdout.readline().strip())
    readers[2].send_signal(signal.SIGKILL)
    readers[2].wait()
    again = subprocess.run([os.sys.executable, "-c", program, str(dashboard_store)],
                           input="\n", capture_output=True, text=True, cwd=ROOT, env=environment)
    assert again.returncode == 0, again.stderr
    assert not killed.exists() and living.exists()
    readers[1].communicate("\n")
    assert readers[1].returncode == 0 and list(tmp_path.iterdir()) == []
