"""The I/O edge of the review UI: what it reads from the project store, the ledger, the requests,
the vault and the health report, and the journal of the changes a person made here.

Everything else in the UI works on the values this module returns.
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from cuecard.core import CuecardError, Memory, ProjectConfig, Store
from cuecard.core.fs import atomic_write, locked
from cuecard.core.review import JOURNAL_FILE, Decisions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.vault import Backend

__all__ = ["Project", "Snapshot", "refusal"]

HISTORY_FILE = "ui-history.jsonl"


def refusal(unsafe: list[str]) -> str:
    """Why no change is made while ``unsafe`` (``Project.unsafe``'s lines) is not empty."""
    return (
        f"{'; '.join(unsafe)}: cuecard reads and writes nothing through a link, a special "
        "file or another user's folder in .cuecard/, so this UI changes nothing until it is "
        "removed or fixed (`cuecard doctor` names it too)"
    )


@dataclass
class Snapshot:
    """Everything the pages show, read once per request."""

    memories: list[Memory]
    problems: list[str]
    config: ProjectConfig
    requests: list[dict[str, Any]]
    """Open person-facing requests (``.cuecard/requests/*.json`` not yet resolved)."""
    ledger: list[dict[str, Any]]
    """Every delivery recorded, rolled up by maintenance or not, oldest first."""
    health: dict[str, Any] | None
    """``cuecard health --json``'s object."""
    stale: dict[str, list[str]] = field(default_factory=dict)
    """Memory id -> evidence files whose content changed since they were recorded."""
    vault: VaultView | None = None
    unsafe: list[str] = field(default_factory=list)
    """One line per entry under ``.cuecard/`` that is not what cuecard expects (the path and
    why). While there is one, the snapshot holds only what the confined layer read (memories,
    config) and the UI refuses every change."""

    def by_id(self) -> dict[str, Memory]:
        return {m.id: m for m in self.memories}


@dataclass
class VaultView:
    """The vault's queues, as read now."""

    root: str
    pending: list[dict[str, str]]
    inbox: list[str]
    conflicts: list[dict[str, str]]
    forget: list[dict[str, str]]
    error: str = ""


class Project:
    """One project (and optionally its vault) as the UI reads and changes it."""

    def __init__(
        self,
        store: Store,
        *,
        vault_location: str | None = None,
        reviewer: str = "person",
        today: Callable[[], date] = date.today,
        forget_days: int = 90,
        health_ttl: float = 30.0,
        notify: Callable[[str], None] | None = None,
    ) -> None:
        self.store = store
        self.notify = notify
        """Where the lines the vault has for the user go (waiting for its lock, a mirror not
        updated): ``cuecard ui`` prints them on the server's stderr. Nothing when ``None``."""
        self.health_ttl = health_ttl
        self._health_cache: tuple[tuple[int, ...], float, dict[str, Any]] | None = None
        self.vault_location = vault_location
        """A vault folder or a ``postgresql://`` URL; ``None`` when no vault is configured."""
        self.reviewer = reviewer
        self.today = today
        self.forget_days = forget_days
        self.decisions = Decisions(
            store,
            reviewer=reviewer,
            vault_location=vault_location,
            notify=notify,
            today=today,
            forget_days=forget_days,
        )
        """Every change a person makes here goes through core's decisions, as the terminal's do."""

    # -- reading --------------------------------------------------------------------------------

    def unsafe(self) -> list[str]:
        """One line per entry under ``.cuecard/`` that cuecard reads and writes nothing through:
        a link, a FIFO, a socket or a device, a folder another user owns, or one of the store's
        own entries not of its kind (the path and why). Walks by descriptor, following nothing."""
        from cuecard.core.engine import store_problem
        from cuecard.core.fs import Tree, unsafe_entries

        root = str(self.store.root)
        found = unsafe_entries(Tree(root), ".cuecard")
        lines = [f"{path} {why}" for path, why in found]
        problem = store_problem(root)
        if problem is not None and not any(problem.startswith(f"{p} ") for p, _ in found):
            lines.append(problem)
        return lines

    def snapshot(self) -> Snapshot:
        unsafe = self.unsafe()
        if unsafe:
            return self._confined_snapshot(unsafe)
        memories, problems = self.store.load()
        snap = Snapshot(
            memories=memories,
            problems=problems,
            config=self.store.config(),
            requests=self.requests(),
            ledger=self.ledger(),
            health=self.health(),
        )
        snap.stale = self.stale_evidence(memories)
        snap.vault = self.vault_view()
        return snap

    def _confined_snapshot(self, unsafe: list[str]) -> Snapshot:
        """What may be read while the store is not as expected: the memories and the config,
        through the confined layer (which refuses every link and special file); nothing from
        ``local/`` or the requests, no health report (it reads the sessions), no vault."""
        memories: list[Memory] = []
        problems: list[str] = []
        with contextlib.suppress(OSError, CuecardError):
            memories, problems = self.store.load()
        try:
            config = self.store.config()
        except (OSError, CuecardError):
            name = re.sub(r"[^A-Za-z0-9_.-]+", "-", self.store.root.name)[:60].strip("-")
            config = ProjectConfig(project_id=name or "project")
        return Snapshot(memories, problems, config, [], [], None, unsafe=unsafe)

    def requests(self, *, resolved: bool = False) -> list[dict[str, Any]]:
        return self.decisions.requests(resolved=resolved)

    def request(self, ident: str) -> dict[str, Any] | None:
        return next((r for r in self.requests(resolved=True) if r.get("id") == ident), None)

    def ledger(self) -> list[dict[str, Any]]:
        """Every delivery recorded, oldest first: what ``cuecard maintain`` rolled up into
        ``telemetry.sqlite`` and the ledger lines since (the history ``cuecard health`` reads)."""
        from cuecard.core.review import delivery_history

        return delivery_history(self.store.local_dir)

    def _health_key(self) -> tuple[int, ...]:
        """What the health report is read from: when none of it changed, the report holds."""
        store = self.store
        paths = (
            store.dir / "config.json",
            store.memories_dir,
            store.local_dir / "ledger.jsonl",
            store.local_dir / "sessions",
            store.local_dir / "telemetry.sqlite",
            store.local_dir / "telemetry" / "inbox.jsonl",
            store.root / ".git" / "index",
        )
        key: list[int] = []
        for path in paths:
            try:
                st = path.stat()
                key += [st.st_mtime_ns, st.st_size]
            except OSError:
                key += [0, 0]
        return tuple(key)

    def health(self) -> dict[str, Any] | None:
        """``cuecard health``'s report, reused while its inputs are unchanged and it is young.

        The report re-reads every memory, the history and the repository's files, which takes
        seconds on a large project; it is made again when a memory, the config, the ledger,
        the sessions, the telemetry or the git index changed, or after ``health_ttl`` seconds
        (evidence files edited in the working tree show up then).
        """
        from cuecard.core.review import health_report

        key = self._health_key()
        now = time.monotonic()
        cached = self._health_cache
        if cached is not None and cached[0] == key and now - cached[1] < self.health_ttl:
            return cached[2]
        report = health_report(self.store)
        self._health_cache = (key, now, report)
        return report

    def stale_evidence(self, memories: list[Memory]) -> dict[str, list[str]]:
        """Memories (of any status) whose hashed evidence files changed or went away."""
        from cuecard.core.review import stale_refs

        stale: dict[str, list[str]] = {}
        for memory in memories:
            refs = stale_refs(self.store.root, memory)
            if refs:
                stale[memory.id] = refs
        return stale

    def open_vault(self, *, heard: list[str] | None = None) -> Backend:
        """The configured vault (folder or PostgreSQL); ``NotFound`` when there is none."""
        return self.decisions.open_vault(heard=heard)

    def vault_view(self) -> VaultView | None:
        if self.vault_location is None:
            return None
        try:
            with self.open_vault() as vault:
                entries = vault.pending()
                forget = vault.forget(today=self.today(), days=self.forget_days, apply=False)
                return VaultView(
                    root=vault.location,
                    pending=[
                        {
                            "id": str(ident),
                            "fact": p.fact,
                            "note": p.note,
                            "source": p.source,
                            "replaces": p.replaces,
                        }
                        for ident, p in entries
                    ],
                    inbox=vault.inbox(),
                    conflicts=[c.as_json() for c in vault.conflicts()],
                    forget=[
                        {
                            "id": c.id,
                            "note": c.note,
                            "line": c.line,
                            "stamped": c.stamped.isoformat(),
                            "last_used": c.last_used.isoformat() if c.last_used else "",
                        }
                        for c in forget
                    ],
                )
        except Exception as exc:  # a broken vault must not take the project's pages down
            return VaultView(self.vault_location, [], [], [], [], error=str(exc))

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        """This UI's journal of changes to one memory, then the git commits of its file."""
        out = []
        path = self.store.local_dir / JOURNAL_FILE
        with contextlib.suppress(OSError):
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                with contextlib.suppress(ValueError):
                    entry = json.loads(line)
                    if isinstance(entry, dict) and entry.get("id") == memory_id:
                        out.append(entry)
        return out

    def commits(self, memory_id: str) -> list[dict[str, str]]:
        rel = f".cuecard/memories/{memory_id}.json"
        try:
            result = subprocess.run(
                ["git", "log", "-n", "20", "--format=%h%x09%aI%x09%an%x09%s", "--", rel],
                cwd=self.store.root,
                capture_output=True,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return []
        if result.returncode != 0:
            return []
        commits = []
        for line in result.stdout.decode("utf-8", "replace").splitlines():
            parts = line.split("\t", 3)
            if len(parts) == 4:
                commits.append(
                    dict(zip(("commit", "date", "author", "subject"), parts, strict=True))
                )
        return commits

    # -- writing --------------------------------------------------------------------------------

    def record(self, memory_id: str, action: str, **details: Any) -> None:
        """Append one line to the journal of a person's changes (who, when, what; never the
        text)."""
        self.decisions.record(memory_id, action, **details)

    def write_config(self, config: ProjectConfig) -> None:
        """Replace ``config.json`` under the store lock (the file other writers also take)."""
        text = json.dumps(config.model_dump(mode="json"), indent=2) + "\n"
        with locked(self.store.dir / ".lock"):
            atomic_write(self.store.dir / "config.json", text)

    def recompile(self) -> dict[str, Any]:
        """Rebuild the trigger index after a change; what the compile reported."""
        return self.decisions.recompile()
