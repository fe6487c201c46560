"""SessionStart starts maintenance, detached, at most once a day; never after a compaction."""

from __future__ import annotations

import json
from pathlib import Path

from tests._support.hooks import run_hook


def payload(source: str) -> dict[str, str]:
    return {"hook_event_name": "SessionStart", "session_id": "s-maint", "source": source}


def test_session_start_claims_the_days_maintenance_once(fresh_repo: Path) -> None:
    marker = fresh_repo / ".cuecard/local/maintain.spawn"
    compacted = run_hook("claude", "SessionStart", payload("compact"), cwd=fresh_repo)
    assert compacted.returncode == 0
    assert compacted.stdout == b""
    assert not marker.exists()
    first = run_hook("claude", "SessionStart", payload("startup"), cwd=fresh_repo)
    assert first.returncode == 0
    assert "live memories" in json.loads(first.stdout)["systemMessage"]
    assert marker.is_file()
    stamp = marker.read_text()
    second = run_hook("claude", "SessionStart", payload("resume"), cwd=fresh_repo)
    assert second.returncode == 0
    assert marker.read_text() == stamp
