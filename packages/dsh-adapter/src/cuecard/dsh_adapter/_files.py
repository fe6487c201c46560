"""Writing a user's instruction file as the user left it: its backups made with its mode (a 0600
file's backups stay 0600; core's ``atomic_write`` keeps the file's own mode when it replaces it),
and locked without leaving a lock file behind.

The lock is an advisory ``flock`` on the file's folder (an allowlisted folder such as ``~/.dsh``,
which deploy never replaces), so no ``<file>.lock`` is created next to the user's files.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from cuecard.core import StoreBusy
from cuecard.core.fs import flock_within, fsync_dir

__all__ = ["create_with_mode", "file_mode", "folder_lock"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def file_mode(path: Path) -> int:
    """The permission bits of ``path`` (not following a link)."""
    return stat.S_IMODE(os.lstat(path).st_mode)


def _write_new(path: Path, payload: bytes, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, mode)  # exactly ``mode``, whatever the umask
        with os.fdopen(fd, "wb") as handle:
            fd = -1
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
    finally:
        if fd >= 0:
            os.close(fd)


def create_with_mode(path: Path, text: str, mode: int) -> bool:
    """Create ``path`` holding ``text`` with permission bits ``mode``; ``False`` if it exists."""
    try:
        _write_new(path, text.encode("utf-8"), mode)
    except FileExistsError:
        return False
    fsync_dir(path.parent)
    return True


@contextlib.contextmanager
def folder_lock(folder: Path, *, timeout: float = 10.0, poll: float = 0.02) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``folder`` itself for the ``with`` block; the kernel
    drops it when the holder dies. Nothing is created."""
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        if not flock_within(fd, timeout, poll):
            raise StoreBusy(
                f"{folder}: another cuecard deploy held the lock for {timeout:.0f} s; try again"
            )
        yield
    finally:
        os.close(fd)
