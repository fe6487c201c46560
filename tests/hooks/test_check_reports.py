"""Check reports through ``cuecard-hook``: held reports arrive later, Codex patches' updated files,
files changed through the shell at Stop, and files over 1 MB."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests._support.hooks import BIN, GIT, run_hook

LONG = "x" * 190


def answer(result: subprocess.CompletedProcess[bytes]) -> str:
    """The text a hook call gave the agent ("" for none)."""
    assert result.returncode == 0, result.stderr
    assert not result.stderr, result.stderr
    if not result.stdout.strip():
        return ""
    out = json.loads(result.stdout)
    if "reason" in out:
        return str(out["reason"])
    return str(out["hookSpecificOutput"]["additionalContext"])


def call(root: Path, harness: str, event: str, session: str, **fields: Any) -> str:
    payload = {"session_id": session, "cwd": str(root), "hook_event_name": event, **fields}
    return answer(run_hook(harness, event, payload, cwd=root))


def test_reports_that_do_not_fit_arrive_at_the_next_events(fresh_repo: Path) -> None:
    names = [f"scripts/gen/f{n:02d}.py" for n in range(20)]
    body = "".join(f"+print('{LONG}{k}')\n" for k in range(3))
    patch = "*** Begin Patch\n" + "".join(f"*** Add File: {n}\n{body}" for n in names)
    patch += "*** End Patch\n"
    texts = [
        call(fresh_repo, "codex", "PreToolUse", "held", tool_name="apply_patch",
             tool_input={"command": patch})
    ]  # fmt: skip
    first = [n for n in names if f"check on {n})" in texts[0]]
    assert 0 < len(first) < len(names)
    assert "Held back for lack of room" in texts[0]
    assert "(check 66666666 on scripts/gen/f" in texts[0]  # the held line names each file
    for _ in range(4):  # later calls in the same session deliver what was held
        texts.append(call(fresh_repo, "codex", "PreToolUse", "held", tool_name="shell",
                          tool_input={"command": "ls"}))  # fmt: skip
    texts.append(call(fresh_repo, "codex", "Stop", "held", stop_hook_active=False))
    seen = [n for text in texts for n in names if f"check on {n})" in text]
    assert sorted(seen) == names  # every report, each once
    assert call(fresh_repo, "codex", "PreToolUse", "other", tool_name="shell",
                tool_input={"command": "ls"}) == ""  # fmt: skip


def test_a_codex_update_file_is_judged_on_its_new_content(repo: Path) -> None:
    patch = (
        "*** Begin Patch\n*** Update File: scripts/old.py\n@@\n print(1)\n-x = 1\n"
        "+print(x)\n*** End Patch\n"
    )
    text = call(repo, "codex", "PreToolUse", "upd", tool_name="apply_patch",
                tool_input={"command": patch})  # fmt: skip
    assert "## check: use log.info" in text
    assert "print(x)" in text
    assert "print(1)" not in text  # already in the file before the patch
    stale = patch.replace("-x = 1", "-y = 2")  # the hunk does not apply: Codex refuses it
    text = call(repo, "codex", "PreToolUse", "upd-stale", tool_name="apply_patch",
                tool_input={"command": stale})  # fmt: skip
    assert "## check:" not in text


def test_files_over_one_megabyte_are_judged_on_their_first_256_kb(fresh_repo: Path) -> None:
    big = fresh_repo / "scripts/big.py"
    big.write_text("x = 0\n" + "y = 1\n" * 200_000, encoding="utf-8")
    assert big.stat().st_size > 1024 * 1024
    edit = {"file_path": str(big), "old_string": "x = 0\n", "new_string": "print('early')\n"}
    text = call(fresh_repo, "claude", "PreToolUse", "big", tool_name="Edit", tool_input=edit)
    assert "## check: use log.info" in text
    assert "print('early')" in text
    late = {"file_path": str(big), "old_string": "y = 1\n" * 2, "new_string": "print('late')\n"}
    text = call(fresh_repo, "claude", "PreToolUse", "big-2", tool_name="Edit", tool_input=late)
    assert "print('early')" not in text  # the first occurrence is in the first 256 KB


def test_a_check_judges_shell_changes_only_when_its_triggers_name_run(fresh_repo: Path) -> None:
    """The DEBUG memory's triggers name ``edit`` only: a file ``sed -i`` changed is not judged
    by it (its ``on`` is honoured); with ``run`` added, it is."""
    settings = fresh_repo / "config/settings.py"
    settings.write_text("DEBUG = True\n", encoding="utf-8")  # what the command did
    call(fresh_repo, "claude", "UserPromptSubmit", "sh", prompt="turn debugging on")
    call(fresh_repo, "claude", "PostToolUse", "sh", tool_name="Bash",
         tool_input={"command": "sed -i s/False/True/ config/settings.py"},
         tool_response={"stdout": "", "interrupted": False})  # fmt: skip
    assert call(fresh_repo, "claude", "Stop", "sh", stop_hook_active=False) == ""
    path = fresh_repo / ".cuecard/memories/aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa.json"
    memory = json.loads(path.read_text())
    memory["triggers"][0]["on"] = ["edit", "run"]
    path.write_text(json.dumps(memory))
    subprocess.run([str(BIN / "cuecard"), "compile"], cwd=fresh_repo, check=True,
                   capture_output=True)  # fmt: skip
    call(fresh_repo, "claude", "UserPromptSubmit", "sh2", prompt="turn debugging on")
    call(fresh_repo, "claude", "PostToolUse", "sh2", tool_name="Bash",
         tool_input={"command": "sed -i s/False/True/ config/settings.py"},
         tool_response={"stdout": "", "interrupted": False})  # fmt: skip
    text = call(fresh_repo, "claude", "Stop", "sh2", stop_hook_active=False)
    assert "## check: DEBUG is on" in text
    assert "config/settings.py" in text


def test_run_in_a_checks_on_judges_only_files_changed_through_the_shell(fresh_repo: Path) -> None:
    memory = json.loads(
        (fresh_repo / ".cuecard/memories/aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa.json").read_text()
    )
    memory["triggers"] = [{"on": ["run"], "commands": ["sed"]}]
    memory["check"]["paths"] = ["app/**"]
    memory["check"]["if_content"] = memory["check"]["if_content"].replace("DEBUG", "HACK")
    memory["check"]["violates"] = ["HACK = True"]
    memory["check"]["passes"] = ["HACK = False"]
    (fresh_repo / ".cuecard/memories/aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa.json").write_text(
        json.dumps(memory)
    )
    subprocess.run([str(BIN / "cuecard"), "compile"], cwd=fresh_repo, check=True,
                   capture_output=True)  # fmt: skip
    (fresh_repo / "app").mkdir()
    (fresh_repo / "app/x.py").write_text("HACK = False\n")
    (fresh_repo / "app/y.py").write_text("HACK = False\n")
    subprocess.run([*GIT, "add", "-A", "app"], cwd=fresh_repo, check=True)
    subprocess.run([*GIT, "commit", "-qm", "app"], cwd=fresh_repo, check=True)
    (fresh_repo / "app/x.py").write_text("HACK = True\n")
    (fresh_repo / "app/y.py").write_text("HACK = True\n")
    call(fresh_repo, "claude", "UserPromptSubmit", "run", prompt="flip it")
    call(fresh_repo, "claude", "PostToolUse", "run", tool_name="Bash",
         tool_input={"command": "sed -i s/False/True/ app/x.py"},
         tool_response={"stdout": "", "interrupted": False})  # fmt: skip
    call(fresh_repo, "claude", "PostToolUse", "run", tool_name="Edit",
         tool_input={"file_path": "app/y.py", "old_string": "False", "new_string": "True"},
         tool_response={"filePath": "app/y.py"})  # fmt: skip
    text = call(fresh_repo, "claude", "Stop", "run", stop_hook_active=False)
    assert "check on app/x.py" in text
    assert "app/y.py" not in text
