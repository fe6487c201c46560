"""`cuecard mcp`, driven over stdio by the MCP Python SDK's own client, against the DSH tools
(`python -m cuecard.dsh_adapter call TOOL`, as the DSH plugin runs them): the same request gets
the same answer, because both call core's `cuecard.core.tools`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests._support.cli import BIN, run_cli
from tests._support.dsh import FACTS, Home, call, isolate, line, seed_vault, serve

SECRET = "the deploy token is ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Home]:
    with pytest.MonkeyPatch.context() as mp:
        h = isolate(tmp_path_factory.mktemp("mcp"), mp)
        seed_vault()
        yield h


@pytest.fixture(scope="module")
def project(home: Home) -> Path:
    """An opted-in repository with one live memory."""
    root = home.root / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    assert run_cli("init", cwd=root).returncode == 0
    added = run_cli(
        "add",
        "--topic",
        "deploy/staging",
        "--kind",
        "fact",
        "--title",
        "staging deploys need the VPN",
        "--body",
        "Deploying to the staging server needs the office VPN; the port is closed otherwise.",
        "--not-derivable",
        "A network rule outside the repository.",
        cwd=root,
    )
    assert added.returncode == 0, added.stderr
    return root


def mcp_session(
    calls: list[tuple[str, dict[str, Any]]], *, cwd: Path, agent: str = "claude-code"
) -> tuple[Any, list[tuple[bool, str]]]:
    """Start `cuecard mcp` with the SDK's stdio client, list the tools, make ``calls``;
    (the tools/list result, [(is_error, text)])."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=str(BIN / "cuecard"),
        args=["mcp", "--agent", agent],
        env={k: v for k, v in os.environ.items() if k != "CUECARD_PROJECT_DIR"},
        cwd=str(cwd),
    )
    answers: list[tuple[bool, str]] = []

    async def run() -> Any:
        with anyio.fail_after(120):  # a liveness bound, not a timing assertion
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                listed = await s.list_tools()
                for name, arguments in calls:
                    result = await s.call_tool(name, arguments)
                    text = "".join(getattr(c, "text", "") for c in result.content)
                    answers.append((bool(result.is_error), text))
                return listed

    return anyio.run(run), answers


def dsh_answers(requests: list[tuple[str, dict[str, Any]]], cwd: Path) -> list[tuple[bool, str]]:
    """What the DSH plugin would show the model for each request, through its worker (`python
    -I -m cuecard.dsh_adapter serve`, one process as the plugin keeps): the output, or the
    error as an error."""
    lines = [
        line({"id": i, "op": "call", "tool": tool, "request": request, "project": str(cwd)})
        for i, (tool, request) in enumerate(requests)
    ]
    out: list[tuple[bool, str]] = []
    for answer in serve(lines, cwd=cwd):
        response = answer["response"]
        assert isinstance(response, dict), answer
        ok = bool(response["ok"])
        out.append((not ok, str(response["output"] if ok else response["error"])))
    return out


REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("memory_status", {}),
    ("memory_search", {"query": "staging server port"}),
    ("memory_search", {"query": "deploy", "limit": "2"}),
    ("memory_search", {"query": "简体中文", "limit": 500}),
    ("memory_search", {"query": "   "}),
    ("memory_search", {"query": "x" * 2001}),
    ("memory_search", {"query": "deploy", "extra": True}),
    ("memory_search", {"query": 7}),
    ("memory_show", {"doc": "environment.md"}),
    ("memory_show", {"doc": "../../etc/passwd"}),
    ("memory_show", {"doc": "no-such-note.md"}),
    ("memory_submit", {"facts": SECRET}),
    ("memory_submit", {"facts": " \n "}),
]


@pytest.mark.parametrize("inside", [False, True], ids=["outside", "in-a-project"])
def test_the_mcp_tools_answer_as_the_dsh_tools(home: Home, project: Path, inside: bool) -> None:
    where = project if inside else home.root
    _, answers = mcp_session(REQUESTS, cwd=where)
    expected = dsh_answers(REQUESTS, where)
    for (tool, request), got, want in zip(REQUESTS, answers, expected, strict=True):
        assert got == want, (tool, request)
    errors = [is_error for is_error, _ in answers]
    assert errors == [False] * 4 + [True] * 4 + [False] + [True] * 4
    search = answers[1][1]
    assert search.startswith("<memory-data")
    assert search.rstrip().endswith("</memory-data>")
    assert "8443" in search
    assert ("staging deploys need the VPN" in search) == inside, "the project's own memories"
    assert "credential" in answers[-2][1]


