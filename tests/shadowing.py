"""A working directory that would shadow kifudb's folders if anything imported them by their
own names (issue "One name"): the dashboard's, the command line's and the wheel's tests run
from one."""

from pathlib import Path


#: Folders of a user's working directory named like kifudb's own folders (issue "One name").
SHADOWING = ("store", "core", "labels")


def make_shadowing_folders(folder: Path) -> Path:
    """Put into ``folder`` packages named ``store``, ``core`` and ``labels`` that fail loudly
    when imported: a command run from ``folder`` must import ``kifudb.*`` only."""
    for name in SHADOWING:
        package = folder / name
        package.mkdir(parents=True, exist_ok=True)
        (package / "__init__.py").write_text(
            f"raise ImportError('the working directory\\'s {name}/ was imported')\n",
            encoding="utf-8")
    return folder
