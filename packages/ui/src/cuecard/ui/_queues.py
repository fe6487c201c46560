"""The review queues: pure functions from a snapshot to what waits for a person."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cuecard.core import Memory
from cuecard.ui._project import Snapshot

__all__ = ["QUEUES", "VAULT_QUEUES", "Queue", "build_queues"]


@dataclass(frozen=True)
class Queue:
    """One queue: its name in the URL, what a person reads, and its items."""

    name: str
    title: str
    help: str
    empty: str
    items: list[dict[str, Any]] = field(default_factory=list)
    available: bool = True
    """False when the data behind it is not there (no vault, no health module)."""

    @property
    def count(self) -> int:
        return len(self.items)


QUEUES: dict[str, tuple[str, str, str]] = {
    "candidates": (
        "Candidates",
        "Proposals waiting for a person: accept one, reject one, or a whole batch at once.",
        "No candidates wait. New proposals from agents appear here.",
    ),
    "contested": (
        "Contested",
        "Live memories someone disputed. Delivered with a warning until a person settles them.",
        "No contested memories.",
    ),
    "auto-accepted": (
        "Accepted by cuecard",
        "Memories cuecard activated on grounds it verified itself, until a person marks each "
        "as reviewed.",
        "Every memory cuecard accepted on its own has been reviewed.",
    ),
    "requests": (
        "Revise and archive requests",
        "Agents asked to archive a memory or proposed a revision of one; a person decides.",
        "No requests wait.",
    ),
    "stale-evidence": (
        "Stale evidence",
        "Memories whose evidence file changed since it was recorded: check they still hold.",
        "All recorded evidence files are unchanged.",
    ),
    "dead-triggers": (
        "Dead triggers",
        "Trigger clauses whose paths match no file of the repository: they can never fire.",
        "Every trigger clause can fire.",
    ),
    "not-derivable": (
        "Waiting for not_derivable",
        "Converted memories that still need a person to say why the code does not tell this.",
        "No converted memory waits for not_derivable.",
    ),
}

VAULT_QUEUES: dict[str, tuple[str, str, str]] = {
    "vault-pending": (
        "Vault: pending promotions",
        "Facts agents submitted to the vault inbox, reviewed into a pending list; apply it to "
        "promote them into the canonical notes.",
        "Nothing waits for promotion.",
    ),
    "vault-conflicts": (
        "Vault: conflicts",
        "A new fact similar to, but different from, a canonical one. Decide: use the new fact, "
        "keep the old, keep both, or defer.",
        "No conflicts wait.",
    ),
    "vault-forget": (
        "Vault: forget candidates",
        "Stamped facts nobody used for a long time and that name nothing protected. Forgetting "
        "moves them to the forgotten folder; nothing is deleted.",
        "No fact is due to be forgotten.",
    ),
}


def _memory_item(memory: Memory, **extra: Any) -> dict[str, Any]:
    return {"memory": memory, **extra}


def _sorted(memories: list[Memory]) -> list[Memory]:
    return sorted(memories, key=lambda m: (m.created_at, m.id))


def _project_items(snap: Snapshot) -> dict[str, list[dict[str, Any]]]:
    mems = snap.memories
    by_id = snap.by_id()
    items: dict[str, list[dict[str, Any]]] = {name: [] for name in QUEUES}
    for m in _sorted([m for m in mems if m.status == "candidate" and not m.revises]):
        items["candidates"].append(_memory_item(m))
    for m in _sorted([m for m in mems if m.status == "contested"]):
        items["contested"].append(_memory_item(m))
    for m in _sorted(
        [m for m in mems if m.live and m.review.auto_accepted and not m.review.reviewed_by]
    ):
        items["auto-accepted"].append(_memory_item(m))
    for request in snap.requests:
        target = by_id.get(str(request.get("target", "")))
        items["requests"].append({"request": request, "target": target, "memory": None})
    for m in _sorted([m for m in mems if m.status == "candidate" and m.revises]):
        assert m.revises is not None
        items["requests"].append({"request": None, "target": by_id.get(m.revises), "memory": m})
    for ident, refs in sorted(_stale(snap).items()):
        if ident in by_id:
            items["stale-evidence"].append(_memory_item(by_id[ident], refs=refs))
    for ident, clauses in sorted(_dead(snap).items()):
        if ident in by_id:
            items["dead-triggers"].append(_memory_item(by_id[ident], clauses=clauses))
    for m in _sorted(
        [
            m
            for m in mems
            if m.review.migrated
            and not m.not_derivable
            and m.status in ("candidate", "active", "contested")
        ]
    ):
        items["not-derivable"].append(_memory_item(m))
    return items


def _stale(snap: Snapshot) -> dict[str, list[str]]:
    """The refs of each memory whose evidence is stale: from the health report when it lists
    them, else from the snapshot's own check."""
    if snap.health is None or not isinstance(snap.health.get("stale_evidence"), list):
        return snap.stale
    stale: dict[str, list[str]] = {}
    for entry in snap.health["stale_evidence"]:
        if isinstance(entry, dict):
            stale.setdefault(str(entry.get("id")), []).append(str(entry.get("ref", "")))
    return stale


def _dead(snap: Snapshot) -> dict[str, list[str]]:
    """The dead trigger clauses of each memory, from the health report (none without one)."""
    dead: dict[str, list[str]] = {}
    if snap.health is None:
        return dead
    for entry in snap.health.get("dead_triggers", []) or []:
        if isinstance(entry, dict):
            dead.setdefault(str(entry.get("id")), []).append(str(entry.get("clause", "")))
    return dead


def build_queues(snap: Snapshot) -> list[Queue]:
    """Every queue, project ones first, then the vault's."""
    items = _project_items(snap)
    queues = [
        Queue(
            name,
            title,
            text,
            empty,
            items[name],
            available=name != "dead-triggers" or snap.health is not None,
        )
        for name, (title, text, empty) in QUEUES.items()
    ]
    vault = snap.vault
    for name, (title, text, empty) in VAULT_QUEUES.items():
        if vault is None or vault.error:
            queues.append(Queue(name, title, text, empty, [], available=False))
            continue
        found: list[dict[str, Any]]
        if name == "vault-pending":
            found = list(vault.pending)
        elif name == "vault-conflicts":
            found = list(vault.conflicts)
        else:
            found = list(vault.forget)
        queues.append(Queue(name, title, text, empty, found))
    return queues
