"""Stop's turn checks see every file the turn changed, whichever program changed it: the work
tree at the turn's start (the user's prompt) is compared with its state at Stop."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests._support.hooks import BIN, GIT
from tests.hooks.test_check_reports import call

MEMORY = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"


@pytest.fixture
def repo(fresh_repo: Path) -> Path:
    """The hook tests' repository whose DEBUG check judges ``app/**`` on ``run`` as well."""
    path = fresh_repo / f".cuecard/memories/{MEMORY}.json"
    memory = json.loads(path.read_text())
    memory["triggers"] = [{"on": ["edit", "run"], "paths": ["app/**", "config/**"]}]
    path.write_text(json.dumps(memory))
    (fresh_repo / "app/sub").mkdir(parents=True)
    for name in ("x.py", "y.py", "sub/z.py"):
        (fresh_repo / "app" / name).write_text("DEBUG = False\n")
    (fresh_repo / "gen.sh").write_text("#!/bin/sh\nprintf 'DEBUG = True\\n' > app/sub/z.py\n")
    (fresh_repo / "gen.sh").chmod(0o755)
    subprocess.run([*GIT, "add", "-A"], cwd=fresh_repo, check=True)
    subprocess.run([*GIT, "commit", "-qm", "app"], cwd=fresh_repo, check=True)
    subprocess.run([str(BIN / "cuecard"), "compile"], cwd=fresh_repo, check=True,
                   capture_output=True)  # fmt: skip
    return fresh_repo


def turn(root: Path, session: str, command: str) -> str:
    """A turn whose one shell call runs ``command`` (for real, in ``root``); Stop's answer."""
    call(root, "claude", "UserPromptSubmit", session, prompt="switch debugging on")
    subprocess.run(["sh", "-c", command], cwd=root, check=True,
                   env={**os.environ, "LC_ALL": "C"})  # fmt: skip
    call(root, "claude", "PostToolUse", session, tool_name="Bash",
         tool_input={"command": command},
         tool_response={"stdout": "", "interrupted": False})  # fmt: skip
    return call(root, "claude", "Stop", session, stop_hook_active=False)


@pytest.mark.parametrize(
    ("command", "judged"),
    [
        ("sed -i s/False/True/ app/*.py", ["app/x.py", "app/y.py"]),
        ("find app -name '*.py' -exec sed -i s/False/True/ {} +",
         ["app/x.py", "app/y.py", "app/sub/z.py"]),
        ("python3 -c \"open('app/x.py','a').write('DEBUG = True\\n')\"", ["app/x.py"]),
        ("./gen.sh", ["app/sub/z.py"]),
    ],
    ids=["sed-glob", "find-exec", "python-c", "script"],
)  # fmt: skip
def test_a_file_no_command_names_is_judged_at_stop(
    repo: Path, command: str, judged: list[str]
) -> None:
    text = turn(repo, "t", command)
    assert "## check: DEBUG is on" in text
    for path in ("app/x.py", "app/y.py", "app/sub/z.py"):
        assert (f"check on {path}" in text) == (path in judged), (path, text)


def test_a_file_changed_before_the_turn_is_judged_only_if_the_turn_changes_it(repo: Path) -> None:
    (repo / "app/x.py").write_text("DEBUG = True\n")  # the person's own change, before the turn
    earlier = time.time() - 10
    os.utime(repo / "app/x.py", (earlier, earlier))
    assert turn(repo, "before", "true") == ""
    text = turn(repo, "again", "printf '# more\\n' >> app/x.py")
    assert "check on app/x.py" in text


def test_an_edit_only_check_does_not_judge_what_the_shell_changed(repo: Path) -> None:
    path = repo / f".cuecard/memories/{MEMORY}.json"
    memory = json.loads(path.read_text())
    memory["triggers"] = [{"on": ["edit"], "paths": ["app/**"]}]
    path.write_text(json.dumps(memory))
    subprocess.run([str(BIN / "cuecard"), "compile"], cwd=repo, check=True,
                   capture_output=True)  # fmt: skip
    assert turn(repo, "edit-only", "sed -i s/False/True/ app/*.py") == ""


def test_outside_git_stop_judges_the_paths_the_calls_named(tmp_path: Path, repo: Path) -> None:
    (repo / ".git").rename(tmp_path / "git")  # the same project, no longer a git work tree
    text = turn(repo, "nogit", "sed -i s/False/True/ app/x.py; ./gen.sh")
    assert "check on app/x.py" in text  # named by the command
    assert "app/sub/z.py" not in text  # no snapshot to find it by
