"""Proposals through the hooks: written by any tool (the shell too) and ingested in the same turn,
answered without credentials, with triggers suggested outside ``.cuecard/``, auto-accepted on a
correction only when the correction names the memory, and telemetry that says why not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests._support.hooks import run_hook

SESSION = "proposals"
PROPOSAL: dict[str, Any] = {
    "topic": "billing/charge-retries",
    "kind": "trap",
    "title": "Charge retries need the order's idempotency key",
    "body": "Retrying provider.charge without the order's key charges the customer twice.",
    "not_derivable": "The provider's sandbox never double-charges, so tests pass.",
    "triggers": [{"on": ["edit"], "paths": ["src/billing/charge.py"]}],
}


def payload(root: Path, event: str, **fields: Any) -> dict[str, Any]:
    return {"session_id": SESSION, "cwd": str(root), "hook_event_name": event, **fields}


def post_tool(root: Path, tool: str, args: dict[str, Any], response: dict[str, Any]) -> bytes:
    """Claude Code's PostToolUse of a ``tool`` call; what the hook printed."""
    answer = run_hook(
        "claude",
        "PostToolUse",
        payload(root, "PostToolUse", tool_name=tool, tool_input=args, tool_response=response),
        cwd=root,
    )
    assert answer.returncode == 0
    return answer.stdout


def shell(root: Path, command: str) -> dict[str, Any] | None:
    """The PostToolUse of a Bash call that ran ``command``; the hook's answer."""
    out = post_tool(
        root, "Bash", {"command": command}, {"stdout": "", "stderr": "", "interrupted": False}
    )
    return json.loads(out) if out.strip() else None


def context(answer: dict[str, Any] | None) -> str:
    assert answer is not None
    return str(answer["hookSpecificOutput"]["additionalContext"])


def heredoc(name: str, proposal: dict[str, Any] | str) -> str:
    text = proposal if isinstance(proposal, str) else json.dumps(proposal, indent=2)
    return f"cat > .cuecard/inbox/{name} <<'EOF'\n{text}\nEOF"


def run_it(root: Path, name: str, proposal: dict[str, Any] | str, folder: str = "") -> None:
    """What the agent's shell did: write the file."""
    text = proposal if isinstance(proposal, str) else json.dumps(proposal, indent=2)
    (root / ".cuecard/inbox" / folder / name).write_text(text + "\n", encoding="utf-8")


def left_in_inbox(root: Path) -> list[str]:
    return sorted(p.name for p in (root / ".cuecard/inbox").glob("*.json"))


def test_a_proposal_written_through_the_shell_is_ingested_at_once(fresh_repo: Path) -> None:
    proposal = {**PROPOSAL, "evidence": [{"kind": "file", "ref": "src/billing/charge.py"}]}
    run_it(fresh_repo, "shell.json", proposal)
    message = context(shell(fresh_repo, heredoc("shell.json", proposal)))
    assert message.startswith("cuecard activated memory"), message
    assert left_in_inbox(fresh_repo) == []


def test_a_shell_command_that_does_not_name_the_inbox_ingests_nothing(fresh_repo: Path) -> None:
    run_it(fresh_repo, "later.json", PROPOSAL)
    assert shell(fresh_repo, "pytest -q") is None
    assert left_in_inbox(fresh_repo) == ["later.json"]


def test_a_proposal_the_hooks_did_not_see_is_ingested_at_stop(fresh_repo: Path) -> None:
    run_it(fresh_repo, "hidden.json", PROPOSAL)  # e.g. `cd .cuecard && cat > inbox/hidden.json`
    (fresh_repo / ".cuecard/inbox/link.json").symlink_to(fresh_repo / "src/billing/charge.py")
    answer = run_hook("claude", "Stop", payload(fresh_repo, "Stop"), cwd=fresh_repo)
    stop = json.loads(answer.stdout)
    assert stop["decision"] == "block"
    assert "cuecard stored candidate" in stop["reason"] or "activated" in stop["reason"]
    assert left_in_inbox(fresh_repo) == ["link.json"]  # a link is never taken, nor reported
    assert "link.json" not in stop["reason"]
    again = run_hook("claude", "Stop", payload(fresh_repo, "Stop"), cwd=fresh_repo)
    assert again.stdout == b""


