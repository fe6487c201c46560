"""``cuecard dsh hook EVENT``: run ``cuecard-hook claude …`` for a DSH hook payload."""

from __future__ import annotations

import argparse

__all__ = ["register", "run"]

TIMEOUT_S = 25
MAX_PAYLOAD = 4 * 1024 * 1024


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "hook",
        help="hand a DSH hook payload to cuecard-hook (PostToolUse also delivers the tool's "
        "memories)",
        description=(
            "Reads the JSON payload the DSH Claude Code hook bridge sends and maps DSH's "
            "str_replace_editor (view/create/str_replace/insert) to read, write or edit. "
            "PostToolUse runs `cuecard-hook claude PreToolUse` (the tool's trigger memories) and "
            "`cuecard-hook claude PostToolUse` on it and prints both as one PostToolUse "
            "additionalContext, the channel the bridge passes to the model; PreToolUse prints "
            "nothing and runs nothing (the bridge would drop what it printed); other events "
            "print what `cuecard-hook claude EVENT` prints. Never blocks the host: any failure "
            "ends with exit 0 and no output."
        ),
    )
    parser.add_argument("event", help="the Claude Code event name, e.g. PostToolUse")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import json
    import subprocess
    import sys
    from pathlib import Path

    from cuecard.dsh_adapter._hookbridge import merge, translate

    hook = Path(sys.executable).parent / "cuecard-hook"
    event = str(args.event)
    if event.lower() in ("pretooluse", "pre-tool"):
        return 0
    try:
        payload = json.loads(sys.stdin.buffer.read(MAX_PAYLOAD) or b"{}")
        if not isinstance(payload, dict) or not hook.is_file():
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
        sys.stdout.write(json.dumps(merged, ensure_ascii=False) + "\n")
    return 0
