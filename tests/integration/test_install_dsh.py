"""`cuecard install dsh` (cuecard-hooks) hands over to the DSH adapter's installer
(cuecard-dsh-adapter): two distributions, so it runs where all five are installed."""

from __future__ import annotations

import json
from pathlib import Path

from tests._support.cli import run_cli


def test_install_dsh_runs_the_dsh_adapters_installer_and_options_stay_where_they_belong(
    tmp_path: Path,
) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin"}
    done = run_cli(
        "install", "dsh", "--no-add", "--profile", "headless", "--json", cwd=tmp_path, env=env
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["profile"] == "headless"
    assert report["added"] is False
    hooks = json.loads(Path(report["hooks"]).read_text())
    assert "-m cuecard.dsh_adapter hook PostToolUse" in json.dumps(hooks)
    assert "UserPromptSubmit" in hooks["hooks"]
    refused = run_cli("install", "dsh", "--user", cwd=tmp_path, env=env)
    assert refused.returncode == 2
    assert "cuecard dsh install --hooks" in refused.stderr
    refused = run_cli("install", "claude", "--profile", "web", cwd=tmp_path, env=env)
    assert refused.returncode == 2
    assert "only for `cuecard install dsh`" in refused.stderr
    assert not (tmp_path / ".claude").exists()
