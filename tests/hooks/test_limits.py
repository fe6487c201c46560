"""delivery_limit above a harness's inline limit: doctor and the review UI report the effective
limit per installed harness, and ``cuecard match --harness`` delivers as that hook does."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests._support.hooks import BIN, build_repo, run_hook

HOOK = {"type": "command", "command": "'/opt/cuecard/bin/cuecard-hook' claude", "timeout": 10}


@pytest.fixture(scope="module")
def wide(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hook tests' repository with delivery_limit 50,000 and Claude Code's hooks installed."""
    root = build_repo(tmp_path_factory.mktemp("limits") / "repo")
    config = root / ".cuecard/config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "delivery_limit": 50_000}))
    settings = root / ".claude/settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [HOOK]}]}}))
    subprocess.run([str(BIN / "cuecard"), "compile"], cwd=root, check=True, capture_output=True)
    return root


def cuecard(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(root.parent / "home")}
    env.pop("CUECARD_PROJECT_DIR", None)
    return subprocess.run([str(BIN / "cuecard"), *args], cwd=root, env=env, capture_output=True,
                          text=True, check=False)  # fmt: skip


def match(root: Path, *extra: str) -> dict[str, Any]:
    out = cuecard(root, "match", "--event", "read", "--path", "big/file.txt", "--json", *extra)
    assert out.returncode == 0, out.stderr
    return dict(json.loads(out.stdout))


def test_match_with_a_harness_delivers_what_its_hook_delivers(wide: Path) -> None:
    plain = match(wide)
    as_hook = match(wide, "--harness", "claude")
    assert len(plain["deliveries"]) == 3
    assert not plain["deferred"]
    assert 0 < len(as_hook["deliveries"]) < 3
    assert as_hook["deferred"]
    payload = {"session_id": "", "cwd": str(wide), "tool_name": "Read",
               "tool_input": {"file_path": "big/file.txt"}}  # fmt: skip
    hook = run_hook("claude", "PreToolUse", payload, cwd=wide)
    delivered = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
    assert delivered == as_hook["text"]
    text = cuecard(wide, "match", "--event", "read", "--path", "big/file.txt", "--harness", "codex")
    assert "as the codex hook delivers: within 8," in text.stdout
    assert "holds back" in text.stdout


def test_doctor_reports_the_effective_limit_per_installed_harness(wide: Path) -> None:
    report = json.loads(cuecard(wide, "doctor", "--json").stdout)
    [row] = report["limits"]["harnesses"]
    assert report["limits"]["delivery_limit"] == 50_000
    assert row["harness"] == "claude"
    assert row["capped"]
    assert 8_000 < row["effective"] < 9_000
    [note] = [n for n in report["notes"] if n["check"] == "limits"]
    assert "50,000" in note["message"]
    assert f"{row['effective']:,}" in note["message"]
    assert "limits" in cuecard(wide, "doctor", "--help").stdout
    text = cuecard(wide, "doctor").stdout
    assert f"limit: claude delivers at most {row['effective']:,} characters per event" in text


def test_within_the_inline_limit_nothing_is_noted(tmp_path: Path) -> None:
    root = build_repo(tmp_path / "repo")
    config = root / ".cuecard/config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "delivery_limit": 5_000}))
    settings = root / ".codex/hooks.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [HOOK]}]}}))
    report = json.loads(cuecard(root, "doctor", "--json").stdout)
    assert report["limits"]["harnesses"] == [
        {"harness": "codex", "inline_limit": 10_000, "effective": 5_000, "capped": False}
    ]
    assert not [n for n in report["notes"] if n["check"] == "limits"]
