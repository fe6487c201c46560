"""The OpenCode plugin, installed by ``cuecard install opencode``, under Node's test runner."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cuecard.hooks._install import install
from tests._support.hooks import HOOK, build_repo

TEST = Path(__file__).parent / "js" / "opencode_plugin.test.mjs"


def test_the_plugin_under_node(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")
    repo = build_repo(tmp_path / "repo")
    home = tmp_path / "home"
    install("opencode", project=repo, user=True, home=home, hook_path=HOOK, mcp=False)
    plugin = home / ".config" / "opencode" / "plugins" / "cuecard.js"
    env = {k: v for k, v in os.environ.items() if k != "CUECARD_PROJECT_DIR"}
    env.update(CUECARD_PLUGIN=str(plugin), CUECARD_REPO=str(repo))
    result = subprocess.run(
        [node, "--test", "--test-reporter=spec", str(TEST)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "# pass 10" in result.stdout or "ℹ pass 10" in result.stdout, result.stdout
