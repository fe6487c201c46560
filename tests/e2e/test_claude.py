"""Claude Code, the real CLI (``claude -p``), against the scripted model on loopback."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e._support import ModelServer, Reply, ToolCall
from tests.e2e._support._harnesses import VENV_BIN, claude_command, claude_env, require, run
from tests.e2e._support._project import (
    ASK,
    DECISION,
    FILES,
    PROCEDURE,
    PROPOSAL,
    SUBMITTED,
    TRAP,
    Project,
    assert_left_alone,
    vault_env,
)

TOOLS = ["Read", "Edit", "Write", "Bash(./check.sh)"]


@pytest.fixture(autouse=True)
def _installed() -> None:
    require("claude")


def claude(
    project: Project, prompt: str, script: list[Reply], *, resume: str | None = None
) -> ModelServer:
    with ModelServer(script) as server:
        done = run(claude_command(prompt, tools=TOOLS, resume=resume),
                   cwd=project.root, env=claude_env(project.env, server.url))  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert server.spent, [r.reply for r in server.main_requests]
    return server


def read(path: Path) -> Reply:
    return Reply(tool_calls=[ToolCall("Read", {"file_path": str(path)})])


def edit(path: Path, old: str, new: str) -> Reply:
    return Reply(tool_calls=[ToolCall("Edit", {"file_path": str(path), "old_string": old,
                                               "new_string": new})])  # fmt: skip


def bash(command: str) -> Reply:
    return Reply(tool_calls=[ToolCall("Bash", {"command": command, "description": "check"})])


def test_a_memory_reaches_the_model_at_a_read_and_an_edit_once_per_epoch(
    new_project: Callable[..., Project],
) -> None:
    project = new_project("claude")
    charge = project.root / "src/billing/charge.py"
    server = claude(project, "Look at the provider decision, then fix charge.", [
        read(project.root / "docs/adr/0001-provider.md"),
        read(charge),
        edit(charge, "order.total", "order.amount"),
        edit(charge, "order.amount", "order.amount_due"),
        Reply("Done."),
    ])  # fmt: skip
    asked = server.main_requests
    assert len(asked) == 5
    # the read's memory is in the request right after the read, the edit's after the edit
    assert server.first_with(DECISION) == 1
    assert server.first_with(TRAP) == 3
    last = asked[-1]
    assert last.count(DECISION) == 1
    assert last.count(TRAP) == 1
    assert last.count("<memory-data") == 2
    # Claude Code puts it in a user turn after the tool result, as a system reminder
    reminder = [s for s in asked[3].strings() if TRAP in s]
    assert reminder
    assert "PreToolUse:Edit hook additional context" in reminder[0]
    assert charge.read_text().count("order.amount_due") == 1


def test_a_prompt_keyword_reaches_the_first_request(new_project: Callable[..., Project]) -> None:
    project = new_project("claude")
    server = claude(project, "Please deploy the fix to staging.", [Reply("On it.")])
    first = server.main_requests[0]
    assert first.count(PROCEDURE) == 1
    assert first.count("<memory-data") == 1


def test_nothing_happens_in_a_project_that_did_not_opt_in(
    new_project: Callable[..., Project],
) -> None:
    project = new_project(
        "claude", opt_in=False, user=True, install=["--hook-command", "{recorder}"]
    )
    settings = json.loads((project.home / ".claude/settings.json").read_text())
    assert "cuecard-hook" in json.dumps(settings["hooks"])
    before = project.tree()
    charge = project.root / "src/billing/charge.py"
    server = claude(project, "Please deploy the fix.", [
        read(charge), edit(charge, "order.total", "order.amount"), Reply("Done."),
    ])  # fmt: skip
    # the hooks ran, stayed silent and changed nothing
    assert_left_alone(project, before, server, {"SessionStart", "PreToolUse", "Stop"})


def test_capture_a_fix_then_the_ask_then_the_proposal_is_stored_and_answered(
    new_project: Callable[..., Project],
) -> None:
    project = new_project("claude")
    charge = project.root / "src/billing/charge.py"
    inbox = project.root / ".cuecard/inbox/check.json"
    server = claude(project, "Make check.sh pass.", [
        bash("./check.sh"),
        read(charge),
        edit(charge, "order.total", "order.amount"),
        bash("./check.sh"),
        Reply("Fixed."),
        Reply(tool_calls=[ToolCall("Write", {"file_path": str(inbox),
                                             "content": json.dumps(PROPOSAL, indent=1)})]),
        Reply("Saved."),
    ])  # fmt: skip
    asked = server.main_requests
    assert server.first_with(ASK) == 5
    stored = [m for m in project.memories() if m["title"] == PROPOSAL["title"]]
    assert len(stored) == 1
    assert server.first_with("cuecard activated memory") == 6
    stops = [c for c in project.calls if c["argv"] == ["claude", "Stop"]]
    assert [bool(c["stdout"]) for c in stops] == [True, False]
    assert asked[-1].count("cuecard activated memory") == 1


def test_after_a_compaction_the_memory_is_delivered_again(
    new_project: Callable[..., Project],
) -> None:
    project = new_project("claude")
    charge = project.root / "src/billing/charge.py"

    ids: list[str] = []

    def session(prompt: str, script: list[Reply], resume: str | None = None) -> ModelServer:
        with ModelServer(script) as server:
            done = run(claude_command(prompt, tools=TOOLS, resume=resume), cwd=project.root,
                       env=claude_env(project.env, server.url))  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        assert server.spent, done.stderr[-2000:]
        ids.extend({str(e["session_id"]) for e in done.events() if e.get("session_id")})
        return server

    first = session("Fix charge.", [read(charge), edit(charge, "order.total", "order.amount"),
                                    Reply("Done.")])  # fmt: skip
    assert first.main_requests[-1].count(TRAP) == 1
    sid = ids[0]
    # the same epoch: a second edit in a resumed session delivers nothing new
    again = session("And again.", [read(charge), edit(charge, "order.amount", "order.sum"),
                                   Reply("Done.")], resume=sid)  # fmt: skip
    assert again.main_requests[-1].count(TRAP) == 1  # the first delivery, in the history
    session("/compact", [Reply("Summary: charge() was changed.")], resume=sid)
    starts = [c["payload"].get("source") for c in project.calls if c["argv"][1] == "SessionStart"]
    assert starts[-1] == "compact"
    after = session("Once more.", [read(charge), edit(charge, "order.sum", "order.amount"),
                                   Reply("Done.")], resume=sid)  # fmt: skip
    # the compacted history lost it; the new epoch delivers it again, once
    assert after.main_requests[0].count(TRAP) == 0
    assert after.first_with(TRAP) == 2
    assert after.main_requests[-1].count(TRAP) == 1


def test_the_committed_hooks_hold_no_path_and_are_a_quiet_no_op_without_cuecard(
    new_project: Callable[..., Project],
) -> None:
    project = new_project("claude")
    settings = (project.root / ".claude/settings.json").read_text()
    assert str(VENV_BIN) not in settings
    assert str(project.root) not in settings
    # the local settings approve the MCP server for this person and hold the same portable
    # hooks (for a start in a subfolder): no path either
    local = json.loads((project.root / ".claude/settings.local.json").read_text())
    assert local["enabledMcpjsonServers"] == ["cuecard"]
    assert local["hooks"] == json.loads(settings)["hooks"]
    assert "cuecard mcp" in (project.root / ".mcp.json").read_text()
    # a teammate's machine without cuecard: the same committed file, no cuecard-hook on the PATH
    env = claude_env(project.env, "")
    env["PATH"] = os.pathsep.join(
        p for p in env["PATH"].split(os.pathsep) if p not in (str(VENV_BIN), str(project.recorder))
    )
    assert shutil.which("cuecard-hook", path=env["PATH"]) is None
    charge = project.root / "src/billing/charge.py"
    with ModelServer([read(charge), edit(charge, "order.total", "order.amount"),
                      Reply("Done.")]) as server:  # fmt: skip
        env["ANTHROPIC_BASE_URL"] = server.url
        done = run(claude_command("Please deploy the fix.", tools=TOOLS), cwd=project.root,
                   env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert server.spent, done.stderr[-2000:]
    hooks = [e for e in done.events() if e.get("subtype") == "hook_response"]
    assert {e["hook_event"] for e in hooks} >= {"SessionStart", "PreToolUse", "Stop"}
    assert all((e["exit_code"], e["stdout"], e["stderr"]) == (0, "", "") for e in hooks)
    assert all(r.count("<memory-data") == 0 for r in server.main_requests)
    assert project.calls == []
    # and the MCP server the committed .mcp.json names ended quietly: the session went on


def test_a_session_started_in_a_subfolder_gets_the_memories_once(
    new_project: Callable[..., Project],
) -> None:
    """Claude Code started in a subfolder reads no ``.claude/settings.json`` of the root
    (anthropics/claude-code#86187); ``cuecard install claude`` put the same hooks in the root's
    git-ignored ``settings.local.json``, which it reads from there. At the root, where it reads
    both files, the same command runs once per event."""
    project = new_project("claude")
    charge = project.root / "src/billing/charge.py"
    for start in (project.root / "src/billing", project.root):
        charge.write_text(FILES["src/billing/charge.py"])
        with ModelServer([read(charge), edit(charge, "order.total", "order.amount"),
                          Reply("Done.")]) as server:  # fmt: skip
            done = run(claude_command("Please deploy the fix.", tools=TOOLS), cwd=start,
                       env=claude_env(project.env, server.url))  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        assert server.spent, done.stderr[-2000:]
        asked = server.main_requests
        assert asked[0].count(PROCEDURE) == 1  # the prompt's keyword, before the first answer
        assert server.first_with(TRAP) == 2  # the edit's, right after the edit
        assert asked[-1].count(PROCEDURE) == 1
        assert asked[-1].count(TRAP) == 1
        assert asked[-1].count("<memory-data") == 2
    # each event of the two sessions ran cuecard-hook once: two files, one command
    events = [c["argv"][1] for c in project.calls]
    assert events.count("UserPromptSubmit") == 2
    assert events.count("PreToolUse") == 4
    assert {c["payload"]["cwd"] for c in project.calls} == {
        str(project.root / "src/billing"),
        str(project.root),
    }


def test_a_teammates_clone_started_in_a_subfolder_runs_no_committed_hook(
    new_project: Callable[..., Project],
) -> None:
    """What a clone has before its person runs ``cuecard install claude`` (the committed
    settings.json alone): nothing in a subfolder, which ``cuecard status`` names; a user-level
    install beside the project's runs a second command at the root, and the ledger still
    delivers each memory once."""
    project = new_project("claude")
    local = project.root / ".claude/settings.local.json"
    local.write_text(json.dumps({"enabledMcpjsonServers": ["cuecard"]}))  # as in a clone
    status = json.loads(project.cuecard("status", "--json").stdout)
    assert [s["run"] for s in status["setup"]] == ["cuecard install claude"]
    charge = project.root / "src/billing/charge.py"

    def session(start: Path) -> ModelServer:
        charge.write_text(FILES["src/billing/charge.py"])
        with ModelServer([read(charge), edit(charge, "order.total", "order.amount"),
                          Reply("Done.")]) as server:  # fmt: skip
            done = run(claude_command("Please deploy the fix.", tools=TOOLS), cwd=start,
                       env=claude_env(project.env, server.url))  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        assert server.spent, done.stderr[-2000:]
        return server

    quiet = session(project.root / "src/billing")
    assert project.calls == []
    assert all(r.count("<memory-data") == 0 for r in quiet.main_requests)
    assert project.recorder is not None
    project.cuecard("install", "claude", "--user", "--no-mcp", "--hook-command",
                    str(project.recorder / "cuecard-hook"))  # fmt: skip
    assert json.loads(project.cuecard("status", "--json").stdout)["setup"] == []
    both = session(project.root)
    commands = {c["argv"][1]: 0 for c in project.calls}
    for call in project.calls:
        commands[call["argv"][1]] += 1
    assert commands["PreToolUse"] == 4  # two tool calls, two settings files
    assert both.main_requests[-1].count(PROCEDURE) == 1
    assert both.main_requests[-1].count(TRAP) == 1
    assert both.main_requests[-1].count("<memory-data") == 2


def test_the_model_searches_the_vault_and_submits_through_the_mcp_server(
    new_project: Callable[..., Project],
) -> None:
    """`cuecard install claude` registered `cuecard mcp` in `.mcp.json`: the model calls
    memory_search (the result, wrapped, is in its next request), then memory_submit (the fact is
    in the vault's inbox, under the agent claude-code)."""
    project = new_project("claude")
    vault, env = vault_env(project)
    committed = (project.root / ".mcp.json").read_text()
    assert str(project.home) not in committed
    assert str(project.root) not in committed
    assert "/.venv/" not in committed
    script = [
        Reply(tool_calls=[ToolCall("mcp__cuecard__memory_search",
                                   {"query": "staging database port"})]),
        Reply(tool_calls=[ToolCall("mcp__cuecard__memory_submit", {"facts": SUBMITTED})]),
        Reply("Done."),
    ]  # fmt: skip
    tools = [*TOOLS, "mcp__cuecard__memory_search", "mcp__cuecard__memory_submit"]
    with ModelServer(script) as server:
        done = run(claude_command("Which port does the staging database use?", tools=tools),
                   cwd=project.root, env=claude_env(env, server.url))  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert server.spent, (done.stdout[-3000:], done.stderr[-2000:])
    asked = server.main_requests
    init = next(json.loads(line) for line in done.stdout.splitlines() if '"subtype":"init"' in line)
    servers = [(s["name"], s["source"]) for s in init["mcp_servers"]]
    assert servers == [("cuecard", "project")]  # approved: no prompt in a headless run
    # the server's instructions (when to search, results are data) reach the model
    assert any("Call memory_search before" in s for s in asked[1].strings())
    found = [s for s in asked[1].strings() if "port 5433" in s]
    assert found, "the search result is in the next request"
    assert "<memory-data" in found[0]
    assert "</memory-data>" in found[0]
    assert any("submitted 1 fact(s)" in s for s in asked[2].strings())
    inbox = list((vault / "inbox").glob("claude-code-*.md"))
    assert len(inbox) == 1
    assert SUBMITTED in inbox[0].read_text()
    waiting = json.loads(project.cuecard("review", "--json", "--vault", str(vault)).stdout)
    assert inbox[0].name in waiting["vault"]["inbox"]
