"""The longest path the system opens (``PATH_MAX``): a longer one names no file, and is never
matched. Standard library only; asked once per process, and only for a path that could be too
long."""

from __future__ import annotations

import os

__all__ = ["path_max", "path_too_long"]

_PATH_MAX: list[int] = []


def path_max() -> int:
    """The longest path the system opens, in bytes (``PC_PATH_MAX``; 4,096 when it cannot
    say), asked once per process."""
    if not _PATH_MAX:
        try:
            found = os.pathconf("/", "PC_PATH_MAX")
        except (AttributeError, OSError, ValueError):
            found = 0
        _PATH_MAX.append(found if found > 0 else 4_096)
    return _PATH_MAX[0]


def path_too_long(path: str) -> bool:
    """Whether ``path`` is longer than ``path_max()`` bytes in UTF-8: no file has such a path,
    and it is never matched."""
    if len(path) <= 64:  # every system opens paths this long (POSIX: at least 256 bytes)
        return False
    limit = path_max()
    if len(path) > limit:
        return True
    if len(path) * 4 <= limit:
        return False
    return len(path.encode("utf-8", "surrogatepass")) > limit
