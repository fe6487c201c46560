"""What the hook records when it cannot work in an opted-in project (see
``cuecard.core.engine.record_failure``): the agent sees nothing, the person sees it in
``cuecard doctor`` and in SessionStart's line. Stdlib only (the hot path)."""

from __future__ import annotations

import json

from cuecard.core.engine import locate_root, read_failures, record_failure

__all__ = ["bad_command", "failed", "session_note"]

# Events the harnesses have that cuecard does not act on: a hook there is no typo.
OTHER_EVENTS = frozenset(
    {"notification", "subagentstart", "subagentstop", "sessionend", "precompact",
     "permissionrequest", "userpromptexpansion", "pretoolusefailure"}
)  # fmt: skip


def _root_of(data: bytes) -> str | None:
    try:
        payload = json.loads(data.decode("utf-8", "replace")) if data.strip() else {}
    except ValueError:
        return None
    if not isinstance(payload, dict):
        return None
    cwd = payload.get("cwd") or payload.get("workspaceRoot")
    return locate_root(cwd if isinstance(cwd, str) and cwd else None)


def bad_command(args: list[str], data: bytes) -> None:
    """The harness ran ``cuecard-hook`` with arguments it does not know (a typo in the hook
    command): record it in the payload's project, if that project opted in."""
    from cuecard.hooks._harness import HARNESSES, event_name

    root = _root_of(data)
    if root is None:
        return
    given = " ".join(args)[:80]
    if len(args) != 2:
        why = "it takes two arguments, HARNESS and EVENT"
    elif args[0].strip().lower() not in HARNESSES:
        why = f"unknown harness {args[0]!r} (one of {', '.join(HARNESSES)})"
    elif event_name(args[1]) is None and args[1].strip().lower() not in OTHER_EVENTS:
        why = f"unknown event {args[1]!r}"
    else:
        return
    record_failure(
        root,
        given or "(no arguments)",
        f"a hook ran `cuecard-hook {given}`: {why}; fix the hook command in the harness's "
        "configuration (`cuecard install <harness>` rewrites it)",
    )


def failed(root: str, key: str, exc: BaseException) -> None:
    """A hook call raised ``exc``: record why (a cuecard error's message names the key)."""
    from cuecard.core import CuecardError

    reason = str(exc) if isinstance(exc, CuecardError) else f"{type(exc).__name__}: {exc}"
    record_failure(root, key, reason)


def session_note(root: str) -> str:
    """The latest recorded failure, for SessionStart's line ("" when there is none)."""
    failures = read_failures(root)
    if not failures:
        return ""
    key, latest = max(failures.items(), key=lambda item: float(item[1].get("at", 0)))
    more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
    return f" Hooks failed here{more}: {latest.get('reason', key)} Run `cuecard doctor`."
