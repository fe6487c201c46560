"""The harnesses ``cuecard-hook`` serves: a fixed table, never an entry-point scan. Stdlib only.

Each harness's payload is read into Claude Code's field names first (:func:`normalise`), so the
hook reads one shape: Grok Build's camelCase keys (``sessionId``, ``toolName``, ``toolInput``,
``toolResult``, ``stopHookActive``) and snake_case event names (``pre_tool_use``), its prompt
wrapped in ``<user_query>``, and ``opencode run``'s prompt wrapped in double quotes.
"""

from __future__ import annotations

from cuecard.core.engine import INLINE_LIMITS, PASSED_ON

TYPE_CHECKING = False  # importing typing costs a hook process more than its work
if TYPE_CHECKING:
    from typing import Any

__all__ = ["EVENTS", "HARNESSES", "Harness", "event_name", "normalise"]


class Harness:
    """How one harness calls the hook and reads its answer (a plain class: ``dataclasses`` costs
    the hook process more to import than all of its own work)."""

    __slots__ = ("delivers", "inline_limit", "name", "title")

    def __init__(
        self, name: str, title: str, inline_limit: int, delivers: tuple[str, ...] | None = None
    ) -> None:
        self.name = name
        self.title = title
        self.inline_limit = inline_limit
        """Most characters of the whole hook output the harness keeps inline (JSON included)."""
        self.delivers = delivers
        """The events whose output the harness passes on to the model (``None``: every event
        that delivers). At any other event a matched memory is held, unclaimed, for Stop."""

    def passes_on(self, event: str) -> bool:
        """Whether what the hook prints at ``event`` reaches the model."""
        return self.delivers is None or event in self.delivers

    def __repr__(self) -> str:
        return f"Harness({self.name!r}, {self.title!r}, {self.inline_limit})"


HARNESSES: dict[str, Harness] = {
    # The inline limits and the events each harness passes on live in core (``_limits``), where
    # ``cuecard doctor`` and ``cuecard match`` read them too.
    name: Harness(name, title, INLINE_LIMITS[name], delivers=PASSED_ON.get(name))
    for name, title in (
        ("claude", "Claude Code"),
        ("codex", "Codex"),
        ("opencode", "OpenCode"),
        ("grok", "Grok Build"),
    )
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
    # Grok Build's spellings (its hookEventName values)
    "session_start": "SessionStart",
    "user_prompt_submit": "UserPromptSubmit",
    "pre_tool_use": "PreToolUse",
    "post_tool_use": "PostToolUse",
    "post_tool_use_failure": "PostToolUseFailure",
    "post_compact": "PostCompact",
}


def event_name(value: str) -> str | None:
    """The canonical event name for ``value`` (case-insensitive), or ``None``."""
    return EVENTS.get(value.strip().lower())


# Grok Build's camelCase payload keys -> Claude Code's names (only those the hook reads).
_GROK_KEYS = {
    "hookEventName": "hook_event_name",
    "sessionId": "session_id",
    "transcriptPath": "transcript_path",
    "toolName": "tool_name",
    "toolInput": "tool_input",
    "toolResult": "tool_response",
    "toolUseId": "tool_use_id",
    "stopHookActive": "stop_hook_active",
    "agentId": "agent_id",
}
_USER_QUERY = ("<user_query>", "</user_query>")


def _unwrap(text: str, start: str, end: str) -> str:
    stripped = text.strip()
    if len(stripped) < len(start) + len(end) or not stripped.startswith(start):
        return text
    return stripped[len(start) : -len(end)].strip() if stripped.endswith(end) else text


def _unquote(text: str) -> str:
    """``opencode run`` sends an argument with spaces as ``"…"`` (inner quotes escaped)."""
    if len(text) >= 2 and text[0] == text[-1] == '"' and '"' not in text[1:-1].replace('\\"', ""):
        return text[1:-1].replace('\\"', '"')
    return text


def normalise(harness: str, payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` in Claude Code's field names, with the user's prompt as the user typed it.

    Grok Build: camelCase keys renamed (a snake_case key already there wins), the event name
    made canonical, the prompt taken out of ``<user_query>``. OpenCode: the prompt out of the
    double quotes ``opencode run`` adds. Other harnesses' payloads are returned as they are."""
    if harness == "grok":
        out = dict(payload)
        for camel, snake in _GROK_KEYS.items():
            if camel in payload and snake not in payload:
                out[snake] = out.pop(camel)
        name = out.get("hook_event_name")
        if isinstance(name, str):
            out["hook_event_name"] = event_name(name) or name
        prompt = out.get("prompt")
        if isinstance(prompt, str):
            out["prompt"] = _unwrap(prompt, *_USER_QUERY)
        return out
    if harness == "opencode" and isinstance(payload.get("prompt"), str):
        return {**payload, "prompt": _unquote(payload["prompt"])}
    return payload
