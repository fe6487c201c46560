"""The vault lock: ``<vault>/.lock`` created exclusively and holding ``pid=<pid> token=<hex>``.

The file protocol is the one the unified-agent-memory tools use, so both exclude each other. A
lock whose owner process is gone is broken (one breaker at a time, under an ``flock`` guard, so
two waiters never both break and one of them removes a fresh lock); an unreadable lock is broken
only when older than ``CORRUPT_AGE`` seconds; a live owner is never broken, however old. The
wait is bounded; a caller that wants to say it waits passes ``on_wait`` (nothing here prints).
An in-process lock per vault keeps threads of one process apart too. The lock files are made,
read and removed through ``cuecard.core.fs.Tree``: a link, FIFO or device in their place is
refused, never followed or opened. Standard library only.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from cuecard.core.base._confined import Tree, UnsafePath
from cuecard.core.vault._errors import VaultBusy

__all__ = ["CORRUPT_AGE", "LOCK_NAME", "vault_lock"]

LOCK_NAME = ".lock"
CORRUPT_AGE = 600.0
_OWNER = re.compile(r"^pid=(\d+) token=([0-9a-f]{8,64})\s*$")
_THREAD_LOCKS: dict[str, threading.Lock] = {}
_GUARD = threading.Lock()


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


def _read(tree: Tree) -> str | None:
    try:
        return tree.read_bytes(LOCK_NAME, 4096, whole=False).decode("utf-8", errors="replace")
    except FileNotFoundError:
        return None
    except UnsafePath:
        raise  # a link, FIFO or device in the lock's place: refused at once, never waited on
    except OSError:
        return ""


def _break_if_stale(tree: Tree, timeout: float) -> tuple[bool, str]:
    """Remove the lock when its owner is dead (or it is unreadable and old); say who holds it."""
    seen = _read(tree)
    if seen is None:
        return (True, "")
    owner = _OWNER.match(seen)
    if owner is not None:
        if _alive(int(owner.group(1))):
            return (False, f"pid {owner.group(1)}")
    else:
        st = tree.lstat(LOCK_NAME)
        if st is None:
            return (True, "")
        if time.time() - st.st_mtime < CORRUPT_AGE:
            return (False, "an unreadable lock file")
    with tree.locked(".lock.break", timeout=max(timeout, 1.0)):
        if _read(tree) == seen:
            tree.remove(LOCK_NAME)
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
    tree = Tree(root)
    thread_lock = _thread_lock(root)
    if not thread_lock.acquire(timeout=max(timeout, 0.0)):
        raise VaultBusy(f"{path}: another thread of this process held the vault lock")
    token = os.urandom(16).hex()
    try:
        deadline = time.monotonic() + timeout
        warned = False
        while True:
            if not tree.create(LOCK_NAME, f"pid={os.getpid()} token={token}\n"):
                broken, holder = _break_if_stale(tree, timeout)
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
            break
        try:
            yield
        finally:
            if _read(tree) == f"pid={os.getpid()} token={token}\n":
                tree.remove(LOCK_NAME)
    finally:
        thread_lock.release()
