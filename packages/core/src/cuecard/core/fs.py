"""Crash-consistent file primitives (atomic replace, exclusive create, advisory locks, appends)
and the confined layer every file operation under a folder cuecard does not own goes through
(``Tree``: walks by directory descriptor, follows no link at any depth, refuses FIFOs, devices
and sockets, deletes only folders it marked; ``UnsafePath`` when it refuses).

Standard library only. ``crash_point(name)`` kills the process for real when the environment
variable ``CUECARD_CRASH_AT`` names it: crash tests use it. Re-exported lazily.
"""

from __future__ import annotations

from cuecard.core._lazy import lazy_exports as _lazy_exports

# Not `from typing import ...`: importing this module must cost nothing.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core._confined import MARKER as MARKER
    from cuecard.core._confined import Tree as Tree
    from cuecard.core._confined import UnsafePath as UnsafePath
    from cuecard.core._confined import describe as describe
    from cuecard.core._confined import held_folders as held_folders
    from cuecard.core._confined import unsafe_entries as unsafe_entries
    from cuecard.core._fsio import atomic_write as atomic_write
    from cuecard.core._fsio import crash_point as crash_point
    from cuecard.core._fsio import exclusive_create as exclusive_create
    from cuecard.core._fsio import flock_within as flock_within
    from cuecard.core._fsio import fsync_dir as fsync_dir
    from cuecard.core._fsio import locked as locked
    from cuecard.core.engine._append import append_record as append_record

_EXPORTS: dict[str, str] = {
    "MARKER": "cuecard.core._confined",
    "Tree": "cuecard.core._confined",
    "UnsafePath": "cuecard.core._confined",
    "describe": "cuecard.core._confined",
    "held_folders": "cuecard.core._confined",
    "unsafe_entries": "cuecard.core._confined",
    "append_record": "cuecard.core.engine._append",
    "atomic_write": "cuecard.core._fsio",
    "crash_point": "cuecard.core._fsio",
    "exclusive_create": "cuecard.core._fsio",
    "flock_within": "cuecard.core._fsio",
    "fsync_dir": "cuecard.core._fsio",
    "locked": "cuecard.core._fsio",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
