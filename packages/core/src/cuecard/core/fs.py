"""Crash-consistent file primitives (atomic replace, exclusive create, advisory locks, appends)
and the confined layer every file operation under a folder cuecard does not own goes through
(``Tree``: walks by directory descriptor, follows no link at any depth, refuses FIFOs, devices
and sockets, deletes only folders it marked; ``UnsafePath`` when it refuses), and SQLite
databases opened through it (``connect_database``).

Standard library only. ``crash_point(name)`` kills the process for real when the environment
variable ``CUECARD_CRASH_AT`` names it: crash tests use it. Re-exported lazily.
"""

from __future__ import annotations

from cuecard.core.base._lazy import lazy_exports as _lazy_exports

# Not `from typing import ...`: importing this module must cost nothing.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.base._confined import MARKER as MARKER
    from cuecard.core.base._confined import Tree as Tree
    from cuecard.core.base._confined import UnsafePath as UnsafePath
    from cuecard.core.base._confined import describe as describe
    from cuecard.core.base._confined import held_folders as held_folders
    from cuecard.core.base._confined import unsafe_entries as unsafe_entries
    from cuecard.core.base._database import connect_database as connect_database
    from cuecard.core.base._fsio import atomic_write as atomic_write
    from cuecard.core.base._fsio import crash_point as crash_point
    from cuecard.core.base._fsio import exclusive_create as exclusive_create
    from cuecard.core.base._fsio import flock_within as flock_within
    from cuecard.core.base._fsio import fsync_dir as fsync_dir
    from cuecard.core.base._fsio import locked as locked
    from cuecard.core.engine._append import append_record as append_record

_EXPORTS: dict[str, str] = {
    "MARKER": "cuecard.core.base._confined",
    "Tree": "cuecard.core.base._confined",
    "UnsafePath": "cuecard.core.base._confined",
    "describe": "cuecard.core.base._confined",
    "held_folders": "cuecard.core.base._confined",
    "unsafe_entries": "cuecard.core.base._confined",
    "connect_database": "cuecard.core.base._database",
    "append_record": "cuecard.core.engine._append",
    "atomic_write": "cuecard.core.base._fsio",
    "crash_point": "cuecard.core.base._fsio",
    "exclusive_create": "cuecard.core.base._fsio",
    "flock_within": "cuecard.core.base._fsio",
    "fsync_dir": "cuecard.core.base._fsio",
    "locked": "cuecard.core.base._fsio",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
