"""Round trip of every game of every real record file: read → write (KIF, KI2, CSA, JKF, USI) →
read gives the same game, as far as the target format can hold it (``core.writers.left_out``
says what it cannot: CSA and USI hold no variations, KI2 and USI no times, USI no comments).

Fixtures: every record file under tests/fixtures/records and tests/fixtures/six_formats (origins
in tests/fixtures/SOURCES.md). The independent reader is rsshogi (dev-only): it reads every KIF,
KI2, CSA and JKF text written here, and its main line, start position and times must be ours.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from kifudb.core.position import Position
from kifudb.core.writers import EXTENSIONS, FORMATS, left_out, write
from kifudb.core.writers._common import headers_in
from kifudb.ingest.kifu import UnwritableGame, kifu_of
from kifudb.ingest.read import read_bytes, read_path
from kifudb.ingest.record import INFO
from kifudb.ingest.validate import validate_record

FIXTURES = Path(__file__).parent / "fixtures"
FILES = sorted(str(p.relative_to(FIXTURES)) for folder in ("records", "six_formats")
               for p in (FIXTURES / folder).rglob("*")
               if p.is_file() and p.suffix.lower() not in (".csv", ".md", ".txt"))
#: the formats that hold the variations, the times, the comments
VARIATIONS = ("kif", "ki2", "jkf")
TIMES = ("kif", "csa", "jkf")
COMMENTS = ("kif", "ki2", "csa", "jkf")


def _games(path: str) -> list:
    """``(record, its replay)`` of each game of a fixture file."""
    return [(record, validate_record(record)) for record in read_path(FIXTURES / path).records]


def _said(comments) -> tuple:
    """Comments as the lines a line-based format keeps (trailing blanks go on reading)."""
    return tuple(line.rstrip() for comment in comments for line in comment.split("\n"))


def _lines(record, replayed, times: bool) -> Counter:
    """Each variation as what it says whatever its place in the record: where it branches, every
    move from the start to its end (USI), its times (when ``times``) and its comments."""
    full = {None: [m.usi() for m in replayed.game.moves]}
    out = Counter()
    for index, variation in enumerate(record.variations):
        path = full[variation.parent][:variation.start_ply - 1] + [
            m.usi() for m in replayed.variations[index]]
        full[index] = path
        out[(variation.start_ply, tuple(path), tuple(m.seconds for m in variation.moves) if times else (),
             tuple(_said(m.comments) for m in variation.moves))] += 1
    return out


def _new_findings(before, after) -> list:
    """The warnings and errors of the written game that the read one did not have."""
    known = {f.code for f in before.findings}
    return [str(f) for f in after.findings if f.severity != INFO and f.code not in known]


@pytest.mark.parametrize("path", FILES)
def test_round_trip(path):
    games = _games(path)
    assert games, f"{path}: no game read"
    for record, replayed in games:
        broken_main = replayed.game is None or replayed.first_illegal_ply is not None
        broken_line = broken_main or any(len(played) < len(v.moves) for v, played in
                                         zip(record.variations, replayed.variations))
        for fmt in FORMATS:
            where = f"{path} game {record.index} as {fmt}"
            variations = fmt in VARIATIONS
            if (broken_line if variations else broken_main):
                with pytest.raises(UnwritableGame):
                    kifu_of(record, replayed, variations=variations)
                continue
            kifu = kifu_of(record, replayed, variations=variations)
            text = write(kifu, fmt)
            read = read_bytes(text.encode("utf-8"), "written" + EXTENSIONS[fmt])
            assert len(read.records) == 1, where
            back = read.records[0]
            again = validate_record(back)
            assert not _new_findings(replayed, again), (where, _new_findings(replayed, again))
            assert again.fingerprint == replayed.fingerprint, where
            assert again.keys == replayed.keys, where
            lost = left_out(kifu, fmt)
            if variations:
                times = fmt in TIMES
                assert _lines(back, again, times) == _lines(record, replayed, times), where
            if fmt in COMMENTS:
                assert _said(back.comments) == _said(record.comments), where
                assert [_said(m.comments) for m in back.moves] == \
                       [_said(m.comments) for m in record.moves], where
            if fmt in ("kif", "ki2"):
                assert [m.bookmark for m in back.moves] == [m.bookmark for m in record.moves]
            if fmt in TIMES:
                assert [m.seconds for m in back.moves] == [m.seconds for m in record.moves], where
            if fmt == "kif" and all(m.total_seconds is not None for m in record.moves):
                assert [m.total_seconds for m in back.moves] == \
                       [m.total_seconds for m in record.moves], where
            if fmt in ("kif", "ki2", "jkf"):
                assert headers_in(kifu_of(back, again), "kif") == headers_in(kifu, "kif"), where
            elif fmt == "csa":
                assert headers_in(kifu_of(back, again), "csa") == headers_in(kifu, "csa"), where
            if record.ending is not None and not any(said.startswith("the ending")
                                                     for said in lost):
                assert again.winner == replayed.winner, where
                if fmt in ("kif", "csa", "jkf"):  # KI2 says a resignation "まで…の勝ち", and
                    assert again.reason == replayed.reason, where  # USI has a plain "lose"


def _rsshogi_text(text: str) -> str:
    """A written KIF/KI2 text as rsshogi reads it: without the lines it refuses in the records
    we read too (Kifu for Windows' ``&`` bookmarks and a tsume problem's ``手数：N`` header:
    rsshogi refuses them in the original fixture files as well)."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if not line.startswith(("&", "手数：")))


@pytest.mark.parametrize("path", FILES)
def test_an_independent_reader_reads_what_we_write(path):
    from rsshogi import record as record_module  # dev-only: the project's [dev] extra
    from rsshogi.initial_positions import HANDICAP_TO_SFEN

    checked = 0
    for record, replayed in _games(path):
        for fmt in FORMATS:
            try:
                kifu = kifu_of(record, replayed, variations=fmt in VARIATIONS)
            except UnwritableGame:
                continue
            if fmt != "csa" and kifu.handicap is not None and kifu.handicap not in HANDICAP_TO_SFEN:
                continue  # a handicap rsshogi does not name (左七枚落ち): its CSA (PI…) is read
            text = write(kifu, fmt)
            where = f"{path} game {record.index} as {fmt}"
            if fmt == "usi":  # rsshogi's special tokens are resign, win, draw, timeout, mate,
                line = text.splitlines()[-1]  # max_moves, jishogi: not YaneuraOu's rep_draw …
                if line.split()[-1] in ("rep_draw", "illegal", "break", "lose"):
                    line = line.rsplit(" ", 1)[0]
                read = record_module.Record.from_usi_position(line, allow_special_tokens=True)
            else:
                read = getattr(record_module.Record, f"from_{fmt}_str")(_rsshogi_text(text))
            assert [str(entry.move) for entry in read.moves] == replayed.usi_moves, where
            assert Position.from_sfen(read.init_position_sfen).sfen().split()[:3] == \
                replayed.start_sfen.split()[:3], where
            if fmt in ("kif", "csa"):
                assert [entry.time_ms for entry in read.moves] == [
                    None if m.seconds is None else round(m.seconds * 1000)
                    for m in record.moves], where
            checked += 1
    assert checked or all(r.first_illegal_ply is not None or r.game is None
                          for _, r in _games(path)), path
