"""A clone at another path: Codex and Grok Build record trust by absolute path, so their
committed hooks run nowhere else until the person there runs ``cuecard install``, and neither
says so. ``cuecard status`` does, with the command."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests._support.cli import run_cli
from tests._support.hooks import GIT


def status(root: Path, env: dict[str, str]) -> tuple[dict[str, Any], str]:
    done = run_cli("status", "--json", cwd=root, env=env)
    assert done.returncode == 0, done.stderr
    text = run_cli("status", cwd=root, env=env)
    assert text.returncode == 0, text.stderr
    return json.loads(done.stdout), " ".join(text.stdout.split())


@pytest.mark.parametrize("harness", ["codex", "grok"])
def test_status_names_the_install_a_clone_at_another_path_needs(
    tmp_path: Path, harness: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "CODEX_HOME": str(home / ".codex"), "GROK_FOLDER_TRUST": ""}
    (home / ".codex").mkdir()
    first = tmp_path / "first"
    subprocess.run([*GIT, "init", "-q", str(first)], check=True)
    done = run_cli("install", harness, "--no-mcp", cwd=first, env=env)
    assert done.returncode == 0, done.stderr
    subprocess.run([*GIT, "add", "-A"], cwd=first, check=True)
    subprocess.run([*GIT, "commit", "-qm", "cuecard"], cwd=first, check=True)
    report, _ = status(first, env)
    assert report["setup"] == [], report

    second = tmp_path / "second"  # the same repository, copied to another path
    shutil.copytree(first, second, symlinks=True)
    report, text = status(second, env)
    assert [(s["harness"], s["run"]) for s in report["setup"]] == [
        (harness, f"cuecard install {harness}")
    ], report
    assert "absolute path" in report["setup"][0]["reason"]
    assert f"run `cuecard install {harness}`" in text
    assert run_cli("install", harness, "--no-mcp", cwd=second, env=env).returncode == 0
    assert status(second, env)[0]["setup"] == []
    assert status(first, env)[0]["setup"] == []


def test_status_names_a_changed_codex_hooks_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    env = {"HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    root = tmp_path / "p"
    subprocess.run([*GIT, "init", "-q", str(root)], check=True)
    assert run_cli("install", "codex", "--no-mcp", cwd=root, env=env).returncode == 0
    hooks_file = root / ".codex" / "hooks.json"
    config = json.loads(hooks_file.read_text(encoding="utf-8"))
    for groups in config["hooks"].values():  # a teammate's newer version of the file
        for group in groups:
            for handler in group["hooks"]:
                handler["timeout"] = 7
    hooks_file.write_text(json.dumps(config, indent=2), encoding="utf-8")
    report, text = status(root, env)
    assert [s["run"] for s in report["setup"]] == ["cuecard install codex"], report
    assert "changed since their trust was recorded" in report["setup"][0]["reason"]
    assert "run `cuecard install codex`" in text


def test_status_names_the_install_a_claude_clone_needs_for_a_start_in_a_subfolder(
    tmp_path: Path,
) -> None:
    """The committed ``.claude/settings.json`` runs only where Claude Code starts at the root;
    the person who installed also has the git-ignored ``settings.local.json``, a clone has
    not, until ``cuecard install claude`` (or a user-level install) there."""
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home)}
    first = tmp_path / "first"
    subprocess.run([*GIT, "init", "-q", str(first)], check=True)
    assert run_cli("install", "claude", "--no-mcp", cwd=first, env=env).returncode == 0
    subprocess.run([*GIT, "add", "-A"], cwd=first, check=True)
    subprocess.run([*GIT, "commit", "-qm", "cuecard"], cwd=first, check=True)
    assert status(first, env)[0]["setup"] == []

    clone = tmp_path / "clone"
    subprocess.run([*GIT, "clone", "-q", str(first), str(clone)], check=True)
    assert not (clone / ".claude" / "settings.local.json").exists()
    report, text = status(clone, env)
    assert [(s["harness"], s["run"]) for s in report["setup"]] == [
        ("claude", "cuecard install claude")
    ], report
    assert "subfolder" in report["setup"][0]["reason"]
    assert "anthropics/claude-code#86187" in report["setup"][0]["reason"]
    assert "run `cuecard install claude`" in text
    # a user-level install covers every folder as well
    user = run_cli("install", "claude", "--user", "--no-mcp", cwd=clone, env=env)
    assert user.returncode == 0, user.stderr
    assert status(clone, env)[0]["setup"] == []
    assert run_cli("uninstall", "claude", "--user", cwd=clone, env=env).returncode == 0
    assert status(clone, env)[0]["setup"] != []
    assert run_cli("install", "claude", "--no-mcp", cwd=clone, env=env).returncode == 0
    assert status(clone, env)[0]["setup"] == []
    # the committed file is as it was: the hooks went to the git-ignored file
    changed = subprocess.run([*GIT, "status", "--porcelain"], cwd=clone, capture_output=True,
                             text=True, check=True).stdout  # fmt: skip
    assert changed == "", changed
