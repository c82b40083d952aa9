"""A reading process's own temporary folder (``store.engine``'s handle databases, their
spills and the mapped summaries): made on first use, removed when the process exits, and, when
the process was killed (SIGKILL, out of memory) and could not remove it, by the next process
that makes one. At 1B positions such a folder holds about a gigabyte: a killed `kifudb serve`
would otherwise leave it in ``/tmp`` for good.

The folder holds ``held``, a file its process keeps locked (``flock``) for as long as it lives.
The kernel lets the lock go when the process ends, however it ends, so a folder whose lock
another process can take is nobody's::

    >>> folder = own_folder()
    >>> folder.name.startswith(PREFIX), (folder / HELD).is_file(), own_folder() == folder
    (True, True, True)
    >>> folder in remove_abandoned(folder.parent)
    False
"""

from __future__ import annotations

import atexit
import fcntl
import os
import shutil
import stat
import tempfile
from pathlib import Path

#: how the folders' names begin, in the system's temporary folder
PREFIX = "kifudb-engine-"
#: the file of a folder that its process keeps locked
HELD = "held"
_OWN: list = []  # [(pid, folder, the held file's descriptor)]: this process's folder


def own_folder() -> Path:
    """This process's folder, made on first use (a forked child makes its own); made, it
    first removes the folders of processes that ended without removing theirs."""
    if not _OWN or _OWN[0][0] != os.getpid():
        remove_abandoned()
        folder = Path(tempfile.mkdtemp(prefix=PREFIX))
        _OWN[:] = [(os.getpid(), folder, _hold(folder))]
        atexit.register(_remove, os.getpid(), folder)
    return _OWN[0][1]


def _hold(folder: Path) -> int:
    """Lock ``folder``'s held file for this process's life: made under another name and named
    ``HELD`` once locked, so no other process finds it unlocked while this one lives."""
    making = folder / f"{HELD}.making"
    descriptor = os.open(making, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_CLOEXEC, 0o600)
    fcntl.flock(descriptor, fcntl.LOCK_EX)
    os.rename(making, folder / HELD)
    return descriptor


def _remove(pid: int, folder: Path) -> None:
    if os.getpid() == pid:
        shutil.rmtree(folder, ignore_errors=True)


def remove_abandoned(temporary=None) -> list:
    """Remove the folders in ``temporary`` (the system's temporary folder) of processes that
    ended without removing theirs: this user's folders whose held file nobody holds. A folder
    without one (being made, or made by an older kifudb) is left. The folders removed."""
    removed = []
    for folder in Path(temporary or tempfile.gettempdir()).glob(PREFIX + "*"):
        try:
            status = folder.lstat()
            if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.getuid():
                continue
            descriptor = os.open(folder / HELD, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # its process lives
        else:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
        finally:
            os.close(descriptor)
    return removed
