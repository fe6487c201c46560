"""The vault's value types: what its operations take and give, alike on both backends.

Search results (``Result``, ``Found``) live in ``_results`` (standard library only, for the
cold search process) and are re-exported here.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import date

from cuecard.core.vault._results import Found as Found
from cuecard.core.vault._results import Result as Result

__all__ = [
    "DECISIONS",
    "Applied",
    "Candidate",
    "Conflict",
    "Found",
    "Moved",
    "Pending",
    "Places",
    "Result",
    "Review",
    "Reviewed",
    "Shown",
]

DECISIONS = ("use-new", "keep-old", "keep-both", "defer")


@dataclass(frozen=True)
class Places:
    """Where a backend keeps each queue and archive, as shown in messages."""

    pending_list: str
    processed: str
    conflicts: str
    forgotten: str
    sessions: str


@dataclass(frozen=True)
class Shown:
    """A canonical note: its file name, its id (``None`` for an extra note) and its text."""

    file: str
    id: str | None
    text: str


@dataclass(frozen=True)
class Conflict:
    """A new fact similar to, but different from, a canonical one."""

    new: str
    old: str
    source: str
    note: str
    """The canonical note id the new fact belongs to."""

    @property
    def id(self) -> str:
        raw = json.dumps([self.new, self.old, self.source, self.note], ensure_ascii=False)
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:8]

    @property
    def key(self) -> tuple[str, str, str]:
        """What makes two conflicts the same question: the two facts and the note."""
        return (self.new, self.old, self.note)

    def as_json(self) -> dict[str, str]:
        return {
            "id": self.id,
            "new": self.new,
            "old": self.old,
            "source": self.source,
            "note": self.note,
        }


@dataclass(frozen=True)
class Pending:
    """A fact waiting to be promoted."""

    fact: str
    note: str
    source: str
    replaces: str = ""


@dataclass
class Review:
    """What a review found."""

    pending: list[Pending] = field(default_factory=list)
    duplicates: int = 0
    conflicts: list[Conflict] = field(default_factory=list)
    supersessions: int = 0
    sources: list[str] = field(default_factory=list)


@dataclass
class Reviewed:
    """A review's findings, the conflicts it newly queued, and the pending items with their ids
    (the number a person gives to ``vault pending drop``)."""

    review: Review
    queued: int
    items: list[tuple[int, Pending]] = field(default_factory=list)


@dataclass
class Applied:
    """What an apply did."""

    promoted: list[Pending] = field(default_factory=list)
    skipped: int = 0
    archived: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Candidate:
    """A fact line that would be forgotten."""

    note: str
    """Vault-relative note path."""
    line: str
    id: str
    stamped: date
    last_used: date | None


@dataclass
class Moved:
    """What a transfer carried."""

    facts: int = 0
    submissions: int = 0
    processed: int = 0
    conflicts: int = 0
    notes: list[str] = field(default_factory=list)
    pending: int = 0
    adjudications: int = 0
    promotions: int = 0
    forgotten: int = 0
    archives: int = 0
    uses: int = 0
    cursor: int = 0
