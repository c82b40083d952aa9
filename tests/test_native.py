"""The compiled build (mypyc) and the interpreted source: which one runs, that the interpreted one
really runs the ``.py`` files when asked, that both give the same results, and that the compiled
modules type-check (``core/_native.py``, ``tools/build_native.py``)."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kifudb.core import _native
from kifudb.cli import main

ROOT = _native.ROOT
REAL_GAMES = ROOT / "tests" / "fixtures" / "usi" / "real_games.usi"

#: replays every real game and prints, per game, its final SFEN, key and the rules' ending
_REPLAY = """
import json, sys
from bench.others import load_usi
from kifudb.core.game import Game
out = []
for start, moves in load_usi(sys.argv[1]):
    game = Game(start)
    reasons = [game.play_usi(m) for m in moves]
    ending = game.final_ending()
    out.append([game.position.sfen(), game.position.key(), game.checks,
                [r and r.code for r in reasons], ending and [ending.reason, ending.winner]])
print(json.dumps(out))
"""


def _run(code: str, *args: str, pure: bool) -> str:
    env = dict(os.environ)
    env.pop(_native.PURE_VARIABLE, None)
    if pure:
        env[_native.PURE_VARIABLE] = "1"
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True)
    return done.stdout


def _expected_build() -> str:
    """What this process should run: ``compiled`` when a build is in place, matches the sources
    and was not declined."""
    sources = _native.built_sources()
    if os.environ.get(_native.PURE_VARIABLE, "0") not in ("", "0") or sources is None:
        return "interpreted"
    return "interpreted" if _native.stale_sources(sources) else "compiled"


def test_this_process_runs_the_build_it_should():
    modules = [importlib.import_module(_native.module_name(p)) for p in _native.COMPILED]
    expected = _expected_build()
    assert _native.status().startswith(expected + ":")
    assert all(_native.is_compiled(m) == (expected == "compiled") for m in modules), \
        [m.__file__ for m in modules]


def test_pure_runs_every_module_from_its_source():
    code = ("import importlib, json, kifudb.core._native as n\n"
            "print(json.dumps([n.status()] + [importlib.import_module(n.module_name(p)).__file__ "
            "for p in n.COMPILED]))")
    status, *files = json.loads(_run(code, pure=True))
    assert status == "interpreted: KIFUDB_PURE is set"
    assert files == [str(ROOT / p) for p in _native.COMPILED]


def test_compiled_and_interpreted_replay_alike():
    """Every real game, replayed in this process (compiled when built) and interpreted: the same
    positions, keys, checks, verdicts on each move and endings."""
    here = json.loads(_run(_REPLAY, str(REAL_GAMES), pure=False))
    pure = json.loads(_run(_REPLAY, str(REAL_GAMES), pure=True))
    assert len(here) == 399 and here == pure


def test_a_changed_source_is_stale():
    current = {p: _native._digest(ROOT / p) for p in _native.COMPILED}
    assert _native.stale_sources(current) == []
    changed = dict(current, **{"core/position.py": "0" * 64})
    assert _native.stale_sources(changed) == ["core/position.py"]


def test_the_source_only_finder_finds_the_py_file():
    from kifudb import core
    finder = _native.SourceOnly(["kifudb.core.position"])
    spec = finder.find_spec("kifudb.core.position", core.__path__)
    assert spec.origin == str(ROOT / "core" / "position.py")
    assert finder.find_spec("kifudb.core.game", core.__path__) is None


def test_version_says_which_build_runs():
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert result.output.startswith("kifudb 0.1.0 (Python ")
    assert result.output.rstrip().endswith(f"engine {_native.status()}")


@pytest.mark.slow
def test_the_compiled_modules_type_check():
    """mypy passes on every module mypyc compiles (with the project's settings, pyproject.toml),
    in the tree the build stages (``kifudb/core`` …: mypy names modules by their folders)."""
    from tools import build_native

    source = build_native.stage()
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                           *(str(Path("kifudb") / path) for path in _native.COMPILED)],
                          cwd=source, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
