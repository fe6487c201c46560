"""What the doctor found: problems (cuecard does not work) and notes (worth knowing)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Findings", "iso"]


@dataclass
class Findings:
    """The report's ``problems`` and ``notes``, each ``{check, message, hint}``."""

    problems: list[dict[str, str]]
    notes: list[dict[str, str]]

    def problem(self, check: str, message: str, hint: str) -> None:
        self.problems.append({"check": check, "message": message, "hint": hint})

    def note(self, check: str, message: str, hint: str = "") -> None:
        self.notes.append({"check": check, "message": message, "hint": hint})


def iso(t: float | None) -> str | None:
    """A Unix time as ISO 8601 (UTC), or None."""
    from datetime import UTC, datetime

    return None if t is None else datetime.fromtimestamp(t, UTC).isoformat()
