"""Ingest throughput: read + parse + validate + key, for the KIF and the CSA files of the fixtures,
beside rsshogi's and cshogi's readers on the same files in the same run; and ``--jobs 2`` against
one job on a larger copy of the fixtures.

Every contender starts from the file's bytes, decodes them, parses the record, checks every move
of the main line with its single-move legality test, plays it and computes the position's key.
The corpus is restricted to the files that every library reads to the same number of moves as
kifudb (the others skip some records or mis-read them; the count left out is printed).
When the compiled build runs, "kifudb interpreted" is kifudb again in a process that loads the
``.py`` files (``KIFUDB_PURE=1``, ``core/_native.py``).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.interpreted import compiled
from kifudb.core import _native
from kifudb.ingest.pipeline import read_data
from kifudb.ingest.read import record_files
from kifudb.cli_validate import validate_files

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "tests" / "fixtures" / "records"
_CODECS = {"utf-8-bom": "utf-8-sig", "ascii": "utf-8", "utf-8": "utf-8", "cp932": "cp932",
           "euc-jp": "euc-jp", "shift_jis": "cp932"}


def load_corpus(kind: str):
    """``[(path, bytes, codec, format)]`` of the fixture files of one kind (``kif`` or ``csa``)."""
    rows = csv.DictReader(open(RECORDS / "MANIFEST.csv", encoding="utf-8"))
    formats = {"kif": ("kif", "kifu"), "csa": ("csa",)}[kind]
    return [(str(RECORDS / r["path"]), (RECORDS / r["path"]).read_bytes(), _CODECS[r["encoding"]],
             r["format"]) for r in rows if r["format"] in formats and r["games"] not in ("", "0")]


def kifudb_games(items) -> int:
    n = 0
    for path, data, _, _ in items:
        n += sum(game.moves for game in read_data(data, path).games)
    return n


def _rsshogi_records(text: str, fmt: str):
    from rsshogi.record import Record
    if fmt == "csa":
        return Record.from_csa_games_str(text)
    return [Record.from_kif_str(text)]


def rsshogi_games(items) -> int:
    from rsshogi.core import Board
    n = 0
    for _, data, codec, fmt in items:
        for record in _rsshogi_records(data.decode(codec), fmt):
            board = Board(record.init_position_sfen)
            for entry in record.moves:
                move = entry.move
                if not board.is_legal_move(move):
                    raise ValueError("rsshogi: illegal move")
                board.push_move(move)
                board.zobrist_hash()
                n += 1
    return n


def rsshogi_reader_only(items) -> int:
    """rsshogi's reader alone (it checks every move while reading), without keying positions."""
    n = 0
    for _, data, codec, fmt in items:
        for record in _rsshogi_records(data.decode(codec), fmt):
            n += len(record.moves)
    return n


def _cshogi_parsers(text: str, fmt: str):
    import cshogi.CSA
    import cshogi.KIF
    if fmt == "csa":
        return cshogi.CSA.Parser.parse_str(text)
    return [cshogi.KIF.Parser.parse_str(text)]


def cshogi_games(items) -> int:
    import cshogi
    board = cshogi.Board()
    n = 0
    for _, data, codec, fmt in items:
        for parser in _cshogi_parsers(data.decode(codec), fmt):
            board.set_sfen(parser.sfen)
            for move in parser.moves:
                if not board.is_legal(move):
                    raise ValueError("cshogi: illegal move")
                board.push(move)
                board.zobrist_hash()
                n += 1
    return n


CONTENDERS = (("kifudb", kifudb_games), ("rsshogi", rsshogi_games), ("cshogi", cshogi_games))
#: the contenders timed: the three that read alike, and rsshogi's reader alone; kifudb
#: interpreted beside its compiled build (``_time_in_child`` sets ``KIFUDB_PURE``)
TIMED = dict(CONTENDERS + (("rsshogi reader only", rsshogi_reader_only),
                           ("kifudb interpreted", kifudb_games)))


def _counts(item) -> set:
    counts = set()
    for _, function in CONTENDERS:
        try:
            counts.add(function([item]))
        except Exception:  # a library that cannot read the file at all
            counts.add(-1)
    return counts


def agreed(items):
    """The files every library reads to kifudb's number of moves. Each file is tried in a child
    process, because cshogi crashes (segmentation fault) on some records."""
    import multiprocessing

    keep = []
    context = multiprocessing.get_context("fork")
    with context.Pool(1, maxtasksperchild=1) as pool:
        for item in items:
            result = pool.apply_async(_counts, (item,))
            try:
                if len(result.get(timeout=30)) == 1:
                    keep.append(item)
            except Exception:  # the child died: leave the file out
                pass
    return keep


