"""Files written where a user said: under one folder, whole or not at all, never through a
link, never over a file unless told (``kifudb convert``, ``export``, ``book``, ``validate
--output``, the training data).

- ``OutputFolder(folder, overwrite=False)``: ``write(relative, data)`` or ``stream(relative)``
  writes a file at ``relative`` under ``folder``, made whole in a temporary file of a unique
  name (created exclusively, never through a link) that is renamed into place (a link there
  is replaced, not followed). A path that would leave ``folder`` (``..``, an absolute path, a
  link among the folders under it) is refused, and so is a file that exists unless
  ``overwrite``: ``OutputRefused``, a ``ValueError`` whose message names the file;
  ``replaced`` lists the files written over.
- ``OutputFile(path, overwrite=False)``: one file at a path given (its folder must exist);
  ``check()`` refuses before the work, ``stream()`` writes.
- ``fitted_name(stem, extension)``: a file name a file system takes (at most ``NAME_BYTES``
  bytes), the stem cut and marked with its digest when it is too long.

::

    >>> import tempfile
    >>> out = OutputFolder(tempfile.mkdtemp())
    >>> out.write("a/b.csa", b"V2.2\\n").relative_to(out.folder).as_posix()
    'a/b.csa'
    >>> out.write("a/b.csa", b"V2.2\\n")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kifudb.analytics.files.OutputRefused: .../b.csa: not written: it exists (--overwrite ...)
    >>> out.write("../x.csa", b"")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kifudb.analytics.files.OutputRefused: .../x.csa: not written: it would be outside ...
    >>> len(fitted_name("x" * 300, ".kif").encode()), fitted_name("羽生", ".kif")
    (255, '羽生.kif')
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import secrets
import stat
from pathlib import Path, PurePath

__all__ = ["OutputFolder", "OutputFile", "OutputRefused", "fitted_name", "NAME_BYTES"]

#: the longest file name written, in bytes (ext4, XFS, btrfs, APFS: 255)
NAME_BYTES = 255
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
_EXISTS = "it exists (--overwrite replaces it)"
#: what writing a file may meet: said as the file not written (a full disk, a quota …)
_WRITING = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS}
_NEW_FILE = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))


class OutputRefused(ValueError):
    """A file not written: its ``path`` and ``why``; the message says both."""

    def __init__(self, path, why: str):
        super().__init__(f"{path}: not written: {why}")
        self.path, self.why = path, why


def fitted_name(stem: str, extension: str = "") -> str:
    """``stem + extension`` if it fits ``NAME_BYTES`` bytes, else the stem cut (at a
    character) and followed by ``~`` and 8 hex digits of its digest, so that two long names
    stay two names."""
    name = stem + extension
    if len(os.fsencode(name)) <= NAME_BYTES:
        return name
    mark = "~" + hashlib.sha256(os.fsencode(stem)).hexdigest()[:8]
    room = NAME_BYTES - len(os.fsencode(mark + extension))
    cut = stem[:room]
    while len(os.fsencode(cut)) > room:
        cut = cut[:-1]
    return cut + mark + extension


class OutputFolder:
    """The folder a command writes its files under (made when the first is written, unless
    ``make`` is False); every path resolves under it (see the module)."""

    def __init__(self, folder, *, overwrite: bool = False, make: bool = True):
        self.folder = Path(folder)
        self.overwrite = overwrite
        self.make = make
        self.replaced: list = []  # the paths of the files written over
        self._root = None  # the folder resolved, once

    def write(self, relative, data: bytes) -> Path:
        """Write ``data`` at ``relative``; the path written."""
        with self.stream(relative) as stream:
            stream.write(data)
        return self.folder.joinpath(relative)

    def check(self, relative) -> Path:
        """The path of ``relative``, or ``OutputRefused`` if it may not be written (outside
        the folder, through a link, a folder, a file that exists without ``overwrite``)."""
        parts, target = self._parts(relative)
        folder = self._open(parts[:-1], target, make=False)
        if folder is not None:
            try:
                self._refuse_existing(folder, parts[-1], target)
            finally:
                os.close(folder)
        return target

    @contextlib.contextmanager
    def stream(self, relative, mode: str = "wb", **options):
        """The stream of the file at ``relative``, which replaces it when the block ends (a
        failure leaves nothing; a full disk is ``OutputRefused``)."""
        parts, target = self._parts(relative)
        folder = self._open(parts[:-1], target, make=True)
        try:
            name = parts[-1]
            self._refuse_existing(folder, name, target)
            temporary, handle = self._temporary(folder, name, target)
            try:
                stream = open(handle, mode, **options)
                try:
                    yield stream
                    stream.close()  # what is still buffered is written here
                except OSError as error:
                    if error.errno not in _WRITING:
                        raise
                    raise OutputRefused(target, error.strerror) from None
                finally:
                    with contextlib.suppress(OSError):
                        stream.close()
                self._place(folder, temporary, name, target)
            except BaseException:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(temporary, dir_fd=folder)
                raise
        finally:
            os.close(folder)

    # ----- the steps -----

    def _parts(self, relative) -> tuple:
        """The names of ``relative``'s folders and file, and the path said to the user."""
        given = PurePath(relative)
        parts = [part for part in given.parts if part != "."]
        target = self.folder.joinpath(*parts) if parts else self.folder
        if given.is_absolute() or ".." in parts or not parts:
            raise OutputRefused(target, f"it would be outside {self.folder}")
        return parts, target

    def _open(self, folders: list, target: Path, make: bool):
        """A descriptor of the folder of ``target`` (its folders made if ``make``), no link
        followed below the root; None if it does not exist yet and ``make`` is False."""
        if self._root is None:
            self._root = os.path.realpath(self.folder)
        if make and self.make:
            try:
                os.makedirs(self._root, exist_ok=True)
            except OSError as error:
                raise OutputRefused(target, f"cannot make the folder "
                                            f"{self.folder}: {error.strerror}") from None
        try:
            folder = os.open(self._root, _FOLDER)
        except FileNotFoundError:
            if make:
                raise OutputRefused(target, f"no folder {self.folder}") from None
            return None
        except OSError as error:
            raise OutputRefused(target, f"{self.folder}: {error.strerror}") from None
        for at, part in enumerate(folders):
            try:
                inner = _inner(folder, part, make)
            except OSError as error:
                os.close(folder)
                where = self.folder.joinpath(*folders[:at + 1])
                why = (f"{where} is a link, and links under {self.folder} are not followed"
                       if error.errno in (errno.ELOOP, errno.EMLINK) or os.path.islink(where)
                       else f"{where}: {error.strerror}")
                raise OutputRefused(target, why) from None
            os.close(folder)
            if inner is None:
                return None
            folder = inner
        return folder

    def _refuse_existing(self, folder: int, name: str, target: Path) -> None:
        try:
            found = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            return
        except OSError as error:
            raise OutputRefused(target, error.strerror) from None
        if stat.S_ISDIR(found.st_mode):
            raise OutputRefused(target, "it is a folder")
        if not self.overwrite:
            raise OutputRefused(target, _EXISTS)

    @staticmethod
    def _temporary(folder: int, name: str, target: Path) -> tuple:
        """A new file of a unique name beside ``name``, made exclusively: (name, descriptor)."""
        for _ in range(100):
            temporary = f".{name[:32]}.{secrets.token_hex(6)}.part"
            try:
                return temporary, os.open(temporary, _NEW_FILE, 0o666, dir_fd=folder)
            except FileExistsError:
                continue
            except OSError as error:
                raise OutputRefused(target, error.strerror) from None
        raise OutputRefused(target, "no unique temporary name")

    def _place(self, folder: int, temporary: str, name: str, target: Path) -> None:
        """Rename ``temporary`` to ``name``: without ``overwrite`` only if nothing is there
        (a hard link fails if anything is), with it replacing what is there (a link itself)."""
        if not self.overwrite:
            try:
                os.link(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
            except FileExistsError:
                raise OutputRefused(target, _EXISTS) from None
            except OSError:  # a file system without hard links: the check made above holds
                pass
            else:
                os.unlink(temporary, dir_fd=folder)
                return
        existed = _exists(folder, name)
        try:
            os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
        except IsADirectoryError:
            raise OutputRefused(target, "it is a folder") from None
        except OSError as error:
            raise OutputRefused(target, error.strerror) from None
        if existed:
            self.replaced.append(target)


def _inner(folder: int, name: str, make: bool):
    """A descriptor of the folder ``name`` in ``folder``, never through a link (made if
    missing and ``make``, else None)."""
    try:
        return os.open(name, _FOLDER | os.O_NOFOLLOW, dir_fd=folder)
    except FileNotFoundError:
        if not make:
            return None
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, dir_fd=folder)
    return os.open(name, _FOLDER | os.O_NOFOLLOW, dir_fd=folder)


def _exists(folder: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


class OutputFile:
    """One file written at ``path`` (its folder must exist): ``check()`` before the work,
    ``stream()`` to write it, ``replaced`` after (as ``OutputFolder``'s). A device or a pipe
    there (``/dev/null``, ``/dev/stdout``, a named pipe) is written to as it is: it is no
    file to replace."""

    def __init__(self, path, *, overwrite: bool = False):
        self.path = Path(path)
        self._folder = OutputFolder(self.path.parent, overwrite=overwrite, make=False)

    def _is_stream(self) -> bool:
        try:
            mode = os.stat(self.path).st_mode
        except OSError:
            return False
        return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)

    def check(self) -> Path:
        if not self.path.parent.is_dir():
            raise OutputRefused(self.path, f"no folder {self.path.parent}")
        if not self._is_stream():
            self._folder.check(self.path.name)
        return self.path

    def stream(self, mode: str = "wb", **options):
        self.check()
        if self._is_stream():
            return open(self.path, mode, **options)
        return self._folder.stream(self.path.name, mode, **options)

    @property
    def replaced(self) -> list:
        """``[path]`` once it replaced a file, else ``[]``."""
        return self._folder.replaced
