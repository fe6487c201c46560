"""The hook's events after the fact: PostToolUse (the footprint of a tool call, and the inbox
proposals it wrote, ingested) and Stop (checks, the capture request, what a harness dropped).

Imported by those events only (``_hook``'s handlers): a PreToolUse never loads this code.
"""

from __future__ import annotations

from _collections_abc import Mapping

from cuecard.hooks._context import INBOX, Context, build_event, context_output, tool_input
from cuecard.hooks._tools import tool_call

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = ["outcome", "post_tool", "stop"]


def _exit_code(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        import re

        found = re.search(r"(?:exited with code|exit code:?|exit status:?)\s*(-?\d+)", value, re.I)
        return int(found.group(1)) if found else None
    return None


def outcome(ctx: Context) -> tuple[str, int | None]:
    """``ok``, ``fail`` or ``unknown``, and the exit code when the harness gave one."""
    payload = ctx.payload
    response = payload.get("tool_response", payload.get("toolResponse", payload.get("result")))
    code = _exit_code(payload.get("exit_code"))
    if isinstance(response, Mapping):
        metadata = response.get("metadata")  # OpenCode: {"title", "output", "metadata": {"exit"}}
        for source in (response, metadata if isinstance(metadata, Mapping) else {}):
            for key in ("exit_code", "exitCode", "exit", "returncode"):
                if code is None:
                    code = _exit_code(source.get(key))
    elif isinstance(response, str) and code is None:
        code = _exit_code(response[:2000])
    failed = (
        ctx.event == "PostToolUseFailure"
        or payload.get("hook_event_name") == "PostToolUseFailure"
        or payload.get("is_error") is True
        or (isinstance(response, Mapping) and (response.get("is_error") or response.get("isError")))
        or (code is not None and code != 0)
    )
    if failed:
        return "fail", code
    if code == 0:
        return "ok", 0
    if isinstance(response, Mapping) and response.get("interrupted") is False:
        return "ok", None
    if isinstance(response, Mapping) and response.get("type") in ("create", "update", "text"):
        return "ok", None
    return "unknown", None


def post_tool(ctx: Context) -> dict[str, Any] | None:
    call = tool_call(*tool_input(ctx.payload))
    if call is None or not ctx.session:
        return None
    event = build_event(ctx, call, contents=False)
    if event is None:
        return None
    kind = event.kind  # a Write's: the harness's word on whether it made the file (build_event)
    result, code = outcome(ctx)
    patterns = list(call.patterns)
    if call.tool == "shell":
        from cuecard.core.engine import classify

        patterns = list(classify(call.command).patterns)
    ctx.footprint().tool(
        call.tool,
        kind,
        agent=ctx.agent,
        paths=event.paths,
        command=call.command,
        patterns=patterns,
        symbols=event.symbols,
        outcome=result,
        exit_code=code,
    )
    if call.tool == "shell" and result != "fail":  # `cat > .cuecard/inbox/x.json <<EOF`
        from cuecard.hooks._capture import inbox_proposals, writes_inbox

        return _ingest(ctx, inbox_proposals(ctx.root)) if writes_inbox(call.command) else None
    if result == "fail" or kind not in ("edit", "write"):
        return None
    proposals = [p for p in event.paths if p.startswith(INBOX) and p.endswith(".json")]
    return _ingest(ctx, proposals) if proposals else None


def _ingested(ctx: Context, proposals: Sequence[str]) -> list[str]:
    """Ingest each proposal; the messages for the agent."""
    if not proposals:
        return []
    from cuecard.core import ingest_file

    messages = []
    for rel in proposals:
        result = ingest_file(ctx.root, rel, session=ctx.session, agent=ctx.agent)
        message = str(getattr(result, "message", "") or "")
        if message:
            messages.append(message)
    return messages


def _ingest(ctx: Context, proposals: Sequence[str]) -> dict[str, Any] | None:
    messages = _ingested(ctx, proposals)
    if not messages:
        return None
    if not ctx.harness.passes_on("PostToolUse"):  # the answer would be dropped: give it at Stop
        from cuecard.hooks._atstop import hold_reply

        hold_reply(ctx.local, ctx.session, "\n\n".join(messages))
        return None
    room = ctx.harness.inline_limit - 200
    return context_output("PostToolUse", "\n\n".join(messages)[:room])


# -- Stop ---------------------------------------------------------------------------------------


def stop(ctx: Context) -> dict[str, Any] | None:
    if not ctx.session or _session_closing(ctx):
        return None
    footprint = ctx.footprint()
    records = footprint.records()
    turn = footprint.turn(records)
    if ctx.harness.name == "codex":  # its PostToolUse gave no exit status: see _transcript
        from cuecard.hooks._transcript import backfill_codex_outcomes

        backfill_codex_outcomes(ctx.payload, turn)
    changed = footprint.changed(turn)
    from cuecard.hooks._capture import inbox_proposals  # a proposal the hooks did not see

    parts = _ingested(ctx, inbox_proposals(ctx.root))
    try:
        from cuecard.core.engine import stop as stop_checks

        report = stop_checks(
            ctx.root,
            ctx.session,
            changed,
            agent=ctx.agent,
            limit=ctx.limit("Stop"),
            since=_began(turn),
        )
        if report.text:
            parts.append(report.text)
    except Exception:  # noqa: S110 - a failing check never costs the turn its capture request
        pass
    asked = ""
    if ctx.payload.get("stop_hook_active") is not True:
        from cuecard.hooks._capture import evidence, request_text

        found = evidence(records)
        if found is not None and found.key not in footprint.asked(records):
            parts.append(request_text(found))
            asked = found.key
    if not ctx.harness.passes_on("PreToolUse"):  # what the hook printed earlier was dropped
        parts = _held_for_stop(ctx, parts)
    footprint.stop(asked)
    return {"decision": "block", "reason": "\n\n".join(parts)} if parts else None


def _began(turn: list[dict[str, Any]]) -> float | None:
    """When the turn began: its first record's time (the prompt's, where the harness sends one)."""
    began = turn[0].get("t") if turn else None
    return float(began) if isinstance(began, (int, float)) else None


def _held_for_stop(ctx: Context, parts: list[str]) -> list[str]:
    """``parts`` with the memories held since the last Stop first (unless the agent already
    continued once) and cuecard's answers to inbox proposals last, within Stop's limit."""
    from cuecard.hooks._atstop import release, replies

    room = ctx.limit("Stop") - sum(len(part) + 2 for part in parts)
    answered = replies(ctx.local, ctx.session, ctx.agent, room)
    room -= len(answered) + 2
    held = ""
    if ctx.payload.get("stop_hook_active") is not True:
        held = release(ctx.root, ctx.local, ctx.session, ctx.agent, room)
    return [part for part in (held, *parts, answered) if part]


def _session_closing(ctx: Context) -> bool:
    """A Stop that fires as the session closes, whose output the harness ignores: Grok Build
    sends ``reason`` ``channel_closed`` or ``shutdown`` there (``end_turn`` at a turn's end)."""
    reason = ctx.payload.get("reason")
    return ctx.harness.name == "grok" and isinstance(reason, str) and reason != "end_turn"
