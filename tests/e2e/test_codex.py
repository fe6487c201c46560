"""Codex, the real CLI (``codex exec``), against the scripted model on loopback."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.e2e._support import ModelServer, Reply, ToolCall
from tests.e2e._support._harnesses import codex_command, codex_env, codex_prepare, run
from tests.e2e._support._project import DECISION, PROCEDURE, TRAP, Project
from tests.e2e.conftest import require


@pytest.fixture(autouse=True)
def _installed() -> None:
    require("codex")


def codex(project: Project, prompt: str, script: list[Reply], **options: bool) -> ModelServer:
    with ModelServer(script) as server:
        done = run(codex_command(prompt, url=server.url, **options), cwd=project.root,
                   env=codex_env(project.home))  # fmt: skip
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
    assert server.first_with(DECISION) == 1 and server.first_with(TRAP) == 2
    last = asked[-1]
    assert last.count(DECISION) == 1 and last.count(TRAP) == 1
    assert last.count("<memory-data") == 2
    # Codex puts it in a developer message between the call and its output
    items = last.body["input"]
    at = next(i for i, item in enumerate(items) if TRAP in json.dumps(item))
    assert items[at]["role"] == "developer"
    assert "amount_due" in (project.root / "src/billing/charge.py").read_text()


def test_a_prompt_keyword_reaches_the_first_request(new_project: Callable[..., Project]) -> None:
    project = project_for(new_project)
    server = codex(project, "Please deploy the fix to staging.", [Reply("On it.")])
    first = server.main_requests[0]
    assert first.count(PROCEDURE) == 1 and first.count("<memory-data") == 1
