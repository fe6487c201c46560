"""SQLite databases under a folder cuecard does not own, opened through the confined layer.

SQLite opens files by path, so a database reached by a path string after the layer checked it
could be swapped in between: the database itself, or a folder on its path, replaced by a link.
``connect_database`` closes that gap without a second way of reaching files:

- the database's folder is walked and checked by the ``Tree`` (no link at any depth, folders of
  this user), and its descriptor kept while SQLite opens the file;
- the database and its side files (``-journal``, ``-wal``, ``-shm``) are proven regular files or
  absent in that descriptor; a missing database is made there (``O_EXCL``, no link followed), so
  SQLite never creates it by name; the database is then opened by the layer, which keeps the
  file's identity (device and inode) pinned;
- where the system has ``/proc/self/fd`` (Linux), SQLite is given ``/proc/self/fd/<folder>/<name>``:
  the path runs through the folder the layer checked, wherever it is now, so no folder of the
  named path is consulted; SQLite resolves that into the folder's real path itself;
- after the connection is made, the file SQLite holds open is compared with the one the layer
  proved (same device and inode, through ``/proc/self/fd`` or ``/dev/fd``); any other file is
  refused (``UnsafePath``) and the connection closed.

What holds for the side files: they are checked before SQLite opens the database; SQLite opens
each beside the resolved path of the database with ``O_NOFOLLOW``, so a link in a side file's
place is never followed. A folder on that resolved path swapped for a link after the connection
was made could still redirect a side file SQLite creates later (a rollback journal at a write):
SQLite gives no way to open them relative to a descriptor.

Where ``/proc`` is missing (macOS), SQLite is given the path the layer checked, and the file it
opened is compared through ``/dev/fd``; where neither exists, the layer's checks are redone after
the connection is made (the same file must still be there), which narrows the window to the
moment of opening but does not close it.

Standard library only (``sqlite3`` is imported when a database is opened).
"""

from __future__ import annotations

import os
import stat

from cuecard.core.base._confined import Tree, UnsafePath, describe

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

__all__ = ["SIDE_FILES", "connect_database"]

SIDE_FILES = ("-journal", "-wal", "-shm")
"""The files SQLite keeps beside a database, named after it."""

_PROC_FDS = "/proc/self/fd"
_DEV_FDS = "/dev/fd"
_MAKE = os.O_WRONLY | os.O_CREAT | os.O_EXCL
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def connect_database(
    tree: Tree,
    rel: str,
    *,
    readonly: bool = False,
    mode: int = 0o644,
    **options: Any,
) -> sqlite3.Connection:
    """A ``sqlite3`` connection to the database ``rel`` below ``tree`` (``options`` are passed
    to ``sqlite3.connect``: ``timeout``, ``isolation_level``…). Its folders are made, and a
    missing database made empty with permission ``mode``, unless ``readonly`` (then the
    connection is read-only and a missing database is ``FileNotFoundError``). ``UnsafePath``
    when a folder on the way, the database or a side file is a link, FIFO, device or socket,
    a folder belongs to another user, or the file SQLite opened is not the one the layer
    proved (see the module's notes)."""
    import sqlite3

    folder, _, name = rel.rpartition("/")
    with tree.folder(folder, create=not readonly) as fd:
        found = [_regular_or_absent(tree, fd, rel + s, name + s) for s in ("", *SIDE_FILES)]
        where = f"{_PROC_FDS}/{fd}/{name}" if os.path.isdir(_PROC_FDS) else tree.path(rel)
        if readonly:
            from urllib.parse import quote

            where, options = f"file:{quote(where)}?mode=ro", {**options, "uri": True}
        if found[0] is not None and stat.S_ISDIR(found[0].st_mode):
            # a folder in the database's place (proven no link): SQLite cannot use it and says
            # so at the first statement, which a cache heals by removing it
            unusable: sqlite3.Connection = sqlite3.connect(where, **options)
            return unusable
        if not readonly:
            _make(fd, name, mode)
        proven = tree.open_read(rel)
        try:
            identity = os.fstat(proven)
            before = _open_fds()
            conn: sqlite3.Connection = sqlite3.connect(where, **options)
            try:
                _verify(tree, rel, conn, fd, identity, proven, before)
            except BaseException:
                conn.close()
                raise
            return conn
        finally:
            os.close(proven)


def _regular_or_absent(tree: Tree, fd: int, rel: str, name: str) -> os.stat_result | None:
    """The entry ``name`` in folder ``fd`` when it is a regular file or a folder, ``None`` when
    there is none; ``UnsafePath`` for anything else (a link is never handed to SQLite)."""
    try:
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        raise UnsafePath(tree.path(rel), f"is {describe(st.st_mode)}, not a regular file")
    return st


def _make(fd: int, name: str, mode: int) -> None:
    """The database made empty in the folder's descriptor when missing, following no link."""
    try:
        handle = os.open(name, _MAKE | _NOFOLLOW | _NONBLOCK | _CLOEXEC, mode, dir_fd=fd)
    except FileExistsError:
        return
    os.close(handle)


def _fd_folder() -> str | None:
    for folder in (_PROC_FDS, _DEV_FDS):
        if os.path.isdir(folder):
            return folder
    return None


def _open_fds() -> set[str]:
    folder = _fd_folder()
    if folder is None:
        return set()
    try:
        return set(os.listdir(folder))
    except OSError:
        return set()


def _regular(fd: str, folder: str) -> tuple[os.stat_result, str] | None:
    """The file descriptor ``fd`` is open on and its current path, when it is a regular file."""
    try:
        st = os.stat(f"{folder}/{fd}")
        path = os.readlink(f"{folder}/{fd}")
    except OSError:
        return None
    return (st, path) if stat.S_ISREG(st.st_mode) else None


def _verify(
    tree: Tree,
    rel: str,
    conn: sqlite3.Connection,
    held: int,
    identity: os.stat_result,
    proven: int,
    before: set[str],
) -> None:
    """Raise ``UnsafePath`` unless the file the new connection opened is ``identity``, in the
    folder ``held``."""
    name = rel.rpartition("/")[2]
    replaced = UnsafePath(tree.path(rel), "was replaced by another file while SQLite opened it")
    row = conn.execute("PRAGMA database_list").fetchone()
    used = str(row[2]) if row else ""
    try:
        here = os.path.samestat(os.stat(os.path.dirname(used) or "."), os.fstat(held))
    except OSError:
        here = False
    if os.path.basename(used) != name or not here:
        raise replaced  # SQLite resolved a link to somewhere else
    folder = _fd_folder()
    if folder is None:
        st = tree.lstat(rel)
        if st is None or not os.path.samestat(st, identity):
            raise replaced
        return
    ours = str(proven)
    after = _open_fds() - {ours}
    new = [found for fd in sorted(after - before) if (found := _regular(fd, folder))]
    if any(os.path.samestat(st, identity) for st, _ in new):
        return
    # None new is the file: SQLite reused a descriptor it kept for it (another connection of
    # this process holds the file), or another thread's descriptors hide its own. A new one
    # named as the database but another file is what a swapped folder makes SQLite open.
    if any(os.path.basename(path) == name for _, path in new):
        raise replaced
    for fd in after & before:
        found = _regular(fd, folder)
        if found is not None and os.path.samestat(found[0], identity):
            return
    raise replaced
