"""The harnesses ``cuecard-hook`` serves: a fixed table, never an entry-point scan. Stdlib only."""

from __future__ import annotations

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
    # Claude Code keeps about 10,000 characters of hook output inline.
    "claude": Harness("claude", "Claude Code", 10_000),
    # Codex spills additionalContext past 2,500 tokens (about 10,000 characters) to a file.
    "codex": Harness("codex", "Codex", 10_000),
    # OpenCode: the plugin appends the text to the tool result; same budget.
    "opencode": Harness("opencode", "OpenCode", 10_000),
    # Grok Build reads Claude Code's hook format.
    "grok": Harness("grok", "Grok Build", 10_000),
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
