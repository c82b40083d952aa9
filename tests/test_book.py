"""YaneuraOu books (``analytics.book``, ``kifudb book``) of the real fixture records, read back
by rsshogi's book reader (``YaneuraOuBook``: its full validation and its lookups), with every
move checked legal by cshogi and every count checked against the opening explorer's."""

from __future__ import annotations

import cshogi
import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from rsshogi.book import YaneuraOuBook

from kifudb.analytics.book import HEADER, book_entries, write_book
from kifudb.analytics.filters import GameFilter
from kifudb.analytics.queries import explore
from kifudb.cli import main
from kifudb.store.engine import fetch, games


@pytest.fixture(scope="module")
def whole_book(dashboard_store, tmp_path_factory):
    """The book of every move of every game, its file and its entries."""
    path = tmp_path_factory.mktemp("book") / "book.db"
    written = write_book(dashboard_store, path)
    return path, written, book_entries(dashboard_store)


def test_rsshogi_reads_the_book_back(whole_book):
    path, written, entries = whole_book
    assert path.read_text(encoding="ascii").splitlines()[0] == HEADER == "#YANEURAOU-DB2016 1.00"
    assert written["positions"] == len(entries) > 5000
    book = YaneuraOuBook.open(str(path))
    report = book.validate_full()
    assert (report.kind, report.complete, report.checked_rows) == ("sorted", True, len(entries))
    for sfen, lines in entries[::7]:
        found = book.lookup_sfen(sfen)
        assert found is not None and found.min_ply == int(sfen.split()[-1])
        read = [(m.mv.to_usi(), m.ponder.to_usi(), m.score,
                 m.depth, m.count) for m in found.moves]
        assert read == lines


def test_moves_are_legal_and_sorted(whole_book):
    path, _, entries = whole_book
    sfens = [line for line in path.read_text(encoding="ascii").splitlines()
             if line.startswith("sfen ")]
    assert sfens == sorted(sfens) and len(set(s.rsplit(" ", 1)[0] for s in sfens)) == len(sfens)
    evaluated = 0
    for sfen, lines in entries:
        board = cshogi.Board(sfen)
        counts = [(line[4], line[2]) for line in lines]
        assert counts == sorted(counts, reverse=True)  # by count, then value
        for move, ponder, value, depth, count in lines:
            legal = board.move_from_usi(move)
            assert board.is_legal(legal), (sfen, move)
            if ponder != "none":
                board.push(legal)
                assert board.is_legal(board.move_from_usi(ponder)), (sfen, move, ponder)
                board.pop()
            evaluated += depth > 0 or value != 0
    assert evaluated > 100  # the stored evaluations reach the book


def test_counts_are_the_explorers(dashboard_store, whole_book):
    _, _, entries = whole_book
    busiest = sorted(entries, key=lambda entry: -sum(line[4] for line in entry[1]))[:40]
    for sfen, lines in busiest + entries[::97]:
        explored = {row["move"]: row["count"] for row in explore(dashboard_store, sfen)}
        assert {line[0]: line[4] for line in lines} == explored, sfen


def test_min_games_max_ply_and_filters(dashboard_store, whole_book):
    _, _, entries = whole_book
    whole = {(sfen.rsplit(" ", 1)[0], line[0]): line[4] for sfen, lines in entries
             for line in lines}
    short = book_entries(dashboard_store, min_games=3, max_ply=12)
    assert 0 < len(short) < len(entries)
    for sfen, lines in short:
        for line in lines:
            assert 3 <= line[4] <= whole[(sfen.rsplit(" ", 1)[0], line[0])]
    starts = {row["start_sfen"].rsplit(" ", 1)[0] for row in fetch(
        dashboard_store, sa.select(games.c.start_sfen).where(games.c.moves > 0))}
    first_moves = book_entries(dashboard_store, max_ply=1)
    assert {sfen.rsplit(" ", 1)[0] for sfen, _ in first_moves} == starts
    black = book_entries(dashboard_store, filters=GameFilter(winner="black"), max_ply=1)
    even = dict(black)["lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"]
    assert {m: c for m, _, _, _, c in even} == {
        r["move"]: r["count"] for r in explore(dashboard_store, "startpos",
                                               filters=GameFilter(winner="black"))}
    with pytest.raises(ValueError, match="min_games must be an integer of at least 1"):
        book_entries(dashboard_store, min_games=0)


def test_the_book_command(dashboard_store, tmp_path):
    output = tmp_path / "book.db"
    result = CliRunner().invoke(main, ["book", "--store", str(dashboard_store), "--output",
                                       str(output), "--min-games", "2", "--max-ply", "20",
                                       "--player", "羽生"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"{output}: ") and " positions, " in result.output
    book = YaneuraOuBook.open(str(output))
    assert book.validate_full().complete
    missing = CliRunner().invoke(main, ["book", "--store", str(dashboard_store), "--output",
                                        str(tmp_path / "no" / "book.db")])
    assert missing.exit_code == 1 and "no folder" in missing.output
    bad = CliRunner().invoke(main, ["book", "--store", str(dashboard_store), "--output",
                                    str(output), "--from", "someday"])
    assert bad.exit_code != 0 and "not a date" in bad.output


def test_the_book_stops_at_the_default_ply_unless_told(dashboard_store, tmp_path):
    """Issue 29: ``kifudb book`` held every position to the end of every game; by default it
    holds each game's first ``DEFAULT_MAX_PLY`` moves (``--max-ply 0``: every move)."""
    from kifudb.cli_book import DEFAULT_MAX_PLY

    runner = CliRunner()
    default, every = tmp_path / "default.db", tmp_path / "every.db"
    assert runner.invoke(main, ["book", "--store", str(dashboard_store), "--output",
                                str(default)]).exit_code == 0
    assert runner.invoke(main, ["book", "--store", str(dashboard_store), "--output",
                                str(every), "--max-ply", "0"]).exit_code == 0
    plies = [int(line.split()[-1]) for line in default.read_text().splitlines()
             if line.startswith("sfen ")]
    assert max(plies) <= DEFAULT_MAX_PLY  # the move number of each position
    assert len(book_entries(dashboard_store, max_ply=DEFAULT_MAX_PLY)) == len(plies)
    assert every.stat().st_size > 3 * default.stat().st_size
