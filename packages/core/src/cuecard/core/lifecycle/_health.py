"""``health_report(store)``: how the project's memories fare, from the store and session history.

The object is what ``cuecard health --json`` prints and what the review UI shows; ``KEYS``
documents every top-level key and ``MEMORY_KEYS`` every per-memory key. Opportunities and fires
come from the session history (``_telemetry.read_history``: rolled-up and live session files),
dead triggers and hubs from the repository's files, stale evidence from the files' hashes now.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from cuecard.core.engine._evidence import file_digest
from cuecard.core.engine._index import command_matches, command_words
from cuecard.core.engine._ledger import safe_name
from cuecard.core.lifecycle._repofiles import GlobSet, repository_files
from cuecard.core.lifecycle._telemetry import History, read_history

if TYPE_CHECKING:  # the CLI reads KEYS to build its help: pydantic stays unloaded until a report
    from pathlib import Path

    from cuecard.core.store._memory import Memory
    from cuecard.core.store._store import Store

__all__ = [
    "CENTRAL_MIN_SESSIONS",
    "CENTRAL_SHARE",
    "HUB_AT",
    "KEYS",
    "MEMORY_KEYS",
    "dead_commands",
    "health_report",
]

HUB_AT = 5
CENTRAL_SHARE = 0.5
CENTRAL_MIN_SESSIONS = 4
LAST_DELIVERIES = 20
_STORED = {"candidate", "replaced", "active"}

MEMORY_KEYS: dict[str, str] = {
    "id": "the memory id",
    "title": "its title",
    "topic": "its topic",
    "status": "candidate, active, contested, superseded or archived",
    "fires": "deliveries by the dimension that fired it (paths, commands, paths+symbols...)",
    "opportunities": (
        "sessions since it was created whose tool calls touched its paths, ran its commands "
        "or named its symbols, and sessions in which it was delivered"
    ),
    "dead_triggers": "indexes of its trigger clauses whose paths match no repository file",
    "stale_evidence": "refs of its file evidence whose content changed since it was recorded",
    "suspected_false_alarms": (
        "reports of its check on a file the agent then left unchanged in that session"
    ),
    "last_delivered": "when it was last delivered (ISO 8601, UTC), or null",
}

KEYS: dict[str, str] = {
    "generated_at": "when the report was made (ISO 8601, UTC)",
    "sessions": "sessions recorded (rolled up or not)",
    "memories": "one entry per memory, keys: " + ", ".join(MEMORY_KEYS),
    "dead_triggers": "[{id, clause}] live memories' clauses whose paths match no repository file",
    "dead_commands": (
        "[{id, clause, command, reason}] live memories' command patterns no command can match"
    ),
    "stale_evidence": "[{id, ref}] live memories' file evidence that changed since recorded",
    "no_opportunity": (
        "ids of live memories with path, command or symbol triggers that no session gave a "
        "chance to fire (never one that was delivered)"
    ),
    "unused": "ids of live memories that had opportunities but never fired",
    "hubs": (
        f"[{{path, memories}}] repository files on which at least {HUB_AT} live memories "
        "trigger, most first"
    ),
    "central_only": (
        "ids of live memories whose paths cover only central files: files touched in at least "
        f"{int(CENTRAL_SHARE * 100)}% of sessions (once {CENTRAL_MIN_SESSIONS} are recorded)"
    ),
    "false_alarms": "[{id, count}] memories whose check reports look like false alarms",
    "funnel": (
        "the capture funnel: asks (Stop asked for a memory), corrections (user corrections "
        "recorded), stored (proposals stored), activated (stored proposals that went live), "
        "rejected (proposals refused, or stored and then archived unused), "
        "rejections_by_reason ({reason code: count})"
    ),
    "last_deliveries": (
        f"the last {LAST_DELIVERIES} deliveries, newest first: {{at, session, event, delivered, "
        "deferred, size, ids}}"
    ),
    "problems": "memory files that could not be read, one line each",
}


def _iso(t: float | None) -> str | None:
    return None if t is None else datetime.fromtimestamp(t, UTC).isoformat()


def stale_refs(root: Path, memory: Memory) -> list[str]:
    """Refs of ``memory``'s hashed file evidence whose file changed or went away."""
    return [
        e.ref
        for e in memory.evidence
        if e.kind == "file" and e.sha256 and file_digest(str(root), e.ref) != e.sha256
    ]