def test_an_inbox_that_is_a_link_is_never_emptied(fresh_repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.json").write_text(json.dumps(PROPOSAL))
    inbox = fresh_repo / ".cuecard/inbox"
    inbox.rmdir()
    inbox.symlink_to(elsewhere)
    assert shell(fresh_repo, "ls .cuecard/inbox") is None
    answer = run_hook("claude", "Stop", payload(fresh_repo, "Stop"), cwd=fresh_repo)
    assert answer.returncode == 0
    assert b"keep.json" not in answer.stdout
    assert (elsewhere / "keep.json").is_file()


def test_the_reply_never_holds_a_credential_key(fresh_repo: Path) -> None:
    aws = "AKIAZZQQ7SECTEST1234"
    nested = {**PROPOSAL, "triggers": [{**PROPOSAL["triggers"][0], aws: 1}]}
    text = json.dumps(nested).replace(aws, "\\u0041" + aws[1:])
    message = write_proposal(fresh_repo, "key.json", text)
    assert message.startswith("cuecard refused key.json"), message
    assert aws not in message
    assert aws[4:] not in message
    [kept] = (fresh_repo / ".cuecard/local/inbox-refused").iterdir()
    assert aws[4:] not in kept.read_text(encoding="utf-8")


def edit(root: Path, rel: str) -> None:
    path = str(root / rel)
    post_tool(
        root, "Edit", {"file_path": path, "old_string": "a", "new_string": "b"}, {"filePath": path}
    )


def write_proposal(root: Path, name: str, proposal: dict[str, Any] | str) -> str:
    """Write a proposal with the Write tool; the hook's reply."""
    text = proposal if isinstance(proposal, str) else json.dumps(proposal)
    target = root / ".cuecard/inbox" / name
    target.write_text(text, encoding="utf-8")
    out = post_tool(
        root,
        "Write",
        {"file_path": str(target), "content": text},
        {"type": "create", "filePath": str(target)},
    )
    return context(json.loads(out))


def test_suggested_triggers_leave_out_cuecard_files(fresh_repo: Path) -> None:
    edit(fresh_repo, "src/billing/charge.py")
    write_proposal(fresh_repo, "first.json", {"topic": "x"})  # refused: its write is in the trail
    write_proposal(fresh_repo, "second.json", {"topic": "y"})
    proposal = {k: v for k, v in PROPOSAL.items() if k != "triggers"}
    message = write_proposal(fresh_repo, "suggest.json", proposal)
    assert "Triggers were suggested from this session" in message, message
    suggested = message.split("Triggers were suggested from this session: ", 1)[1]
    assert "src/billing/**" in suggested
    assert ".cuecard" not in suggested


def prompt(root: Path, text: str) -> None:
    answer = run_hook(
        "claude", "UserPromptSubmit", payload(root, "UserPromptSubmit", prompt=text), cwd=root
    )
    assert answer.returncode == 0


def telemetry(root: Path) -> list[dict[str, Any]]:
    lines = (root / ".cuecard/local/telemetry/inbox.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_auto_accept_needs_a_correction_that_names_the_memory(fresh_repo: Path) -> None:
    grounded_by_correction = {**PROPOSAL, "evidence": [{"kind": "correction", "ref": SESSION}]}
    edit(fresh_repo, "src/billing/charge.py")
    prompt(fresh_repo, "no, the font should be blue")
    message = write_proposal(fresh_repo, "unrelated.json", grounded_by_correction)
    assert message.startswith("cuecard stored candidate"), message
    assert "does not name this memory" in message
    line = telemetry(fresh_repo)[-1]
    assert line["outcome"] == "candidate"
    assert "unnamed_correction" in line["reasons"]
    prompt(fresh_repo, "that's wrong: retries must pass the idempotency key")
    renamed = {**grounded_by_correction, "topic": "billing/charge-retry-key"}
    message = write_proposal(fresh_repo, "named.json", renamed)
    assert message.startswith("cuecard activated memory"), message
    assert telemetry(fresh_repo)[-1]["outcome"] == "active"


def test_telemetry_says_why_a_candidate_was_not_auto_accepted(fresh_repo: Path) -> None:
    write_proposal(fresh_repo, "plain.json", {**PROPOSAL, "not_derivable": None})
    line = telemetry(fresh_repo)[-1]
    assert line["outcome"] == "candidate"
    assert {"no_verified_evidence", "no_not_derivable"} <= set(line["reasons"])
    assert "charge" not in json.dumps(line)
