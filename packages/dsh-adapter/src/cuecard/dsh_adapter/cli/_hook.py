"""``cuecard dsh hook EVENT``: answer a DSH hook payload in this process (the fallback of the
hook bridge's command when no plugin worker is reachable)."""

from __future__ import annotations

import argparse

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "hook",
        description=(
            "Reads the JSON payload the DSH Claude Code hook bridge sends and answers it the way "
            "the plugins' worker does (the bridge's command asks the worker first, and runs this "
            "only when no worker is reachable). Maps DSH's str_replace_editor "
            "(view/create/str_replace/insert) to read, write or edit. PostToolUse answers the "
            "tool's trigger memories (cuecard-hook's PreToolUse answer) and cuecard-hook's "
            "PostToolUse reply as one PostToolUse additionalContext, the channel the bridge "
            "passes to the model; PreToolUse answers nothing (the bridge would drop it); "
            "UserPromptSubmit answers nothing when the step's messages are only what PostToolUse "
            "handed DSH (they are cuecard's own, not the user's); other events answer what "
            "`cuecard-hook claude EVENT` prints. Runs cuecard-hook's code in this process (no "
            "other interpreter). Never blocks the host: any failure ends with exit 0 and no "
            "output."
        ),
    )
    parser.add_argument("event", help="the Claude Code event name, e.g. PostToolUse")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import sys

    from cuecard.dsh_adapter._hookevent import MAX_PAYLOAD, answer

    try:
        data = sys.stdin.buffer.read(MAX_PAYLOAD + 1)
    except OSError:
        return 0
    out = answer(str(args.event), data)
    if out:
        sys.stdout.write(out)
    return 0
