"""``cuecard-hook <harness> <event>``: the command a harness runs at each of its hooks.

It reads the harness's JSON payload on stdin, builds the event, asks the engine, and prints what
the harness expects: ``hookSpecificOutput.additionalContext`` at UserPromptSubmit and PreToolUse
(and at the PostToolUse that wrote an inbox proposal), one ``systemMessage`` line at SessionStart,
and ``{"decision": "block", "reason": …}`` at Stop. It never returns a permission decision, and
it never blocks the host: invalid JSON, a project that did not opt in, a missing store or any
exception ends silently with exit status 0 and no output.

Hot path: this module imports only the standard library and core's stdlib-only engine modules.
"""

from __future__ import annotations

import gc
import json
import os
import sys

from cuecard.core.engine import Event, locate_root
from cuecard.hooks._context import Context, build_event, context_output, first_string, tool_input
from cuecard.hooks._harness import HARNESSES, Harness, event_name, normalise
from cuecard.hooks._tools import tool_call

TYPE_CHECKING = False  # importing typing costs a hook process more than its work
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = ["MAX_INPUT", "USAGE", "main", "respond"]

MAX_INPUT = 32 * 1024 * 1024
"""A payload larger than this is not read (the hook stays silent)."""
_PROMPT_CHARS = 50_000
_UI_HINT = "review what waits with `cuecard review`"


def _deliver(ctx: Context, event: Event) -> dict[str, Any] | None:
    if not ctx.harness.passes_on(ctx.event):  # it would drop the text: hold it for Stop
        from cuecard.hooks._atstop import hold

        hold(ctx.root, ctx.local, event)
        return None
    from cuecard.core.engine import handle

    delivery = handle(ctx.root, event, limit=ctx.limit(ctx.event))
    return context_output(ctx.event, delivery.text) if delivery.text else None


def on_pre_tool(ctx: Context) -> dict[str, Any] | None:
    call = tool_call(*tool_input(ctx.payload))
    if call is None:
        return None
    event = build_event(ctx, call)
    return _deliver(ctx, event) if event is not None else None


def on_prompt(ctx: Context) -> dict[str, Any] | None:
    prompt = first_string(ctx.payload, "prompt", "text", "user_prompt")
    if not prompt:
        return None
    if ctx.session:
        from cuecard.hooks._capture import is_correction

        correction = is_correction(prompt)
        ctx.footprint().prompt(correction=correction, preview=prompt if correction else "")
    event = Event("prompt", prompt=prompt[:_PROMPT_CHARS], session=ctx.session, agent=ctx.agent)
    return _deliver(ctx, event)


def on_session_start(ctx: Context) -> dict[str, Any] | None:
    source = first_string(ctx.payload, "source").lower()
    if source in ("compact", "clear") and ctx.session:
        from cuecard.core.engine import Ledger

        Ledger(ctx.local, ctx.session, ctx.agent).new_epoch(source)
        ctx.footprint().epoch(source)
    if source == "compact":
        return None
    from cuecard.core.engine import maintain_if_due

    maintain_if_due(ctx.root)  # detached, at most once a day; never raises
    from cuecard.core.engine import load_index

    index = load_index(ctx.root)
    count = int(index.meta.get("memories", 0)) if index is not None else 0
    noun = "memory" if count == 1 else "memories"
    from cuecard.hooks._failure import session_note

    line = f"cuecard: {count} live {noun} in this project; {_UI_HINT}."
    return {"systemMessage": line + session_note(ctx.root)}


def on_post_compact(ctx: Context) -> dict[str, Any] | None:
    """Codex's PostCompact: a compaction starts a new epoch (Claude Code tells at SessionStart)."""
    if ctx.session:
        from cuecard.core.engine import Ledger

        Ledger(ctx.local, ctx.session, ctx.agent).new_epoch("compact")
        ctx.footprint().epoch("compact")
    return None


# -- after a tool call, and Stop: in ``_after`` (imported by those events only) -----------------


def on_post_tool(ctx: Context) -> dict[str, Any] | None:
    from cuecard.hooks._after import post_tool

    return post_tool(ctx)


def on_stop(ctx: Context) -> dict[str, Any] | None:
    from cuecard.hooks._after import stop

    return stop(ctx)


