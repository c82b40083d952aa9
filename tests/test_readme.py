"""The README's examples run, so that its figures and sample outputs cannot drift.

Two kinds of fenced block of ``README.md`` are run (python-chess runs its README the same way):

- a block that shows ``$ kifudb …`` commands, each followed by what it prints: every command
  is run with this environment's ``kifudb``, from the project's folder, and its output (standard
  output and error, as a terminal shows them) must be the README's, where ``…`` or ``...`` stands
  for any text (doctest's ELLIPSIS) and a timing (``0.21 s``) for any number. A store the block
  names with ``--store`` — or the default store of a command that takes one — is a fresh
  temporary folder (never a user's ``data/store``), and the folder's name in the output is put
  back as the README writes it. A store the block reads before ingesting into it is the demo
  store (``make demo``: ``data/samples`` ingested); one the block ingests into first starts
  empty. A ``#`` comment after a command is the README's, not the shell's.
- a ``python`` block written with ``>>>`` prompts runs as a doctest (ELLIPSIS and
  NORMALIZE_WHITESPACE), from the project's folder.

Blocks fenced as ``text`` (illustrations that depend on a user's files) and ``sh`` (command
summaries, no output) are not run.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
KIFUDB = Path(sys.executable).with_name("kifudb")
#: the commands that take ``--store`` (default ``data/store``)
STORE_COMMANDS = {"ingest", "search", "explore", "pattern", "sql", "game", "stats", "relabel", "dashboard",
                  "book", "export", "players", "twins", "analyse", "analyze", "puzzles",
                  "calibrate"}
DEFAULT_STORE = "data/store"
#: what the demo store holds (``make demo``)
DEMO_INPUT = "data/samples"
#: where the README's examples write: a fresh folder of the test's instead (a file left by an
#: earlier run is not replaced without --overwrite)
EXAMPLE_OUTPUT = "/tmp/kifudb-readme"


@dataclass
class Block:
    line: int  # the line of README.md where the block's text starts
    info: str  # the fence's info string (``python``, ``text``, ``sh`` or nothing)
    text: str


def blocks(text: str) -> list:
    """The fenced blocks of a Markdown text (indented fences of list items included)."""
    found, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        opening = re.match(r"^(\s*)(`{3,})\s*([\w+-]*)", lines[i])
        if not opening:
            i += 1
            continue
        indent, fence, info = opening.groups()
        body, j = [], i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
            j += 1
        found.append(Block(i + 2, info, "\n".join(body)))
        i = j + 1
    return found


ALL_BLOCKS = blocks(README.read_text(encoding="utf-8"))
COMMAND_BLOCKS = [b for b in ALL_BLOCKS if b.info not in ("text", "sh", "python")
                  and re.search(r"^\$ kifudb ", b.text, re.M)]
PYTHON_BLOCKS = [b for b in ALL_BLOCKS if b.info == "python" and ">>>" in b.text]


def test_the_readme_has_examples_to_run():
    """The extractor finds what the README shows (a renamed fence would silently drop them)."""
    assert len(COMMAND_BLOCKS) >= 5 and len(PYTHON_BLOCKS) >= 2
    commands = [line for b in COMMAND_BLOCKS for line in b.text.splitlines()
                if line.startswith("$ ")]
    for command in ("replay", "ingest", "explore", "validate", "classify", "stats"):
        assert any(c.startswith(f"$ kifudb {command} ") for c in commands), command
    # every other fenced block is a command summary or says that it is an illustration
    for block in ALL_BLOCKS:
        assert block in COMMAND_BLOCKS or block in PYTHON_BLOCKS or block.info in ("sh", "text"), \
            f"README.md:{block.line}: fence it as ```text if it cannot run"


# ----- `$ kifudb …` transcripts ----------------------------------------------------------------

def transcript(block: Block) -> list:
    """``(line, argv, expected output)`` of each ``$`` command of a block."""
    steps = []
    for number, line in enumerate(block.text.splitlines(), start=block.line):
        if line.startswith("$ "):
            steps.append((number, shlex.split(line[2:], comments=True), []))
        elif steps:
            steps[-1][2].append(line)
        elif line.strip():
            pytest.fail(f"README.md:{number}: output before any command: {line!r}")
    return [(number, argv, "\n".join(out)) for number, argv, out in steps]


_TIMING = re.compile(r"\b\d+(?:\.\d+)? s\b")


def normalized(text: str) -> str:
    """Timings made equal, trailing spaces and blank lines dropped."""
    text = _TIMING.sub("<seconds> s", text)
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def matches(want: str, got: str) -> bool:
    """doctest's ELLIPSIS: ``...`` (or ``…``) in ``want`` stands for any text."""
    want = normalized(want).replace("…", "...")
    return doctest.OutputChecker().check_output(want + "\n", normalized(got) + "\n",
                                                doctest.ELLIPSIS)


