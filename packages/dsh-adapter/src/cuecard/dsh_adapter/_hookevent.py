"""One DSH hook event answered in the running process: what ``cuecard dsh hook EVENT`` prints,
computed by the plugins' worker (``serve``, op ``hook``) without starting an interpreter, or by
the command itself when no worker is reachable.

``cuecard-hook``'s own work is reached through the ``cuecard.hook`` entry point (``respond``,
which ``cuecard-hooks`` publishes; a satellite imports no other satellite), loaded once per
process. PostToolUse asks it for the tool's trigger memories (its PreToolUse answer) and for its
PostToolUse reply, and answers both as one PostToolUse ``additionalContext`` (the channel the
bridge passes to the model); PreToolUse answers nothing (the bridge drops what it prints);
UserPromptSubmit answers nothing when the step's text is only what PostToolUse handed DSH.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

__all__ = ["HANDED_KEPT", "MAX_PAYLOAD", "Responder", "answer", "load_responder"]

Responder = Callable[[str, str, bytes], str]
"""``cuecard.hooks.respond``: (harness, event, payload) -> the hook's whole stdout."""

MAX_PAYLOAD = 4 * 1024 * 1024
"""The largest payload answered; a larger one answers nothing."""
HANDED_KEPT = 16
"""How many contexts handed to DSH are kept per session until a step claims them."""
_RESPONDER: list[Responder | None] = []


def load_responder() -> Responder | None:
    """``cuecard.hooks.respond`` through its entry point (once per process), or ``None`` when
    cuecard-hooks is not installed."""
    if not _RESPONDER:
        from importlib.metadata import entry_points

        found = [e for e in entry_points(group="cuecard.hook") if e.name == "respond"]
        _RESPONDER.append(found[0].load() if found else None)
    return _RESPONDER[0]


def _handed_file(payload: dict[str, object]) -> Path:
    """Where the contexts handed to DSH in ``payload``'s session are kept until a step claims
    them (one small file per session in the user's cuecard folder)."""
    from cuecard.dsh_adapter._paths import config_dir

    session = str(payload.get("session_id") or "")
    name = hashlib.sha256(session.encode()).hexdigest()[:24]
    return config_dir() / "dsh-handed" / f"{name}.json"


def _handed(path: Path) -> list[str]:
    try:
        value = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return []
    return [t for t in value if isinstance(t, str)] if isinstance(value, list) else []


def _hand(path: Path, text: str) -> None:
    """Remember ``text``, the context this PostToolUse hands DSH (the last few only)."""
    from cuecard.core.fs import atomic_write, locked

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with locked(path.with_suffix(".lock")):
            texts = [*_handed(path), text][-HANDED_KEPT:]
            atomic_write(path, json.dumps(texts).encode())
    except Exception:  # noqa: S110 - the delivery matters more than the note
        pass


def _claimed_own(path: Path, prompt: str) -> bool:
    """Whether ``prompt`` is only handed contexts; the file is emptied once a step claimed."""
    from cuecard.core.fs import locked
    from cuecard.dsh_adapter._hookbridge import own_prompt

    if not path.is_file():
        return False
    try:
        with locked(path.with_suffix(".lock")):
            own = own_prompt(prompt, _handed(path))
            path.unlink(missing_ok=True)
    except Exception:  # unsure: the prompt goes to cuecard-hook as before
        return False
    return own


def _run(respond: Responder, name: str, body: dict[str, object]) -> str:
    try:
        return respond("claude", name, json.dumps(body).encode())
    except Exception:  # cuecard-hook records its own failures; the host is never blocked
        return ""


def answer(event: str, data: bytes, respond: Responder | None = None) -> str:
    """What the hook bridge gets for ``event`` with the JSON payload ``data`` ("" for nothing).
    Never raises."""
    try:
        if event.lower() in ("pretooluse", "pre-tool") or len(data) > MAX_PAYLOAD:
            return ""
        respond = respond or load_responder()
        payload = json.loads(data or b"{}")
        if respond is None or not isinstance(payload, dict):
            return ""
        if event == "UserPromptSubmit" and _claimed_own(
            _handed_file(payload), str(payload.get("prompt") or "")
        ):
            return ""
        from cuecard.dsh_adapter._hookbridge import merge, translate

        payload = translate(payload)
        if event.lower() not in ("posttooluse", "post-tool"):
            return _run(respond, event, payload)
        before = _run(respond, "PreToolUse", {**payload, "hook_event_name": "PreToolUse"})
        merged = merge(before, _run(respond, event, payload))
        if merged is None:
            return ""
        _hand(_handed_file(payload), merged["hookSpecificOutput"]["additionalContext"])
        return json.dumps(merged, ensure_ascii=False) + "\n"
    except Exception:
        return ""
