"""The harnesses ``cuecard-hook`` serves: a fixed table, never an entry-point scan. Stdlib only."""

from __future__ import annotations

from cuecard.core._limits import INLINE_LIMITS

__all__ = ["EVENTS", "HARNESSES", "Harness", "event_name"]


class Harness:
    """How one harness calls the hook and reads its answer (a plain class: ``dataclasses`` costs
    the hook process more to import than all of its own work)."""

    __slots__ = ("inline_limit", "name", "title")

    def __init__(self, name: str, title: str, inline_limit: int) -> None:
        self.name = name
        self.title = title
        self.inline_limit = inline_limit
        """Most characters of the whole hook output the harness keeps inline (JSON included)."""

    def __repr__(self) -> str:
        return f"Harness({self.name!r}, {self.title!r}, {self.inline_limit})"


HARNESSES: dict[str, Harness] = {
    # The inline limits live in core (``_limits``), where ``cuecard doctor`` reads them too.
    "claude": Harness("claude", "Claude Code", INLINE_LIMITS["claude"]),
    "codex": Harness("codex", "Codex", INLINE_LIMITS["codex"]),
    "opencode": Harness("opencode", "OpenCode", INLINE_LIMITS["opencode"]),
    "grok": Harness("grok", "Grok Build", INLINE_LIMITS["grok"]),
}

# Accepted spellings of the events -> the canonical (Claude Code) name.
EVENTS: dict[str, str] = {
    "sessionstart": "SessionStart",
    "session-start": "SessionStart",
    "userpromptsubmit": "UserPromptSubmit",
    "prompt": "UserPromptSubmit",
    "pretooluse": "PreToolUse",
    "pre-tool": "PreToolUse",
    "posttooluse": "PostToolUse",
    "post-tool": "PostToolUse",
    "posttoolusefailure": "PostToolUseFailure",
    "stop": "Stop",
    "postcompact": "PostCompact",
}


def event_name(value: str) -> str | None:
    """The canonical event name for ``value`` (case-insensitive), or ``None``."""
    return EVENTS.get(value.strip().lower())