def _time_in_child(name: str, listing: str, repeat: int) -> tuple:
    """``(positions, seconds)`` of one contender over the listed files, measured in a fresh
    process: one pass to warm up, then the median of three. A fresh process per measurement
    keeps one library's memory and caches from slowing another (rsshogi ran 30% slower in a
    process where kifudb had run before)."""
    command = [sys.executable, "-m", "bench.ingest", "time", name, listing, str(repeat)]
    env = dict(os.environ)
    if name == "kifudb interpreted":
        env[_native.PURE_VARIABLE] = "1"
    done = subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT, env=env)
    n, seconds = done.stdout.split()
    return int(n), float(seconds)


def _interleaved_times(names, listing: str, repeat: int, runs: int) -> dict:
    """``{name: (positions, [seconds of each run])}``. The contenders take turns within each
    run, so that a slow spell of a shared machine falls on all of them, not on one."""
    times = {name: [] for name in names}
    counts = {}
    for _ in range(runs):
        for name in names:
            counts[name], seconds = _time_in_child(name, listing, repeat)
            times[name].append(seconds)
    return {name: (counts[name], times[name]) for name in names}


def _time_here(name: str, listing: str, repeat: int) -> None:
    """The child's side of ``_time_in_child``: print ``positions seconds``."""
    rows = json.loads(Path(listing).read_text(encoding="utf-8"))
    items = [(path, Path(path).read_bytes(), codec, fmt) for path, codec, fmt in rows] * repeat
    function = TIMED[name]
    function(items)  # warm up: imports, caches of parsed move texts
    times = []
    for _ in range(3):
        started = time.perf_counter()
        n = function(items)
        times.append(time.perf_counter() - started)
    print(n, statistics.median(times))


def run_readers(kind: str, runs: int, repeat: int = 5) -> list:
    """Print the throughput of each contender; "vs kifudb" is the median over the runs of the
    per-run ratio. Returns the files measured (those every library reads alike)."""
    items = load_corpus(kind)
    kept = agreed(items)
    games = sum(len(read_data(d, p).games) for p, d, _, _ in kept)
    print(f"\n## {kind.upper()} files: read + parse + validate + key ({len(kept)} of {len(items)} "
          f"files that every library reads alike, {games} games, each file {repeat}x; median of "
          f"{runs} interleaved runs, each in a fresh process; kifudb {_native.status()})")
    names = [name for name in TIMED
             if name != "kifudb interpreted" or compiled()]
    print(f"{'library':20s} {'positions/s':>13s} {'games/s':>9s} {'vs kifudb':>10s}")
    with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8") as listing:
        json.dump([[path, codec, fmt] for path, _, codec, fmt in kept], listing)
        listing.flush()
        timed = _interleaved_times(names, listing.name, repeat, runs)
    base = timed["kifudb"][1]
    for name, (n, seconds) in timed.items():
        median = statistics.median(seconds)
        ratio = statistics.median(b / s for b, s in zip(base, seconds))
        print(f"{name:20s} {n / median:13,.0f} {games * repeat / median:9,.0f} {ratio:9.2f}x")
    return kept


