"""What an agent may write to ``.cuecard/inbox/<name>.json``: a memory, or a request.

A memory proposal carries the memory's own fields (``triggers`` optional); cuecard sets the id,
status, origin, timestamps and review. A request asks a person to archive or revise a memory.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from cuecard.core.store._memory import Check, Kind, Trigger

__all__ = ["EvidenceProposal", "MemoryProposal", "Proposal", "RequestProposal", "proposal_schema"]

Batch = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.-]+$")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class EvidenceProposal(_Strict):
    """Why the agent believes it. cuecard verifies what it can (it hashes repository files)."""

    kind: Literal["file", "correction", "command", "note"]
    ref: Annotated[str, Field(min_length=1, max_length=300)]
    """A repository-relative file, the correction's session, or the command."""
    summary: Annotated[str, Field(max_length=500)] = ""


class MemoryProposal(_Strict):
    """A new memory. It becomes a candidate, or active when auto-accept applies."""

    topic: str = Field(max_length=200)
    kind: Kind
    title: Annotated[str, Field(min_length=1, max_length=150)]
    body: Annotated[str, Field(min_length=1, max_length=4000)]
    not_derivable: Annotated[str, Field(max_length=1000)] | None = None
    """Why a capable agent reading the code would not work this out."""
    triggers: list[Trigger] = Field(default_factory=list, max_length=16)
    """Optional: cuecard suggests triggers from the session when none are given."""
    check: Check | None = None
    evidence: list[EvidenceProposal] = Field(default_factory=list, max_length=16)
    batch: Batch | None = None
    """Groups proposals that a person accepts or rejects together."""


class RequestProposal(_Strict):
    """Ask a person to archive a memory, or to accept a revision of it."""

    request: Literal["archive", "revise"]
    target: Annotated[str, Field(min_length=4, max_length=36)]
    """The id (or a unique prefix) of a live memory."""
    reason: Annotated[str, Field(min_length=1, max_length=500)]
    batch: Batch | None = None
    title: Annotated[str, Field(min_length=1, max_length=150)] | None = None
    """For a revision: the new title (and below, the other new fields)."""
    body: Annotated[str, Field(min_length=1, max_length=4000)] | None = None
    not_derivable: Annotated[str, Field(max_length=1000)] | None = None
    kind: Kind | None = None
    triggers: list[Trigger] | None = None
    check: Check | None = None


Proposal = MemoryProposal | RequestProposal


def proposal_schema() -> dict[str, Any]:
    """The JSON Schema of an inbox proposal."""
    schema = TypeAdapter(Proposal).json_schema()
    schema["title"] = "Proposal"
    schema["description"] = (
        "One JSON object in .cuecard/inbox/<name>.json: a memory proposal, or an archive/revise "
        "request (with the new fields for a revision)."
    )
    return schema
