"""``cuecard demo``: a recorded Claude Code session replayed through the real hook."""

from __future__ import annotations

import json
from pathlib import Path

from cuecard.hooks._demo import render
from tests._support.cli import run_cli


def test_demo_replays_the_session(tmp_path: Path) -> None:
    result = run_cli("demo", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    demo = json.loads(result.stdout)
    assert set(demo) == {"repository", "steps", "delivered"}
    assert not Path(demo["repository"]).exists()  # thrown away
    steps = demo["steps"]
    assert all(step["exit"] == 0 for step in steps)
    received = [json.dumps(step["received"]) for step in steps]
    events = [step["event"] for step in steps]
    assert events[0] == "SessionStart (startup)"
    assert steps[0]["received"]["systemMessage"].startswith("cuecard: 4 live memories")
    assert "make deploy-staging" in received[1]
    assert received[2] == "{}"  # a read no memory concerns
    assert "charge() is not idempotent" in received[3]
    assert received[5] == "{}"  # the same memory is not delivered twice in an epoch
    assert "alembic downgrade breaks" in received[9]
    assert steps[10]["received"]["decision"] == "block"
    assert "failed, then succeeded after a change" in steps[10]["received"]["reason"]
    assert "cuecard activated memory" in received[11] or "cuecard stored candidate" in received[11]
    assert received[12] == "{}"
    assert received[13] == "{}"
    assert "charge() is not idempotent" in received[14]  # again, after the compaction
    assert demo["delivered"] == 4
    out = render(demo["repository"], steps, demo["delivered"])  # what `cuecard demo` prints
    assert "[4] PreToolUse Edit src/billing/charge.py" in out
    assert "→ the agent receives:" in out
    assert "→ the person sees:" in out
    assert "→ the agent is asked (Stop blocks with this reason):" in out
    assert "4 memory deliveries in the session" in out
