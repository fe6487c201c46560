"""Grok Build, the real CLI (``grok -p``), against the scripted model on loopback.

Grok Build 0.2.111 passes what a hook prints on to the model only at Stop, so cuecard holds
the memories an event matches (unclaimed) and gives them in Stop's block reason; everything else
it prints is dropped (see ``cuecard.hooks._atstop``).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.e2e._support import ModelServer, Reply, ToolCall
from tests.e2e._support._harnesses import grok_command, grok_env, require, run
from tests.e2e._support._project import (
    ASK,
    DECISION,
    PROCEDURE,
    PROPOSAL,
    SUBMITTED,
    TRAP,
    Project,
    assert_left_alone,
    vault_env,
)

FEEDBACK = "Stop hook feedback:"


@pytest.fixture(autouse=True)
def _installed() -> None:
    require("grok")


def grok(project: Project, prompt: str, script: list[Reply]) -> ModelServer:
    with ModelServer(script) as server:
        done = run(grok_command(prompt), cwd=project.root, env=grok_env(project.env, server.url))
    assert done.returncode == 0, done.stderr[-2000:]
    assert server.spent, [r.reply for r in server.main_requests]
    return server


def call(name: str, **args: str) -> Reply:
    return Reply(tool_calls=[ToolCall(name, args)])


def edit(old: str, new: str) -> Reply:
    return call("search_replace", file_path="src/billing/charge.py", old_string=old, new_string=new)


def shell(command: str) -> Reply:
    return call("run_terminal_command", command=command, description="run it")


def test_memories_of_a_read_and_an_edit_reach_the_model_at_stop_once(
    new_project: Callable[..., Project],
) -> None:
    project = new_project("grok")
    server = grok(project, "Look at the provider decision, then fix charge.", [
        call("read_file", target_file="docs/adr/0001-provider.md"),
        edit("order.total", "order.amount"),
        edit("order.amount", "order.amount_due"),
        Reply("Done."),
        Reply("Checked: nothing to change."),
    ])  # fmt: skip
    asked = server.main_requests
    assert len(asked) == 5
    # nothing reached the model before the turn ended (Grok drops it; cuecard held it)
    assert all(r.count("<memory-data") == 0 for r in asked[:4])
    # at Stop, both memories, once, as feedback the agent acts on in the same turn
    assert server.first_with(DECISION) == 4
    assert server.first_with(TRAP) == 4
    last = asked[-1]
    assert last.count(DECISION) == 1
    assert last.count(TRAP) == 1
    assert last.count(FEEDBACK) == 1
    # the second Stop (stopHookActive) neither repeats them nor keeps the agent working
    stops = [c for c in project.calls if c["argv"] == ["grok", "Stop"]]
    assert [bool(c["stdout"]) for c in stops] == [True, False]
    assert stops[1]["payload"]["stopHookActive"] is True


def test_a_prompt_keyword_reaches_the_model_at_the_end_of_the_turn(
    new_project: Callable[..., Project],
) -> None:
    project = new_project("grok")
    server = grok(project, "Please deploy the fix to staging.", [Reply("On it."), Reply("Ok.")])
    first, second = server.main_requests
    assert first.count(PROCEDURE) == 0  # Grok drops UserPromptSubmit's context
    assert second.count(PROCEDURE) == 1
    assert second.count(FEEDBACK) == 1
    # the prompt reached the hook as the user typed it, out of Grok's <user_query> wrapper
    prompt = next(c for c in project.calls if c["argv"] == ["grok", "UserPromptSubmit"])
    assert prompt["payload"]["prompt"].startswith("<user_query>")


def test_capture_a_fix_then_the_ask_then_the_proposal_is_stored_and_answered(
    new_project: Callable[..., Project],
) -> None:
    project = new_project("grok")
    server = grok(project, "Make check.sh pass.", [
        shell("./check.sh"),
        edit("order.total", "order.amount"),
        shell("./check.sh"),
        Reply("Fixed."),
        call("write", file_path=".cuecard/inbox/check.json", content=json.dumps(PROPOSAL)),
        Reply("Saved."),
        Reply("Noted."),
    ])  # fmt: skip
    asked = server.main_requests
    # Stop's ask reached the model once, after the turn ended, with the edit's memory
    assert server.first_with(ASK) == 4
    assert asked[-1].count(ASK) == 1
    assert asked[4].count(TRAP) == 1
    # the proposal is stored, and cuecard's answer reached the model at the next Stop
    stored = [m for m in project.memories() if m["title"] == PROPOSAL["title"]]
    assert len(stored) == 1
    assert server.first_with("cuecard activated memory") == 6
    # the failure was read from Grok's PostToolUse (toolResult.exit_code)
    posts = [c for c in project.calls if c["argv"] == ["grok", "PostToolUse"]]
    assert posts[0]["payload"]["toolResult"]["exit_code"] == 1


def test_nothing_happens_in_a_project_that_did_not_opt_in(
    new_project: Callable[..., Project],
) -> None:
    # --user hooks (~/.grok/hooks, always trusted) run cuecard-hook by its path: the logging one's
    project = new_project("grok", opt_in=False, user=True, install=["--hook-command", "{recorder}"])
    assert "cuecard-hook" in (project.home / ".grok/hooks/cuecard.json").read_text()
    before = project.tree()
    server = grok(project, "Please deploy the fix.", [
        call("read_file", target_file="docs/adr/0001-provider.md"),
        edit("order.total", "order.amount"),
        Reply("Done."),
    ])  # fmt: skip
    # the hooks ran, stayed silent and changed nothing
    assert_left_alone(project, before, server, {"SessionStart", "PreToolUse", "Stop"})


def test_an_untrusted_folder_runs_no_hooks_doctor_says_so_and_the_given_step_trusts_it(
    new_project: Callable[..., Project],
) -> None:
    project = new_project("grok", install=["--no-trust"])
    trust_file = project.home / ".grok" / "trusted_folders.toml"
    assert not trust_file.exists()
    report = json.loads(project.cuecard("install", "grok", "--no-trust", "--json").stdout)
    note = next(n for n in report["notes"] if n.startswith("Grok Build skips the project's hooks"))
    doctor = json.loads(project.cuecard("doctor", "--json", check=False).stdout)
    assert any("Grok Build skips the project's hooks" in p["message"] for p in doctor["problems"])
    script = [Reply("On it."), Reply("Ok.")]
    server = grok(project, "Please deploy the fix to staging.", script[:1])
    assert project.calls == []
    assert server.main_requests[0].count(PROCEDURE) == 0
    # the exact step the installer gave: the table to add
    table = note.split(f"add to {trust_file}:\n", 1)[1]
    trust_file.parent.mkdir(parents=True, exist_ok=True)
    trust_file.write_text(table, encoding="utf-8")
    doctor = json.loads(project.cuecard("doctor", "--json", check=False).stdout)
    assert not [p for p in doctor["problems"] if "Grok" in p["message"]], doctor["problems"]
    server = grok(project, "Please deploy the fix to staging.", script)
    assert server.main_requests[1].count(PROCEDURE) == 1


def test_install_records_the_trust_grok_reads(new_project: Callable[..., Project]) -> None:
    project = new_project("grok")
    text = (project.home / ".grok" / "trusted_folders.toml").read_text("utf-8")
    assert f'[folders."{project.root.resolve()}"]' in text
    assert "trusted = true" in text
    again = json.loads(project.cuecard("install", "grok", "--json").stdout)
    assert str(project.home / ".grok" / "trusted_folders.toml") not in again["written"]
    assert any(n.startswith("Grok Build already trusts") for n in again["notes"])


def test_the_model_searches_the_vault_and_submits_through_the_mcp_server(
    new_project: Callable[..., Project],
) -> None:
    """`cuecard install grok` registered `cuecard mcp` in `.grok/config.toml` (a trusted folder):
    the model finds the tools with search_tool and calls them with use_tool; the search result,
    wrapped, is in its next request, the submitted fact in the vault's inbox."""
    project = new_project("grok")
    vault, env = vault_env(project)
    committed = (project.root / ".grok/config.toml").read_text()
    assert str(project.home) not in committed
    assert str(project.root) not in committed
    search = {"query": "staging database port"}
    script = [
        Reply(tool_calls=[ToolCall("search_tool", {"query": "cuecard memory search submit"})]),
        Reply(tool_calls=[ToolCall("use_tool", {"tool_name": "cuecard__memory_search",
                                                "tool_input": search})]),
        Reply(tool_calls=[ToolCall("use_tool", {"tool_name": "cuecard__memory_submit",
                                                "tool_input": {"facts": SUBMITTED}})]),
        Reply("Done."),
    ]  # fmt: skip
    with ModelServer(script) as server:
        done = run(grok_command("Which port does the staging database use?"), cwd=project.root,
                   env=grok_env(env, server.url))  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert server.spent, (done.stdout[-3000:], done.stderr[-2000:])
    asked = server.main_requests
    assert any("memory_search" in s for s in asked[1].strings()), "search_tool found the tools"
    found = [s for s in asked[2].strings() if "port 5433" in s]
    assert found, "the search result is in the next request"
    assert "<memory-data" in found[0]
    assert "</memory-data>" in found[0]
    assert any("submitted 1 fact(s)" in s for s in asked[3].strings())
    inbox = list((vault / "inbox").glob("grok-*.md"))
    assert len(inbox) == 1
    assert SUBMITTED in inbox[0].read_text()
