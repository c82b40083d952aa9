"""Read record files: find them (files, folders, globs), decode, sniff, and parse into records.

A file that cannot be read or is not a record comes back with a file-level finding and no
games, and the other files go on (``ingest.pipeline.read_file`` adds the safety net against a
reader's own bugs)::

    >>> result = read_path("no/such/file.kif")
    >>> result.records, result.findings[0].code
    ([], 'unreadable_file')
"""

from __future__ import annotations

import glob
import multiprocessing
import os
import stat
import sys
import threading
from dataclasses import dataclass, field
from typing import Iterator, Optional

from kifudb.ingest.decode import decode
from kifudb.ingest.record import ERROR, Finding
from kifudb.ingest.sniff import EXTENSIONS, sniff

#: Files larger than this are refused (a record is kilobytes; a multi-game CSA file a few MB).
MAX_BYTES = 64 * 1024 * 1024


@dataclass
class FileRead:
    """What reading one file gave: its format and encoding, its games, and file-level findings."""

    path: str
    format: Optional[str]
    encoding: str
    records: list = field(default_factory=list)
    findings: list = field(default_factory=list)


def _reader(fmt: str):
    """The reader of a format, ``(text, path, encoding) -> [GameRecord]``, imported when first
    asked for."""
    reader = _READERS.get(fmt)
    if reader is None:
        reader = _READERS[fmt] = _import_reader(fmt)
    return reader


_READERS: dict = {}


def _import_reader(fmt: str):
    if fmt in ("kif", "kifu"):
        from kifudb.ingest.kif import read_kif
        return lambda text, path, enc: read_kif(text, path, enc, format=fmt)
    if fmt == "ki2":
        from kifudb.ingest.ki2 import read_ki2
        return lambda text, path, enc: read_ki2(text, path, enc)
    if fmt == "csa":
        from kifudb.ingest.csa import read_csa
        return read_csa
    if fmt == "csa1":
        from kifudb.ingest.csa import read_csa1
        return read_csa1
    if fmt == "jkf":
        from kifudb.ingest.jkf import read_jkf
        return read_jkf
    from kifudb.ingest.usi_file import read_usi
    return read_usi


def read_bytes(data: bytes, path: str = "") -> FileRead:
    """Decode, sniff and parse the bytes of one file (a reader bug raises: ``read_file`` of
    ``ingest.pipeline`` is the safety net that turns it into a finding)."""
    read, text = decoded(data, path)
    if text is not None:
        parse(read, text)
    return read


def decoded(data: bytes, path: str = "") -> tuple:
    """``(FileRead, text)``: the bytes decoded and their format sniffed; ``text`` is None (and a
    ``not_a_record`` finding says why) when the content is no record format."""
    text = decode(data)
    fmt = sniff(text.text, path)
    read = FileRead(path, fmt, text.encoding, findings=list(text.findings))
    if fmt is None:
        read.findings.append(Finding(ERROR, "not_a_record", "the content looks like none of "
                                     "KIF, KIFU, KI2, CSA, JKF or USI/SFEN"))
        return read, None
    return read, text.text


def parse(read: FileRead, text: str) -> None:
    """Parse decoded ``text`` with the reader of ``read.format`` into ``read.records``; a text
    in which the reader recognised no game (``GameRecord.recognised``) gives no record, and the
    reader's findings (its one ``no_game``) are the file's."""
    records = _reader(read.format)(text, read.path, read.encoding)
    if not any(record.recognised for record in records):
        said = [f for record in records for f in record.findings]
        read.findings += said or [Finding(ERROR, "no_game", f"no game found in this "
                                          f"{read.format} file")]
        records = []
    read.records = records


def load(path) -> tuple:
    """``(FileRead, text)`` of one file on disk, before parsing; never raises: a file that
    cannot be read gives ``text`` None and a finding that says why."""
    name = str(path)
    try:
        info = os.stat(name)
        if not stat.S_ISREG(info.st_mode):  # a folder, pipe or device would hang or fail
            return FileRead(name, None, "", findings=[Finding(
                ERROR, "unreadable_file", "not a regular file")]), None
        size = info.st_size
        if size > MAX_BYTES:
            return FileRead(name, None, "", findings=[Finding(
                ERROR, "file_too_large", f"{size:,} bytes; records larger than "
                f"{MAX_BYTES:,} bytes are refused")]), None
        with open(name, "rb") as stream:
            data = stream.read()
    except OSError as error:
        return FileRead(name, None, "", findings=[Finding(
            ERROR, "unreadable_file", f"cannot read the file: {error.strerror or error}")]), None
    return decoded(data, name)


def read_path(path) -> FileRead:
    """Read one file from disk (see ``read_bytes``)."""
    read, text = load(path)
    if text is not None:
        parse(read, text)
    return read


def worker_context():
    """How worker processes start: forked from this process while it holds no other thread (no
    DuckDB loaded, one Python thread; the workers then start at once, with the readers loaded),
    else from a clean forkserver, because a fork of a multi-threaded process can hang or crash."""
    if "duckdb" not in sys.modules and threading.active_count() == 1 \
            and sys.platform.startswith("linux"):  # (macOS libraries do not survive a fork)
        return multiprocessing.get_context("fork")
    context = multiprocessing.get_context("forkserver")
    # the server imports the readers once; every worker forks from it with them loaded
    context.set_forkserver_preload(["kifudb.ingest.pipeline", "kifudb.ingest.kif", "kifudb.ingest.ki2", "kifudb.ingest.csa",
                                    "kifudb.ingest.jkf", "kifudb.ingest.usi_file"])
    return context


def record_files(arguments, skip=()) -> Iterator[str]:
    """Expand files, folders (recursively, record extensions only, symlinked folders not
    followed) and glob patterns, in a stable order; a name that matches nothing is yielded as is
    so that reading it reports the problem. Nothing inside the folders of ``skip`` (a store
    inside the folder being read, say) is yielded."""
    skipped = [os.path.normpath(os.path.abspath(str(s))) for s in skip]

    def kept(name: str) -> bool:
        return not any(name == s or name.startswith(s + os.sep) for s in skipped)

    arguments = [str(argument) for argument in arguments]
    # a name given twice (two arguments that overlap) is yielded once; one argument names each
    # file once, so a folder of millions of files is walked without a set of them
    seen = set() if len(arguments) > 1 else None
    for argument in arguments:
        if os.path.isdir(argument):
            found = _walk(argument, kept)
        elif glob.has_magic(argument):
            found = sorted(p for p in glob.glob(argument, recursive=True) if os.path.isfile(p))
        else:
            found = [argument]
        for name in found:
            key = os.path.normpath(os.path.abspath(name))
            if kept(key) and (seen is None or key not in seen):
                if seen is not None:
                    seen.add(key)
                yield name


def _walk(folder: str, kept) -> Iterator[str]:
    """The record files under ``folder``, folder by folder in sorted order, as they are found."""
    for here, subfolders, files in os.walk(folder, followlinks=False):
        subfolders[:] = sorted(d for d in subfolders
                               if kept(os.path.normpath(os.path.abspath(os.path.join(here, d)))))
        yield from (os.path.join(here, f) for f in sorted(files)
                    if os.path.splitext(f)[1].lower() in EXTENSIONS)
