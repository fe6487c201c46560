"""File evidence: which refs are valid, and hashing the file a ref names. Standard library only.

``open_regular`` and ``read_regular`` are how the hot path opens any file a project holds
(evidence, memory files, the edited file, the local index): never a FIFO or a device.

A file evidence ref is a repository-relative path (``/`` separators, optionally ``#L3-L9``) of a
regular file inside the repository. Validation refuses an absolute ref, one with a ``..``
segment, a backslash or a control character (``ref_problem``). Reading one (``file_digest``)
walks the path one folder at a time from the repository root without following any symbolic
link, opens the file without blocking and without following a link, accepts only a regular
file, and reads at most ``MAX_EVIDENCE_BYTES``: a memory a teammate committed with
``/dev/zero``, a FIFO or a link to a device as evidence costs one ``open`` and one ``fstat``,
never a read without end. The hook calls this before each delivery.
"""

from __future__ import annotations

import os
import stat

__all__ = [
    "MAX_EVIDENCE_BYTES",
    "file_digest",
    "open_regular",
    "read_regular",
    "ref_path",
    "ref_problem",
]

MAX_EVIDENCE_BYTES = 4 * 1024 * 1024
_LINES = r"#L\d+(?:-L?\d+)?$"  # compiled on first use, not when the hook imports the readers
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOCTTY = getattr(os, "O_NOCTTY", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_BINARY = getattr(os, "O_BINARY", 0)


def ref_path(ref: str) -> str:
    """The path part of a file ref (without a ``#L3-L9`` line range)."""
    if "#" not in ref:
        return ref
    import re

    return re.sub(_LINES, "", ref)


def ref_problem(ref: str) -> str | None:
    """Why ``ref`` is not a repository-relative file path inside the repository, or ``None``."""
    path = ref_path(ref)
    if not path.strip():
        return "is empty"
    if any(ord(c) < 32 or ord(c) == 127 for c in path):
        return "holds a control character"
    drive = len(path) > 1 and path[1] == ":" and path[0].isascii() and path[0].isalpha()
    if path.startswith(("/", "~", "\\\\")) or drive:
        return "is absolute; name a file by its path relative to the repository root"
    if "\\" in path:
        return "uses a backslash; write paths with / separators"
    if ".." in path.split("/"):
        return "leaves the repository"
    return None


def open_regular(path: str, *, follow_links: bool = False, dir_fd: int | None = None) -> int | None:
    """A file descriptor of the regular file ``path`` (the caller closes it), or ``None`` when
    it is not one: a folder, FIFO, socket or device, or (unless ``follow_links``) a symbolic
    link. Opening never blocks (``O_NONBLOCK``), and ``fstat`` checks the file before anyone
    reads it."""
    flags = os.O_RDONLY | _NONBLOCK | _NOCTTY | _BINARY | (0 if follow_links else _NOFOLLOW)
    try:
        fd = os.open(path, flags, dir_fd=dir_fd) if dir_fd is not None else os.open(path, flags)
    except (OSError, ValueError):
        return None
    try:
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        regular = False
    if not regular:
        os.close(fd)
        return None
    return fd


def read_regular(
    path: str, limit: int, *, follow_links: bool = False, dir_fd: int | None = None
) -> bytes | None:
    """The content of the regular file ``path`` (see ``open_regular``), or ``None`` when it is
    not one, holds more than ``limit`` bytes, or cannot be read."""
    fd = open_regular(path, follow_links=follow_links, dir_fd=dir_fd)
    if fd is None:
        return None
    try:
        if os.fstat(fd).st_size > limit:
            return None
        chunks = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        return data if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


def _repo_bytes(root: str, rel: str, limit: int) -> bytes | None:
    """``read_regular`` of ``rel`` under ``root``, each folder on the way opened without
    following a link (where the platform offers ``dir_fd``; elsewhere the resolved path must
    stay inside ``root``)."""
    parts = rel.split("/")
    if os.open not in os.supports_dir_fd or not _DIRECTORY:
        full = os.path.realpath(os.path.join(root, *parts))
        base = os.path.realpath(root)
        if os.path.commonpath([base, full]) != base:
            return None
        return read_regular(full, limit)
    try:
        fd = os.open(root, os.O_RDONLY | _DIRECTORY)
    except OSError:
        return None
    try:
        for part in parts[:-1]:
            folder = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = folder
        return read_regular(parts[-1], limit, dir_fd=fd)
    except OSError:
        return None
    finally:
        os.close(fd)


def file_digest(root: str, ref: str, limit: int = MAX_EVIDENCE_BYTES) -> str | None:
    """The sha256 of the file a valid evidence ``ref`` names under ``root``, or ``None`` when
    the ref is invalid or names no regular file of at most ``limit`` bytes inside ``root``."""
    if ref_problem(ref) is not None:
        return None
    parts = [p for p in ref_path(ref).split("/") if p not in ("", ".")]
    if not parts:
        return None
    data = _repo_bytes(root, "/".join(parts), limit)
    if data is None:
        return None
    import hashlib

    return hashlib.sha256(data).hexdigest()
