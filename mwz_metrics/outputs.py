"""Writing the files a user names, as a careful tool does (every command, the session files too).

- An output is written to its real file: ``-o link.json`` where ``link.json`` is a symlink writes the
  file it points to and keeps the link (:func:`real_path`). A file with several names (hard links) is
  refused: it is replaced atomically, which would part the names, and each name could get its writer.
- A whole file is written beside itself under a fresh private name (``mkstemp``: created exclusively,
  never through a symlink someone left there) and renamed over the real file when complete
  (:func:`atomic_file`): a reader sees the old file or the new one, never half of one, and a failure
  leaves no temporary file behind. What is not a regular file (``/dev/null``, a named pipe) is written
  in place, never replaced.
- An output that is one of the command's inputs (under any name: a symlink, a hard link) is refused
  before anything runs (:func:`check_outputs`): inputs are never modified.
- A full disk, a quota, a read-only file system or a denied permission is the user's to fix, not a
  bug: one line naming the file (:func:`resource_error`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from mwz_plugins.errors import InputError

# Errors writing a file that the user fixes (space, quota, a read-only mount, permissions).
RESOURCE_ERRORS = frozenset(
    {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EFBIG, errno.EMFILE}
)


def resource_error(error: OSError, path: str | os.PathLike | None = None, then: str = "run the command again") -> str:
    """The one line for a file the machine would not let us write: the file, why, and what to do."""
    where = path if path is not None else (error.filename or "a file")
    why = error.strerror or str(error)
    fix = {
        errno.ENOSPC: "free some space",
        errno.EDQUOT: "free some space within your quota",
        errno.EFBIG: "choose a file system that takes larger files",
        errno.EROFS: "choose a writable folder",
        errno.EMFILE: "raise the limit of open files (ulimit -n)",
    }.get(error.errno or 0, "fix the permissions or choose another folder")
    return f"{where}: cannot be written ({why}): {fix}, then {then}"


def real_path(path: str | os.PathLike) -> Path:
    """The file that writing ``path`` changes: symlinks followed (the link itself is kept), a file with
    several names refused (see the module docstring)."""
    real = Path(os.path.realpath(path))
    try:
        links = real.stat().st_nlink
    except OSError:
        return real  # not there yet (or unreadable: the write says why)
    if real.is_file() and links > 1:
        raise InputError(
            f"{path}: the file has {links} names (hard links); writing it would part them, and each name could "
            "get its own writer: give it one name (cp it to a new file) or choose another output"
        )
    return real


def _same(a: Path, b: Path) -> bool:
    if a == b:
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_outputs(
    inputs: Iterable[str | os.PathLike | None], outputs: Iterable[tuple[str, str | os.PathLike | None]]
) -> None:
    """Refuse, before anything runs, an output that is an input of the same command or another output
    (under any name). ``outputs``: (the option that names it, the path) pairs; None entries are skipped."""
    read = [(str(p), Path(os.path.realpath(p))) for p in inputs if p]
    written: list[tuple[str, str, Path]] = []
    for flag, path in outputs:
        if not path:
            continue
        real = Path(os.path.realpath(path))
        for name, other in read:
            if _same(real, other):
                raise InputError(
                    f"{flag} {path}: is the input {name}; inputs are never overwritten: choose another file"
                )
        for other_flag, other_path, other in written:
            if _same(real, other):
                raise InputError(f"{flag} {path} and {other_flag} {other_path} name one file: choose two")
        written.append((flag, str(path), real))


@contextlib.contextmanager
def atomic_file(
    path: str | os.PathLike, mode: str = "w", *, then: str = "run the command again", **options: Any
) -> Iterator[IO[Any]]:
    """A file object whose content replaces ``path``'s real file when the block ends without an error
    (see the module docstring); a write the machine refuses is an :class:`InputError` naming ``path``."""
    import tempfile  # here: its import is not free, and most commands write no file

    real = real_path(path)
    if real.exists() and not real.is_file():  # /dev/null, a pipe, a terminal: written in place, never replaced
        with _users_to_fix(path, then), open(real, mode, **options) as f:
            yield f
        return
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    except OSError as error:
        raise InputError(
            resource_error(error, path, then)
            if error.errno in RESOURCE_ERRORS
            else f"{path}: cannot be written ({error.strerror or error})"
        ) from None
    try:
        with _users_to_fix(path, then):
            with open(fd, mode, **options) as f:
                yield f
            _keep_mode(real, temporary)
            os.replace(temporary, real)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


@contextlib.contextmanager
def _users_to_fix(path: str | os.PathLike, then: str) -> Iterator[None]:
    """A write the machine refuses for space, quota, a read-only folder or permissions, as the user's
    :class:`InputError` naming ``path`` (any other ``OSError`` stays what it is)."""
    try:
        yield
    except OSError as error:
        if error.errno in RESOURCE_ERRORS:
            raise InputError(resource_error(error, path, then)) from None
        raise


def _keep_mode(real: Path, temporary: str) -> None:
    """The new file gets the old one's permissions (mkstemp makes it 0600), or the usual 0666 less the umask."""
    try:
        mode = real.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(temporary, mode)


def write_bytes(path: str | os.PathLike, data: bytes, *, then: str = "run the command again") -> None:
    """``data`` as the whole of ``path`` (see :func:`atomic_file`)."""
    with atomic_file(path, "wb", then=then) as f:
        f.write(data)


def open_lock(path: str | os.PathLike) -> int:
    """A descriptor of the lock file ``path`` (created if missing), never through a symlink or into a file
    with other names: a lock file left by someone else cannot make a run write another file."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise InputError(f"{path}: the lock file is a symlink; refusing to write through it (remove it)") from None
        if error.errno == errno.EISDIR:
            raise InputError(f"{path}: the lock file is a folder (remove it)") from None
        if error.errno in RESOURCE_ERRORS:
            raise InputError(resource_error(error, path)) from None
        raise InputError(f"{path}: cannot create the lock file ({error.strerror or error})") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
        os.close(fd)
        what = "has other names (hard links)" if stat.S_ISREG(info.st_mode) else "is not a regular file"
        raise InputError(f"{path}: the lock file {what}; refusing to write it (remove it)")
    return fd
