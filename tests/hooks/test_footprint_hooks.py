"""What the hooks write to the session footprint, read back as ingestion and Stop read it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cuecard.core.engine import Footprint
from cuecard.hooks._hook import respond


def post(root: Path, session: str, tool: str, args: dict[str, Any], response: Any,
         event: str = "PostToolUse", **extra: Any) -> str:  # fmt: skip
    payload = {"session_id": session, "cwd": str(root), "tool_name": tool, "tool_input": args,
               "tool_response": response, **extra}  # fmt: skip
    return respond("claude", event, json.dumps(payload).encode())


def records(root: Path, session: str) -> list[dict[str, Any]]:
    return Footprint(str(root / ".cuecard" / "local"), session).records()


CHARGE = "src/billing/charge.py"
EDIT = {"file_path": CHARGE, "old_string": "a", "new_string": "b"}
CASES = [
    ("Write", {"file_path": "src/billing/new.py", "content": "x"}, {"type": "create"}, "write"),
    ("Write", {"file_path": CHARGE, "content": "x"}, {"type": "update"}, "edit"),
    ("write", {"filePath": "src/billing/n2.py"}, {"metadata": {"exists": False}}, "write"),
    ("write", {"filePath": CHARGE, "content": "x"}, {"metadata": {"exists": True}}, "edit"),
    ("Edit", EDIT, {}, "edit"),
    ("Read", {"file_path": "docs/adr/0001-provider.md"}, {}, "read"),
    ("Grep", {"pattern": "charge_customer", "path": "src"}, {}, "search"),
]


@pytest.mark.parametrize(("tool", "args", "response", "kind"), CASES)
def test_kinds_and_paths(repo: Path, tool: str, args: dict[str, Any], response: Any, kind: str,
                         monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.chdir(repo)
    session = f"fp-{tool}-{kind}-{len(json.dumps(args))}"
    assert post(repo, session, tool, args, response) == ""
    [record] = records(repo, session)
    assert record["kind"] == kind
    assert record["paths"] == [args.get("file_path") or args.get("filePath") or args.get("path")]


def test_outcomes_commands_and_patterns(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    session = "fp-outcomes"
    bash = {"command": "API_TOKEN=sk-abcdefghijklmnop123 pytest -q tests | grep -n FAIL"}
    post(repo, session, "Bash", bash, None, "PostToolUseFailure", error="exit 1")
    post(repo, session, "Bash", {"command": "ls"}, {"stdout": "", "interrupted": False})
    post(repo, session, "Bash", {"command": "make"}, "Process exited with code 2\noutput")
    post(repo, session, "bash", {"command": "npm test"}, {"metadata": {"exit": 0}})
    post(repo, session, "Bash", {"command": "true"}, "no status here")
    found = records(repo, session)
    assert [r["outcome"] for r in found] == ["fail", "ok", "fail", "ok", "unknown"]
    assert found[2]["exit"] == 2
    assert found[3]["exit"] == 0
    assert "sk-abcdefghijklmnop123" not in found[0]["command"]
    assert found[0]["patterns"] == ["FAIL"]
    assert found[0]["kind"] == "run"


def test_subagents_and_prompts(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    session = "fp-agents"
    edit = {"file_path": "src/billing/charge.py", "old_string": "a", "new_string": "b"}
    post(repo, session, "Edit", edit, {}, agent_id="agent-9")
    prompt = {"session_id": session, "cwd": str(repo), "prompt": "Add a refund flow for orders"}
    respond("claude", "UserPromptSubmit", json.dumps(prompt).encode())
    found = records(repo, session)
    assert found[0]["agent"] == "agent-9"
    assert found[1] == {"t": found[1]["t"], "e": "prompt"}  # no text kept
    assert (
        "refund" not in (repo / ".cuecard/local/sessions" / session / "footprint.jsonl").read_text()
    )


def test_no_session_no_footprint(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    edit = {"file_path": "src/billing/charge.py", "old_string": "a", "new_string": "b"}
    assert post(repo, "", "Edit", edit, {}) == ""
    assert not (repo / ".cuecard/local/sessions/_").exists()
