"""Issue 29, defect 10: ``kifudb convert`` writes a game that stops at an illegal move up to it,
ending with the format's illegal-move ending and the move as written in a comment, and files
with one name but for their extension (illegal.kif, illegal.ki2) get names that say which is
which. The records are the samples' ``illegal_move.kif`` (Kifu for JS's example, see
``data/samples/SOURCES.md``) and a KI2 of it written here."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kifudb.cli import main
from kifudb.ingest.read import read_path
from kifudb.ingest.validate import validate_record

ROOT = Path(__file__).resolve().parent.parent
ILLEGAL = ROOT / "data" / "samples" / "records" / "illegal_move.kif"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.mark.parametrize("fmt, ending, comment", [
    ("csa", "%ILLEGAL_MOVE", "'illegal move 3 as written: ２一角成(88)"),
    ("kif", "   3 反則負け", "*illegal move 3 as written: ２一角成(88)"),
    ("ki2", "まで2手で先手の反則負け", "*illegal move 3 as written: ２一角成(88)"),
    ("jkf", '"special": "ILLEGAL_MOVE"', "illegal move 3 as written: ２一角成(88)"),
    ("usi", "7g7f 3c3d illegal", None),
])
def test_the_legal_moves_and_the_illegal_ending(tmp_path, fmt, ending, comment):
    shown = run("convert", ILLEGAL, "--to", fmt, "-o", tmp_path)
    assert shown.exit_code == 0, shown.output
    assert "written up to move 2, ending with the illegal move" in shown.output
    assert "1 game written" in shown.output and "1 game up to an illegal move" in shown.output
    written = next(tmp_path.iterdir())
    text = written.read_text(encoding="utf-8")
    assert ending in text.replace('"special":"', '"special": "')
    if comment is not None:
        assert comment in text
    # read back: the two legal moves, and the game lost by the side that moved illegally
    replayed = validate_record(read_path(written).records[0])
    assert replayed.usi_moves == ["7g7f", "3c3d"] and replayed.first_illegal_ply is None
    if fmt != "usi":
        assert (str(replayed.winner), str(replayed.reason)) == ("white", "illegal_move")


def test_same_stem_files_say_which_is_which(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(ILLEGAL, folder / "illegal.kif")
    assert run("convert", folder / "illegal.kif", "--to", "ki2", "-o", folder).exit_code == 0
    assert sorted(p.name for p in folder.iterdir()) == ["illegal.ki2", "illegal.kif"]
    shown = run("convert", folder, "--to", "csa", "-o", tmp_path / "out")
    assert shown.exit_code == 0, shown.output
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["illegal.ki2.csa",
                                                                    "illegal.kif.csa"]
    # a file alone keeps the plain name
    alone = run("convert", folder / "illegal.kif", "--to", "csa", "-o", tmp_path / "one")
    assert alone.exit_code == 0 and [p.name for p in (tmp_path / "one").iterdir()] == [
        "illegal.csa"]
