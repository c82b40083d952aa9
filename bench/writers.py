"""Record writing: ``kifudb convert``'s writers (``core.writers``) beside rsshogi's and cshogi's
on the same games, in one run, in positions (moves written) per second, the median of ``runs``
runs, and each library's ratio to kifudb.

Two measures:

* **write**: the games of ``tests/fixtures/usi/real_games.usi`` (399 real games, 27,638 moves),
  each given as its start and USI moves, written as one KIF text and one CSA text per game,
  encoded as UTF-8. kifudb builds a ``core.kifu.Kifu`` and writes it (``core.writers.write``);
  rsshogi builds a ``Record`` from the USI position line and exports it (``to_kif``,
  ``to_csa``); cshogi plays the moves on a ``Board`` into its ``KIF.Exporter`` /
  ``CSA.Exporter`` (given an in-memory stream). All of them write the moves' KIF or CSA texts
  (so each looks at the position before every move).
* **convert**: the KIF/KIFU fixture files read from disk and written as CSA, as ``kifudb
  convert FILES --to csa`` does (``ingest.kifu.read_kifus`` then ``write``), beside rsshogi's
  ``Record.from_kif_str`` then ``to_csa`` on the same files (decoded as kifudb decodes them);
  only the files both read to the same number of moves count.

The texts are kept in memory, not written to files: creating a file per game costs every
library the same and, on a shared machine, its time varies more than the writers' own.

Run::

    python -m bench --only writers [--runs 5]
"""

from __future__ import annotations

import io
import statistics
import time
from pathlib import Path

from bench.others import available, load_usi
from kifudb.core.kifu import Kifu, KifuMove
from kifudb.core.notation.usi import position_line
from kifudb.core.writers import write

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "tests" / "fixtures" / "usi" / "real_games.usi"
RECORDS = ROOT / "tests" / "fixtures" / "records"
FORMATS = ("kif", "csa")


def write_kifudb(games, fmt: str) -> int:
    n, out = 0, []
    for start, moves in games:
        kifu = Kifu(start_sfen=start, moves=[KifuMove(usi) for usi in moves])
        out.append(write(kifu, fmt).encode("utf-8"))
        n += len(moves)
    return n


def write_rsshogi(games, fmt: str) -> int:
    from rsshogi.record import Record

    n, out = 0, []
    for start, moves in games:
        record = Record.from_usi_position("position " + position_line(start, moves))
        text = record.to_kif() if fmt == "kif" else record.to_csa(version="3.0")
        out.append(text.encode("utf-8"))
        n += len(moves)
    return n


def write_cshogi(games, fmt: str) -> int:
    import cshogi
    from cshogi import CSA, KIF

    n, out = 0, []
    for start, moves in games:
        board = cshogi.Board(start)
        stream = io.StringIO()
        if fmt == "kif":
            exporter = KIF.Exporter()
            exporter.kifu, exporter.prev_move, exporter.move_number = stream, None, 1
            exporter.header(["", ""], handicap="sfen " + start)
        else:
            exporter = CSA.Exporter()
            exporter.f = stream
            exporter.info(init_board=cshogi.Board(start))
        for usi in moves:
            move = board.move_from_usi(usi)
            exporter.move(move)
            board.push(move)
        out.append(stream.getvalue().encode("utf-8"))
        n += len(moves)
    return n


def _convert_corpus() -> list:
    """``(path, text, moves)`` of the KIF/KIFU fixture files that both kifudb and rsshogi read
    whole to the same number of main-line moves (one game a file)."""
    from kifudb.ingest.decode import decode
    from kifudb.ingest.kifu import read_kifus
    from kifudb.ingest.read import record_files
    from rsshogi.record import Record

    out = []
    for path in record_files([RECORDS]):
        if not path.lower().endswith((".kif", ".kifu")):
            continue
        read = read_kifus(path, variations=False)
        if len(read.games) != 1 or read.games[0].kifu is None:
            continue
        text = decode(Path(path).read_bytes()).text
        try:
            theirs = len(Record.from_kif_str(text).moves)
        except Exception:
            continue
        if theirs == len(read.games[0].kifu.moves):
            out.append((path, text, theirs))
    return out


def convert_kifudb(corpus) -> int:
    from kifudb.ingest.kifu import read_kifus

    n, out = 0, []
    for path, _, _ in corpus:
        for game in read_kifus(path, variations=False).games:
            out.append(write(game.kifu, "csa").encode("utf-8"))
            n += len(game.kifu.moves)
    return n


def convert_rsshogi(corpus) -> int:
    from kifudb.ingest.decode import decode  # as kifudb does: the bytes' encoding found first
    from rsshogi.record import Record

    n, out = 0, []
    for path, _, _ in corpus:
        record = Record.from_kif_str(decode(Path(path).read_bytes()).text)
        out.append(record.to_csa(version="3.0").encode("utf-8"))
        n += len(record.moves)
    return n


def _median_rate(function, data, fmt, runs: int) -> tuple:
    arguments = (data,) + ((fmt,) if fmt else ())
    function(*arguments)  # warm-up: imports, caches
    times, positions = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        positions = function(*arguments)
        times.append(time.perf_counter() - started)
    return positions, positions / statistics.median(times)


def _report(title: str, contenders: list, data, fmt, runs: int) -> None:
    print(f"\n{title}")
    print(f"  {'library':<10} {'positions':>10} {'positions/s':>14} {'vs kifudb':>10}")
    base = None
    for name, function in contenders:
        positions, rate = _median_rate(function, data, fmt, runs)
        base = base or rate
        print(f"  {name:<10} {positions:>10,} {rate:>14,.0f} {rate / base:>9.2f}x")


def run_writers(runs: int = 5) -> None:
    """Print the write and convert figures (see the module docstring)."""
    installed = available()
    games = load_usi(GAMES)
    for fmt in FORMATS:
        contenders = [("kifudb", write_kifudb)]
        contenders += [(name, function) for name, function in (("rsshogi", write_rsshogi),
                                                                ("cshogi", write_cshogi))
                       if installed.get(name)]
        _report(f"write {fmt.upper()}: {len(games)} games of {GAMES.name}, one text each "
                f"(median of {runs} runs)", contenders, games, fmt, runs)
    if installed.get("rsshogi"):
        corpus = _convert_corpus()
        _report(f"convert KIF -> CSA: {len(corpus)} fixture files read and written (median of "
                f"{runs} runs)", [("kifudb", convert_kifudb), ("rsshogi", convert_rsshogi)],
                corpus, None, runs)


if __name__ == "__main__":
    run_writers()
