"""Compile ``core._native.COMPILED`` with mypyc, in place, when a C compiler is there.

``make`` runs it (``make native``; ``make demo`` and ``make test`` depend on it)::

    python tools/build_native.py          # build, or say in one line why not (exit 0)
    python tools/build_native.py --clean  # remove the compiled modules: the source runs

Without a C compiler, Python's headers or mypy, it prints one line and leaves the interpreted
source to run (same results, slower). With them, a failed compilation (a type error mypy finds
in a compiled module) fails the build. The extension modules land beside their sources (one
shared library, ``core/compiled__mypyc*.so``, and a small one per module); the C files and
objects stay under ``build/native``. ``core/compiled.json`` records the SHA-256 of each source
compiled, so that ``core._native.choose`` never runs a build older than its source.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "native"
GROUP = "core.compiled"  # the shared library: core/compiled__mypyc<suffix>


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
    from mypyc.build import mypycify
    from setuptools import Distribution

    clean(native)  # a failed build leaves the source, never a mixture
    os.chdir(ROOT)
    digests = {path: native._digest(ROOT / path) for path in native.COMPILED}
    extensions = mypycify(list(native.COMPILED), opt_level="3", group_name=GROUP,
                          target_dir=str(BUILD / "c"))
    distribution = Distribution({"name": "kifudb-native", "ext_modules": extensions,
                                 "script_args": ["--quiet", "build_ext", "--inplace",
                                                 "--build-temp", str(BUILD / "temp")]})
    distribution.parse_command_line()
    distribution.run_commands()
    native.BUILD_RECORD.write_text(json.dumps({
        "extension_suffix": importlib.machinery.EXTENSION_SUFFIXES[0],
        "sources": digests}, indent=1) + "\n", encoding="utf-8")


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
