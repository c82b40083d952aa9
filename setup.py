"""The wheel's one build step beyond ``pyproject.toml``: the engine compiled with mypyc.

``pip install .`` (or ``pip wheel .``) builds the package that ``pyproject.toml`` declares and,
when a C compiler, Python's headers and mypy are there, compiles the modules of
``kifudb.core._native.COMPILED`` into it, as ``make native`` compiles them in place
(``tools/build_native.py``: the same staging, the same modules, the same build record,
``kifudb/core/compiled.json``). Without them, one line says so and the wheel's engine runs
interpreted. An editable install (``pip install -e .``) compiles nothing: ``make native`` does,
in place.
"""

import sys
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_ext import build_ext

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tools import build_native  # noqa: E402


class CompiledEngine(build_ext):
    """mypyc's extension modules of the engine, built into the wheel."""

    _native = None  # core/_native.py, when this build compiles

    def finalize_options(self):
        # only a build compiles (not the metadata, which settles these options too, nor an
        # editable install)
        building = {"bdist_wheel", "build", "build_ext", "install"} & set(self.distribution.commands)
        if building and not (self.editable_mode or self.inplace):
            why = build_native.missing()
            if why:
                print(f"kifudb: {why}: the wheel's engine runs interpreted (same results, slower)")
            else:
                self._native = build_native._load_native()
                self.distribution.ext_modules = build_native.extensions(self._native,
                                                                        build_native.stage())
        super().finalize_options()

    def run(self):
        super().run()
        if self._native is not None and not self.editable_mode:
            target = Path(self.build_lib) / "kifudb" / "core" / "compiled.json"
            target.write_text(build_native.record(self._native), encoding="utf-8")


class WithEngine(Distribution):
    """A wheel for this platform: it may carry compiled modules."""

    def has_ext_modules(self):
        return True


setup(distclass=WithEngine, cmdclass={"build_ext": CompiledEngine})