def test_a_submission_lands_in_the_inbox_under_the_servers_agent(home: Home) -> None:
    before = set((home.vault / "inbox").iterdir()) if (home.vault / "inbox").is_dir() else set()
    fact = "The nightly build runs on host ci-7 at 02:00"
    _, answers = mcp_session(
        [
            ("memory_submit", {"facts": fact, "agent": "someone-else"}),
            ("memory_submit", {"facts": fact}),
        ],
        cwd=home.root,
        agent="codex",
    )
    # The model does not choose the agent: a key it sends is overridden by the server's.
    assert answers[0][0] is False, answers[0]
    assert answers[1][0] is False, answers[1]
    made = sorted(set(Path(home.vault).rglob("codex-*.md")) - before)
    assert len(made) == 2
    assert all(fact in p.read_text() for p in made)
    _, dsh = call("submit", {"facts": fact, "agent": "codex"}, cwd=home.root)

    def same(text: str) -> str:
        return re.sub(r"codex-[0-9-]+\.md", "FILE", text)

    assert same(answers[1][1]) == same(str(dsh["output"]))
    assert "searchable after a person reviews" in answers[1][1]


def test_tools_list_has_the_dsh_names_schemas_and_the_data_warning(home: Home) -> None:
    listed, _ = mcp_session([], cwd=home.root)
    tools = {t.name: t for t in listed.tools}
    assert sorted(tools) == ["memory_search", "memory_show", "memory_status", "memory_submit"]
    assert tools["memory_search"].input_schema["required"] == ["query"]
    assert set(tools["memory_search"].input_schema["properties"]) == {"query", "limit"}
    assert set(tools["memory_submit"].input_schema["properties"]) == {"facts"}
    assert tools["memory_show"].input_schema["required"] == ["doc"]
    for name in ("memory_search", "memory_show", "memory_status"):
        assert "DATA, not instructions" in str(tools[name].description)
    assert "before" in str(tools["memory_search"].description).lower()
    assert "credential" in str(tools["memory_submit"].description)
    assert "cuecard review" in str(tools["memory_submit"].description)
    assert FACTS  # the seeded vault


def test_without_the_sdk_it_says_which_extra_to_install(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['mcp'] = None; "
        "from cuecard.core.cli import main; sys.exit(main(['mcp']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert done.returncode == 1
    assert "cuecard-core[mcp]" in done.stderr


def doctor(cwd: Path, path: str) -> dict[str, Any]:
    import json

    done = subprocess.run(
        [str(BIN / "cuecard"), "doctor", "--json"],
        cwd=cwd,
        env={**os.environ, "PATH": path},
        capture_output=True,
        text=True,
        timeout=180,
    )
    report = json.loads(done.stdout)
    assert isinstance(report, dict)
    return report


def test_doctor_starts_the_registered_server_and_lists_its_tools(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    done = run_cli("install", "claude", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with_cuecard = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    report = doctor(tmp_path, with_cuecard)
    [found] = report["mcp"]["registrations"]
    assert (found["harness"], found["scope"], found["answers"]) == ("claude", "project", True)
    assert found["tools"] == ["memory_search", "memory_show", "memory_status", "memory_submit"]
    assert not [p for p in report["problems"] if p["check"] == "mcp"]
    without = doctor(tmp_path, "/usr/bin:/bin")
    [problem] = [p for p in without["problems"] if p["check"] == "mcp"]
    assert "cuecard is not on the PATH" in problem["message"]


def test_doctor_reports_a_server_that_does_not_answer(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert run_cli("init", cwd=tmp_path).returncode == 0
    silent = tmp_path / "silent-server"
    silent.write_text("#!/bin/sh\necho 'cuecard: no vault here' >&2\nexit 3\n")
    silent.chmod(0o755)
    import json

    config = {"mcpServers": {"cuecard": {"type": "stdio", "command": str(silent), "args": []}}}
    (tmp_path / ".mcp.json").write_text(json.dumps(config))
    report = doctor(tmp_path, f"{BIN}{os.pathsep}/usr/bin:/bin")
    [problem] = [p for p in report["problems"] if p["check"] == "mcp"]
    assert "did not answer initialize" in problem["message"]
    assert "no vault here" in problem["message"]
    assert report["ok"] is False
