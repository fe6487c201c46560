"""``cuecard dsh hook EVENT``: run ``cuecard-hook claude …`` for a DSH hook payload."""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["register", "run"]

TIMEOUT_S = 25
MAX_PAYLOAD = 4 * 1024 * 1024
HANDED_KEPT = 16


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "hook",
        description=(
            "Reads the JSON payload the DSH Claude Code hook bridge sends and maps DSH's "
            "str_replace_editor (view/create/str_replace/insert) to read, write or edit. "
            "PostToolUse runs `cuecard-hook claude PreToolUse` (the tool's trigger memories) and "
            "`cuecard-hook claude PostToolUse` on it and prints both as one PostToolUse "
            "additionalContext, the channel the bridge passes to the model; PreToolUse prints "
            "nothing and runs nothing (the bridge would drop what it printed); UserPromptSubmit "
            "runs nothing when the step's messages are only what PostToolUse handed DSH (they "
            "are cuecard's own, not the user's); other events print what `cuecard-hook claude "
            "EVENT` prints. Never blocks the host: any failure ends with exit 0 and no output."
        ),
    )
    parser.add_argument("event", help="the Claude Code event name, e.g. PostToolUse")
    parser.set_defaults(run=run)


def _handed_file(payload: dict[str, object]) -> Path:
    """Where the contexts handed to DSH in ``payload``'s session are kept until a step claims
    them (one small file per session in the user's cuecard folder)."""
    import hashlib

    from cuecard.dsh_adapter._paths import config_dir

    session = str(payload.get("session_id") or "")
    name = hashlib.sha256(session.encode()).hexdigest()[:24]
    return config_dir() / "dsh-handed" / f"{name}.json"


def _handed(path: Path) -> list[str]:
    import json

    try:
        value = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return []
    return [t for t in value if isinstance(t, str)] if isinstance(value, list) else []


def _hand(path: Path, text: str) -> None:
    """Remember ``text``, the context this PostToolUse hands DSH (the last few only)."""
    import json

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


def run(args: argparse.Namespace) -> int:
    import json
    import subprocess
    import sys

    from cuecard.dsh_adapter._hookbridge import merge, translate

    hook = Path(sys.executable).parent / "cuecard-hook"
    event = str(args.event)
    if event.lower() in ("pretooluse", "pre-tool"):
        return 0
    try:
        payload = json.loads(sys.stdin.buffer.read(MAX_PAYLOAD) or b"{}")
        if not isinstance(payload, dict) or not hook.is_file():
            return 0
        if event == "UserPromptSubmit" and _claimed_own(
            _handed_file(payload), str(payload.get("prompt") or "")
        ):
            return 0
        payload = translate(payload)
        after_tool = event.lower() in ("posttooluse", "post-tool")
        runs = [("PreToolUse", {**payload, "hook_event_name": "PreToolUse"})] if after_tool else []
        runs.append((event, payload))
        children = [
            (
                subprocess.Popen(
                    [sys.executable, "-I", str(hook), "claude", name],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                ),
                json.dumps(body).encode(),
            )
            for name, body in runs
        ]
        outputs = []
        for child, data in children:
            try:
                out, _ = child.communicate(data, timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                child.kill()
                child.communicate()
                continue
            if child.returncode == 0:
                outputs.append(out.decode("utf-8", "replace"))
    except (ValueError, OSError, subprocess.SubprocessError):
        return 0
    if not after_tool:
        sys.stdout.write(outputs[0] if outputs else "")
        return 0
    merged = merge(*outputs)
    if merged is not None:
        _hand(_handed_file(payload), merged["hookSpecificOutput"]["additionalContext"])
        sys.stdout.write(json.dumps(merged, ensure_ascii=False) + "\n")
    return 0
