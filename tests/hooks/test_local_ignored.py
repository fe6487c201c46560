"""The derived folder ignores itself: a project opted in by a committed memory file alone (no
``cuecard init``, so no ``.cuecard/.gitignore``) never shows ``.cuecard/local/`` to git."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests._support.hooks import GIT, memory, run_hook

MEMORY = memory("12121212-1212-4121-8121-121212121212", "deploy/staging", "procedure",
                "Deploy with make deploy-staging", "Never push the staging branch by hand.",
                [{"on": ["prompt"], "keywords": ["deploy"]}])  # fmt: skip


def test_a_clone_with_only_a_committed_memory_leaves_git_status_clean(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    subprocess.run([*GIT, "init", "-q", str(origin)], check=True)
    memories = origin / ".cuecard" / "memories"
    memories.mkdir(parents=True)
    (memories / "x.json").write_text(json.dumps(MEMORY, indent=2), encoding="utf-8")
    subprocess.run([*GIT, "add", "-A"], cwd=origin, check=True)
    subprocess.run([*GIT, "commit", "-qm", "a memory"], cwd=origin, check=True)
    clone = tmp_path / "clone"
    subprocess.run([*GIT, "clone", "-q", str(origin), str(clone)], check=True)

    payload = {"session_id": "s", "cwd": str(clone), "hook_event_name": "UserPromptSubmit",
               "prompt": "no, deploy it to staging first"}  # fmt: skip
    done = run_hook("claude", "UserPromptSubmit", payload, cwd=clone)
    assert done.returncode == 0, done.stderr
    assert (clone / ".cuecard" / "local").is_dir()
    assert not (clone / ".cuecard" / ".gitignore").exists()

    status = subprocess.run([*GIT, "status", "--porcelain", "--untracked-files=all"],
                            cwd=clone, capture_output=True, text=True, check=True)  # fmt: skip
    assert status.stdout == ""
    ignore = clone / ".cuecard" / "local" / ".gitignore"
    assert not ignore.is_symlink()
    assert "*" in ignore.read_text(encoding="utf-8").splitlines()


def test_an_existing_local_folder_is_not_given_one(tmp_path: Path) -> None:
    """Only a folder the layer makes gets the file: one attempt at creation, none per event."""
    from cuecard.core.fs import Tree

    (tmp_path / ".cuecard" / "local").mkdir(parents=True)
    Tree(tmp_path).mkdirs(".cuecard/local/index")
    assert not (tmp_path / ".cuecard" / "local" / ".gitignore").exists()
    (tmp_path / "b").mkdir()
    Tree(tmp_path / "b").mkdirs(".cuecard/local/sessions")
    made = tmp_path / "b" / ".cuecard" / "local" / ".gitignore"
    assert made.read_text(encoding="utf-8").splitlines()[-1] == "*"