def dead_commands(memory: Memory) -> list[dict[str, Any]]:
    """The memory's command patterns that can never fire, each with the reason."""
    from cuecard.core.engine._index import command_problem

    out = []
    for i, clause in enumerate(memory.triggers):
        for command in clause.commands:
            reason = command_problem(command)
            if reason is not None:
                out.append({"id": memory.id, "clause": i, "command": command, "reason": reason})
    return out


def _words_prefix(pattern: list[str], command: str) -> bool:
    return command_matches(pattern, command.split())


class _Profile:
    """One memory's triggers, compiled for matching against files and sessions."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.clauses = [GlobSet(c.paths) for c in memory.triggers]
        self.globs = GlobSet(g for c in memory.triggers for g in c.paths)
        self.commands = [
            w for t in memory.triggers for w in (command_words(c) for c in t.commands) if w
        ]
        self.symbols = {s for t in memory.triggers for s in t.symbols}
        self.observable = bool(self.globs or self.commands or self.symbols)

    def chance(self, summary: dict[str, Any], touched: set[str]) -> bool:
        """Whether the session gave the memory a chance; ``touched`` holds the session's paths
        this memory's globs cover."""
        if touched:
            return True
        if self.commands and any(
            _words_prefix(p, c) for p in self.commands for c in summary.get("commands", [])
        ):
            return True
        return bool(self.symbols & set(summary.get("symbols", [])))


def _false_alarms(history: History) -> Counter[str]:
    """Check reports on a file the agent did not change afterwards, per memory."""
    out: Counter[str] = Counter()
    for line in history.deliveries:
        session = history.sessions.get(safe_name(str(line.get("session", ""))))
        t = line.get("t")
        if session is None or not isinstance(t, int | float):
            continue
        for item in line.get("ids") or []:
            key = item[0] if isinstance(item, list) and item else ""
            if not isinstance(key, str) or not key.startswith("check:"):
                continue
            _, memory_id, where = [*key.split(":", 2), "", ""][:3]
            if not where or where == "the command":
                continue
            later = [w for w in session.get("writes", {}).get(where, []) if w > t]
            # An edit check fires before its own edit, which the footprint records after it.
            needed = 1 if line.get("event") == "stop" else 2
            if len(later) < needed:
                out[memory_id] += 1
    return out


def _funnel(history: History, by_id: dict[str, Memory]) -> dict[str, Any]:
    from cuecard.core.store._memory import LIVE, Status

    stored: set[str] = set()
    reasons: Counter[str] = Counter()
    for line in history.ingestions:
        outcome = line.get("outcome")
        if outcome in _STORED and isinstance(line.get("memory"), str):
            stored.add(line["memory"])
        elif outcome == "refused":
            for code in line.get("reasons") or ["unknown"]:
                reasons[str(code)] += 1
    activated = 0
    for ident in stored:
        memory = by_id.get(ident)
        if memory is None:
            continue
        reason = memory.archived_reason or ""
        went_live = memory.status in LIVE or memory.status == Status.SUPERSEDED
        if went_live or reason.startswith("retired by maintenance"):
            activated += 1
        elif memory.status == Status.ARCHIVED and reason.startswith("replaced by candidate"):
            reasons["replaced_by_newer_proposal"] += 1
        elif memory.status == Status.ARCHIVED:
            reasons["archived_by_person"] += 1
    refused = sum(1 for line in history.ingestions if line.get("outcome") == "refused")
    rejected = refused + reasons["replaced_by_newer_proposal"] + reasons["archived_by_person"]
    return {
        "asks": sum(int(s.get("asks", 0)) for s in history.sessions.values()),
        "corrections": sum(int(s.get("corrections", 0)) for s in history.sessions.values()),
        "stored": len(stored),
        "activated": activated,
        "rejected": rejected,
        "rejections_by_reason": dict(sorted(reasons.items())),
    }


def _central_files(history: History) -> set[str]:
    sessions = list(history.sessions.values())
    if len(sessions) < CENTRAL_MIN_SESSIONS:
        return set()
    counts: Counter[str] = Counter()
    for summary in sessions:
        counts.update(summary.get("touched", {}).keys())
    return {p for p, n in counts.items() if n >= CENTRAL_SHARE * len(sessions)}


