"""``cuecard dsh hook EVENT``: run ``cuecard-hook claude EVENT`` for a DSH hook payload."""

from __future__ import annotations

import argparse

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "hook",
        help="hand a DSH hook payload to cuecard-hook (maps str_replace_editor)",
        description=(
            "Reads the JSON payload the DSH Claude Code hook bridge sends, maps DSH's "
            "str_replace_editor (view/create/str_replace/insert) to read, write or edit, and "
            "runs `cuecard-hook claude EVENT` on it, printing what it prints. Never blocks the "
            "host: any failure ends with exit 0 and no output."
        ),
    )
    parser.add_argument("event", help="the Claude Code event name, e.g. PreToolUse")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import json
    import subprocess
    import sys
    from pathlib import Path

    from cuecard.dsh_adapter._hookbridge import translate

    hook = Path(sys.executable).parent / "cuecard-hook"
    try:
        payload = json.loads(sys.stdin.buffer.read(4 * 1024 * 1024) or b"{}")
        if not isinstance(payload, dict) or not hook.is_file():
            return 0
        done = subprocess.run(
            [sys.executable, "-I", str(hook), "claude", args.event],
            input=json.dumps(translate(payload)).encode(),
            capture_output=True,
            timeout=25,
            check=False,
        )
    except (ValueError, OSError, subprocess.SubprocessError):
        return 0
    if done.returncode == 0:
        sys.stdout.buffer.write(done.stdout)
    return 0
