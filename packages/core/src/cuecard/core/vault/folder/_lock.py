"""The vault lock: ``<vault>/.lock`` created exclusively and holding ``pid=<pid> token=<hex>``.

The file protocol is the one the unified-agent-memory tools use, so both exclude each other. A
lock whose owner process is gone is broken (one breaker at a time, under an ``flock`` guard, so
two waiters never both break and one of them removes a fresh lock); an unreadable lock is broken
only when older than ``CORRUPT_AGE`` seconds; a live owner is never broken, however old. The
wait is bounded; a caller that wants to say it waits passes ``on_wait`` (nothing here prints).
An in-process lock per vault keeps threads of one process apart too. Standard library only.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from cuecard.core.vault._errors import VaultBusy

__all__ = ["CORRUPT_AGE", "LOCK_NAME", "vault_lock"]

LOCK_NAME = ".lock"
CORRUPT_AGE = 600.0
_OWNER = re.compile(r"^pid=(\d+) token=([0-9a-f]{8,64})\s*$")
_THREAD_LOCKS: dict[str, threading.Lock] = {}
_GUARD = threading.Lock()

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


def _thread_lock(root: Path) -> threading.Lock:
    key = str(root.resolve())
    with _GUARD:
        return _THREAD_LOCKS.setdefault(key, threading.Lock())


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None
    except OSError:
        return ""


@contextlib.contextmanager
def _break_guard(root: Path) -> Iterator[None]:
    fd = os.open(root / ".lock.break", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _break_if_stale(root: Path, path: Path) -> tuple[bool, str]:
    """Remove the lock when its owner is dead (or it is unreadable and old); say who holds it."""
    seen = _read(path)
    if seen is None:
        return (True, "")
    owner = _OWNER.match(seen)
    if owner is not None:
        if _alive(int(owner.group(1))):
            return (False, f"pid {owner.group(1)}")
    else:
        try:
            age = time.time() - path.stat().st_mtime
        except FileNotFoundError:
            return (True, "")
        if age < CORRUPT_AGE:
            return (False, "an unreadable lock file")
    with _break_guard(root):
        if _read(path) == seen:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
    return (True, "")


@contextlib.contextmanager
def vault_lock(
    root: Path,
    *,
    timeout: float = 30.0,
    poll: float = 0.05,
    on_wait: Callable[[str], None] | None = None,
) -> Iterator[None]:
    """Hold the vault lock for the ``with`` block, waiting at most ``timeout`` seconds; when
    another process holds it, ``on_wait`` gets one line for the user saying who (once)."""
    path = root / LOCK_NAME
    thread_lock = _thread_lock(root)
    if not thread_lock.acquire(timeout=max(timeout, 0.0)):
        raise VaultBusy(f"{path}: another thread of this process held the vault lock")
    token = os.urandom(16).hex()
    try:
        deadline = time.monotonic() + timeout
        warned = False
        while True:
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                broken, holder = _break_if_stale(root, path)
                if broken:
                    continue
                if time.monotonic() >= deadline:
                    raise VaultBusy(
                        f"{path}: held by {holder} for longer than {timeout:g} s "
                        "(another promoter or writer); try again later"
                    ) from None
                if not warned and on_wait is not None:
                    on_wait(f"cuecard: waiting for the vault lock held by {holder}")
                warned = True
                time.sleep(poll)
                continue
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(f"pid={os.getpid()} token={token}\n")
            break
        try:
            yield
        finally:
            if _read(path) == f"pid={os.getpid()} token={token}\n":
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
    finally:
        thread_lock.release()
