"""``codex exec --ephemeral`` keeps no session file (``transcript_path: null``): what capture
does there, as the harness table in ``packages/hooks/README.md`` says.

Codex's PostToolUse for a shell command carries the command's output alone (``""`` for
``./check.sh`` failing silently, as recorded from Codex 0.171.0 in ``fixtures/codex/real-*``);
the exit status is only in the output Codex writes to its session file. Without that file a
failure cannot be told from a success, so Stop never asks after a failure and a fix (guessing
would ask after every run, edit, run); a user's correction needs no status and is still
captured."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests._support.hooks import run_hook

README = (Path(__file__).parents[2] / "packages" / "hooks" / "README.md").read_text()
PATCH = "*** Begin Patch\n*** Update File: src/billing/charge.py\n@@\n-x\n+y\n*** End Patch\n"


def payload(root: Path, session: str, event: str, **extra: Any) -> dict[str, Any]:
    return {"session_id": session, "turn_id": "turn-1", "transcript_path": None,
            "cwd": str(root), "hook_event_name": event, "model": "gpt-5.5",
            "permission_mode": "bypassPermissions", **extra}  # fmt: skip


def send(root: Path, session: str, event: str, **extra: Any) -> str:
    done = run_hook("codex", event, payload(root, session, event, **extra), cwd=root)
    assert (done.returncode, done.stderr) == (0, b"")
    return done.stdout.decode("utf-8")


def shell(root: Path, session: str, command: str, output: str, call: str) -> None:
    send(root, session, "PostToolUse", tool_name="Bash", tool_input={"command": command},
         tool_response=output, tool_use_id=call)  # fmt: skip


def patch(root: Path, session: str, call: str) -> None:
    send(root, session, "PostToolUse", tool_name="apply_patch", tool_input={"command": PATCH},
         tool_response="Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the "
         "following files:\nM src/billing/charge.py\n", tool_use_id=call)  # fmt: skip


def test_a_failure_and_a_fix_are_not_captured_without_a_session_file(fresh_repo: Path) -> None:
    outputs = {  # what the hook is given for the first and the second run of ./check.sh
        "told": ("Process exited with code 1\n", "Process exited with code 0\n"),
        "ephemeral": ("", ""),  # Codex 0.171.0: the output alone, nothing for a silent one
    }
    answers = {}
    for session, (failed, passed) in outputs.items():
        send(fresh_repo, session, "UserPromptSubmit", prompt="Make check.sh pass.")
        shell(fresh_repo, session, "./check.sh", failed, "c1")
        patch(fresh_repo, session, "c2")
        shell(fresh_repo, session, "./check.sh", passed, "c3")
        answers[session] = send(fresh_repo, session, "Stop", stop_hook_active=False,
                                last_assistant_message="Fixed.")  # fmt: skip
    assert "`check.sh` failed, then succeeded" in json.loads(answers["told"])["reason"]
    assert answers["ephemeral"] == ""


def test_a_correction_is_captured_without_a_session_file(fresh_repo: Path) -> None:
    send(fresh_repo, "eph-2", "UserPromptSubmit", prompt="Tidy the charge code.")
    patch(fresh_repo, "eph-2", "c1")
    send(fresh_repo, "eph-2", "UserPromptSubmit", prompt="no, that's wrong: keep the order")
    patch(fresh_repo, "eph-2", "c2")
    out = send(fresh_repo, "eph-2", "Stop", stop_hook_active=False, last_assistant_message="Ok.")
    answer = json.loads(out)
    assert answer["decision"] == "block"
    assert "the user corrected you" in answer["reason"]


def test_the_harness_table_says_so() -> None:
    codex = README[README.index("### Codex") :].split("\n### ", 1)[0]
    capture = next(line for line in codex.splitlines() if line.startswith("| capture |"))
    assert "`codex exec --ephemeral`" in capture
    assert "`transcript_path: null`" in capture
    assert "never asks after a failure and a fix" in capture