def _best_microseconds(function, moves: int, repeat: int = 15) -> float:
    """The best of ``repeat`` runs of ``function()``, in microseconds per move."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - started)
    return best / moves * 1e6


def _replay_rsshogi(records) -> None:
    from rsshogi.core import Board
    for record in records:
        board = Board(record.init_position_sfen)
        for entry in record.moves:
            if not board.is_legal_move(entry.move):
                raise ValueError("rsshogi: illegal move")
            board.push_move(entry.move)
            board.zobrist_hash()


def stages(items) -> dict:
    """``{stage: (kifudb µs per move, rsshogi µs per move or None)}``: each stage of the path
    timed alone over the same files in this process (the best of 15), so that a difference in
    the whole path can be placed. kifudb's stages are the pipeline's own steps: ``decode``,
    ``sniff``, ``parse`` (the format's reader) and ``stored_game`` (replay, keys and the
    per-game work) for every game; "the rest" is the whole path (``read_data``) less them."""
    from kifudb.ingest.pipeline import stored_game
    from kifudb.ingest.read import FileRead, parse
    from kifudb.ingest.decode import decode
    from kifudb.ingest.sniff import sniff

    moves = kifudb_games(items)
    texts = [(path, decode(data)) for path, data, _, _ in items]
    formats = [(path, sniff(d.text, path), d) for path, d in texts]

    def read_all() -> list:
        reads = [FileRead(path, fmt, d.encoding) for path, fmt, d in formats]
        for read, (_, _, d) in zip(reads, formats):
            parse(read, d.text)
        return reads
    reads = read_all()
    decoded = [(data.decode(codec), fmt) for _, data, codec, fmt in items]
    records = [r for text, fmt in decoded for r in _rsshogi_records(text, fmt)]
    ours = {
        "decoding (kifudb also detects the encoding)":
            lambda: [decode(data) for _, data, _, _ in items],
        "telling the format": lambda: [sniff(d.text, path) for path, d in texts],
        "the reader": read_all,
        "replay with keys, and the per-game work":
            lambda: [stored_game(read.path, record) for read in reads for record in read.records],
    }
    theirs = {
        "decoding (kifudb also detects the encoding)":
            lambda: [data.decode(codec) for _, data, codec, _ in items],
        "the reader": lambda: [_rsshogi_records(text, fmt) for text, fmt in decoded],
        "replay with keys, and the per-game work": lambda: _replay_rsshogi(records),
    }
    out = {name: (_best_microseconds(f, moves), _best_microseconds(theirs[name], moves)
                  if name in theirs else None) for name, f in ours.items()}
    whole = (_best_microseconds(lambda: kifudb_games(items), moves),
             _best_microseconds(lambda: rsshogi_games(items), moves))
    out["the rest (records made and freed in one pass, the file's result)"] = (
        whole[0] - sum(kifudb for kifudb, _ in out.values()), None)
    out["the whole path"] = whole
    return out


def run_stages(kind: str, items) -> None:
    """Print ``stages`` of the files that every library reads alike."""
    print(f"\n## {kind.upper()}: where a move's time goes (µs per move, each stage alone, best of "
          f"15 in one process; kifudb {_native.status()})")
    print(f"{'stage':66s} {'kifudb':>7s} {'rsshogi':>8s}")
    for name, (ours, theirs) in stages(items).items():
        print(f"{name:66s} {ours:7.2f} {'' if theirs is None else f'{theirs:8.2f}'}")


def _time_command(folder: str, jobs: int) -> float:
    """Seconds for ``kifudb validate FOLDER --jobs N`` as a user runs it (a fresh process that
    imports, reads, validates and writes the jsonl report)."""
    command = [sys.executable, "-m", "kifudb", "validate", folder, "--jobs", str(jobs),
               "--format", "jsonl", "--output", os.devnull]
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   cwd=ROOT)
    return time.perf_counter() - started


def run_jobs(runs: int = 3, copies: int = 8) -> None:
    """``--jobs 2`` against one job, twice: ``validate_files`` in this process, and the whole
    ``kifudb validate`` command in a fresh process; runs interleaved, ratios' medians."""
    files = list(record_files([RECORDS]))
    with tempfile.TemporaryDirectory() as tmp:
        copied = []
        for i in range(copies):
            for n, path in enumerate(files):
                target = Path(tmp, str(i), f"{n}{Path(path).suffix}")
                target.parent.mkdir(exist_ok=True)
                shutil.copyfile(path, target)
                copied.append(str(target))
        print(f"\n## kifudb validate --jobs: {len(copied)} files ({copies} copies of the fixtures), "
              f"median of {runs} interleaved runs")

        def in_process(jobs: int) -> float:
            started = time.perf_counter()
            for _rows in validate_files(copied, jobs=jobs):
                pass
            return time.perf_counter() - started

        for label, measure in (("validate_files", in_process),
                               ("kifudb validate", lambda jobs: _time_command(tmp, jobs))):
            times = {1: [], 2: []}
            for _ in range(runs):
                for jobs in (1, 2):
                    times[jobs].append(measure(jobs))
            medians = {jobs: statistics.median(times[jobs]) for jobs in (1, 2)}
            speedup = statistics.median(a / b for a, b in zip(times[1], times[2]))
            print(f"{label:16s} --jobs 1: {medians[1]:5.2f} s  --jobs 2: {medians[2]:5.2f} s  "
                  f"({len(copied) / medians[2]:,.0f} files/s)  speed-up {speedup:.2f}x")


if __name__ == "__main__":  # python -m bench.ingest time NAME LISTING REPEAT (see _time_in_child)
    if len(sys.argv) == 5 and sys.argv[1] == "time":
        _time_here(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit("usage: python -m bench.ingest time NAME LISTING REPEAT")
