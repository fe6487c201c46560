"""``cuecard doctor`` reports the DSH set-up: the recorded interpreter, the profiles holding the
plugins, the hook bridge's configuration, the vault, and the plugins' last failure."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests._support.cli import run_cli
from tests._support.dsh import Home, dsh


def doctor(home: Home) -> tuple[dict[str, Any], list[str], list[str]]:
    done = run_cli("doctor", "--json", cwd=home.root, env={"DSH_HOME": str(home.root / "dsh")})
    report = json.loads(done.stdout)
    problems = [p["message"] for p in report["problems"] if p["check"] == "dsh"]
    notes = [n["message"] for n in report["notes"] if n["check"] == "dsh"]
    return report, problems, notes


def test_nothing_is_said_about_dsh_before_dsh_install(home: Home) -> None:
    report, problems, notes = doctor(home)
    assert report["dsh"] is None
    assert problems == []
    assert notes == []


def test_a_recorded_interpreter_without_profiles_or_vault_is_reported(
    isolated: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert dsh("install", "--no-add", "--out", str(isolated.root / "t")).returncode == 0
    monkeypatch.delenv("CUECARD_VAULT")
    report, problems, _ = doctor(isolated)
    assert report["dsh"]["runs_cuecard"] is True
    assert report["dsh"]["profiles"] == []
    assert any("no DSH profile" in p for p in problems), problems
    assert any("have no vault" in p for p in problems), problems
    assert report["ok"] is False


def test_an_interpreter_without_cuecard_a_stale_hooks_file_and_the_last_failure(
    home: Home,
) -> None:
    config = home.config / "cuecard"
    config.mkdir(parents=True)
    base = Path(sys.base_prefix) / "bin" / "python3"  # the venv's base Python: no cuecard there
    (config / "dsh.json").write_text(json.dumps({"python": str(base)}))
    hooks = {"hooks": {"PreToolUse": [{"matcher": "^(read)$", "hooks": []}]}}
    (config / "dsh-hooks.json").write_text(json.dumps(hooks))
    failure = {"at": "2026-12-01T10:00:00.000Z", "message": "recall failed: cuecard exited"}
    (config / "dsh-status.json").write_text(json.dumps({"last_failure": failure}))
    profile = home.root / "dsh" / "profiles" / "headless"
    profile.mkdir(parents=True)
    (profile / "package.json").write_text(
        json.dumps({"dependencies": {"cuecard-dsh-memory": "file:x.tgz"}})
    )
    report, problems, notes = doctor(home)
    assert report["dsh"]["runs_cuecard"] is False
    assert any("cannot import cuecard.dsh_adapter" in p for p in problems), problems
    assert any("PreToolUse" in p for p in problems), problems
    assert report["dsh"]["profiles"] == ["headless"]
    assert report["dsh"]["last_failure"] == failure
    assert any("recall failed: cuecard exited" in n for n in notes), notes
    assert not any("no vault" in p for p in problems)
