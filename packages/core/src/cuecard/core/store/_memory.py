"""The memory record: one piece of project knowledge an agent cannot derive from the code.

Schema-versioned JSON, one file per memory in ``.cuecard/memories/<id>.json``. Validation beyond
the schema (secrets, unsafe content, globs, lifecycle rules) lives in ``_validate``.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "LIVE",
    "SCHEMA_VERSION",
    "Check",
    "EventKind",
    "Evidence",
    "Kind",
    "Memory",
    "Origin",
    "Review",
    "Status",
    "Trigger",
]

SCHEMA_VERSION = 1
_UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
TOPIC_PATTERN = r"^[a-z0-9][a-z0-9._-]{0,63}(/[a-z0-9][a-z0-9._-]{0,63}){0,5}$"

EventKind = Literal["prompt", "read", "edit", "write", "run", "search"]

Short = Annotated[str, Field(min_length=1, max_length=200)]
Word = Annotated[str, Field(min_length=1, max_length=100)]


class Kind(StrEnum):
    """What sort of knowledge a memory holds."""

    DECISION = "decision"
    TRAP = "trap"
    FAILED_APPROACH = "failed_approach"
    FACT = "fact"
    PROCEDURE = "procedure"


class Status(StrEnum):
    """Lifecycle: candidate → active ⇄ contested → superseded | archived."""

    CANDIDATE = "candidate"
    ACTIVE = "active"
    CONTESTED = "contested"
    SUPERSEDED = "superseded"
    ARCHIVED = "archived"


LIVE = frozenset({Status.ACTIVE, Status.CONTESTED})


class Origin(StrEnum):
    """Who decided the memory should exist."""

    MODEL_INITIATED = "model_initiated"
    USER_EXPLICIT = "user_explicit"


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class Trigger(_Record):
    """One trigger clause: fires when ``on`` names the event kind and every narrowing matches."""

    on: list[EventKind] = Field(min_length=1, max_length=6)
    """Event kinds the clause listens to."""
    paths: list[Short] = Field(default_factory=list, max_length=32)
    """Repository-relative globs (``*``, ``**``, ``?``, ``{a,b}``)."""
    symbols: list[Word] = Field(default_factory=list, max_length=32)
    """Identifiers that fire the clause when an event names them."""
    commands: list[Short] = Field(default_factory=list, max_length=32)
    """Command word prefixes, e.g. ``alembic upgrade``."""
    keywords: list[Word] = Field(default_factory=list, max_length=32)
    """Whole words looked for, case-insensitively, in the prompt."""


class Check(_Record):
    """A declarative check: a regular expression over a changed file or a command."""

    if_content: str | None = Field(default=None, max_length=500)
    """Report a changed file whose content matches."""
    unless_content: str | None = Field(default=None, max_length=500)
    """...unless its content also matches this."""
    if_command: str | None = Field(default=None, max_length=500)
    """Report a command that matches."""
    unless_command: str | None = Field(default=None, max_length=500)
    """...unless it also matches this."""
    paths: list[Short] = Field(default_factory=list, max_length=32)
    """Globs of the files a content check judges (default: the trigger paths)."""
    when: Literal["turn", "edit"] | None = None
    """``turn`` (default for files) runs at Stop; ``edit`` at the edit."""
    message: Annotated[str, Field(max_length=500)] = ""
    """What the report says to the agent."""
    violates: list[Annotated[str, Field(max_length=2000)]] = Field(min_length=1, max_length=8)
    """Examples the check must report."""
    passes: list[Annotated[str, Field(max_length=2000)]] = Field(min_length=1, max_length=8)
    """Examples the check must let through."""


class Evidence(_Record):
    """Why the memory is believed: a hashed file, a recorded correction, a command, a note."""

    kind: Literal["file", "correction", "command", "note"]
    ref: Annotated[str, Field(min_length=1, max_length=300)]
    """A repository-relative path, a session reference or a command."""
    sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    """For files: the content hash when the evidence was recorded."""
    summary: Annotated[str, Field(max_length=500)] = ""
    recorded_at: datetime | None = None
    verified: bool = False
    """True only when cuecard checked the evidence itself."""


class Review(_Record):
    """What people (or cuecard on its own) decided about the memory."""

    reviewed_by: str | None = Field(default=None, max_length=100)
    reviewed_at: datetime | None = None
    note: Annotated[str, Field(max_length=1000)] = ""
    auto_accepted: bool = False
    """Activated by cuecard's auto-accept, waiting for a person to mark it reviewed."""
    migrated: bool = False
    """Converted from another format; ``not_derivable`` may wait for a person."""
    issues: list[Annotated[str, Field(max_length=100)]] = Field(default_factory=list, max_length=16)


def _new_id() -> str:
    return str(uuid.uuid4())


class Memory(_Record):
    """A memory: project knowledge an agent cannot derive from the code."""

    schema_version: Literal[1] = 1
    id: str = Field(default_factory=_new_id)
    """A UUID4 string."""
    topic: str = Field(pattern=TOPIC_PATTERN, max_length=200)
    """Lowercase, ``/``-separated; at most one live memory per topic."""
    kind: Kind
    status: Status = Status.CANDIDATE
    title: Annotated[str, Field(min_length=1, max_length=150)]
    body: Annotated[str, Field(min_length=1, max_length=4000)]
    not_derivable: Annotated[str, Field(max_length=1000)] | None = None
    """Why a capable agent reading the code would not work this out. Required to be live."""
    triggers: list[Trigger] = Field(default_factory=list, max_length=16)
    check: Check | None = None
    evidence: list[Evidence] = Field(default_factory=list, max_length=16)
    origin: Origin = Origin.MODEL_INITIATED
    source: Annotated[str, Field(min_length=1, max_length=100)] = "unknown"
    """The agent, host or tool that wrote it (``cli``, ``claude-code``, ``import``...)."""
    created_at: datetime
    updated_at: datetime
    revises: str | None = None
    """The id of the live memory this candidate would replace."""
    superseded_by: str | None = None
    archived_reason: Annotated[str, Field(max_length=500)] | None = None
    batch: Annotated[str, Field(max_length=100)] | None = None
    review: Review = Field(default_factory=Review)

    @field_validator("id", "revises", "superseded_by")
    @classmethod
    def _uuid4(cls, value: str | None) -> str | None:
        if value is None or _UUID4.match(value):
            return value
        try:
            uuid.UUID(value)
        except ValueError:
            raise ValueError("is not a UUID") from None
        raise ValueError("is not a lowercase UUID4 string")

    @property
    def live(self) -> bool:
        return self.status in LIVE
