"""How much a harness's hook can deliver at one event, and so the effective delivery limit.

A hook's whole output must stay within what its harness keeps inline (JSON envelope and advisory
line included); ``delivery_limit`` (the project setting) can only lower that. ``cuecard match``
without ``--harness`` applies ``delivery_limit`` alone, so it can show more than a hook delivers.
Standard library only: the hook computes its limit with :func:`hook_limit` before every event.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

__all__ = [
    "DELIVERING_EVENTS",
    "INLINE_LIMITS",
    "PASSED_ON",
    "effective_limit",
    "hook_limit",
    "limit_report",
]

INLINE_LIMITS: dict[str, int] = {
    # Claude Code keeps about 10,000 characters of hook output inline.
    "claude": 10_000,
    # Codex spills additionalContext past 2,500 tokens (about 10,000 characters) to a file.
    "codex": 10_000,
    # OpenCode: the plugin appends the text to the tool result; same budget.
    "opencode": 10_000,
    # Grok Build reads Claude Code's hook format.
    "grok": 10_000,
}
"""Most characters of a hook's whole output each harness keeps inline (JSON included)."""

DELIVERING_EVENTS = ("UserPromptSubmit", "PreToolUse", "Stop")
"""The hook events that deliver knowledge."""

PASSED_ON: dict[str, tuple[str, ...]] = {
    # Grok Build 0.2.111 drops hook output at SessionStart, UserPromptSubmit, PreToolUse and
    # PostToolUse; only Stop's block reason (or additionalContext) reaches the model.
    "grok": ("Stop",),
}
"""The events whose hook output a harness passes on to the model, where that is not every event
that delivers. At any other event the hook holds the matched memories, unclaimed, for Stop."""


def hook_limit(inline_limit: int, event: str) -> int:
    """The characters of knowledge that keep a hook's whole output for ``event`` within
    ``inline_limit``: less the JSON envelope, the advisory line and room for JSON escapes."""
    from cuecard.core.engine._text import ADVISORY

    envelope = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": ""}}
    room = inline_limit - len(json.dumps(envelope)) - len(ADVISORY) - 1
    return max(1_000, int(room * 0.9))  # room for JSON escapes of newlines and quotes


def effective_limit(delivery_limit: int, harness: str) -> int:
    """The most characters of knowledge ``harness``'s hook delivers at any one event."""
    inline = INLINE_LIMITS.get(harness)
    if inline is None:
        return delivery_limit
    return min(delivery_limit, *(hook_limit(inline, event) for event in DELIVERING_EVENTS))


def limit_report(delivery_limit: int, harnesses: Iterable[str]) -> list[dict[str, Any]]:
    """Per harness (known ones, each once, in order): ``harness``, ``inline_limit``,
    ``effective`` and ``capped`` (whether the harness, not ``delivery_limit``, sets it)."""
    out = []
    for name in dict.fromkeys(harnesses):
        if name in INLINE_LIMITS:
            effective = effective_limit(delivery_limit, name)
            out.append(
                {
                    "harness": name,
                    "inline_limit": INLINE_LIMITS[name],
                    "effective": effective,
                    "capped": effective < delivery_limit,
                }
            )
    return out
