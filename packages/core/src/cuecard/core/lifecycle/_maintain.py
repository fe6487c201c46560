"""Maintenance: roll session files up, prune them, retire unused memories, refresh similarity.

``maintain(store)`` does the work (``cuecard maintain`` by hand); what a harness's session start
calls, ``maintain_if_due(root)``, lives on the hot path (``cuecard.core.engine._schedule``): at
most once a day it spawns ``cuecard maintain`` detached from the session and returns at once.

Retirement: an active memory whose trigger paths were touched in at least
``retire.after_sessions`` sessions since it was created (or last fired) without it firing is
archived; the file stays. Never retired this way: a memory a person reviewed (``review.reviewed_at``
or ``review.reviewed_by`` set), one a person wrote (origin ``user_explicit``), one that a pending
candidate revises, and one without path triggers (its opportunities cannot be seen).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field

from cuecard.core.base._confined import UnsafePath
from cuecard.core.engine._schedule import STAMP

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path
    from typing import Any

    from cuecard.core.lifecycle._telemetry import History
    from cuecard.core.store._memory import Memory
    from cuecard.core.store._store import Store

__all__ = ["MaintainReport", "maintain", "retirement", "session_fires"]


@dataclass
class MaintainReport:
    """What one maintenance run did."""

    ran_at: float = 0.0
    """When the run started (Unix seconds)."""
    sessions_rolled: int = 0
    """Session folders summarised into ``telemetry.sqlite``."""
    sessions_pruned: int = 0
    """Session folders deleted after ``PRUNE_AFTER`` idle seconds (their summary stays)."""
    sessions_left: list[str] = field(default_factory=list)
    """Idle session folders left in place: they hold no cuecard marker (made before cuecard
    marked the folders it makes, or not by cuecard), so cuecard does not delete them."""
    sessions_failed: list[dict[str, str]] = field(default_factory=list)
    """Idle session folders cuecard marked whose deletion failed partway: ``folder`` and
    ``error``. The marker goes last, so the next run tries again."""
    sessions_foreign: list[dict[str, str]] = field(default_factory=list)
    """Idle session folders left in place because they belong to another user (whatever they
    hold, cuecard deletes nothing of another user's): ``folder`` and ``reason``."""
    deliveries_rolled: int = 0
    """Ledger lines moved into the database."""
    ingestions_rolled: int = 0
    """Ingestion telemetry lines moved into the database."""
    retired: list[dict[str, Any]] = field(default_factory=list)
    """Memories archived for disuse: ``id``, ``title``, ``sessions``."""
    similarity: int = 0
    """Live memories in the refreshed similarity index."""
    compiled: bool = False
    """Whether the trigger index was rebuilt (after a retirement)."""
    seconds: float = 0.0


# -- pure parts -----------------------------------------------------------------------------------


def session_fires(history: History) -> dict[str, dict[str, float]]:
    """For each memory id, the sessions (folder names) it fired in and when it last did there."""
    from cuecard.core.engine._ledger import safe_name

    fires: dict[str, dict[str, float]] = {}
    for line in history.deliveries:
        session = safe_name(str(line.get("session", "")))
        t = line.get("t")
        when = float(t) if isinstance(t, int | float) else 0.0
        for item in line.get("ids") or []:
            if isinstance(item, list) and item and isinstance(item[0], str):
                if item[0].startswith("check:"):
                    continue
                seen = fires.setdefault(item[0], {})
                seen[session] = max(seen.get(session, 0.0), when)
    return fires


def _path_globs(memory: Memory) -> list[str]:
    return [glob for clause in memory.triggers for glob in clause.paths]


def _protected(memory: Memory, revised: set[str]) -> bool:
    from cuecard.core.store._memory import Origin

    review = memory.review
    return (
        review.reviewed_at is not None
        or review.reviewed_by is not None
        or memory.origin == Origin.USER_EXPLICIT
        or memory.id in revised
    )


def retirement(
    memories: Sequence[Memory], history: History, after_sessions: int
) -> list[tuple[Memory, int]]:
    """The active memories to retire, each with the sessions that touched its paths unfired."""
    from cuecard.core.lifecycle._repofiles import GlobSet
    from cuecard.core.store._memory import Status

    revised = {m.revises for m in memories if m.status == Status.CANDIDATE and m.revises}
    fires = session_fires(history)
    touched_any: set[str] = set()
    sessions = []
    for name, summary in history.sessions.items():
        paths = set(summary.get("touched", {}))
        touched_any |= paths
        sessions.append((name, float(summary.get("last_t") or 0.0), paths))
    touched_sorted = sorted(touched_any)
    out: list[tuple[Memory, int]] = []
    for memory in memories:
        if memory.status != Status.ACTIVE or _protected(memory, revised):
            continue
        globs = GlobSet(_path_globs(memory))
        if not globs:
            continue
        fired = fires.get(memory.id, {})
        since = max([memory.created_at.timestamp(), *fired.values()])
        reach = set(globs.matching_sorted(touched_sorted))
        unfired = sum(
            1
            for name, last, paths in sessions
            if name not in fired and last > since and not reach.isdisjoint(paths)
        )
        if unfired >= after_sessions:
            out.append((memory, unfired))
    return out


# -- the run --------------------------------------------------------------------------------------


def maintain(
    store: Store,
    *,
    clock: Callable[[], float] = time.time,
    progress: Callable[[str, int, int], None] | None = None,
) -> MaintainReport:
    """Run maintenance once for ``store``'s project (under its own lock)."""
    from cuecard.core.lifecycle._similarity import SimilarityIndex
    from cuecard.core.lifecycle._telemetry import (
        PRUNE_AFTER,
        Telemetry,
        read_history,
        session_folders,
        summarise_session,
    )
    from cuecard.core.store._compiler import compile_index
    from cuecard.core.store._memory import Status

    def step(name: str, done: int, total: int) -> None:
        if progress is not None:
            progress(name, done, total)

    started = time.perf_counter()
    report = MaintainReport(ran_at=clock())
    local = store.local_dir
    tree = store.tree  # .cuecard/local reached by descriptor, no link followed
    tree.mkdirs(".cuecard/local")
    config = store.config()
    with (
        tree.locked(".cuecard/local/maintain.lock", timeout=60),
        Telemetry(local / "telemetry.sqlite") as db,
    ):
        folders = session_folders(local)
        idle: list[Path] = []
        for done, folder in enumerate(folders, 1):
            summary = summarise_session(folder)
            db.put_session(summary, report.ran_at)
            report.sessions_rolled += 1
            if report.ran_at - float(summary["last_t"] or 0.0) > PRUNE_AFTER:
                idle.append(folder)
            step("sessions", done, len(folders))
        db.commit()  # the summaries are safe before any folder goes
        tree.mkdirs(".cuecard/local/sessions")
        for folder in idle:  # only what cuecard marked, by descriptor, no link followed
            try:
                pruned = tree.remove_marked(f".cuecard/local/sessions/{folder.name}")
            except UnsafePath as exc:  # another user's folder: never deleted, said so
                report.sessions_foreign.append({"folder": folder.name, "reason": exc.reason})
                continue
            except OSError as exc:
                report.sessions_failed.append({"folder": folder.name, "error": str(exc)})
                continue
            if pruned:
                report.sessions_pruned += 1
            else:
                report.sessions_left.append(folder.name)
        report.deliveries_rolled = db.drain("ledger.jsonl", "deliveries")
        report.ingestions_rolled = db.drain("telemetry/inbox.jsonl", "ingestions")
        step("telemetry", 1, 1)
        history = read_history(local)
        memories = store.memories()
        retire = retirement(memories, history, config.retire.after_sessions)
        if retire:
            with store.transaction() as tx:
                for memory, sessions in retire:
                    current = tx.get(memory.id)
                    if current.status != Status.ACTIVE:
                        continue
                    reason = (
                        f"retired by maintenance: its paths were touched in {sessions} sessions "
                        "without it firing"
                    )
                    tx.put(
                        current.model_copy(
                            update={"status": Status.ARCHIVED, "archived_reason": reason}
                        )
                    )
                    report.retired.append(
                        {"id": memory.id, "title": memory.title, "sessions": sessions}
                    )
            compile_index(store)
            report.compiled = True
            memories = store.memories()
        step("retirement", 1, 1)
        live = [m for m in memories if m.live]
        SimilarityIndex(local / "similarity.json").refresh(live)
        report.similarity = len(live)
        step("similarity", 1, 1)
        report.seconds = round(time.perf_counter() - started, 3)
        payload = asdict(report)
        db.record_run(report.ran_at, payload)
        tree.write(f".cuecard/local/{STAMP}", json.dumps(payload, indent=2) + "\n", durable=False)
    return report
