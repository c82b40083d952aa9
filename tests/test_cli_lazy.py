"""The command line loads a command's module only when that command runs (issue 30: the start of
``kifudb validate`` is part of what a user waits for), and still lists every command."""

from __future__ import annotations

import json
import subprocess
import sys

import click
from click.testing import CliRunner

from kifudb.cli import ELSEWHERE, main

_VALIDATE = """
import json, sys
from kifudb.cli import main
try:
    main(["validate", sys.argv[1], "--format", "jsonl", "--output", sys.argv[2]])
except SystemExit:
    pass
print(json.dumps(sorted(m for m in sys.modules if m.startswith("kifudb.cli_"))))
"""


def test_validate_loads_no_other_command(tmp_path):
    record = tmp_path / "game.usi"
    record.write_text("startpos moves 7g7f 3c3d\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", _VALIDATE, str(record), str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.splitlines()[-1])
    elsewhere = {module for module, _ in ELSEWHERE.values()}
    assert not elsewhere & set(loaded), loaded
    assert (tmp_path / "out").read_text(encoding="utf-8").count('"moves": 2') == 1


def test_every_command_is_listed_and_found():
    listed = main.list_commands(click.Context(main))
    assert set(ELSEWHERE) <= set(listed) and {"validate", "ingest", "replay"} <= set(listed)
    for name in ELSEWHERE:
        command = main.get_command(click.Context(main), name)
        assert isinstance(command, click.Command), name
    helped = CliRunner().invoke(main, ["--help"])
    assert helped.exit_code == 0 and all(name in helped.output for name in ELSEWHERE)
    accuracy = CliRunner().invoke(main, ["stats", "accuracy", "--help"])
    assert accuracy.exit_code == 0, accuracy.output
