"""What the projector applies: changes from push or pull, and what happened to each."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from cuecard.wp_projection._envelope import Envelope
from cuecard.wp_projection._paths import record_path, site_key

__all__ = ["ApplyResult", "Change", "Outcome", "change_from_envelope"]


@dataclass(frozen=True)
class Change:
    """One thing to apply: a record update or delete, or a hint that only moves the sequence."""

    kind: Literal["update", "delete", "hint"]
    site: str
    home_url: str
    path: str | None = None
    layer: str = ""
    user_id: int = 0
    agent_id: int = 0
    agent_slug: str | None = None
    agent_dir: str | None = None
    filename: str = ""
    content: bytes | None = None
    seq: int | None = None
    source: str = "push"
    event_id: str | None = None
    reason: str | None = None
    """For a hint: why the site should be reconciled (``None``: nothing to fetch)."""


@dataclass(frozen=True)
class Outcome:
    """What happened to one change."""

    path: str | None
    action: str
    """written, unchanged, adopted, stale, deleted, tombstone, preserved, refused, hint, or
    failed (an error worth another attempt: the record was left as it was)."""
    detail: str = ""


@dataclass
class ApplyResult:
    outcomes: list[Outcome] = field(default_factory=list)
    reconcile: dict[str, str] = field(default_factory=dict)
    """Sites that need a pull, with the reason."""

    def count(self, action: str) -> int:
        return sum(1 for o in self.outcomes if o.action == action)


def change_from_envelope(
    env: Envelope, *, aliases: dict[str, str] | None = None, default_agent: str | None = None
) -> Change:
    """Map a checked envelope to a change (raises ``PathRefused`` for an unsafe target)."""
    site = site_key(env.home_url, aliases)
    common = {"site": site, "home_url": env.home_url, "seq": env.seq, "event_id": env.event_id}
    if env.type == "guideline.updated":
        return Change(kind="hint", reason=f"guideline {env.post_id} updated", **common)  # type: ignore[arg-type]
    assert env.layer is not None and env.filename is not None
    slug = env.agent_slug or (default_agent if env.agent_id == 0 else None)
    path = record_path(
        site, env.layer, env.user_id, env.agent_id, slug, env.filename, env.agent_dir
    )
    ident = {
        "path": path,
        "layer": env.layer,
        "user_id": env.user_id,
        "agent_id": env.agent_id,
        "agent_slug": slug,
        "agent_dir": env.agent_dir,
        "filename": env.filename,
    }
    if env.type == "memory.deleted":
        return Change(kind="delete", **ident, **common)  # type: ignore[arg-type]
    if env.content is None:  # composable regenerated without the bytes: fetch it
        return Change(kind="hint", reason=f"{env.filename} regenerated", **common)  # type: ignore[arg-type]
    return Change(kind="update", content=env.content, **ident, **common)  # type: ignore[arg-type]
