"""Training data: ``kifudb export --to hcpe`` (``analytics.training.write_training``) in
positions per second, beside cshogi's and rsshogi's hcpe writers on the same games, in one run.

The games are those of the seeded store of ``--store-scale`` (its first scale; ``bench/store.py``
builds it when missing, and a store of an older format is read as it is) that have a result and both kings — what ``write_training`` writes.
Every contender writes the same records (38 bytes each: position, evaluation, move, result) to a
file, the median of ``runs`` runs:

* kifudb, whole: ``write_training`` from the store — reading the games and moves (DuckDB),
  replaying them, packing (``core.packed``) and writing;
* kifudb, packing only: the same games already in memory, replayed and packed;
* cshogi: ``Board(sfen)``, ``to_hcp`` into a ``HuffmanCodedPosAndEval`` array, ``move16``,
  ``push_usi``, then ``tofile``;
* rsshogi: ``Board(sfen)``, ``to_hcpe`` into the same array, ``push_usi``, then ``tofile``.

Run::

    python -m bench --only training [--store-scale 100k] [--runs 5]
"""

from __future__ import annotations

import statistics
import struct
import tempfile
import time
from pathlib import Path

from kifudb.analytics.played import played_games
from kifudb.analytics.training import write_training
from bench.others import available
from kifudb.core.move import Move
from kifudb.core.packed import apery_move16, huffman_coded_pos
from kifudb.core.position import Position

_RESULT = {"black": 1, "white": 2, "draw": 0}
_HCPE = struct.Struct("<32shHbx")


def _games(store) -> list:
    """(start SFEN, winner, [usi]) of the games ``write_training`` writes."""
    chosen = []
    for played in played_games(store):
        if played.winner in _RESULT and played.moves and \
                None not in Position.from_sfen(played.start_sfen).king_squares:
            chosen.append((played.start_sfen, played.winner, [m.usi for m in played.moves]))
    return chosen


def pack_kifudb(games, path: Path) -> int:
    n = 0
    with open(path, "wb") as stream:
        for start, winner, usi_moves in games:
            position, records = Position.from_sfen(start), []
            for usi in usi_moves:
                move = Move.from_usi(usi)
                records.append(_HCPE.pack(huffman_coded_pos(position), 0, apery_move16(move),
                                          _RESULT[winner]))
                position.push(move)
            stream.write(b"".join(records))
            n += len(records)
    return n


def pack_cshogi(games, path: Path) -> int:
    import cshogi
    import numpy as np

    total = sum(len(m) for _, _, m in games)
    records = np.zeros(total, cshogi.HuffmanCodedPosAndEval)
    board, n = cshogi.Board(), 0
    for start, winner, usi_moves in games:
        board.set_sfen(start)
        for usi in usi_moves:
            board.to_hcp(records[n:n + 1]["hcp"])
            move = board.push_usi(usi)
            records[n]["bestMove16"] = cshogi.move16(move)
            records[n]["gameResult"] = _RESULT[winner]
            n += 1
    records.tofile(path)
    return n


def pack_rsshogi(games, path: Path) -> int:
    import numpy as np
    import rsshogi.core
    import rsshogi.numpy

    total = sum(len(m) for _, _, m in games)
    records = np.zeros(total, rsshogi.numpy.HuffmanCodedPosAndEval)
    n = 0
    for start, winner, usi_moves in games:
        board = rsshogi.core.Board(start)
        for usi in usi_moves:
            board.to_hcpe(rsshogi.core.Move.from_usi(usi), 0, _RESULT[winner],
                          records[n:n + 1])
            board.push_usi(usi)
            n += 1
    records.tofile(path)
    return n


def _median(function, runs: int) -> tuple:
    function()  # warm-up
    times, n = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        n = function()
        times.append(time.perf_counter() - started)
    return n, statistics.median(times)


def run_training(scale: str = "100k", runs: int = 5) -> list:
    """Measure and print; the rows as dicts (name, positions, seconds, rate, ratio)."""
    from bench.store import RESULTS, built_store, parse_scale, scale_name

    store = RESULTS / f"store-{scale_name(parse_scale(scale))}-seed1"
    if not (store / "manifest.json").exists():  # an older format is read as it is
        store = built_store(scale)
    games = _games(store)
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        contenders = [
            ("kifudb export --to hcpe", "0.1.0",
             lambda: write_training(store, out / "whole.hcpe", "hcpe")["records"]),
            ("kifudb (packing only)", "0.1.0", lambda: pack_kifudb(games, out / "k.hcpe"))]
        versions = available()
        for name, function in (("cshogi", pack_cshogi), ("rsshogi", pack_rsshogi)):
            if versions.get(name):
                contenders.append((f"{name} to_hcp{'e' if name == 'rsshogi' else ''}",
                                   versions[name],
                                   lambda f=function, n=name: f(games, out / f"{n}.hcpe")))
            else:
                print(f"{name:28s} not installed")
        positions = sum(len(m) for _, _, m in games)
        print(f"\n## training data (hcpe): {len(games)} games, {positions} positions of the "
              f"{scale} store (median of {runs} runs)")
        print(f"{'writer':28s} {'version':>9s} {'positions/s':>13s} {'median s':>9s} "
              f"{'vs kifudb':>10s}")
        rows, baseline = [], None
        for name, version, function in contenders:
            n, seconds = _median(function, runs)
            assert n == positions, (name, n, positions)
            rate = n / seconds
            baseline = baseline or rate
            rows.append({"name": name, "positions": n, "seconds": seconds, "rate": rate,
                         "ratio": rate / baseline})
            print(f"{name:28s} {version:>9s} {rate:13,.0f} {seconds:9.3f} "
                  f"{rate / baseline:9.2f}x")
        same = {(out / f).read_bytes() == (out / "k.hcpe").read_bytes()
                for f in ("whole.hcpe", "cshogi.hcpe", "rsshogi.hcpe") if (out / f).exists()}
        print("the files are byte for byte the same" if same == {True} else
              "the files DIFFER (evaluations aside, they should not)")
    return rows
