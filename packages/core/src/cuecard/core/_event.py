"""Events: what an agent is about to do, in the terms trigger clauses speak. Stdlib only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["EVENT_KINDS", "Event"]

EVENT_KINDS = ("prompt", "read", "edit", "write", "run", "search")


@dataclass(frozen=True, slots=True)
class Event:
    """One action of the agent: its kind, the repository-relative paths it touches, and more."""

    kind: str
    """``prompt``, ``read``, ``edit``, ``write``, ``run`` or ``search``."""
    paths: tuple[str, ...] = ()
    """Repository-relative, ``/``-separated; paths outside the repository are left out."""
    symbols: tuple[str, ...] = ()
    """Identifiers the action names."""
    command: str = ""
    """The shell command, for ``run`` (and for reads and searches made through a shell)."""
    parts: tuple[tuple[str, ...], ...] = ()
    """The words of every simple command in ``command`` (from the shell classifier)."""
    prompt: str = ""
    """The user's prompt, for ``prompt`` events."""
    session: str = ""
    """The harness session id; empty means no ledger (nothing is claimed)."""
    agent: str = ""
    """A subagent's id; empty for the main agent. Each agent has its own ledger."""
    after: Mapping[str, str] = field(default_factory=dict)
    """For edits and writes: each path's content as it will be after the action."""
    before: Mapping[str, str | None] = field(default_factory=dict)
    """For edits and writes: each path's content before the action (``None``: a new file)."""

    def describe(self) -> str:
        """A short label: the kind and what it acts on."""
        target = ", ".join(self.paths[:3]) or self.command[:80] or " ".join(self.prompt.split()[:8])
        more = f" (+{len(self.paths) - 3})" if len(self.paths) > 3 else ""
        return f"{self.kind} {target}{more}".strip()


def command_event(
    command: str,
    root: str,
    *,
    cwd: str | None = None,
    kind: str | None = None,
    session: str = "",
    agent: str = "",
) -> Event:
    """The event of a shell command: classified (read, search or run) unless ``kind`` is given.

    Paths it names are made repository-relative (from ``cwd``); those outside are left out.
    """
    from cuecard.core._paths import repo_relative
    from cuecard.core._shell import classify

    found = classify(command)
    paths = []
    for path in found.paths:
        rel = repo_relative(path, root, cwd)
        if rel is not None and rel not in paths:
            paths.append(rel)
    return Event(
        kind=kind or found.kind,
        paths=tuple(paths),
        command=command,
        parts=found.parts,
        session=session,
        agent=agent,
    )
