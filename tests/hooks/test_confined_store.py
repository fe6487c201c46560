"""A store that is not what cuecard expects is left alone: no link is followed at any depth.

Issue 28: a committed ``.cuecard/local/index -> ../../..`` made the compile's pruning delete
folders next to the clone; links one folder deeper (``local/sessions``,
``local/sessions/<id>``, ``.cuecard/memories``) sent claims and footprints elsewhere, or
delivered a memory that lives outside the repository. The hook runs as the real command; the
liveness bound only tells a hang from an answer.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cuecard.core.cli import main as cli
from tests._support.hooks import HOOK, memory

LIVENESS = 20  # seconds: not a timing assertion, a bound only a hang reaches
OUTSIDE_ID = "dddddddd-dddd-4ddd-8ddd-dddddddddddd"


def snapshot(folder: Path) -> dict[str, Any]:
    """Every entry under ``folder`` (links not followed): its kind and, for a file, its bytes."""
    out: dict[str, Any] = {}
    for here, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(here, name)
            rel = str(path.relative_to(folder))
            if path.is_symlink():
                out[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                out[rel] = ("dir",)
            else:
                out[rel] = ("file", path.read_bytes())
    return out


def hook(root: Path, event: str, payload: dict[str, Any]) -> str:
    """Run ``cuecard-hook claude <event>`` in ``root``: exit 0, nothing on stderr; its stdout."""
    env = {k: v for k, v in os.environ.items() if k != "CUECARD_PROJECT_DIR"}
    data = json.dumps({"session_id": "s", "cwd": str(root), **payload}).encode()
    done = subprocess.run([HOOK, "claude", event], input=data, capture_output=True, cwd=root,
                          env=env, timeout=LIVENESS)  # fmt: skip
    assert done.returncode == 0
    assert done.stderr == b""
    return done.stdout.decode("utf-8")


def read_call(root: Path) -> dict[str, Any]:
    return {"hook_event_name": "PreToolUse", "tool_name": "Read",
            "tool_input": {"file_path": str(root / "src" / "a.py")}}  # fmt: skip


@pytest.fixture
def clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The issue's layout: ``w/gitops``, ``w/go-service`` and the clone ``w/app``, opted in,
    with one memory on ``src/**`` added through the command."""
    w = tmp_path / "w"
    for name in ("gitops", "go-service"):
        (w / name).mkdir(parents=True)
        (w / name / "keep.txt").write_text(f"{name}\n", encoding="utf-8")
    app = w / "app"
    subprocess.run(["git", "init", "-q", str(app)], check=True)
    (app / "src").mkdir()
    (app / "src" / "a.py").write_text("x=1\n", encoding="utf-8")
    monkeypatch.chdir(app)
    assert cli(["init"]) == 0
    assert cli(["add", "--topic", "a/b", "--kind", "trap", "--title", "t", "--body", "b b",
                "--not-derivable", "n", "--on", "read", "--paths", "src/**"]) == 0  # fmt: skip
    return app


def test_the_issue_reproduction_deletes_nothing_outside_the_clone(
    clone: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``.cuecard/local/index -> ../../..``: the hook stays silent and writes nothing there (no
    ``CURRENT``, no cache, no generation, nothing pruned); doctor and status name the path."""
    w = clone.parent
    subprocess.run(["rm", "-rf", str(clone / ".cuecard" / "local")], check=True)
    (clone / ".cuecard" / "local").mkdir()
    (clone / ".cuecard" / "local" / "index").symlink_to("../../..")
    before = {k: v for k, v in snapshot(w).items() if not k.startswith("app")}
    assert hook(clone, "PreToolUse", read_call(clone)) == ""
    assert {k: v for k, v in snapshot(w).items() if not k.startswith("app")} == before
    capsys.readouterr()
    assert cli(["doctor"]) == 1
    assert f"{clone}/.cuecard/local/index is a symbolic link" in capsys.readouterr().out
    assert cli(["status"]) == 1
    assert f"{clone}/.cuecard/local/index is a symbolic link" in capsys.readouterr().err


def test_the_compile_itself_refuses_the_link_and_prunes_only_marked_generations(
    clone: Path,
) -> None:
    """Past the hook's check too (the compile called on its own, the link planted after the
    store was opened): nothing is written through the link, and pruning deletes only folders
    holding cuecard's marker, never a folder a person put there."""
    from cuecard.core import Store, compile_index
    from cuecard.core.fs import UnsafePath

    w = clone.parent
    store = Store.open(clone)
    index = clone / ".cuecard" / "local" / "index"
    for _ in range(3):
        compile_index(store)
    generations = sorted(p.name for p in index.iterdir() if p.name.startswith("g"))
    assert len(generations) == 2  # the current one and the one before
    (index / "gmine").mkdir()
    (index / "gmine" / "notes.txt").write_text("mine\n", encoding="utf-8")
    (index / "glink").symlink_to(w / "gitops")
    compile_index(store)
    assert (index / "gmine" / "notes.txt").read_text(encoding="utf-8") == "mine\n"
    assert (index / "glink").is_symlink()
    assert (w / "gitops" / "keep.txt").exists()
    subprocess.run(["rm", "-rf", str(index)], check=True)
    index.symlink_to("../../..")
    before = snapshot(w / "gitops")
    with pytest.raises(UnsafePath, match="index is a symbolic link"):
        compile_index(store)
    assert snapshot(w / "gitops") == before
    assert sorted(p.name for p in w.iterdir()) == ["app", "gitops", "go-service"]


