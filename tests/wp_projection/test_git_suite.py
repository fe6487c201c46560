"""The git suite: every hostile-event corpus of the tests is sent to a live receiver, at the agent
and shared levels and in the nested folders, with contents that plant a command-logging
``core.fsmonitor``, ``core.pager`` and hooks; then ``git status``, ``git log`` and
``git config --list`` run in every projected folder. Nothing runs, and git finds no repository.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cuecard.wp_projection import PathRefused, SafeRoot
from tests._support.wp_corpus import (
    ALLOWLIST_TABLE,
    BARE_REPOSITORY,
    CONFIG_NAMES,
    GIT_PATHS,
    LEVELS,
    PATH_RULES,
)

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is missing")


def _payloads(log: Path) -> dict[str, str]:
    """What each planted name holds: a repository's parts whose commands append to ``log``."""
    command = f"echo ran >> {log}"
    config = (
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n"
        f"\tfsmonitor = {command}\n\tpager = {command}\n\thooksPath = hooks\n"
        f'[alias]\n\tst = "!{command}"\n'
    )
    hook = f"#!/bin/sh\n{command}\n"
    return {"HEAD": "ref: refs/heads/main\n", "config": config, "hook": hook}


def _content(name: str, payloads: dict[str, str]) -> str:
    last = name.rsplit("/", 1)[-1]
    if last == "HEAD" or last.endswith("_HEAD"):
        return payloads["HEAD"]
    if "hooks/" in name:
        return payloads["hook"]
    return payloads["config"]


def _git(folder: Path, home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CEILING_DIRECTORIES": str(folder.anchor),
        "LC_ALL": "C",
    }
    return subprocess.run(
        ["git", *argv],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _run_everything(folder: Path, home: Path) -> list[subprocess.CompletedProcess[str]]:
    return [
        _git(folder, home, "status"),
        _git(folder, home, "--paginate", "log"),
        _git(folder, home, "config", "--list"),
        _git(folder, home, "st"),
    ]


def test_the_canary_runs_in_a_real_repository(tmp_path: Path) -> None:
    """The suite's probe can fail: the same config in a real repository does run the command."""
    log, home = tmp_path / "ran.log", tmp_path / "home"
    home.mkdir()
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    with (repo / ".git/config").open("a") as handle:
        handle.write(_payloads(log)["config"].replace("\tworktree = .\n", ""))
    _run_everything(repo, home)
    assert log.exists()


def test_no_planted_repository_runs_anything(receiver, make_envelope, tmp_path: Path) -> None:
    log, home = tmp_path / "ran.log", tmp_path / "home"
    home.mkdir()
    payloads = _payloads(log)
    hostile = [
        *GIT_PATHS,
        *(level + name for level in LEVELS for name in BARE_REPOSITORY),
        *(level + name for level in LEVELS for name in CONFIG_NAMES),
        *(name for name, accepted in ALLOWLIST_TABLE if not accepted),
        *(raw for raw, _ in PATH_RULES),
    ]
    # Benign records make every folder a record may name exist, so git runs in each of them.
    benign = ["MEMORY.md", "contexts/code.md", "daily/2026/11/30.md"]
    seq = 0
    for layer in ("agent", "shared"):
        for name in benign:
            seq += 1
            env = make_envelope(seq=seq, layer=layer, filename=name, content=payloads["config"])
            assert receiver.post(env).status_code == 202, name
        for name in hostile:
            seq += 1
            env = make_envelope(
                seq=seq, layer=layer, filename=name, content=_content(name, payloads)
            )
            response = receiver.post(env)
            assert response.status_code == 422, (layer, name, response.text)
            seq += 1
            gone = receiver.post(make_envelope("memory.deleted", seq=seq, filename=name))
            assert gone.status_code == 422, name
    receiver.wait_idle(applied=2 * len(benign))

    folders = [receiver.root, *(p for p in receiver.root.rglob("*") if p.is_dir())]
    assert len(folders) >= 12  # root, managed, site, agents/admin, shared, contexts, daily/…
    for folder in folders:
        outcomes = _run_everything(folder, home)
        found = _git(folder, home, "rev-parse", "--git-dir")
        assert found.returncode != 0, (folder, found.stdout)
        assert "not a git repository" in found.stderr
        assert all(o.returncode != 0 or not o.stdout.strip() for o in outcomes[:2]), folder
    assert not log.exists(), log.read_text()
    for path in receiver.managed.rglob("*"):
        rel = path.relative_to(receiver.managed)
        assert not any(part.lower() in ("head", "config", "objects", "refs") for part in rel.parts)


@pytest.mark.parametrize("level", LEVELS)
def test_the_disk_layer_refuses_a_repository_whatever_the_caller(tmp_path: Path, level) -> None:
    root = SafeRoot(tmp_path)
    for base in ("site/agents/a/", "site/shared/"):
        for name in [*BARE_REPOSITORY, *CONFIG_NAMES]:
            with pytest.raises(PathRefused):
                root.write(base + level + name, b"[core]\n\tfsmonitor = touch /tmp/x\n")
    assert not (tmp_path / ".dm-memory/site").exists()


def test_a_repository_planted_before_the_rule_can_still_be_removed(tmp_path: Path) -> None:
    """Deleting is never refused: a projection made before the allowlist may hold such files."""
    root = SafeRoot(tmp_path)
    planted = tmp_path / ".dm-memory/site/agents/a"
    planted.mkdir(parents=True)
    for name in BARE_REPOSITORY[:2]:
        (planted / name).write_text("[core]\n")
        assert root.unlink(f"site/agents/a/{name}") is True
    assert list(planted.iterdir()) == []
