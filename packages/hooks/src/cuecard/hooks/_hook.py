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

import json
import os
import sys

# collections.abc's Mapping, from the module the interpreter has loaded at startup:
# importing collections.abc costs the hook process 0.15 ms.
from _collections_abc import Mapping

from cuecard.core.engine import Event, locate_root, repo_relative
from cuecard.hooks._harness import HARNESSES, Harness, event_name, normalise
from cuecard.hooks._tools import Call, Contents, after_edit, read_text, tool_call

TYPE_CHECKING = False  # importing typing costs a hook process more than its work
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = ["MAX_INPUT", "USAGE", "main", "respond"]

MAX_INPUT = 32 * 1024 * 1024
"""A payload larger than this is not read (the hook stays silent)."""
_PROMPT_CHARS = 50_000
INBOX = ".cuecard/inbox/"
"""Where agents write inbox proposals (a write there is ingested at PostToolUse)."""
_UI_HINT = "review what waits with `cuecard review`"


class Context:
    """One hook call: the harness, the event, the payload and where the project is."""

    def __init__(self, harness: Harness, event: str, payload: Mapping[str, Any], root: str) -> None:
        self.harness = harness
        self.event = event
        self.payload = payload
        self.root = root
        cwd = payload.get("cwd")
        self.cwd = cwd if isinstance(cwd, str) and cwd else os.getcwd()
        self.session = _string(payload, "session_id", "sessionId", "sessionID")[:200]
        self.agent = _string(payload, "agent_id", "agentId")[:200]
        self.local = os.path.join(root, ".cuecard", "local")

    def limit(self, event: str) -> int:
        """The knowledge limit that keeps the whole output within the harness's inline limit."""
        from cuecard.core.engine import hook_limit

        return hook_limit(self.harness.inline_limit, event)

    def footprint(self) -> Any:
        from cuecard.core.engine import Footprint

        return Footprint(self.local, self.session)


def _string(payload: Mapping[str, Any], *keys: str) -> str:
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


def _deliver(ctx: Context, event: Event) -> dict[str, Any] | None:
    if not ctx.harness.passes_on(ctx.event):  # it would drop the text: hold it for Stop
        from cuecard.hooks._atstop import hold

        hold(ctx.root, ctx.local, event)
        return None
    from cuecard.core.engine import handle

    delivery = handle(ctx.root, event, limit=ctx.limit(ctx.event))
    return context_output(ctx.event, delivery.text) if delivery.text else None


def tool_input(payload: Mapping[str, Any]) -> tuple[Any, Any]:
    """The tool's name and arguments, under whichever keys the harness sends them."""
    name = payload.get("tool_name", payload.get("toolName", payload.get("tool")))
    args = payload.get("tool_input", payload.get("toolInput", payload.get("args")))
    return name, args


def on_pre_tool(ctx: Context) -> dict[str, Any] | None:
    call = tool_call(*tool_input(ctx.payload))
    if call is None:
        return None
    event = build_event(ctx, call)
    return _deliver(ctx, event) if event is not None else None


def on_prompt(ctx: Context) -> dict[str, Any] | None:
    prompt = _string(ctx.payload, "prompt", "text", "user_prompt")
    if not prompt:
        return None
    if ctx.session:
        from cuecard.hooks._capture import is_correction

        correction = is_correction(prompt)
        ctx.footprint().prompt(correction=correction, preview=prompt if correction else "")
    event = Event("prompt", prompt=prompt[:_PROMPT_CHARS], session=ctx.session, agent=ctx.agent)
    return _deliver(ctx, event)


def on_session_start(ctx: Context) -> dict[str, Any] | None:
    source = _string(ctx.payload, "source").lower()
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
    root = locate_root(cwd if isinstance(cwd, str) and cwd else None)
    if root is None:
        return ""
    key = f"{harness.name} {name}"
    from cuecard.core.engine import held_folders

    try:
        with held_folders():  # (each folder of the store walked once in this event)
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
    (``_exit_now``); called with ``argv`` it returns, as a library call must.
    """
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
