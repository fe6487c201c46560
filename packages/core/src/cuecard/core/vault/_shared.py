"""What both backends share that is not a value: the canonical note ids, the note-name rule,
and the context-manager base of a backend. Standard library only (the cold search path opens a
backend through it).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Self

__all__ = ["NOTE_IDS", "Opened", "check_note_name"]

NOTE_IDS = ("index", "prefs", "env", "rules", "tools", "ui", "coord", "other")
"""The canonical notes' ids (the default layout's notes and the catch-all ``other``)."""


def check_note_name(name: str) -> None:
    """A note id, or a bare ``NAME.md`` (no path separator, no ``..``, no leading dot):
    ``UsageError`` otherwise, before any file or row is touched."""
    import re

    from cuecard.core.base._errors import UsageError

    if name in NOTE_IDS:
        return
    if (
        ".." in name
        or not re.fullmatch(r"[^/\\\x00]+\.md", name, re.IGNORECASE)
        or name.startswith(".")
    ):
        raise UsageError(
            f"note {name!r}: give a note id or a bare NAME.md (no path separators, no '..')"
        )


class Opened:
    """What every backend does alike: a context manager over ``close``."""

    def close(self) -> None:
        return None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
