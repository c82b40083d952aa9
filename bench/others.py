"""Benchmark adapters for other shogi libraries (cshogi, python-shogi, rsshogi).

Each ``replay_<name>(games) -> int`` takes a list of ``(start_sfen, usi_moves)`` (as ``load_usi``
returns them) and, for every game, sets up the start position, then for every move: parses the USI text, checks that the move
is legal with the library's single-move legality test (raising ValueError if it is not), pushes it
and computes the position's hash key.  It returns the number of positions keyed (= moves pushed).

The libraries are optional dev-only tools, so each is imported inside its function; the product
never imports them.  ``available()`` tells which are installed.

Run ``python bench/others.py [file.usi]`` for a small self-check: it replays
tests/fixtures/usi/real_games.usi with every available library and prints positions/second
(median of 3 runs).
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from kifudb.core.notation.usi import parse_position_line

# name (as in replay_<name>) -> distribution name on PyPI, import name
LIBRARIES = {
    "cshogi": ("cshogi", "cshogi"),
    "python_shogi": ("python-shogi", "shogi"),
    "rsshogi": ("rsshogi", "rsshogi"),
}


def replay_cshogi(games) -> int:
    """cshogi: Board(sfen), move_from_usi, is_legal, push, zobrist_hash.

    Note: cshogi 1.1.0's Board.is_legal(move) does not check the promotion flag or dead pieces:
    it accepts e.g. 7g7f+ from the start position, a pawn moving to the last rank unpromoted,
    or P*4a for sente.  (Its legal_moves generator is correct.)  No such move is in the fixtures.
    """
    import cshogi

    n = 0
    board = cshogi.Board()
    for start_sfen, usi_moves in games:
        board.set_sfen(start_sfen)
        for usi in usi_moves:
            move = board.move_from_usi(usi)  # 0 when the text does not name a pseudo-legal move
            if not move or not board.is_legal(move):
                raise ValueError(f"cshogi: illegal move {usi} in {board.sfen()}")
            board.push(move)
            board.zobrist_hash()
            n += 1
    return n


def replay_python_shogi(games) -> int:
    """python-shogi: Board(sfen), Move.from_usi, is_legal, push, zobrist_hash."""
    import shogi

    n = 0
    for start_sfen, usi_moves in games:
        board = shogi.Board(start_sfen)
        for usi in usi_moves:
            move = shogi.Move.from_usi(usi)  # raises ValueError on malformed text
            if not board.is_legal(move):
                raise ValueError(f"python-shogi: illegal move {usi} in {board.sfen()}")
            board.push(move)
            board.zobrist_hash()
            n += 1
    return n


def replay_rsshogi(games) -> int:
    """rsshogi: core.Board(sfen), core.Move.from_usi, Board.is_legal_move, Board.push_move, Board.zobrist_hash.

    (push_move itself also rejects illegal moves with ValueError, so the legality test runs twice;
    Board.push_usi(usi) does parse + check + push in one call and is faster.)
    """
    from rsshogi.core import Board, Move

    n = 0
    for start_sfen, usi_moves in games:
        board = Board(start_sfen)
        for usi in usi_moves:
            move = Move.from_usi(usi)  # raises ValueError on malformed text
            if not board.is_legal_move(move):
                raise ValueError(f"rsshogi: illegal move {usi} in {board.to_sfen()}")
            board.push_move(move)
            board.zobrist_hash()
            n += 1
    return n


def available() -> dict[str, str | None]:
    """{name: installed version or None} for every library with a replay_<name> adapter."""
    from importlib import import_module, metadata

    out: dict[str, str | None] = {}
    for name, (dist, module) in LIBRARIES.items():
        try:
            import_module(module)
        except ImportError:
            out[name] = None
            continue
        try:
            out[name] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[name] = getattr(sys.modules[module], "__version__", "unknown")
    return out


def load_usi(path) -> list[tuple[str, list[str]]]:
    """``(start SFEN, USI moves)`` of each line ``sfen <sfen> moves ...`` or ``startpos moves ...``
    of a .usi file (``core.notation.usi.parse_position_line``); '#' lines skipped."""
    games = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            games.append(parse_position_line(line))
    return games


def _main(argv: list[str]) -> int:
    root = Path(__file__).resolve().parent.parent
    path = Path(argv[0]) if argv else root / "tests" / "fixtures" / "usi" / "real_games.usi"
    games = load_usi(path)
    expected = sum(len(m) for _, m in games)
    print(f"{path}: {len(games)} games, {expected} moves")
    status = 0
    for name, version in available().items():
        if version is None:
            print(f"{name:13s} not installed")
            continue
        fn = globals()[f"replay_{name}"]
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            n = fn(games)
            times.append(time.perf_counter() - t0)
            if n != expected:
                print(f"{name}: keyed {n} positions, expected {expected}")
                status = 1
        med = statistics.median(times)
        print(f"{name:13s} {version:8s} {expected / med:12,.0f} positions/s  (median {med * 1000:.1f} ms of 3 runs)")
    return status


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
