"""Crash-consistent file primitives: atomic replace, exclusive create, an advisory lock.

Standard library only; the hot path writes its ledger through these.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from cuecard.core.base._errors import StoreBusy

__all__ = ["atomic_write", "crash_point", "exclusive_create", "flock_within", "fsync_dir", "locked"]

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


def crash_point(name: str) -> None:
    """Kill this process for real when ``CUECARD_CRASH_AT`` names this point (crash tests)."""
    if os.environ.get("CUECARD_CRASH_AT") == name:
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


def fsync_dir(path: Path) -> None:
    """Make a rename or a create in ``path`` durable."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _kept_mode(path: Path) -> int | None:
    """The permission bits of the regular file at ``path``, or ``None`` when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else None


def atomic_write(path: Path, data: str | bytes, *, durable: bool = True) -> None:
    """Replace ``path`` with ``data``: a reader sees the old or the new file, never a part.

    A file that exists keeps its permission bits (a person's private 0600 config stays private);
    a new one is created 0644 less the umask."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")
    mode = _kept_mode(path)
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644 if mode is None else 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            if mode is not None and hasattr(os, "fchmod"):
                os.fchmod(handle.fileno(), mode)
            handle.write(payload)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        temp.replace(path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
    if durable:
        fsync_dir(path.parent)


def exclusive_create(path: Path, data: str | bytes) -> bool:
    """Create ``path`` holding ``data`` only if it does not exist; ``False`` when it did."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    temp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")
    path.parent.mkdir(parents=True, exist_ok=True)
    with temp.open("xb") as handle:
        handle.write(payload)
        handle.flush()
        os.fsync(handle.fileno())
    try:
        os.link(temp, path)
    except FileExistsError:
        return False
    finally:
        temp.unlink()
    fsync_dir(path.parent)
    return True


def flock_within(fd: int, timeout: float, poll: float = 0.02) -> bool:
    """Take an exclusive ``flock`` on the open file ``fd``, trying every ``poll`` seconds for up
    to ``timeout`` seconds; ``False`` when another holder kept it all that time. The kernel drops
    the lock when ``fd`` is closed or its process dies. Without ``fcntl`` (Windows) it takes
    nothing and returns ``True``."""
    if fcntl is None:
        return True
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES):
                raise
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll)


@contextlib.contextmanager
def locked(path: Path, *, timeout: float = 10.0, poll: float = 0.02) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``path`` (created if missing) for the ``with`` block.

    The kernel drops the lock when its holder dies, so a killed owner never wedges the store.
    The holder's pid and a token are written into the file for people diagnosing a wait; a lock
    path that is a symbolic link is refused (``OSError``), never followed.
    """
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        if not flock_within(fd, timeout, poll):
            raise StoreBusy(
                f"{path}: another cuecard process held the lock for {timeout:.0f} s; try again"
            )
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.write(fd, json.dumps({"pid": os.getpid(), "token": uuid.uuid4().hex}).encode())
        yield
    finally:
        os.close(fd)
