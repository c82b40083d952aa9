"""The PATHS of ``kifudb validate``, ``ingest`` and ``classify``: every argument must name
something, or the command stops before it reads anything and says which one and why (a
typo must not give an empty report and exit status 0)::

    >>> len(given_files(["data/samples"])) > 10
    True
    >>> given_files(["data/samples/nothing-here", "data/samples/*.nothing"])
    Traceback (most recent call last):
    ...
    click.exceptions.BadParameter: data/samples/nothing-here: no such file or folder; data/samples/*.nothing: the pattern matches no file
"""

from __future__ import annotations

import glob
import os

import click

from kifudb.ingest.read import record_files
from kifudb.ingest.sniff import EXTENSIONS
from kifudb.output import printable

__all__ = ["given_files"]


def _problem(argument: str, skip) -> str | None:
    """Why ``argument`` gives no record file, or None when it gives some."""
    if glob.has_magic(argument) and not os.path.exists(argument):
        if not any(os.path.isfile(p) for p in glob.iglob(argument, recursive=True)):
            return "the pattern matches no file"
        return None
    if not os.path.lexists(argument):
        return "no such file or folder"
    if os.path.isdir(argument) and next(iter(record_files([argument], skip=skip)), None) is None:
        return f"the folder holds no record file ({' '.join(EXTENSIONS)})"
    return None


def given_files(arguments, skip=()) -> list:
    """The record files of ``arguments`` (files, folders, globs; ``ingest.read.record_files``),
    or ``click.BadParameter`` naming each argument that gives none: a path that does not
    exist, a pattern that matches no file, a folder without a record file."""
    problems = [f"{printable(a)}: {why}" for a in map(str, arguments)
                if (why := _problem(a, skip)) is not None]
    if problems:
        raise click.BadParameter("; ".join(problems), param_hint="PATHS")
    return list(record_files(arguments, skip=skip))
