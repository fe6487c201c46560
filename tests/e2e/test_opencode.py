"""OpenCode, the real CLI (``opencode run``), against the scripted model on loopback.

cuecard's plugin appends what it delivers to the tool result; Stop runs when the turn's last
text completes, while the session still runs (``opencode run`` disposes the instance at idle).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial

import pytest

from tests.e2e._support import ModelServer, Reply, ToolCall
from tests.e2e._support._harnesses import (
    opencode_command,
    opencode_env,
    opencode_seed,
    require,
    run,
)
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


@pytest.fixture(autouse=True)
def _installed() -> None:
    require("opencode")


def opencode(project: Project, prompt: str, script: list[Reply]) -> ModelServer:
    with ModelServer(script) as server:
        done = run(opencode_command(prompt), cwd=project.root,
                   env=opencode_env(project.env, server.url), timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert server.spent, [r.reply for r in server.main_requests]
    return server


def call(name: str, **args: str) -> Reply:
    return Reply(tool_calls=[ToolCall(name, args)])


def project_for(new_project: Callable[..., Project], **options: object) -> Project:
    """A project as the README sets it up, with what OpenCode installs at start already there
    (``opencode_seed``), so that no run reaches the npm registry."""
    return new_project("opencode", prepare=opencode_seed, **options)


def tool_results(request: object) -> list[str]:
    messages = getattr(request, "body", {}).get("messages", [])
    return [str(m.get("content")) for m in messages if m.get("role") == "tool"]


def test_a_memory_reaches_the_model_in_the_tool_result_at_a_read_and_an_edit_once(
    new_project: Callable[..., Project],
) -> None:
    project = project_for(new_project)
    charge = str(project.root / "src/billing/charge.py")
    server = opencode(project, "Look at the provider decision, then fix charge.", [
        call("read", filePath=str(project.root / "docs/adr/0001-provider.md")),
        call("read", filePath=charge),
        call("edit", filePath=charge, oldString="order.total", newString="order.amount"),
        call("edit", filePath=charge, oldString="order.amount", newString="order.amount_due"),
        Reply("Done."),
    ])  # fmt: skip
    asked = server.main_requests
    assert len(asked) == 5
    assert server.first_with(DECISION) == 1
    assert server.first_with(TRAP) == 3
    results = tool_results(asked[-1])
    assert DECISION in results[0]
    assert TRAP in results[2]
    assert TRAP not in results[3]
    assert asked[-1].count("<memory-data") == 2
    assert "amount_due" in (project.root / "src/billing/charge.py").read_text()


def user_messages(request: object) -> str:
    messages = getattr(request, "body", {}).get("messages", [])
    return json.dumps([m for m in messages if m.get("role") == "user"])


def test_a_prompt_keyword_reaches_the_model_in_a_turn_with_no_tool_call(
    new_project: Callable[..., Project],
) -> None:
    project = project_for(new_project)
    claimed = project.root / ".cuecard/local/maintain.spawn"
    assert not claimed.exists()
    server = opencode(project, "How do we deploy to staging?", [Reply("With make.")])
    assert claimed.is_file()  # the plugin's start ran the day's maintenance
    (asked,) = server.main_requests
    # in the user's message, after the prompt; the system prompt is left alone
    assert asked.count(PROCEDURE) == 1
    user = user_messages(asked)
    assert user.index("How do we deploy to staging?") < user.index(PROCEDURE)
    assert "<memory-data" in user


def test_a_prompt_keyword_stays_in_the_users_message_through_the_turn(
    new_project: Callable[..., Project],
) -> None:
    project = project_for(new_project)
    server = opencode(project, "Please deploy the fix to staging.", [
        call("read", filePath=str(project.root / "docs/adr/0001-provider.md")),
        Reply("On it."),
    ])  # fmt: skip
    first, second = server.main_requests
    assert first.count(PROCEDURE) == 1
    assert second.count(PROCEDURE) == 1  # the same place in every request, not repeated
    assert PROCEDURE in user_messages(second)
    assert PROCEDURE not in tool_results(second)[0]
    # `opencode run` quotes the prompt; cuecard-hook reads it as typed
    prompt = next(c for c in project.calls if c["argv"] == ["opencode", "UserPromptSubmit"])
    assert prompt["payload"]["prompt"] == '"Please deploy the fix to staging."'


def test_capture_in_opencode_run_the_ask_the_proposal_and_the_answer(
    new_project: Callable[..., Project],
) -> None:
    project = project_for(new_project)
    charge = str(project.root / "src/billing/charge.py")
    inbox = str(project.root / ".cuecard/inbox/check.json")
    server = opencode(project, "Make check.sh pass.", [
        call("bash", command="./check.sh", description="check"),
        call("read", filePath=charge),
        call("edit", filePath=charge, oldString="order.total", newString="order.amount"),
        call("bash", command="./check.sh", description="check"),
        Reply("Fixed."),
        call("write", filePath=inbox, content=json.dumps(PROPOSAL)),
        Reply("Saved."),
    ])  # fmt: skip
    asked = server.main_requests
    # Stop's ask reached the model once, in the same run, as a user message after the turn
    assert server.first_with(ASK) == 5
    assert asked[-1].count(ASK) == 1
    messages = asked[5].body["messages"]
    assert messages[-1]["role"] == "user"
    assert ASK in json.dumps(messages[-1])
    # the proposal is stored and cuecard's answer reached the model in the tool result
    stored = [m for m in project.memories() if m["title"] == PROPOSAL["title"]]
    assert len(stored) == 1
    assert server.first_with("cuecard activated memory") == 6
    stops = [c for c in project.calls if c["argv"] == ["opencode", "Stop"]]
    assert [bool(c["stdout"]) for c in stops] == [True, False]
    assert [c["payload"]["stop_hook_active"] for c in stops] == [False, True]


def test_nothing_happens_in_a_project_that_did_not_opt_in(
    new_project: Callable[..., Project],
) -> None:
    # --user: ~/.config/opencode/plugins/cuecard.js runs cuecard-hook by its path (the logging one)
    project = new_project("opencode", opt_in=False, user=True,
                          prepare=partial(opencode_seed, in_project=False),
                          install=["--hook-command", "{recorder}"])  # fmt: skip
    assert (project.home / ".config/opencode/plugins/cuecard.js").is_file()
    before = project.tree()
    charge = str(project.root / "src/billing/charge.py")
    server = opencode(project, "Please deploy the fix.", [
        call("read", filePath=charge),
        call("edit", filePath=charge, oldString="order.total", newString="order.amount"),
        Reply("Done."),
    ])  # fmt: skip
    # the hooks ran, stayed silent and changed nothing
    assert_left_alone(project, before, server,
                      {"SessionStart", "UserPromptSubmit", "PreToolUse", "Stop"})  # fmt: skip


def test_the_model_searches_the_vault_and_submits_through_the_mcp_server(
    new_project: Callable[..., Project],
) -> None:
    """`cuecard install opencode` registered `cuecard mcp` in `opencode.json`: the model calls
    cuecard_memory_search (the result, wrapped, is in its next request), then
    cuecard_memory_submit (the fact is in the vault's inbox, under the agent opencode)."""
    project = project_for(new_project)
    vault, env = vault_env(project)
    committed = (project.root / "opencode.json").read_text()
    assert str(project.home) not in committed
    assert str(project.root) not in committed
    script = [
        call("cuecard_memory_search", query="staging database port"),
        call("cuecard_memory_submit", facts=SUBMITTED),
        Reply("Done."),
    ]
    with ModelServer(script) as server:
        done = run(opencode_command("Which port does the staging database use?"),
                   cwd=project.root, env=opencode_env(env, server.url), timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert server.spent, [r.reply for r in server.main_requests]
    asked = server.main_requests
    assert "cuecard_memory_search" in asked[0].tool_names()
    found = [s for s in tool_results(asked[1]) if "port 5433" in s]
    assert found, "the search result is in the next request"
    assert "<memory-data" in found[0]
    assert "</memory-data>" in found[0]
    assert any("submitted 1 fact(s)" in s for s in tool_results(asked[2]))
    inbox = list((vault / "inbox").glob("opencode-*.md"))
    assert len(inbox) == 1
    assert SUBMITTED in inbox[0].read_text()
