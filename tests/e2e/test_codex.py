"""Codex, the real CLI (``codex exec``), against the scripted model on loopback."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.e2e._support import ModelServer, Reply, ToolCall
from tests.e2e._support._harnesses import (
    VENV_BIN,
    codex_command,
    codex_env,
    codex_hooks_list,
    codex_prepare,
    require,
    run,
)
from tests.e2e._support._project import (
    ASK,
    DECISION,
    PROCEDURE,
    PROPOSAL,
    TRAP,
    Project,
    assert_left_alone,
)


@pytest.fixture(autouse=True)
def _installed() -> None:
    require("codex")


def codex(project: Project, prompt: str, script: list[Reply], **options: bool) -> ModelServer:
    with ModelServer(script) as server:
        done = run(codex_command(prompt, url=server.url, **options), cwd=project.root,
                   env=codex_env(project.env))  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert server.spent, [r.reply for r in server.main_requests]
    return server


def shell(command: str) -> Reply:
    return Reply(tool_calls=[ToolCall("exec_command", {"cmd": command})])


def patch(path: str, old: str, new: str) -> Reply:
    body = f"*** Begin Patch\n*** Update File: {path}\n@@\n-{old}\n+{new}\n*** End Patch\n"
    return Reply(tool_calls=[ToolCall("apply_patch", body)])


def project_for(new_project: Callable[..., Project], **options: object) -> Project:
    return new_project("codex", prepare=codex_prepare, **options)


def test_a_memory_reaches_the_model_at_a_read_and_an_edit_once_per_epoch(
    new_project: Callable[..., Project],
) -> None:
    project = project_for(new_project)
    line = "    return provider.charge(order.total)"
    server = codex(project, "Look at the provider decision, then fix charge.", [
        shell("cat docs/adr/0001-provider.md"),
        patch("src/billing/charge.py", line, line.replace("total", "amount")),
        patch("src/billing/charge.py", line.replace("total", "amount"),
              line.replace("total", "amount_due")),
        Reply("Done."),
    ])  # fmt: skip
    asked = server.main_requests
    assert len(asked) == 4
    assert server.first_with(DECISION) == 1
    assert server.first_with(TRAP) == 2
    last = asked[-1]
    assert last.count(DECISION) == 1
    assert last.count(TRAP) == 1
    assert last.count("<memory-data") == 2
    # Codex puts it in a developer message between the call and its output
    items = last.body["input"]
    at = next(i for i, item in enumerate(items) if TRAP in json.dumps(item))
    assert items[at]["role"] == "developer"
    assert "amount_due" in (project.root / "src/billing/charge.py").read_text()
    # the committed hooks.json holds no path of this machine: Codex found cuecard-hook on PATH
    hooks = (project.root / ".codex/hooks.json").read_text()
    assert str(VENV_BIN) not in hooks
    assert str(project.root) not in hooks
    assert {c["argv"][1] for c in project.calls} >= {"SessionStart", "PreToolUse", "Stop"}


def test_a_prompt_keyword_reaches_the_first_request(new_project: Callable[..., Project]) -> None:
    project = project_for(new_project)
    server = codex(project, "Please deploy the fix to staging.", [Reply("On it.")])
    first = server.main_requests[0]
    assert first.count(PROCEDURE) == 1
    assert first.count("<memory-data") == 1


def test_capture_a_fix_then_the_ask_then_the_proposal_is_stored_and_answered(
    new_project: Callable[..., Project],
) -> None:
    project = project_for(new_project)
    line = "    return provider.charge(order.total)"
    add = (
        "*** Begin Patch\n*** Add File: .cuecard/inbox/check.json\n"
        + "".join(f"+{text}\n" for text in json.dumps(PROPOSAL, indent=1).splitlines())
        + "*** End Patch\n"
    )
    server = codex(project, "Make check.sh pass.", [
        shell("./check.sh"),
        patch("src/billing/charge.py", line, line.replace("total", "amount")),
        shell("./check.sh"),
        Reply("Fixed."),
        Reply(tool_calls=[ToolCall("apply_patch", add)]),
        Reply("Saved."),
    ])  # fmt: skip
    asked = server.main_requests
    # Stop's ask reached the model, once, after the turn ended
    assert server.first_with(ASK) == 4
    assert asked[-1].count(ASK) == 1
    # the proposal is stored and cuecard's answer reached the model
    stored = [m for m in project.memories() if m["title"] == PROPOSAL["title"]]
    assert len(stored) == 1
    assert server.first_with("cuecard activated memory") == 5
    stops = [c for c in project.calls if c["argv"] == ["codex", "Stop"]]
    assert [bool(c["stdout"]) for c in stops] == [True, False]


def test_nothing_happens_in_a_project_that_did_not_opt_in(
    new_project: Callable[..., Project],
) -> None:
    # --user runs cuecard-hook by its path: the logging one's here, to see that the hooks ran
    project = project_for(
        new_project, opt_in=False, user=True, install=["--hook-command", "{recorder}"]
    )
    assert "cuecard-hook" in (project.home / ".codex/hooks.json").read_text()
    before = project.tree()
    line = "    return provider.charge(order.total)"
    server = codex(project, "Please deploy the fix.", [
        shell("cat docs/adr/0001-provider.md"),
        patch("src/billing/charge.py", line, line.replace("total", "amount")),
        Reply("Done."),
    ])  # fmt: skip
    # the user-level hooks ran (trusted by the installer), stayed silent and changed nothing
    assert_left_alone(project, before, server, {"SessionStart", "PreToolUse", "Stop"})


def test_untrusted_hooks_are_skipped_doctor_says_so_and_the_given_step_trusts_them(
    new_project: Callable[..., Project],
) -> None:
    project = project_for(new_project, install=["--no-trust", "--json"])
    report = json.loads(project.cuecard("install", "codex", "--no-trust", "--json").stdout)
    note = next(n for n in report["notes"] if n.startswith("Codex skips hooks until"))
    config = project.home / ".codex" / "config.toml"
    assert "hooks.state" not in config.read_text()
    doctor = json.loads(project.cuecard("doctor", "--json", check=False).stdout)
    assert any("(6 untrusted of 6)" in p["message"] for p in doctor["problems"])
    server = codex(project, "Please deploy the fix to staging.", [Reply("On it.")])
    assert project.calls == []
    assert server.main_requests[0].count(PROCEDURE) == 0
    # the exact step the installer gave: the tables to add
    tables = note.split(f"add to {config}:\n", 1)[1]
    config.write_text(config.read_text() + "\n" + tables + "\n")
    doctor = json.loads(project.cuecard("doctor", "--json", check=False).stdout)
    assert not [p for p in doctor["problems"] if p["check"] == "hooks"], doctor["problems"]
    server = codex(project, "Please deploy the fix to staging.", [Reply("On it.")])
    assert server.main_requests[0].count(PROCEDURE) == 1


def test_codex_itself_lists_the_installed_hooks_as_trusted(
    new_project: Callable[..., Project],
) -> None:
    project = project_for(new_project)
    listed = codex_hooks_list(project)
    ours = [h for h in listed if "cuecard-hook" in h["command"]]
    assert len(ours) == 6
    assert {h["trustStatus"] for h in ours} == {"trusted"}


def test_after_a_compaction_the_memory_is_delivered_again(
    new_project: Callable[..., Project],
) -> None:
    project = project_for(new_project)
    line = "    return provider.charge(order.total)"
    amount, due = line.replace("total", "amount"), line.replace("total", "amount_due")
    with ModelServer([
        patch("src/billing/charge.py", line, amount),
        patch("src/billing/charge.py", amount, due),
        Reply("Done."),
    ]) as server:  # fmt: skip
        # Codex compacts on its own once the context passes this many tokens
        command = codex_command("Fix charge.", url=server.url)
        command[2:2] = ["-c", "model_auto_compact_token_limit=5"]
        done = run(command, cwd=project.root, env=codex_env(project.env))
    assert done.returncode == 0, done.stderr[-2000:]
    assert server.spent, done.stderr[-2000:]
    events = [(c["argv"][1], c["payload"].get("source")) for c in project.calls]
    assert ("PostCompact", None) in events
    assert ("SessionStart", "compact") in events
    # delivered, compacted away, delivered again in the new epoch (each compaction request
    # holds it once: the summary before it has none)
    delivered = [
        c["argv"][1] if c["argv"][1] != "PreToolUse" else TRAP in c["stdout"]
        for c in project.calls
        if c["argv"][1] in ("PreToolUse", "PostCompact")
    ]
    assert delivered[:3] == [True, "PostCompact", True]
    compactions = [r for r in server.requests if not r.main]
    assert [r.count(TRAP) for r in compactions[:2]] == [1, 1]
