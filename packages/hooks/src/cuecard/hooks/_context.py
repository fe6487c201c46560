"""One hook call's context and the trigger event it builds: what the dispatcher (``_hook``) and
the handlers after a tool call and at Stop (``_after``) share.

Hot path: this module imports only the standard library and core's stdlib-only engine modules.
"""

from __future__ import annotations

import os

# collections.abc's Mapping, from the module the interpreter has loaded at startup:
# importing collections.abc costs the hook process 0.15 ms.
from _collections_abc import Mapping

from cuecard.core.engine import Event, repo_relative
from cuecard.hooks._tools import Call, Contents, after_edit, read_text

TYPE_CHECKING = False  # importing typing costs a hook process more than its work
if TYPE_CHECKING:
    from typing import Any

    from cuecard.hooks._harness import Harness

__all__ = ["INBOX", "Context", "build_event", "context_output", "first_string", "tool_input"]

INBOX = ".cuecard/inbox/"
"""Where agents write inbox proposals (a write there is ingested at PostToolUse)."""


class Context:
    """One hook call: the harness, the event, the payload and where the project is."""

    def __init__(self, harness: Harness, event: str, payload: Mapping[str, Any], root: str) -> None:
        self.harness = harness
        self.event = event
        self.payload = payload
        self.root = root
        cwd = payload.get("cwd")
        self.cwd = cwd if isinstance(cwd, str) and cwd else os.getcwd()
        self.session = first_string(payload, "session_id", "sessionId", "sessionID")[:200]
        self.agent = first_string(payload, "agent_id", "agentId")[:200]
        self.local = os.path.join(root, ".cuecard", "local")

    def limit(self, event: str) -> int:
        """The knowledge limit that keeps the whole output within the harness's inline limit."""
        from cuecard.core.engine import hook_limit

        return hook_limit(self.harness.inline_limit, event)

    def footprint(self) -> Any:
        from cuecard.core.engine import Footprint

        return Footprint(self.local, self.session)


def first_string(payload: Mapping[str, Any], *keys: str) -> str:
    """The first of ``keys`` whose value in ``payload`` is a non-empty string, else ``""``."""
    for key in keys:
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def context_output(event: str, text: str) -> dict[str, Any]:
    """The answer that puts ``text`` into the model's context at ``event``."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


# -- events -------------------------------------------------------------------------------------


def _relative(ctx: Context, raw: str) -> str | None:
    rel = repo_relative(raw, ctx.root, ctx.cwd)
    return rel or None


def build_event(ctx: Context, call: Call, *, contents: bool = True) -> Event | None:
    """The trigger event of ``call``, or ``None`` when it touches nothing in the repository."""
    if call.tool == "shell":
        from cuecard.core.engine import classify

        found = classify(call.command)
        shell_paths = [r for r in (_relative(ctx, p) for p in found.paths) if r]
        return Event(
            kind=found.kind,
            paths=tuple(dict.fromkeys(shell_paths)),
            command=call.command,
            parts=found.parts,
            session=ctx.session,
            agent=ctx.agent,
        )
    raw_of: dict[str, str] = {}
    for raw in call.raw_paths:
        rel = _relative(ctx, raw)
        if rel is not None:
            raw_of.setdefault(rel, raw)
    if not raw_of and (call.kind != "search" or not call.symbols):
        return None
    paths = tuple(raw_of)
    kind = call.kind
    if call.tool == "write":  # a payload with the tool's result says (DSH: after the tool ran)
        on_disk = "edit" if os.path.exists(os.path.join(ctx.root, paths[0])) else "write"
        kind = _write_kind(ctx.payload.get("tool_response"), on_disk)
    after: Mapping[str, Any] = {}
    before: Mapping[str, Any] = {}
    if contents and kind in ("edit", "write") and call.tool != "notebook":
        cache: dict[str, tuple[str | None, str]] = {}

        def load(rel: str) -> tuple[str | None, str]:
            if rel not in cache:
                old = read_text(os.path.join(ctx.root, rel))
                new = after_edit(call, old, raw_of[rel])
                cache[rel] = (old, new if new is not None else old or "")
            return cache[rel]

        before, after = Contents(paths, load, 0), Contents(paths, load, 1)
    return Event(
        kind=kind,
        paths=paths,
        symbols=call.symbols,
        session=ctx.session,
        agent=ctx.agent,
        after=after,
        before=before,
    )


def tool_input(payload: Mapping[str, Any]) -> tuple[Any, Any]:
    """The tool's name and arguments, under whichever keys the harness sends them."""
    name = payload.get("tool_name", payload.get("toolName", payload.get("tool")))
    args = payload.get("tool_input", payload.get("toolInput", payload.get("args")))
    return name, args


def _write_kind(response: Any, default: str) -> str:
    """``write`` when the harness says the Write created the file, ``edit`` when it replaced one:
    Claude Code's ``{"type": "create"|"update"}``, OpenCode's ``{"metadata": {"exists": …}}``."""
    if not isinstance(response, Mapping):
        return default
    if response.get("type") in ("create", "update"):
        return "write" if response["type"] == "create" else "edit"
    metadata = response.get("metadata")
    if isinstance(metadata, Mapping) and isinstance(metadata.get("exists"), bool):
        return "edit" if metadata["exists"] else "write"
    return default