def test_matches_is_strict_outside_the_ellipses():
    assert matches("18 files read …; 3 findings\n…", "18 files read (0 unchanged); 3 findings\nx")
    assert matches("added in 0.18 s (0.01 s)", "added in 12.5 s (3 s)")
    assert not matches("18 games, 2438 positions", "18 games, 2439 positions")
    assert not matches("a\n…\nc", "a\nb\nd")


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory) -> Path:
    """The store ``make demo`` makes, built once; blocks that read it get a copy."""
    store = tmp_path_factory.mktemp("demo") / "store"
    done = subprocess.run([str(KIFUDB), "ingest", DEMO_INPUT, "--store", str(store)], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return store


def with_store(argv: list, stores: dict, folder: Path) -> tuple:
    """``argv`` with its store (named or the default one) replaced by a temporary folder, and the
    name the README gives that store."""
    if len(argv) < 2 or argv[1] not in STORE_COMMANDS:
        return argv, None
    argv = list(argv)
    if "--store" in argv:
        at = argv.index("--store") + 1
        name = argv[at]
    else:
        argv += ["--store", ""]
        at, name = len(argv) - 1, DEFAULT_STORE
    stores.setdefault(name, folder / f"store{len(stores)}")
    argv[at] = str(stores[name])
    return argv, name


@pytest.mark.parametrize("block", COMMAND_BLOCKS, ids=[f"README.md:{b.line}" for b in COMMAND_BLOCKS])
def test_command_example(block, tmp_path, request):
    steps = transcript(block)
    assert steps, f"README.md:{block.line}: no command"
    stores, fresh = {}, set()
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
    for number, argv, want in steps:
        assert argv[0] == "kifudb", f"README.md:{number}: only kifudb commands are run"
        argv, store_name = with_store(argv, stores, tmp_path)
        argv = [str(tmp_path / arg[len("/tmp/"):]) if arg.startswith(EXAMPLE_OUTPUT) else arg
                for arg in argv]
        if store_name is not None and store_name not in fresh:
            fresh.add(store_name)
            if argv[1] != "ingest":  # read before any ingest: the demo store
                shutil.copytree(request.getfixturevalue("demo_store"), stores[store_name])
        done = subprocess.run([str(KIFUDB), *argv[1:]], cwd=ROOT, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        got = done.stdout
        for name, folder in stores.items():
            got = got.replace(str(folder), name)
        got = got.replace(str(tmp_path / "kifudb-readme"), EXAMPLE_OUTPUT)
        assert done.returncode == 0, f"README.md:{number}: exit status {done.returncode}\n{got}"
        assert matches(want, got), (f"README.md:{number}: $ {shlex.join(argv)}\n"
                                    f"--- the README shows:\n{want}\n--- the command prints:\n{got}")


# ----- >>> examples ----------------------------------------------------------------------------

@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=[f"README.md:{b.line}" for b in PYTHON_BLOCKS])
def test_python_example(block, monkeypatch):
    monkeypatch.chdir(ROOT)
    test = doctest.DocTestParser().get_doctest(block.text, {}, f"README.md:{block.line}",
                                               str(README), block.line - 1)
    assert test.examples, f"README.md:{block.line}: no >>> example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