USAGE = """usage: cuecard-hook HARNESS EVENT < payload.json

Run by a coding-agent harness at its hooks: reads the harness's JSON payload on stdin and prints
what the harness expects (or nothing). HARNESS is one of claude, codex, opencode, grok; EVENT one
of SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, Stop and
PostCompact (Codex). It always exits 0, and prints nothing when anything is wrong.
`cuecard install HARNESS` sets it up.
"""

_HANDLERS = {
    "SessionStart": on_session_start,
    "UserPromptSubmit": on_prompt,
    "PreToolUse": on_pre_tool,
    "PostToolUse": on_post_tool,
    "PostToolUseFailure": on_post_tool,
    "Stop": on_stop,
    "PostCompact": on_post_compact,
}


def respond(harness_name: str, event: str, data: bytes) -> str:
    """The hook's whole stdout for one call ("" for none). Raises on internal failure."""
    harness = HARNESSES.get(harness_name.strip().lower())
    name = event_name(event)
    if harness is None or name is None:
        from cuecard.hooks._failure import bad_command

        bad_command([harness_name, event], data)
        return ""
    try:
        payload = json.loads(data.decode("utf-8", "replace")) if data.strip() else {}
    except ValueError:
        return ""
    if not isinstance(payload, dict):
        return ""
    if "hookEventName" in payload and "hook_event_name" not in payload:
        harness = HARNESSES["grok"]  # Grok Build runs Claude Code's hook files too
    payload = normalise(harness.name, payload)
    cwd = payload.get("cwd")
    from cuecard.core.engine import held_folders

    with held_folders():  # each folder of the store walked (and checked) once in this event
        root = locate_root(cwd if isinstance(cwd, str) and cwd else None)
        return _answer(harness, name, payload, root) if root is not None else ""


def _answer(harness: Harness, name: str, payload: dict[str, Any], root: str) -> str:
    """``respond``'s answer for a project found at ``root``: a failure is recorded for the
    person, the record cleared once the same call works again."""
    key = f"{harness.name} {name}"
    try:
        answer = _HANDLERS[name](Context(harness, name, payload, root))
    except Exception as exc:  # recorded for the person (doctor, SessionStart), then silent
        from cuecard.core.fs import UnsafePath

        if isinstance(exc, UnsafePath):  # a link or a foreign folder in the store: write nothing
            return ""  # (doctor and status find and name it themselves)
        from cuecard.hooks._failure import failed, session_note

        failed(root, key, exc)
        if name != "SessionStart":
            raise
        answer = {"systemMessage": "cuecard: not working in this project." + session_note(root)}
    else:
        from cuecard.core.engine import clear_failure

        clear_failure(root, key)
    return json.dumps(answer, ensure_ascii=False) + "\n" if answer else ""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``cuecard-hook``. Always exits 0.

    Run as the command (``argv`` None), the process ends as soon as the answer is written
    (``_exit_now``) and runs without Python's cyclic garbage collector; called with ``argv`` it
    returns, as a library call must, and leaves the collector alone.
    """
    if argv is None:
        # One short process that frees its memory by ending: the collector's passes over the
        # engine's modules as they load would cost it more than the cycles they could free.
        gc.disable()
    code = _serve(list(sys.argv[1:] if argv is None else argv))
    if argv is None:
        _exit_now(code)
    return code


def _exit_now(code: int) -> None:
    """End the process without the interpreter's teardown (freeing every module and object),
    which costs a short-lived hook ≈ 3 ms of CPU, a tenth of its run. Everything the hook
    writes is written by then: files are closed, and stdout and stderr are flushed here."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:  # a closed pipe too: nothing more can reach the host anyway
        os._exit(code)


def _serve(args: list[str]) -> int:
    try:
        if args in (["-h"], ["--help"]):
            sys.stdout.write(USAGE)
            return 0
        if len(args) != 2:
            from cuecard.hooks._failure import bad_command

            bad_command(args, sys.stdin.buffer.read(MAX_INPUT))
            return 0
        data = sys.stdin.buffer.read(MAX_INPUT + 1)
        if len(data) > MAX_INPUT:
            return 0
        out = respond(args[0], args[1], data)
        if out:
            sys.stdout.buffer.write(out.encode("utf-8"))
            sys.stdout.flush()
    except BaseException:  # never block the host, whatever happened
        return 0
    return 0
