"""Grok Build: its payloads, delivery at Stop (the only event whose output reaches its model) and
its folder trust. The real CLI runs in tests/e2e/test_grok.py; these cover the edges."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from cuecard.core.harnesses import grok_findings, grok_folder_trust, read_trust
from cuecard.hooks._groktrustwrite import trust_grok_folder
from cuecard.hooks._harness import normalise
from cuecard.hooks._hook import respond

TRAP = "charge() is not idempotent"
DECISION = "One payment provider until 2027"


def grok(root: Path, event: str, session: str, **fields: Any) -> dict[str, Any] | None:
    payload = {"hookEventName": event, "sessionId": session, "cwd": str(root),
               "workspaceRoot": f"{root}/", "permissionMode": "bypassPermissions",
               **fields}  # fmt: skip
    out = respond("grok", event, json.dumps(payload).encode())
    return json.loads(out) if out else None


def stop(root: Path, session: str, *, active: bool = False, reason: str = "end_turn") -> str:
    answer = grok(root, "stop", session, reason=reason, stopHookActive=active,
                  lastAssistantMessage="Done.", backgroundTasks=[], sessionCrons=[])  # fmt: skip
    return str(answer["reason"]) if answer else ""


def read_adr(root: Path, session: str) -> dict[str, Any] | None:
    return grok(root, "pre_tool_use", session, toolName="read_file", toolUseId="c1",
                toolInput={"target_file": "docs/adr/0001-provider.md"})  # fmt: skip


def edit_charge(root: Path, session: str) -> dict[str, Any] | None:
    args = {"file_path": "src/billing/charge.py", "old_string": "order.total",
            "new_string": "order.amount"}  # fmt: skip
    return grok(root, "pre_tool_use", session, toolName="search_replace", toolInput=args)


@pytest.fixture(autouse=True)
def _no_project_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CUECARD_PROJECT_DIR", raising=False)


# -- payloads -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("harness", "payload", "expected"),
    [
        ("grok", {"hookEventName": "pre_tool_use", "sessionId": "s", "toolName": "write"},
         {"hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "write"}),
        ("grok", {"sessionId": "camel", "session_id": "snake"},
         {"sessionId": "camel", "session_id": "snake"}),
        ("grok", {"prompt": "<user_query>\nno, use X instead\n</user_query>"},
         {"prompt": "no, use X instead"}),
        ("grok", {"prompt": "<user_query> only opened"}, {"prompt": "<user_query> only opened"}),
        ("grok", {"toolResult": {"exit_code": 1}, "stopHookActive": True},
         {"tool_response": {"exit_code": 1}, "stop_hook_active": True}),
        ("opencode", {"prompt": '"no, use X instead"'}, {"prompt": "no, use X instead"}),
        ("opencode", {"prompt": '"say \\"hi\\" please"'}, {"prompt": 'say "hi" please'}),
        ("opencode", {"prompt": '"a" and "b"'}, {"prompt": '"a" and "b"'}),
        ("claude", {"prompt": '"quoted"'}, {"prompt": '"quoted"'}),
    ],
    ids=["grok-keys", "snake-wins", "user-query", "half-wrapped", "result", "opencode-quotes",
         "escaped-quotes", "two-quoted", "claude-as-is"],
)  # fmt: skip
def test_payloads_read_into_claude_code_names(
    harness: str, payload: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert normalise(harness, payload) == expected


# -- delivery at Stop -----------------------------------------------------------------------------


def test_held_at_the_tool_call_given_at_stop_once_and_claimed_only_then(fresh_repo: Path) -> None:
    assert read_adr(fresh_repo, "g1") is None  # Grok would drop it: nothing printed
    assert edit_charge(fresh_repo, "g1") is None
    assert edit_charge(fresh_repo, "g1") is None
    ledger = fresh_repo / ".cuecard/local/sessions/g1/e0"
    assert not ledger.exists()  # nothing claimed before it reached the model
    first = stop(fresh_repo, "g1")
    assert first.count(DECISION) == 1
    assert first.count(TRAP) == 1
    assert first.startswith("cuecard: project knowledge for what you did this turn")
    assert first.count("<memory-data") == 1
    assert stop(fresh_repo, "g1") == ""  # given once per epoch
    assert edit_charge(fresh_repo, "g1") is None
    assert stop(fresh_repo, "g1") == ""


def test_match_as_grok_shows_the_memories_held_until_stop(
    fresh_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from cuecard.core.cli import main

    monkeypatch.chdir(fresh_repo)
    argv = ["match", "--event", "edit", "--path", "src/billing/charge.py"]
    assert main([*argv, "--harness", "grok", "--json"]) == 0
    held = json.loads(capsys.readouterr().out)
    assert held["held_until"] == "Stop"
    assert [d["title"] for d in held["deliveries"]] == [TRAP]
    assert main([*argv, "--harness", "claude", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["held_until"] is None
    assert main([*argv, "--harness", "grok"]) == 0
    text = capsys.readouterr().out
    assert "reach the model when the turn ends (Stop)" in text
    assert edit_charge(fresh_repo, "g2") is None  # what the hook itself does: nothing now
    assert TRAP in stop(fresh_repo, "g2")  # and the same memory at Stop


def test_a_stop_after_a_continuation_or_at_session_end_gives_nothing_and_claims_nothing(
    fresh_repo: Path,
) -> None:
    edit_charge(fresh_repo, "g2")
    assert stop(fresh_repo, "g2", active=True) == ""  # the agent already continued once
    assert stop(fresh_repo, "g2", reason="channel_closed") == ""  # Grok ignores this one
    assert stop(fresh_repo, "g2", reason="shutdown") == ""
    assert TRAP in stop(fresh_repo, "g2")  # still held: the next genuine end of turn has it


@pytest.mark.parametrize("event", ["session_start", "post_compact"])
def test_a_compaction_drops_what_the_old_epoch_held(fresh_repo: Path, event: str) -> None:
    edit_charge(fresh_repo, "g3")
    assert TRAP in stop(fresh_repo, "g3")
    edit_charge(fresh_repo, "g3")
    grok(fresh_repo, event, "g3", source="compact")
    assert stop(fresh_repo, "g3") == ""  # held before the compaction: not given after it
    edit_charge(fresh_repo, "g3")
    assert TRAP in stop(fresh_repo, "g3")  # a new epoch: given again


def test_a_prompt_keyword_and_a_correction_in_user_query(fresh_repo: Path) -> None:
    wrapped = "<user_query>\nPlease deploy it.\n</user_query>"
    assert grok(fresh_repo, "user_prompt_submit", "g4", prompt=wrapped) is None
    assert "Deploy with make deploy-staging" in stop(fresh_repo, "g4")
    args = {"file_path": "src/billing/charge.py", "old_string": "a", "new_string": "b"}
    grok(fresh_repo, "post_tool_use", "g4", toolName="search_replace", toolInput=args,
         toolResult={"type": "SearchReplace"})  # fmt: skip
    stop(fresh_repo, "g4")
    correction = "<user_query>\nNo, that's wrong: keep the key, I told you.\n</user_query>"
    grok(fresh_repo, "user_prompt_submit", "g4", prompt=correction)
    assert "the user corrected you" in stop(fresh_repo, "g4")


def test_a_failed_command_fixed_asks_and_the_answer_to_the_proposal_comes_at_the_next_stop(
    fresh_repo: Path,
) -> None:
    def shell(code: int) -> None:
        grok(fresh_repo, "post_tool_use", "g5", toolName="run_terminal_command",
             toolInput={"command": "pytest -q", "description": "tests"},
             toolResult={"type": "Bash", "exit_code": code,
                         "output_for_prompt": f"exit: {code}"})  # fmt: skip

    grok(fresh_repo, "user_prompt_submit", "g5", prompt="<user_query>\nfix it\n</user_query>")
    shell(1)
    grok(fresh_repo, "post_tool_use", "g5", toolName="search_replace",
         toolInput={"file_path": "src/billing/charge.py", "old_string": "a", "new_string": "b"},
         toolResult={"type": "SearchReplace"})  # fmt: skip
    shell(0)
    assert "`pytest` failed, then succeeded after a change" in stop(fresh_repo, "g5")
    inbox = fresh_repo / ".cuecard/inbox/bad.json"
    inbox.write_text('{"topic": "x"}', encoding="utf-8")
    answer = grok(fresh_repo, "post_tool_use", "g5", toolName="write",
                  toolInput={"file_path": ".cuecard/inbox/bad.json", "content": "{}"},
                  toolResult={"type": "SearchReplace"})  # fmt: skip
    assert answer is None  # Grok would drop it
    given = stop(fresh_repo, "g5", active=True)
    assert given.startswith("cuecard refused bad.json")
    assert stop(fresh_repo, "g5", active=True) == ""  # once


def test_a_broken_held_file_is_read_past(fresh_repo: Path) -> None:
    edit_charge(fresh_repo, "g6")
    held = fresh_repo / ".cuecard/local/sessions/g6/held.jsonl"
    lines = ["not json", "[1, 2]", '{"epoch": 0, "agent": "", "ids": [["nope", "paths"], 7]}']
    held.write_text("\n".join(lines) + "\n" + held.read_text(), encoding="utf-8")
    assert stop(fresh_repo, "g6").count(TRAP) == 1


# -- folder trust ---------------------------------------------------------------------------------


def test_install_trusts_the_folder_keeping_what_the_file_holds(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir()
    trust_file = home / ".grok" / "trusted_folders.toml"
    trust_file.parent.mkdir(parents=True)
    trust_file.write_text('# mine\n[folders."/elsewhere"]\ntrusted = true\n', encoding="utf-8")
    written, notes = trust_grok_folder(project, home, trust=True, environ={}, clock=100)
    assert written == [str(trust_file)]
    assert notes[0].startswith(f"trusted {project}")
    text = trust_file.read_text("utf-8")
    assert text.startswith('# mine\n[folders."/elsewhere"]')
    assert grok_folder_trust(tomllib.loads(text), project) == ("trusted", str(project))
    assert trust_grok_folder(project, home, trust=True, environ={})[0] == []  # idempotent
    assert grok_findings("project", project, home, {}) == []


@pytest.mark.parametrize(
    ("content", "env", "expected"),
    [
        ('[folders."{parent}"]\ntrusted = true\n', {}, "Grok Build already trusts {parent}"),
        ('[folders."{project}"]\ntrusted = false\n', {}, "Grok Build skips the project's hooks"),
        ("[folders\nbroken", {}, "Grok Build trust not recorded"),
        ("", {"GROK_FOLDER_TRUST": "0"}, "Grok Build's folder trust is off here"),
    ],
    ids=["parent-trusted", "distrusted", "unparseable", "gate-off"],
)
def test_install_leaves_trust_alone_where_it_must(
    tmp_path: Path, content: str, env: dict[str, str], expected: str
) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir()
    trust_file = home / ".grok" / "trusted_folders.toml"
    trust_file.parent.mkdir(parents=True)
    text = content.format(parent=tmp_path, project=project)
    trust_file.write_text(text, encoding="utf-8")
    written, notes = trust_grok_folder(project, home, trust=True, environ=env)
    assert written == []
    assert notes[0].startswith(expected.format(parent=tmp_path))
    assert trust_file.read_text("utf-8") == text


def test_no_trust_gives_the_exact_step_and_doctor_sees_it_work(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir()
    written, notes = trust_grok_folder(project, home, trust=False, environ={})
    assert written == []
    assert not (home / ".grok").exists()
    [(problem, message, hint)] = grok_findings("project", project, home, {})
    assert problem
    assert "not trusted" in message
    assert "/hooks-trust" in hint
    assert grok_findings("user", project, home, {}) == []  # ~/.grok/hooks need no trust
    table = notes[0].split(":\n", 1)[1]
    (home / ".grok").mkdir(parents=True)
    (home / ".grok" / "trusted_folders.toml").write_text(table, encoding="utf-8")
    assert grok_folder_trust(read_trust(home), project)[0] == "trusted"
    assert grok_findings("project", project, home, {}) == []


def test_grok_running_claude_codes_hooks_is_served_as_grok(fresh_repo: Path) -> None:
    """Grok Build also runs the hooks in .claude/settings.json: its payload says who it is."""
    args = {"target_file": "docs/adr/0001-provider.md"}
    payload = {"hookEventName": "pre_tool_use", "sessionId": "g7", "cwd": str(fresh_repo),
               "toolName": "read_file", "toolInput": args}  # fmt: skip
    assert respond("claude", "PreToolUse", json.dumps(payload).encode()) == ""  # held
    end = {"hookEventName": "stop", "sessionId": "g7", "cwd": str(fresh_repo),
           "reason": "end_turn", "stopHookActive": False}  # fmt: skip
    answer = json.loads(respond("claude", "Stop", json.dumps(end).encode()))
    assert DECISION in answer["reason"]
