"""The project settings in ``.cuecard/config.json``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DELIVERY_LIMIT_RANGE", "ProjectConfig", "RetireOptions"]

DELIVERY_LIMIT_RANGE = (2_000, 50_000)


class RetireOptions(BaseModel):
    """When maintenance archives a memory that never fires."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    after_sessions: int = Field(default=20, ge=1, le=10_000)
    """Archive an active memory whose paths were touched in this many sessions without it firing."""


class ProjectConfig(BaseModel):
    """Settings of one project, committed with it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal[1] = 1
    """Version of this file's layout."""
    project_id: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.-]+$")
    """A stable id for the project, written by ``cuecard init``."""
    delivery_limit: int = Field(
        default=10_000, ge=DELIVERY_LIMIT_RANGE[0], le=DELIVERY_LIMIT_RANGE[1]
    )
    """Most characters of knowledge delivered at one event (2,000 to 50,000)."""
    auto_accept: bool = True
    """Activate a candidate whose grounds cuecard verified itself."""
    retire: RetireOptions = Field(default_factory=RetireOptions)
    """When unused memories are archived by maintenance."""
