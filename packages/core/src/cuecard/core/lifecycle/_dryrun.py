"""Dry runs: which recorded events a memory's triggers would have fired on.

The hooks record every session's footprint (``_footprint``); a dry run replays those records as
events through the same matching the hot path uses (the compiler's clause entries and
``_index.clause_fires``), so the review UI can show a memory's breadth (how many recorded events
its triggers match) and the events an edited trigger would fire on before it is saved.

``dry_run`` is pure: it takes a memory and the sessions' records. ``recorded_sessions`` is the
I/O edge that reads them from ``.cuecard/local/sessions/``. Prompts keep no text in a footprint
(only a correction's short preview), so a keyword clause can fire only on such a preview.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from cuecard.core.engine._event import EVENT_KINDS, Event
from cuecard.core.engine._footprint import MAX_BYTES
from cuecard.core.engine._index import clause_fires
from cuecard.core.store._compiled_memory import clause_entry
from cuecard.core.store._memory import Memory

__all__ = ["DryRun", "Hit", "dry_run", "record_event", "recorded_sessions"]

Session = tuple[str, list[dict[str, Any]]]


@dataclass(frozen=True, slots=True)
class Hit:
    """One recorded event a clause would have fired on."""

    session: str
    """The session's folder name under ``.cuecard/local/sessions/``."""
    t: float | None
    """When the event was recorded (seconds since the epoch), if the record says."""
    event: str
    """A short label of the event: its kind and what it acted on."""
    kind: str
    clause: int
    """Index of the first clause that fires (the hot path delivers once per memory)."""
    dimension: str
    """The dimensions that fired it (``paths``, ``commands+paths``…)."""

    def as_json(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "t": self.t,
            "event": self.event,
            "kind": self.kind,
            "clause": self.clause,
            "dimension": self.dimension,
        }


@dataclass
class DryRun:
    """The outcome of replaying every recorded event against one memory's triggers."""

    sessions: int = 0
    """Sessions replayed."""
    events: int = 0
    """Recorded events replayed (prompts and tool calls)."""
    hits: list[Hit] = field(default_factory=list)
    """The events the triggers fire on, most recent last; at most ``limit`` are kept."""
    matched: int = 0
    """How many events the triggers fire on (the memory's breadth), even past ``limit``."""
    by_clause: dict[int, int] = field(default_factory=dict)
    """Matched events per clause index."""
    by_dimension: dict[str, int] = field(default_factory=dict)
    """Matched events per firing dimension."""
    sessions_hit: int = 0
    """Sessions with at least one matched event."""

    def as_json(self) -> dict[str, Any]:
        return {
            "sessions": self.sessions,
            "events": self.events,
            "matched": self.matched,
            "sessions_hit": self.sessions_hit,
            "by_clause": {str(k): v for k, v in sorted(self.by_clause.items())},
            "by_dimension": dict(sorted(self.by_dimension.items())),
            "hits": [h.as_json() for h in self.hits],
        }


def _strings(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(v for v in value if isinstance(v, str) and v)


def record_event(record: dict[str, Any]) -> Event | None:
    """The event a footprint record describes, or ``None`` for markers and foreign lines."""
    kind = record.get("e")
    if kind == "prompt":
        preview = record.get("preview")
        return Event("prompt", prompt=preview if isinstance(preview, str) else "")
    if kind != "tool":
        return None
    event_kind = record.get("kind")
    if event_kind not in EVENT_KINDS or event_kind == "prompt":
        return None
    command = record.get("command")
    command = command if isinstance(command, str) else ""
    parts: tuple[tuple[str, ...], ...] = ()
    if command:
        from cuecard.core.engine.shell._classifier import classify

        parts = classify(command).parts
    agent = record.get("agent")
    return Event(
        kind=str(event_kind),
        paths=_strings(record.get("paths")),
        symbols=_strings(record.get("symbols")),
        command=command,
        parts=parts,
        agent=agent if isinstance(agent, str) else "",
    )


def dry_run(memory: Memory, sessions: Iterable[Session], *, limit: int = 200) -> DryRun:
    """Replay ``sessions`` (name, footprint records) against ``memory``'s triggers.

    The memory need not be live or saved: an edited copy shows what its new triggers would do.
    Each event counts once, for the first clause that fires, as the hot path delivers it.
    """
    entries = [clause_entry(memory, i, clause)[0] for i, clause in enumerate(memory.triggers)]
    result = DryRun()
    for name, records in sessions:
        result.sessions += 1
        hit_here = False
        for record in records:
            event = record_event(record)
            if event is None:
                continue
            result.events += 1
            for entry in entries:
                dimension = clause_fires(entry, event)
                if dimension is None:
                    continue
                result.matched += 1
                hit_here = True
                clause = int(entry["c"])
                result.by_clause[clause] = result.by_clause.get(clause, 0) + 1
                result.by_dimension[dimension] = result.by_dimension.get(dimension, 0) + 1
                t = record.get("t")
                result.hits.append(
                    Hit(
                        name,
                        float(t) if isinstance(t, int | float) else None,
                        event.describe(),
                        event.kind,
                        clause,
                        dimension,
                    )
                )
                if len(result.hits) > limit:
                    del result.hits[0]
                break
        result.sessions_hit += hit_here
    return result


def recorded_sessions(local_dir: str) -> Iterator[Session]:
    """Every recorded session's footprint records, oldest session first (by file time)."""
    base = os.path.join(local_dir, "sessions")
    try:
        entries = [e for e in os.scandir(base) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return
    found = []
    for entry in entries:
        path = os.path.join(entry.path, "footprint.jsonl")
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if os.path.islink(path):
            continue
        found.append((st.st_mtime_ns, entry.name, path))
    for _stamp, name, path in sorted(found):
        yield name, _read_records(path)


def _read_records(path: str) -> list[dict[str, Any]]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read(MAX_BYTES + 64 * 1024).splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("e"), str):
            out.append(record)
    return out
