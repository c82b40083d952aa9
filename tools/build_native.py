"""Compile ``core._native.COMPILED`` with mypyc, in place, when a C compiler is there.

``make`` runs it (``make native``; ``make demo`` and ``make test`` depend on it)::

    python tools/build_native.py          # build, or say in one line why not (exit 0)
    python tools/build_native.py --clean  # remove the compiled modules: the source runs

Without a C compiler, Python's headers or mypy, it prints one line and leaves the interpreted
source to run (same results, slower). With them, a failed compilation (a type error mypy finds
in a compiled module) fails the build. The extension modules land beside their sources (one
shared library, ``core/compiled__mypyc*.so``, and a small one per module); the C files and
objects stay under ``build/native``. ``core/compiled.json`` records the SHA-256 of each source
compiled, so that ``kifudb.core._native.choose`` never runs a build older than its source.

The folders are subpackages of ``kifudb`` (``core/`` is ``kifudb.core``: ``pyproject.toml``'s
package-dir), and mypy names a module by the folders it sits in, so the build first lays the
package out as it is installed (``stage``: ``build/native/src/kifudb/core`` a link to ``core/``)
and compiles it there; ``setup.py`` does the same when a wheel is built (``pip install .``).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import shlex
import shutil
import sys
import sysconfig
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "native"
GROUP = "kifudb.core.compiled"  # the shared library: core/compiled__mypyc<suffix>
#: import name -> folder of the repository, as ``pyproject.toml`` maps them
PACKAGE_DIRS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
    "tool"]["setuptools"]["package-dir"]


def _load_native():
    """``core/_native.py`` without importing ``core`` (which would load the old build)."""
    spec = importlib.util.spec_from_file_location("_kifudb_native", ROOT / "core" / "_native.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def missing() -> str:
    """Why nothing can be compiled here, or ``""``."""
    compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")[0]
    if not shutil.which(compiler):
        return f"no C compiler ({compiler})"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python headers (Python.h; the python3-dev package)"
    if importlib.util.find_spec("mypyc") is None:
        return "no mypy (pip install -e '.[dev]')"
    return ""


def stage() -> Path:
    """The package laid out by its import names, each folder a link to the repository's
    (``build/native/src/kifudb/core`` -> ``core/``); returns ``build/native/src``."""
    source = BUILD / "src"
    shutil.rmtree(source, ignore_errors=True)
    for name, folder in sorted(PACKAGE_DIRS.items()):
        place = source.joinpath(*name.split("."))
        if name == "kifudb":  # the root holds the others, and nothing of the doors (mypy would
            place.mkdir(parents=True)  # follow kifudb.open into the Python API)
            (place / "__init__.py").write_text('"""kifudb, as mypyc compiles it."""\n')
        else:
            place.symlink_to(ROOT / folder, target_is_directory=True)
    return source


def extensions(native, source: Path) -> list:
    """mypyc's extension modules of ``native.COMPILED``, from the staged tree ``source``."""
    from mypyc.build import mypycify

    here = os.getcwd()
    os.chdir(source)  # the staged tree first on mypy's path, not the repository's kifudb/
    try:
        return mypycify([str(Path("kifudb") / path) for path in native.COMPILED], opt_level="3",
                        group_name=GROUP, target_dir=str(BUILD / "c"))
    finally:
        os.chdir(here)


def record(native) -> str:
    """The build record (``core/compiled.json``): the extension suffix and each source's SHA-256."""
    return json.dumps({"extension_suffix": importlib.machinery.EXTENSION_SUFFIXES[0],
                       "sources": {path: native._digest(ROOT / path) for path in native.COMPILED}},
                      indent=1) + "\n"


def outputs(native) -> list:
    """The files a build puts in the source tree: its record and every extension module in the
    packages of ``COMPILED`` (the project has no other), those of earlier builds too."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    packages = {Path(path).parts[0] for path in native.COMPILED} | {"core", "ingest"}
    found = [native.BUILD_RECORD] if native.BUILD_RECORD.exists() else []
    for package in sorted(packages):
        found += [p for p in (ROOT / package).rglob("*.*") if p.name.endswith(suffixes)]
    return found


def clean(native) -> None:
    for path in outputs(native):
        path.unlink()


def build(native) -> None:
    from setuptools import Distribution

    clean(native)  # a failed build leaves the source, never a mixture
    os.chdir(ROOT)
    text = record(native)
    # in place: each module lands in its folder of the repository (package_dir maps the names)
    distribution = Distribution({"name": "kifudb-native", "package_dir": PACKAGE_DIRS,
                                 "ext_modules": extensions(native, stage()),
                                 "script_args": ["--quiet", "build_ext", "--inplace",
                                                 "--build-temp", str(BUILD / "temp")]})
    distribution.parse_command_line()
    distribution.run_commands()
    native.BUILD_RECORD.write_text(text, encoding="utf-8")


def main(argv: list) -> int:
    native = _load_native()
    if argv[1:] == ["--clean"]:
        clean(native)
        return 0
    why = missing()
    if why:
        print(f"kifudb: {why}: the engine runs interpreted (same results, slower)")
        return 0
    build(native)
    print(f"kifudb: compiled {len(native.COMPILED)} modules with mypyc")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
