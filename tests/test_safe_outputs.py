"""What kifudb writes stays where the user said (``kifudb.analytics.files``): no file written
through a link (a temporary name or a folder under the output planted as one), no path out of
``--output`` (a pattern with ``..``), no file replaced without ``--overwrite`` (and with it,
said), no name too long for the file system. Every file, folder and link here is made by the
test; ``victim`` is the file an attacker points the links at."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from kifudb.analytics.files import NAME_BYTES, OutputFolder, OutputRefused, fitted_name
from kifudb.cli import main
from kifudb.cli_validate import report_output
from kifudb.ingest.read import read_path
from kifudb.ingest.validate import validate_record

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "data" / "samples" / "records"
KIF = RECORDS / "habu-fujii-2006.kif"
CSA = RECORDS / "kifu25654.csa"
PRECIOUS = "precious: not to be written over\n"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def fingerprints(path) -> list:
    return [validate_record(r).fingerprint for r in read_path(path).records]


def files_under(folder: Path) -> list:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


@pytest.fixture
def victim(tmp_path) -> Path:
    path = tmp_path / "victim.txt"
    path.write_text(PRECIOUS, encoding="utf-8")
    return path


@pytest.fixture
def records(tmp_path) -> Path:
    """``in/a/g1.kif`` and ``in/b.csa``."""
    folder = tmp_path / "in"
    (folder / "a").mkdir(parents=True)
    shutil.copy(KIF, folder / "a" / "g1.kif")
    shutil.copy(CSA, folder / "b.csa")
    return folder


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """A store of two games."""
    folder = tmp_path_factory.mktemp("safe-outputs")
    (folder / "in").mkdir()
    shutil.copy(KIF, folder / "in")
    shutil.copy(CSA, folder / "in")
    result = run("ingest", folder / "in", "--store", folder / "store")
    assert result.exit_code == 0, result.output
    return folder / "store"


# ----- links ---------------------------------------------------------------------------------


def test_convert_does_not_write_through_a_link_at_the_temporary_name(records, tmp_path, victim):
    out = tmp_path / "out"
    (out / "a").mkdir(parents=True)
    (out / "a" / "g1.csa.part").symlink_to(victim)
    result = run("convert", records, "--to", "csa", "--output", out)
    assert result.exit_code == 0, result.output
    assert victim.read_text(encoding="utf-8") == PRECIOUS
    written = out / "a" / "g1.csa"
    assert not written.is_symlink() and fingerprints(written) == fingerprints(KIF)
    # the planted link is left alone, and no temporary file is left behind
    assert files_under(out) == ["a", "a/g1.csa", "a/g1.csa.part", "b.csa"]
    assert (out / "a" / "g1.csa.part").is_symlink()


def test_book_does_not_write_through_a_link_at_the_temporary_name(store, tmp_path, victim):
    (tmp_path / "book.db.part").symlink_to(victim)
    result = run("book", "--store", store, "--output", tmp_path / "book.db")
    assert result.exit_code == 0, result.output
    assert victim.read_text(encoding="utf-8") == PRECIOUS
    book = tmp_path / "book.db"
    assert not book.is_symlink()
    assert book.read_text(encoding="ascii").startswith("#YANEURAOU-DB2016 1.00\n")


def test_convert_does_not_follow_a_linked_folder_inside_the_output(records, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "a").symlink_to(elsewhere, target_is_directory=True)
    result = run("convert", records, "--to", "csa", "--output", out)
    assert result.exit_code == 1
    assert list(elsewhere.iterdir()) == []
    assert (f"g1.kif: not written: {out / 'a' / 'g1.csa'}: {out / 'a'} is a link, and links "
            f"under {out} are not followed") in result.output
    assert "1 game written as CSA" in result.output and (out / "b.csa").is_file()


def test_export_to_a_folder_replaces_a_link_itself_not_its_target(store, tmp_path, victim):
    out = tmp_path / "out"
    result = run("export", "--store", store, "--to", "kif", "--output", out)
    assert result.exit_code == 0, result.output
    [first, *_] = sorted(out.iterdir())
    first.unlink()
    first.symlink_to(victim)
    refused = run("export", "--store", store, "--to", "kif", "--output", out)
    assert refused.exit_code == 1
    assert f"{first}: it exists (--overwrite replaces it)" in refused.output
    replaced = run("export", "--store", store, "--to", "kif", "--output", out, "--overwrite")
    assert replaced.exit_code == 0, replaced.output
    assert victim.read_text(encoding="utf-8") == PRECIOUS
    assert not first.is_symlink() and first.read_text(encoding="utf-8").startswith("#KIF")
    assert "2 files replaced" in replaced.output



def test_a_device_or_a_pipe_is_written_to_as_it_is(tmp_path):
    """``--output /dev/null`` (or a named pipe) is no file to replace: written every time,
    without --overwrite, and left a device."""
    record = tmp_path / "one.usi"
    record.write_text("startpos moves 7g7f 3c3d\n", encoding="utf-8")
    for _ in range(2):
        result = run("validate", record, "--format", "jsonl", "--output", os.devnull)
        assert result.exit_code == 0, result.output
    assert Path(os.devnull).is_char_device()


def test_a_report_file_replaces_a_link_itself_and_only_when_told(tmp_path, victim):
    report = tmp_path / "report.txt"
    report.symlink_to(victim)
    with pytest.raises(click.ClickException, match="it exists .--overwrite replaces it."):
        with report_output(report) as write:
            write("the report\n")
    assert victim.read_text(encoding="utf-8") == PRECIOUS and report.is_symlink()
    with report_output(report, overwrite=True) as write:
        write("the report\n")
    assert victim.read_text(encoding="utf-8") == PRECIOUS
    assert not report.is_symlink() and report.read_text(encoding="utf-8") == "the report\n"
    assert files_under(tmp_path) == ["report.txt", "victim.txt"]


def test_validate_report_is_not_written_through_a_link(records, tmp_path, victim):
    report = tmp_path / "report.txt"
    report.symlink_to(victim)
    result = run("validate", records, "--output", report)
    assert result.exit_code != 0
    assert f"{report}: not written: it exists (--overwrite replaces it)" in result.output
    assert victim.read_text(encoding="utf-8") == PRECIOUS


# ----- out of the output folder ------------------------------------------------------------------


def test_convert_never_writes_outside_the_output_from_a_pattern_with_dotdot(records, tmp_path,
                                                                            monkeypatch):
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(KIF, other / "o.kif")
    monkeypatch.chdir(tmp_path)
    result = run("convert", "in/*/../../other/*.kif", "--to", "csa", "--output", "out")
    assert result.exit_code == 1
    assert sorted(p.name for p in other.iterdir()) == ["o.kif"]
    assert not (tmp_path / "other" / "o.csa").exists()
    assert ("in/a/../../other/o.kif: not written: out/../other/o.csa: it would be outside "
            "out") in result.output
    assert "0 games written" in result.output


def test_an_output_folder_refuses_absolute_paths_and_dotdot(tmp_path):
    out = OutputFolder(tmp_path / "out")
    for relative in ("../x.kif", "a/../../x.kif", str(tmp_path / "x.kif"), "."):
        with pytest.raises(OutputRefused, match="it would be outside"):
            out.write(relative, b"x")
    assert not (tmp_path / "x.kif").exists()
    assert out.write("a/./b.kif", b"x") == tmp_path / "out" / "a" / "b.kif"


# ----- replacing ---------------------------------------------------------------------------------


def test_convert_refuses_to_replace_a_file_unless_told(records, tmp_path):
    out = tmp_path / "out"
    (out / "a").mkdir(parents=True)
    (out / "a" / "g1.csa").write_text(PRECIOUS, encoding="utf-8")
    result = run("convert", records, "--to", "csa", "--output", out)
    assert result.exit_code == 1
    assert f"g1.kif: not written: {out / 'a' / 'g1.csa'}: it exists (--overwrite replaces " \
        f"it)" in result.output
    assert (out / "a" / "g1.csa").read_text(encoding="utf-8") == PRECIOUS
    assert fingerprints(out / "b.csa") == fingerprints(CSA)  # the others go on
    result = run("convert", records, "--to", "csa", "--output", out, "--overwrite")
    assert result.exit_code == 0, result.output
    assert fingerprints(out / "a" / "g1.csa") == fingerprints(KIF)
    assert f"2 files replaced: {out / 'b.csa'}, {out / 'a' / 'g1.csa'}" in result.output


def test_book_refuses_to_replace_a_file_unless_told(store, tmp_path):
    book = tmp_path / "book.db"
    book.write_text(PRECIOUS, encoding="utf-8")
    result = run("book", "--store", store, "--output", book)
    assert result.exit_code == 1
    assert f"{book}: not written: it exists (--overwrite replaces it)" in result.output
    assert book.read_text(encoding="utf-8") == PRECIOUS
    result = run("book", "--store", store, "--output", book, "--overwrite")
    assert result.exit_code == 0, result.output
    assert book.read_text(encoding="ascii").startswith("#YANEURAOU-DB2016")
    assert f"1 file replaced: {book}" in result.output


@pytest.mark.parametrize("fmt, name", [("csa", "games.csa"), ("usi", "games.usi"),
                                       ("hcpe", "games.hcpe"), ("psv", "games.psv")])
def test_export_to_one_file_refuses_to_replace_it_unless_told(store, tmp_path, fmt, name):
    output = tmp_path / name
    output.write_text(PRECIOUS, encoding="utf-8")
    result = run("export", "--store", store, "--to", fmt, "--output", output)
    assert result.exit_code == 1
    assert f"{output}: not written: it exists (--overwrite replaces it)" in result.output
    assert output.read_text(encoding="utf-8") == PRECIOUS
    result = run("export", "--store", store, "--to", fmt, "--output", output, "--overwrite")
    assert result.exit_code == 0, result.output
    assert output.read_bytes() != PRECIOUS.encode()
    assert f"1 file replaced: {output}" in result.output
    assert files_under(tmp_path) == [name]  # no temporary file left


def test_validate_refuses_to_replace_a_report_unless_told(records, tmp_path):
    report = tmp_path / "report.json"
    report.write_text(PRECIOUS, encoding="utf-8")
    result = run("validate", records, "--format", "json", "--output", report)
    assert result.exit_code != 0
    assert report.read_text(encoding="utf-8") == PRECIOUS
    result = run("validate", records, "--format", "json", "--output", report, "--overwrite")
    assert result.exit_code == 0, result.output
    assert report.read_text(encoding="utf-8").startswith("{")


def test_a_full_disk_is_said_and_leaves_no_file(store, tmp_path):
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)],
                             capture_output=True).returncode == 0
    if not mounted:
        pytest.skip("this machine does not allow mounting a tmpfs (not root, or no "
                    "CAP_SYS_ADMIN)")
    try:
        with pytest.raises(OutputRefused, match="big.hcpe: not written: No space left"):
            OutputFolder(disk).write("big.hcpe", b"\0" * 1_000_000)
        assert list(disk.iterdir()) == []
        (disk / "filler").write_bytes(b"\0" * 60_000)  # a few KB left: less than the records
        result = run("export", "--store", store, "--to", "psv", "--output", disk / "games.psv")
        assert result.exit_code == 1
        assert f"{disk / 'games.psv'}: not written: No space left on device" in result.output
        assert "Traceback" not in result.output
        assert [p.name for p in disk.iterdir()] == ["filler"]
    finally:
        subprocess.run(["umount", str(disk)], check=True)


# ----- names too long -------------------------------------------------------------------------


def test_convert_shortens_a_name_too_long_and_goes_on(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    stem = "x" * 251  # the longest a .kif file may have: the file name is 255 bytes
    other = "y" * 251  # (not x…x.usi: files that share a stem keep their extension in a name)
    shutil.copy(KIF, folder / f"{stem}.kif")
    games = [line for line in (ROOT / "data/samples/games.usi").read_text(encoding="utf-8")
             .splitlines() if line.startswith("sfen ")][:2]
    (folder / f"{other}.usi").write_text("\n".join(games) + "\n", encoding="utf-8")
    shutil.copy(CSA, folder / "b.csa")
    result = run("convert", folder, "--to", "csa", "--output", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "4 games written as CSA" in result.output
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert len(names) == 4 and all(len(os.fsencode(n)) <= NAME_BYTES for n in names)
    assert f"{stem}.csa" in names  # it fits: kept whole
    for number in (1, 2):  # "-1.csa" makes it too long: cut, and said
        shortened = fitted_name(f"{other}-{number}", ".csa")
        assert shortened in names and len(os.fsencode(shortened)) == NAME_BYTES
        assert (f"{folder / other}.usi game {number}: written as {shortened} (the name "
                f"{other}-{number}.csa is too long)") in result.output
    assert fingerprints(tmp_path / "out" / f"{stem}.csa") == fingerprints(KIF)


def test_a_long_name_is_cut_at_a_character_and_two_long_names_stay_two():
    japanese = "羽生善治" * 30  # 360 bytes
    first, second = fitted_name(japanese + "a", ".kif"), fitted_name(japanese + "b", ".kif")
    assert first != second
    for name in (first, second):
        assert len(name.encode()) <= NAME_BYTES and name.endswith(".kif")
        assert name.startswith("羽生善治" * 20)
    assert fitted_name("short", ".csa") == "short.csa"
