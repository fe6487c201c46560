"""Recorded payloads of every event of every harness, each with the hook's exact stdout.

Each file in ``fixtures/<harness>/<case>.json`` holds the event, the payload (or ``raw`` stdin),
optional ``setup`` calls made first in the same session and ``files`` written first, and the exact
``stdout``. ``$ROOT`` is the repository, ``$OUTSIDE`` a folder that did not opt in, ``$SESSION`` a
session id of the case's own; ``{"$repeat": [text, n]}`` stands for ``text * n``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._support.hooks import FIXTURES, play

CASES = sorted(FIXTURES.glob("*/*.json"))
HARNESSES = ("claude", "codex", "opencode", "grok")


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("outside")


@pytest.mark.parametrize("case", CASES, ids=[f"{p.parent.name}/{p.stem}" for p in CASES])
def test_fixture_gives_its_exact_stdout(
    case: Path, repo: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CUECARD_PROJECT_DIR", raising=False)
    monkeypatch.chdir(repo)
    spec = json.loads(case.read_text(encoding="utf-8"))
    out = play(case.parent.name, case.stem, spec, repo, outside)
    assert out == spec["stdout"]
    if out:
        answer = json.loads(out)
        assert len(out) <= 10_000
        assert "permissionDecision" not in json.dumps(answer)
        assert set(answer) <= {"hookSpecificOutput", "systemMessage", "decision", "reason"}


def test_every_harness_has_fixtures_for_every_event() -> None:
    for harness in HARNESSES:
        events = {json.loads(p.read_text())["event"] for p in (FIXTURES / harness).glob("*.json")}
        assert {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"} <= events


def test_every_harness_has_recorded_real_payloads() -> None:
    """``real-*.json`` come from the real harnesses (tests/e2e/record_fixtures.py)."""
    fired = {
        "claude": {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
                   "PostToolUseFailure", "Stop"},
        "codex": {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"},
        # OpenCode's plugin sends SessionStart only at a compaction, which a headless run lacks
        "opencode": {"UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"},
        "grok": {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"},
    }  # fmt: skip
    for harness, events in fired.items():
        real = [json.loads(p.read_text()) for p in (FIXTURES / harness).glob("real-*.json")]
        assert {spec["event"] for spec in real} == events
        assert all(spec["about"].startswith(f"recorded from {harness} ") for spec in real)
        assert len({spec["harness_version"] for spec in real}) == 1