def health_report(
    store: Store, *, files: list[str] | None = None, history: History | None = None
) -> dict[str, Any]:
    """The health report of ``store``'s project (see ``KEYS`` and ``MEMORY_KEYS``)."""
    memories, problems = store.load()
    history = read_history(store.local_dir) if history is None else history
    files = repository_files(store.root) if files is None else files
    by_id = {m.id: m for m in memories}
    fires: dict[str, Counter[str]] = {}
    last: dict[str, float] = {}
    delivered_in: dict[str, set[str]] = {}
    for line in history.deliveries:
        t = line.get("t")
        session = line.get("session")
        for item in line.get("ids") or []:
            if isinstance(item, list) and len(item) >= 2 and isinstance(item[0], str):
                fires.setdefault(item[0], Counter())[str(item[1])] += 1
                if isinstance(session, str) and session:
                    delivered_in.setdefault(item[0], set()).add(safe_name(session))
                if isinstance(t, int | float):
                    last[item[0]] = max(last.get(item[0], 0.0), float(t))
    alarms = _false_alarms(history)
    central = _central_files(history)
    files = sorted(files)
    touched_any: set[str] = set()
    for summary in history.sessions.values():
        touched_any.update(summary.get("touched", {}))
    sessions = [(n, s, set(s.get("touched", {}))) for n, s in history.sessions.items()]
    touched_sorted = sorted(touched_any)
    hub_counts: dict[str, list[str]] = {}
    entries = []
    out: dict[str, Any] = {key: [] for key in KEYS}
    for memory in memories:
        profile = _Profile(memory)
        born = memory.created_at.timestamp()
        reach = set(profile.globs.matching_sorted(touched_sorted))
        # a session in which it was delivered gave it a chance, recorded footprint or not
        chances = len(
            {
                name
                for name, s, paths in sessions
                if (s.get("last_t") or 0.0) >= born and profile.chance(s, reach & paths)
            }
            | delivered_in.get(memory.id, set())
        )
        covered = profile.globs.matching_sorted(files)
        dead = [
            i
            for i, (g, c) in enumerate(zip(profile.clauses, memory.triggers, strict=True))
            if c.paths and not g.any_in(files)
        ]
        stale = stale_refs(store.root, memory)
        fired = fires.get(memory.id, Counter())
        entries.append(
            {
                "id": memory.id,
                "title": memory.title,
                "topic": memory.topic,
                "status": memory.status.value,
                "fires": dict(sorted(fired.items())),
                "opportunities": chances,
                "dead_triggers": dead,
                "stale_evidence": stale,
                "suspected_false_alarms": alarms.get(memory.id, 0),
                "last_delivered": _iso(last.get(memory.id)),
            }
        )
        if not memory.live:
            continue
        out["dead_triggers"] += [{"id": memory.id, "clause": i} for i in dead]
        out["dead_commands"] += dead_commands(memory)
        out["stale_evidence"] += [{"id": memory.id, "ref": ref} for ref in stale]
        if profile.observable and chances == 0 and not fired:
            out["no_opportunity"].append(memory.id)
        if chances > 0 and not fired:
            out["unused"].append(memory.id)
        for path in covered:
            hub_counts.setdefault(path, []).append(memory.id)
        reach |= set(covered)
        if central and reach and reach <= central:
            out["central_only"].append(memory.id)
        if alarms.get(memory.id):
            out["false_alarms"].append({"id": memory.id, "count": alarms[memory.id]})
    hubs = [(p, ids) for p, ids in hub_counts.items() if len(ids) >= HUB_AT]
    hubs.sort(key=lambda item: (-len(item[1]), item[0]))
    out["hubs"] = [{"path": p, "memories": sorted(ids)} for p, ids in hubs[:20]]
    out["generated_at"] = _iso(store.now().timestamp())
    out["sessions"] = len(history.sessions)
    out["memories"] = entries
    out["funnel"] = _funnel(history, by_id)
    out["last_deliveries"] = [
        {
            "at": _iso(float(line["t"])) if isinstance(line.get("t"), int | float) else None,
            "session": line.get("session"),
            "event": line.get("event"),
            "delivered": line.get("delivered", 0),
            "deferred": line.get("deferred", 0),
            "size": line.get("size", 0),
            "ids": line.get("ids", []),
        }
        for line in reversed(
            [d for d in history.deliveries if d.get("event") != "epoch"][-LAST_DELIVERIES:]
        )
    ]
    out["problems"] = [*problems, *history.unreadable]
    return {key: out[key] for key in KEYS}
