"""A committed hook runs only a ``cuecard-hook`` the PATH finds at an absolute path: a
repository that plants its own (at its root, found through an empty or ``.`` PATH entry, or in
``node_modules/.bin``, a relative entry) never gets it run, by the shell command of the hook files
nor by the OpenCode plugin's spawn."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cuecard.hooks._install import install
from tests._support.hooks import HOOK, build_repo

TRAP = "charge() is not idempotent"
PLANTED_PATHS = {
    "empty-last": "/usr/bin:/bin:",
    "empty-first": ":/usr/bin:/bin",
    "dot": "/usr/bin:/bin:.",
    "node-modules": "node_modules/.bin:/usr/bin:/bin",
    "node-modules-before-cuecard": "node_modules/.bin:{tools}:/usr/bin:/bin",
}


def _planted_repo(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A repository holding its own ``cuecard-hook`` twice (each leaves a mark when it runs),
    the mark's path, and a folder holding the real ``cuecard-hook``."""
    repo = build_repo(tmp_path / "repo")
    mark = tmp_path / "planted-ran"
    script = f"#!/bin/sh\necho ran >> {mark}\necho '{{\"planted\": true}}'\n"
    for where in (repo / "cuecard-hook", repo / "node_modules" / ".bin" / "cuecard-hook"):
        where.parent.mkdir(parents=True, exist_ok=True)
        where.write_text(script)
        where.chmod(0o755)
    tools = tmp_path / "bin"
    tools.mkdir()
    os.symlink(HOOK, tools / "cuecard-hook")
    return repo, mark, tools


def _edit(repo: Path) -> dict[str, object]:
    return {
        "session_id": "planted",
        "cwd": str(repo),
        "tool_name": "Edit",
        "tool_input": {"file_path": "src/billing/charge.py", "old_string": "a", "new_string": "b"},
    }


@pytest.mark.parametrize("path", list(PLANTED_PATHS.values()), ids=list(PLANTED_PATHS))
def test_the_hook_files_never_run_the_repositorys_own_cuecard_hook(
    tmp_path: Path, path: str
) -> None:
    repo, mark, tools = _planted_repo(tmp_path)
    install("claude", project=repo, home=tmp_path / "home")
    config = json.loads((repo / ".claude/settings.json").read_text())
    command = config["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    env = {"PATH": path.format(tools=tools), "HOME": str(tmp_path / "home")}
    result = subprocess.run(
        ["/bin/sh", "-c", command], input=json.dumps(_edit(repo)), capture_output=True,
        text=True, cwd=repo, env=env, timeout=60,
    )  # fmt: skip
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert not mark.exists()
    env["PATH"] = f"{tools}:{path}"  # the real one, found first at an absolute path, runs
    result = subprocess.run(
        ["/bin/sh", "-c", command], input=json.dumps(_edit(repo)), capture_output=True,
        text=True, cwd=repo, env=env, timeout=60,
    )  # fmt: skip
    assert TRAP in result.stdout
    assert not mark.exists()


RUN_PLUGIN = """
import { pathToFileURL } from "node:url";
const { CuecardPlugin } = await import(pathToFileURL(process.argv[1]).href);
const repo = process.argv[2];
const hooks = await CuecardPlugin({ directory: repo, client: { session: {} } });
const args = { filePath: `${repo}/src/billing/charge.py`, oldString: "a", newString: "b" };
const call = { tool: "edit", sessionID: process.argv[3], callID: "c1" };
await hooks["tool.execute.before"](call, { args });
const output = { title: "edit", output: "Edit applied.", metadata: {} };
await hooks["tool.execute.after"]({ ...call, args }, output);
process.stdout.write(output.output);
"""


@pytest.mark.parametrize("path", list(PLANTED_PATHS.values()), ids=list(PLANTED_PATHS))
def test_the_opencode_plugin_never_spawns_the_repositorys_own_cuecard_hook(
    tmp_path: Path, path: str
) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")
    repo, mark, tools = _planted_repo(tmp_path)
    install("opencode", project=repo, home=tmp_path / "home")  # the portable plugin: by name
    plugin = repo / ".opencode" / "plugins" / "cuecard.js"
    env = {"PATH": path.format(tools=tools), "HOME": str(tmp_path / "home")}
    args = [node, "--input-type=module", "-e", RUN_PLUGIN, str(plugin), str(repo), "first"]
    result = subprocess.run(args, capture_output=True, text=True, cwd=repo, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Edit applied.")
    assert not mark.exists()  # (a later absolute entry may run the real one: never the planted)
    env["PATH"] = f"{path.format(tools=tools)}:{tools}"  # an absolute entry, even a later one
    args[-1] = "second"
    result = subprocess.run(args, capture_output=True, text=True, cwd=repo, env=env, timeout=60)
    assert TRAP in result.stdout, result.stderr
    assert not mark.exists()
