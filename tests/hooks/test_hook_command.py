"""The real ``cuecard-hook`` command, as a subprocess, against a real git repository."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests._support.hooks import HOOK, run_hook

TRAP = "charge() is not idempotent"


def edit(root: Path, session: str, **extra: Any) -> dict[str, Any]:
    return {
        "session_id": session,
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {
            "file_path": str(root / "src/billing/charge.py"),
            "old_string": "order.total",
            "new_string": "order.amount",
        },
        **extra,
    }


def context(result: subprocess.CompletedProcess[bytes]) -> str:
    assert result.returncode == 0
    assert result.stderr == b""
    if not result.stdout:
        return ""
    answer = json.loads(result.stdout)
    return str(answer["hookSpecificOutput"]["additionalContext"])


def test_once_per_epoch_and_again_after_a_compaction(repo: Path) -> None:
    first = context(run_hook("claude", "PreToolUse", edit(repo, "e2e-s1"), cwd=repo))
    assert TRAP in first
    assert first.count("(memory ") == 1
    assert context(run_hook("claude", "PreToolUse", edit(repo, "e2e-s1"), cwd=repo)) == ""
    resumed = {"session_id": "e2e-s1", "cwd": str(repo), "source": "resume"}
    line = run_hook("claude", "SessionStart", resumed, cwd=repo)
    assert json.loads(line.stdout)["systemMessage"].startswith("cuecard: 13 live memories")
    assert context(run_hook("claude", "PreToolUse", edit(repo, "e2e-s1"), cwd=repo)) == ""
    compact = {"session_id": "e2e-s1", "cwd": str(repo), "source": "compact"}
    assert run_hook("claude", "SessionStart", compact, cwd=repo).stdout == b""
    again = context(run_hook("claude", "PreToolUse", edit(repo, "e2e-s1"), cwd=repo))
    assert TRAP in again
    # another session has its own ledger
    assert TRAP in context(run_hook("claude", "PreToolUse", edit(repo, "e2e-s2"), cwd=repo))


def test_eight_parallel_hooks_deliver_once(repo: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "CUECARD_PROJECT_DIR"}
    data = json.dumps(edit(repo, "parallel")).encode()
    procs = [
        subprocess.Popen(
            [HOOK, "claude", "PreToolUse"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=repo,
            env=env,
        )
        for _ in range(8)
    ]
    outs = [p.communicate(data, timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert all(err == b"" for _, err in outs)
    delivered = [out for out, _ in outs if out]
    assert len(delivered) == 1
    assert TRAP in json.loads(delivered[0])["hookSpecificOutput"]["additionalContext"]


def test_what_does_not_fit_arrives_at_the_next_event(repo: Path) -> None:
    read = {
        "session_id": "e2e-big",
        "cwd": str(repo),
        "tool_name": "Read",
        "tool_input": {"file_path": "big/file.txt"},
    }
    first = run_hook("claude", "PreToolUse", read, cwd=repo)
    assert len(first.stdout.decode()) <= 10_000
    text = context(first)
    assert text.count("## procedure: Big procedure") == 2
    assert "Held back for lack of room" in text
    assert '"Big procedure 3"' in text
    second = context(run_hook("claude", "PreToolUse", read, cwd=repo))
    assert second.count("## procedure: Big procedure") == 1
    assert "Big procedure 3" in second
    assert context(run_hook("claude", "PreToolUse", read, cwd=repo)) == ""


def test_silent_when_the_store_is_broken(fresh_repo: Path) -> None:
    (fresh_repo / ".cuecard" / "config.json").write_text("{not json", encoding="utf-8")
    shutil.rmtree(fresh_repo / ".cuecard" / "local")
    result = run_hook("claude", "PreToolUse", edit(fresh_repo, "s"), cwd=fresh_repo)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_silent_on_bad_arguments(tmp_path: Path) -> None:
    for args in ([], ["claude"], ["nobody", "PreToolUse"], ["claude", "PreToolUse", "x"]):
        result = subprocess.run([HOOK, *args], input=b"{}", capture_output=True, cwd=tmp_path)
        assert (result.returncode, result.stdout) == (0, b"")


def write_proposal(root: Path, name: str, proposal: dict[str, Any]) -> str:
    """Write a proposal as the agent would, then run the PostToolUse of that Write."""
    target = root / ".cuecard" / "inbox" / name
    target.write_text(json.dumps(proposal), encoding="utf-8")
    payload = {
        "session_id": "ingest",
        "cwd": str(root),
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(target), "content": json.dumps(proposal)},
        "tool_response": {"type": "create", "filePath": str(target)},
    }
    answer = json.loads(run_hook("claude", "PostToolUse", payload, cwd=root).stdout)
    assert answer["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    return str(answer["hookSpecificOutput"]["additionalContext"])


PROPOSAL = {
    "topic": "billing/charge-tests",
    "kind": "procedure",
    "title": "The charge tests assert the idempotency key on every retry",
    "body": "tests fail unless every retry of provider.charge passes the order's key.",
    "not_derivable": "The failure message does not say why.",
    "triggers": [{"on": ["edit"], "paths": ["src/billing/charge.py"]}],
}
STORED = r"([0-9a-f]{8}) \(\.cuecard/memories/([0-9a-f-]{36})\.json\)"


def test_inbox_proposals_are_ingested_by_the_write(fresh_repo: Path) -> None:
    grounded = {**PROPOSAL, "evidence": [{"kind": "file", "ref": "src/billing/charge.py"}]}
    message = write_proposal(fresh_repo, "grounded.json", grounded)
    found = re.search(STORED, message)
    assert found, message
    assert message.startswith("cuecard activated memory"), message
    stored = json.loads((fresh_repo / f".cuecard/memories/{found.group(2)}.json").read_text())
    assert stored["status"] == "active"
    assert stored["review"]["auto_accepted"] is True
    # the same knowledge again is a duplicate of the live memory
    message = write_proposal(fresh_repo, "again.json", {**PROPOSAL, "topic": "billing/again"})
    assert message.startswith("cuecard refused again.json: it duplicates live memory"), message
    # without evidence cuecard verified itself, it waits for a person
    ungrounded = {
        **PROPOSAL,
        "topic": "migrations/numbering",
        "kind": "fact",
        "title": "Migration numbers come from migrations/NEXT, never from the newest file",
        "body": "Two branches that both took the newest number collided in production in May.",
        "triggers": [{"on": ["write"], "paths": ["migrations/**"]}],
    }
    message = write_proposal(fresh_repo, "ungrounded.json", ungrounded)
    found = re.search(STORED, message)
    assert found, message
    assert message.startswith("cuecard stored candidate"), message
    stored = json.loads((fresh_repo / f".cuecard/memories/{found.group(2)}.json").read_text())
    assert stored["status"] == "candidate"
    # the new active memory is delivered at its trigger in the same session
    delivered = context(
        run_hook("claude", "PreToolUse", edit(fresh_repo, "ingest"), cwd=fresh_repo)
    )
    assert "The charge tests assert the idempotency key" in delivered


HEAVY = ("pydantic", "re2", "pathspec", "httpx", "numpy", "importlib.metadata")
PROBE = f"""
import sys
from cuecard.hooks._hook import main
main(["claude", "PreToolUse"])
print("|" + ",".join(m for m in {HEAVY!r} if m in sys.modules))
"""


def test_the_hot_path_imports_nothing_heavy(repo: Path) -> None:
    code = PROBE
    result = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(edit(repo, "probe")).encode(),
        capture_output=True,
        cwd=repo,
    )
    out = result.stdout.decode()
    assert TRAP in out, result.stderr.decode()
    assert out.rstrip().endswith("|")


GC_PROBE = """
import gc, sys
from cuecard.hooks._hook import main, respond
respond("claude", "PreToolUse", sys.stdin.buffer.read())
main(["claude", "PreToolUse"])
print("|collector on" if gc.isenabled() else "|collector off")
"""


def test_a_library_call_leaves_the_garbage_collector_alone(repo: Path) -> None:
    """The command pauses Python's cyclic collector for its one short process; a process that
    calls the hook (the DSH plugins' worker, a test) keeps its collector running."""
    result = subprocess.run(
        [sys.executable, "-c", GC_PROBE],
        input=json.dumps(edit(repo, "gc")).encode(),
        capture_output=True,
        cwd=repo,
    )
    assert result.stdout.decode().rstrip().endswith("|collector on"), result.stderr.decode()