def _plant_sessions(root: Path, canary: Path) -> None:
    local = root / ".cuecard" / "local"
    local.mkdir(exist_ok=True)
    subprocess.run(["rm", "-rf", str(local / "sessions")], check=True)
    (local / "sessions").symlink_to(canary)


def _plant_session(root: Path, canary: Path) -> None:
    sessions = root / ".cuecard" / "local" / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    subprocess.run(["rm", "-rf", str(sessions / "s")], check=True)
    (sessions / "s").symlink_to(canary)


def _plant_memories(root: Path, canary: Path) -> None:
    memories = root / ".cuecard" / "memories"
    for path in memories.iterdir():
        (canary / path.name).write_bytes(path.read_bytes())
    trigger = [{"on": ["read"], "paths": ["src/**"]}]
    record = memory(OUTSIDE_ID, "outside/only", "trap", "A memory only the target holds",
                    "It lives outside the repository.", trigger)  # fmt: skip
    (canary / f"{OUTSIDE_ID}.json").write_text(json.dumps(record), encoding="utf-8")
    subprocess.run(["rm", "-rf", str(memories)], check=True)
    memories.symlink_to(canary)


DEEPER = {
    "local-sessions": _plant_sessions,
    "a-session": _plant_session,
    "memories": _plant_memories,
}


@pytest.mark.parametrize("plant", list(DEEPER.values()), ids=list(DEEPER))
def test_a_link_one_folder_deeper_is_never_followed(
    clone: Path, tmp_path: Path, plant: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every hook event of a session with the link in place: nothing is written into its
    target, nothing it holds is delivered, the hook says nothing; ``cuecard add`` refuses."""
    canary = tmp_path / "canary"
    canary.mkdir()
    (canary / "own.txt").write_text("the user's own file\n", encoding="utf-8")
    plant(clone, canary)
    before = snapshot(canary)
    calls = [
        ("SessionStart", {"source": "startup"}),
        ("UserPromptSubmit", {"prompt": "look at src/a.py"}),
        ("PreToolUse", read_call(clone)),
        ("PostToolUse", {**read_call(clone), "tool_response": {}}),
        ("Stop", {"stop_hook_active": False}),
    ]
    for event, payload in calls:
        out = hook(clone, event, payload)
        assert "A memory only the target holds" not in out
        assert "<memory-data" not in out, (event, out)
    assert snapshot(canary) == before
    capsys.readouterr()
    code = cli(["add", "--topic", "c/d", "--kind", "trap", "--title", "t2", "--body", "b b",
                "--not-derivable", "n", "--on", "read", "--paths", "src/**"])  # fmt: skip
    if plant is _plant_session:  # a session folder is not the store's: the store still works
        assert code == 0
    else:
        assert code == 1
        assert "is a symbolic link" in capsys.readouterr().err
    assert snapshot(canary) == before


def test_doctor_and_status_name_a_link_or_fifo_anywhere_in_the_store(
    clone: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Deeper than the store's own folders, the hook refuses an entry when it reaches it; the
    person learns of every one from doctor and status, each named with its path and kind."""
    hook(clone, "PreToolUse", read_call(clone))
    session = clone / ".cuecard" / "local" / "sessions" / "s"
    (session / "footprint.jsonl").unlink(missing_ok=True)
    (session / "footprint.jsonl").symlink_to(tmp_path)
    os.mkfifo(clone / ".cuecard" / "local" / "index" / "pipe")
    capsys.readouterr()
    assert cli(["doctor", "--json"]) == 1
    problems = [p["message"] for p in json.loads(capsys.readouterr().out)["problems"]]
    assert f"{session}/footprint.jsonl is a symbolic link" in "\n".join(problems)
    assert f"{clone}/.cuecard/local/index/pipe is a FIFO" in "\n".join(problems)
    assert cli(["status", "--json"]) == 0
    listed = "\n".join(json.loads(capsys.readouterr().out)["problems"])
    assert f"{session}/footprint.jsonl is a symbolic link" in listed
    assert f"{clone}/.cuecard/local/index/pipe is a FIFO" in listed
