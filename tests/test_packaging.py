"""One import name (issue "One name"): everything kifudb installs is ``kifudb.*``, and it works
from any folder — also one that holds folders named ``store``, ``core`` or ``labels``.

- every import in the project names ``kifudb.*``, never a folder's own name;
- ``import kifudb`` stays light, and importing every module loads no top-level ``core``,
  ``store`` … module;
- the command line and ``python -m kifudb`` run from a folder of shadowing names;
- a wheel built from the project holds ``kifudb`` and its metadata only (every source file of
  the mapped folders, ``bench/`` and ``tools/`` left out), with the compiled engine when a C
  compiler is there, and, installed into a fresh environment, runs from such a folder.
"""

from __future__ import annotations

import ast
import importlib.machinery
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from shadowing import make_shadowing_folders
from kifudb.core import _native
from tools import build_native

ROOT = Path(__file__).resolve().parent.parent
#: the names the project's folders had before they were ``kifudb.*``
FOLDER_NAMES = {name.split(".")[1] for name in build_native.PACKAGE_DIRS if "." in name}
SAMPLES = ROOT / "data" / "samples"


def _python_files():
    for folder in [*build_native.PACKAGE_DIRS.values(), "tests", "bench", "tools"]:
        yield from (ROOT / folder).rglob("*.py")
    yield from ROOT.glob("*.py")


def test_the_folders_are_kifudb_subpackages():
    assert FOLDER_NAMES == {"core", "ingest", "labels", "store", "analysis", "analytics", "dashboard"}
    for name, folder in build_native.PACKAGE_DIRS.items():
        assert (ROOT / folder / "__init__.py").is_file(), name


def test_every_import_names_kifudb():
    """No source imports a folder by its own name (``from core import …``): it would load a
    second copy of the module, or the working directory's folder of that name."""
    wrong = []
    for path in _python_files():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            wrong += [f"{path.relative_to(ROOT)}:{node.lineno}: {name}"
                      for name in names if name.split(".")[0] in FOLDER_NAMES]
    assert wrong == []


_IMPORT_ALL = """
import importlib, json, pkgutil, sys
import kifudb
light = sorted(m for m in ("polars", "duckdb", "pyarrow", "fastapi", "streamlit") if m in sys.modules)
skipped = ("kifudb.__main__", "kifudb.dashboard.app", "kifudb.dashboard.views")
packages, folders = json.loads(sys.argv[1]), set(json.loads(sys.argv[2]))
names = set(packages)
for package in packages:
    path = importlib.import_module(package).__path__
    names |= {info.name for info in pkgutil.walk_packages(path, package + ".")}
names = sorted(name for name in names if not name.startswith(skipped))
for name in names:
    importlib.import_module(name)
print(json.dumps([light, len(names), sorted(m for m in sys.modules if m.split(".")[0] in folders)]))
"""


def test_import_kifudb_is_light_and_every_module_is_kifudb(tmp_path):
    """From a folder of shadowing names: ``import kifudb`` loads none of the heavy libraries,
    and every module of the package imports without a top-level ``core``, ``store`` …"""
    import json

    make_shadowing_folders(tmp_path)
    arguments = [json.dumps(sorted(build_native.PACKAGE_DIRS)), json.dumps(sorted(FOLDER_NAMES))]
    done = subprocess.run([sys.executable, "-c", _IMPORT_ALL, *arguments],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    light, count, top_level = json.loads(done.stdout)
    assert light == [] and top_level == []
    assert count > 100


def test_the_command_line_runs_from_a_folder_of_shadowing_names(tmp_path):
    """The user's store in a folder named ``store``, beside ``core/`` and ``labels/``."""
    make_shadowing_folders(tmp_path)
    shutil.rmtree(tmp_path / "store")
    kifudb = [sys.executable, "-m", "kifudb"]

    def run(*arguments):
        done = subprocess.run([*kifudb, *arguments], cwd=tmp_path, capture_output=True,
                              text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    assert run("--version").startswith("kifudb 0.1.0")
    assert "games" in run("ingest", str(SAMPLES), "--store", "store")
    assert "▲７六歩" in run("explore", "--store", "store")
    assert "sound" in run("check", "--store", "store")
    script = Path(sysconfig.get_path("scripts")) / "kifudb"
    done = subprocess.run([str(script), "search", "--store", "store", "--moves", "7g7f"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def _wheel_files(wheel: Path) -> list:
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel of the project's files (as git knows them), built as ``pip wheel .`` builds it
    (without downloading: the development environment's setuptools and mypy)."""
    base = tmp_path_factory.mktemp("wheel")
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    source = base / "source"
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps",
                           "--no-build-isolation", "--no-index", "-w", str(base / "dist")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (found,) = (base / "dist").glob("kifudb-*.whl")
    return found


@pytest.mark.slow
def test_the_wheel_holds_kifudb_only(wheel):
    files = _wheel_files(wheel)
    assert {name.split("/")[0] for name in files} == {"kifudb", "kifudb-0.1.0.dist-info"}
    for name, folder in build_native.PACKAGE_DIRS.items():
        for path in (ROOT / folder).rglob("*.py"):
            installed = "/".join([*name.split("."), *path.relative_to(ROOT / folder).parts])
            assert installed in files, installed
    assert "kifudb/labels/labels.toml" in files and "kifudb/labels/players.toml" in files
    with zipfile.ZipFile(wheel) as archive:
        entry_points = archive.read("kifudb-0.1.0.dist-info/entry_points.txt").decode()
    assert "kifudb = kifudb.cli:main" in entry_points
    if not build_native.missing():  # a C compiler: the engine compiled into the wheel
        assert "kifudb/core/compiled.json" in files
        suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
        for path in _native.COMPILED:
            assert f"kifudb/{path[:-3]}{suffix}" in files, path


@pytest.mark.slow
def test_the_wheel_runs_from_any_folder(wheel, tmp_path):
    """Installed into a fresh environment (its dependencies borrowed from this one's
    site-packages, not its editable kifudb), the wheel's kifudb runs from a folder of
    shadowing names, compiled when it was built so."""
    fresh = tmp_path / "env"
    venv.create(fresh, with_pip=False)
    python = fresh / "bin" / "python"
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                           "--no-deps", "--no-index", str(wheel)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # a plain path line: this environment's libraries, without running its .pth files (which
    # install the editable kifudb's finder)
    (site / "borrowed.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")

    work = make_shadowing_folders(tmp_path / "work")
    shutil.rmtree(work / "store")
    where = subprocess.run([str(python), "-c", "import kifudb.core; print(kifudb.core.__file__)"],
                           cwd=work, capture_output=True, text=True)
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(site)

    kifudb = str(fresh / "bin" / "kifudb")
    version = subprocess.run([kifudb, "--version"], cwd=work, capture_output=True, text=True)
    assert version.returncode == 0, version.stderr
    count = len(_native.COMPILED)
    expected = "interpreted" if build_native.missing() else f"compiled: {count} of {count}"
    assert f"engine {expected}" in version.stdout, version.stdout
    ingest = subprocess.run([kifudb, "ingest", str(SAMPLES), "--store", "store"], cwd=work,
                            capture_output=True, text=True)
    assert ingest.returncode == 0, ingest.stdout + ingest.stderr
    assert f"store {work / 'store'}: 18 games, 2438 positions" in ingest.stdout
    explore = subprocess.run([str(python), "-m", "kifudb", "explore", "--store", "store"],
                             cwd=work, capture_output=True, text=True)
    assert explore.returncode == 0 and "▲７六歩" in explore.stdout, explore.stderr
