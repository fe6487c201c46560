"""The doctor's checks of a project's store: its config, memories, index, queues, sessions and
maintenance. Read-only (an interrupted transaction is only reported, never rolled forward)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cuecard.core.lifecycle._findings import Findings, iso

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.store._store import Store

__all__ = ["STALE_MAINTENANCE", "store_checks", "unsafe_store_entries"]

_UI = "the review UI: `cuecard ui` (from the cuecard-ui distribution: pip install cuecard-ui)"

STALE_MAINTENANCE = 7 * 24 * 3600
"""Seconds after which a project with sessions is told its maintenance has not run."""


def _dead_command_count(live: list[Any]) -> int:
    """Command patterns of live memories that can never fire (see ``_health.dead_commands``)."""
    from cuecard.core.lifecycle._health import dead_commands

    return sum(len(dead_commands(m)) for m in live)


def unsafe_store_entries(root: Path) -> list[str]:
    """One line per entry under ``.cuecard/`` that cuecard will not read or write through:
    a symbolic link, a FIFO, a socket or a device, or a folder another user owns (the path and
    why; at most 20). Walks by descriptor, following nothing."""
    from cuecard.core.base._confined import Tree, unsafe_entries

    return [f"{path} {why}" for path, why in unsafe_entries(Tree(root), ".cuecard")]


def _unmatched_events(deliveries: list[dict[str, Any]], out: Findings) -> None:
    """A note when recorded events skipped glob tests past the per-event budget (or paths past
    PATH_MAX): memories whose globs were not tested may have been missed there."""
    skipped = [d for d in deliveries if d.get("event") == "unmatched"]
    if not skipped:
        return
    latest = skipped[-1]
    when = latest.get("t")
    at = iso(float(when)) if isinstance(when, int | float) else "an unknown time"
    out.note(
        "matching",
        f"{len(skipped)} recorded event(s) left glob tests unmade; the latest, at {at} "
        f"({str(latest.get('kind'))[:20]}): {str(latest.get('reason'))[:300]}",
        "memories whose globs were not tested may have been missed there; globs with a folder "
        "before their first wildcard (`src/**/*test*` rather than `*test*`) are tested against "
        "far fewer paths",
    )


def store_checks(
    root: Path, out: Findings, counts: dict[str, int], clock: Callable[[], float]
) -> float | None:
    """Add the store's findings to ``out`` and its queue sizes to ``counts``; when
    maintenance last ran (a Unix time), or None."""
    from cuecard.core.base._errors import ConfigError
    from cuecard.core.engine._index import Index
    from cuecard.core.engine._schedule import last_run
    from cuecard.core.lifecycle._health import stale_refs
    from cuecard.core.lifecycle._repofiles import GlobSet, repository_files
    from cuecard.core.lifecycle._telemetry import read_history
    from cuecard.core.store._memory import LIVE, Status
    from cuecard.core.store._store import Store

    store = Store(root)
    for line in unsafe_store_entries(root):
        out.problem(
            "store",
            f"{line}: cuecard reads and writes nothing through it",
            "remove it (a link or special file in .cuecard/ is never cuecard's own), or give "
            "the folder back to your user",
        )
    try:
        store.config()
    except ConfigError as exc:
        out.problem("config", str(exc), "fix .cuecard/config.json: the message names the key")
    if store.journal.exists():
        out.note(
            "store",
            "an interrupted transaction is pending",
            "the next cuecard command rolls it forward",
        )
    memories, unreadable = store.load()
    for line in unreadable:
        out.problem("memories", line, "fix the file by hand, or archive it in the review UI")
    live = [m for m in memories if m.live]
    index = Index.read(str(root))
    if index is None and live:
        # A fresh clone has none (local/ is not committed); the first hook event builds it.
        out.note(
            "index",
            f"no compiled index yet for {len(live)} live memories",
            "the first hook event compiles it; `cuecard compile` does it now and reports",
        )
    elif index is not None and not index.fresh(str(root)):
        out.note(
            "index",
            "the compiled index is older than the memories or the config",
            "hooks rebuild it at the next event; `cuecard compile` does it now",
        )
    elif index is not None:
        compiled = index.meta.get("compiled_at")
        out.note("index", f"compiled index is fresh (compiled {iso(compiled)})")
        for item in index.meta.get("left_out") or []:
            out.note(
                "index",
                f"check of memory {str(item.get('id', ''))[:8]} left out: {item.get('reason')}",
                "fix the check's pattern or its examples",
            )
    history = read_history(store.local_dir)
    counts["sessions"] = len(history.sessions)
    _unmatched_events(history.deliveries, out)
    files = repository_files(root) if live else []
    by_status = Counter(m.status for m in memories)
    counts["candidates"] = by_status[Status.CANDIDATE]
    counts["conflicts"] = by_status[Status.CONTESTED]
    counts["dead_triggers"] = sum(
        1 for m in live for c in m.triggers if c.paths and not GlobSet(c.paths).any_in(files)
    )
    counts["dead_commands"] = _dead_command_count(live)
    counts["stale_evidence"] = sum(len(stale_refs(root, m)) for m in live)
    waiting = {*LIVE, Status.CANDIDATE}
    counts["migrated"] = sum(
        1 for m in memories if m.review.migrated and not m.not_derivable and m.status in waiting
    )
    counts["requests"] = sum(
        1 for name in _json_files(store, "requests") if not _resolved(store, f"requests/{name}")
    )
    counts["inbox"] = len(_json_files(store, "inbox"))
    hints = {
        "candidates": ("candidates wait for review", f"`cuecard review`, or {_UI}"),
        "conflicts": ("memories are contested", f"`cuecard review` (settle each one), or {_UI}"),
        "dead_triggers": ("trigger clauses match no file", "`cuecard health` names them"),
        "dead_commands": (
            "command triggers can never fire",
            "`cuecard health` names them and says why; `cuecard add --help` has the syntax",
        ),
        "stale_evidence": ("evidence files changed", "`cuecard health` names them"),
        "migrated": ("migrated memories wait for not_derivable", _UI),
        "requests": ("agent requests wait for a person", f"`cuecard review`, or {_UI}"),
        "inbox": ("proposals wait in .cuecard/inbox/", "`cuecard ingest` or a hook ingests them"),
    }
    for key, (what, hint) in hints.items():
        if counts[key]:
            out.note(key, f"{counts[key]} {what}", hint)
    if not counts["sessions"]:
        out.note("sessions", "no session recorded yet", "start a session in a harness with hooks")
    ran = last_run(str(root))
    if ran is None:
        out.note(
            "maintenance",
            "maintenance never ran",
            "it runs at session start once a day; `cuecard maintain` runs it now",
        )
    elif clock() - ran > STALE_MAINTENANCE and counts["sessions"]:
        out.note(
            "maintenance",
            f"maintenance last ran {iso(ran)}, more than a week ago",
            "`cuecard maintain`",
        )
    return ran


def _json_files(store: Store, folder: str) -> list[str]:
    """The ``*.json`` names in ``.cuecard/<folder>/``, listed through the confined layer (none
    when the folder is a link or not a folder: the store findings name it)."""
    try:
        entries = store.tree.entries(f".cuecard/{folder}")
    except OSError:
        return []
    return [name for name, kind in entries if name.endswith(".json") and kind == "file"]


def _resolved(store: Store, rel: str) -> bool:
    """Whether a request file records a person's decision (the review UI keeps those)."""
    try:
        request = json.loads(store.tree.read_bytes(f".cuecard/{rel}", 1024 * 1024))
    except (OSError, ValueError):
        return False
    return isinstance(request, dict) and bool(request.get("resolved"))
