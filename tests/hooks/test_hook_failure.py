"""A broken config or a typo in the hook command: silent to the agent, recorded for the person
in .cuecard/local/, shown by ``cuecard doctor`` and in SessionStart's line."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests._support.cli import run_cli
from tests._support.hooks import HOOK, run_hook

RECORD = Path(".cuecard/local/hook-failure.json")


def edit(root: Path) -> dict[str, object]:
    return {
        "session_id": "fail",
        "cwd": str(root),
        "tool_name": "Edit",
        "tool_input": {"file_path": "src/billing/charge.py", "old_string": "a", "new_string": "b"},
    }


def silent(result: subprocess.CompletedProcess[bytes]) -> None:
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def session_line(root: Path) -> str:
    start = {"session_id": "fail", "cwd": str(root), "source": "startup"}
    result = run_hook("claude", "SessionStart", start, cwd=root)
    assert result.returncode == 0
    assert result.stderr == b""
    return str(json.loads(result.stdout)["systemMessage"])


def doctor_problems(root: Path) -> list[str]:
    report = json.loads(run_cli("doctor", "--json", cwd=root).stdout)
    return [p["message"] for p in report["problems"] if "` failed at " in p["message"]]


def test_a_broken_config_is_recorded_shown_and_forgotten_once_fixed(fresh_repo: Path) -> None:
    config = fresh_repo / ".cuecard" / "config.json"
    good = config.read_text()
    config.write_text("{not json", encoding="utf-8")
    silent(run_hook("claude", "PreToolUse", edit(fresh_repo), cwd=fresh_repo))
    record = json.loads((fresh_repo / RECORD).read_text())
    assert list(record) == ["claude PreToolUse"]
    assert "config.json" in record["claude PreToolUse"]["reason"]
    line = session_line(fresh_repo)
    assert line.startswith("cuecard: not working in this project. Hooks failed here")
    assert "config.json" in line
    assert "cuecard doctor" in line
    assert any(
        "`cuecard-hook claude PreToolUse` failed at" in m for m in doctor_problems(fresh_repo)
    )
    config.write_text(good, encoding="utf-8")
    answer = run_hook("claude", "PreToolUse", edit(fresh_repo), cwd=fresh_repo)
    assert b"charge() is not idempotent" in answer.stdout
    assert session_line(fresh_repo).startswith("cuecard: 13 live memories")
    assert not (fresh_repo / RECORD).exists()
    assert doctor_problems(fresh_repo) == []


def test_a_typo_in_the_hook_command_is_recorded_until_install_rewrites_it(
    fresh_repo: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "CUECARD_PROJECT_DIR"}
    payload = json.dumps(edit(fresh_repo)).encode()
    for args in (["claude", "PreToolUze"], ["claud", "PreToolUse"], ["claude"]):
        done = subprocess.run([HOOK, *args], input=payload, capture_output=True, cwd=fresh_repo,
                              env=env)  # fmt: skip
        silent(done)
    record = json.loads((fresh_repo / RECORD).read_text())
    assert "unknown event 'PreToolUze'" in record["claude PreToolUze"]["reason"]
    assert "unknown harness 'claud'" in record["claud PreToolUse"]["reason"]
    assert "two arguments" in record["claude"]["reason"]
    line = session_line(fresh_repo)
    assert line.startswith("cuecard: 13 live memories")
    assert "(and 2 more)" in line
    assert len(doctor_problems(fresh_repo)) == 3
    assert run_cli("install", "claude", cwd=fresh_repo).returncode == 0
    assert not (fresh_repo / RECORD).exists()


def test_a_harness_event_cuecard_does_not_act_on_is_no_typo(fresh_repo: Path) -> None:
    payload = json.dumps(edit(fresh_repo)).encode()
    silent(subprocess.run([HOOK, "claude", "Notification"], input=payload, capture_output=True,
                          cwd=fresh_repo))  # fmt: skip
    assert not (fresh_repo / RECORD).exists()


def test_nothing_is_recorded_outside_an_opted_in_project(tmp_path: Path) -> None:
    payload = json.dumps(edit(tmp_path)).encode()
    silent(subprocess.run([HOOK, "claude", "Nope"], input=payload, capture_output=True,
                          cwd=tmp_path))  # fmt: skip
    assert list(tmp_path.iterdir()) == []
