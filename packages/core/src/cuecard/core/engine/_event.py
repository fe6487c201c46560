"""Events: what an agent is about to do, in the terms trigger clauses speak. Stdlib only."""

from __future__ import annotations

TYPE_CHECKING = False  # typing and dataclasses cost a hook process more than its work
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = ["EVENT_KINDS", "Event", "command_event"]

EVENT_KINDS = ("prompt", "read", "edit", "write", "run", "search")
_FIELDS = ("kind", "paths", "symbols", "command", "parts", "prompt", "session", "agent")


class Event:
    """One action of the agent: its kind, the repository-relative paths it touches, and more.

    - ``kind``: ``prompt``, ``read``, ``edit``, ``write``, ``run`` or ``search``;
    - ``paths``: repository-relative, ``/``-separated (paths outside the repository left out);
    - ``symbols``: identifiers the action names;
    - ``command``: the shell command (for runs, and reads and searches made through a shell);
    - ``parts``: the words of every simple command in ``command`` (from the shell classifier);
    - ``prompt``: the user's prompt, for ``prompt`` events;
    - ``session``: the harness session id; empty means no ledger (nothing is claimed);
    - ``agent``: a subagent's id, empty for the main agent (each agent has its own ledger);
    - ``after`` / ``before``: for edits and writes, each path's content after and before the
      action (``None`` before: a new file).

    A plain class with slots, not a dataclass: the hook imports it before every tool call.
    """

    __slots__ = (*_FIELDS, "after", "before")

    def __init__(
        self,
        kind: str,
        paths: tuple[str, ...] = (),
        symbols: tuple[str, ...] = (),
        command: str = "",
        parts: tuple[tuple[str, ...], ...] = (),
        prompt: str = "",
        session: str = "",
        agent: str = "",
        after: Mapping[str, str] | None = None,
        before: Mapping[str, str | None] | None = None,
    ) -> None:
        self.kind = kind
        self.paths = tuple(paths)
        self.symbols = tuple(symbols)
        self.command = command
        self.parts = tuple(parts)
        self.prompt = prompt
        self.session = session
        self.agent = agent
        self.after: Mapping[str, str] = after or {}
        self.before: Mapping[str, str | None] = before or {}

    def replace(self, **changes: Any) -> Event:
        """A copy with ``changes`` applied."""
        values = {name: getattr(self, name) for name in self.__slots__}
        values.update(changes)
        return Event(**values)

    def as_dict(self) -> dict[str, Any]:
        """The event's plain fields (without file contents), for JSON output."""
        return {
            "kind": self.kind,
            "paths": list(self.paths),
            "symbols": list(self.symbols),
            "command": self.command,
            "prompt": self.prompt,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in _FIELDS if getattr(self, n))
        return f"Event({shown})"

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
    from cuecard.core.engine._paths import repo_relative
    from cuecard.core.engine.shell._classifier import classify

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
