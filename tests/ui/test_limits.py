"""The settings page reports the effective delivery limit of each installed harness's hook."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._support.ui import Seeded, Server

HOOK = {"type": "command", "command": "'/opt/cuecard/bin/cuecard-hook' claude", "timeout": 10}


@pytest.fixture(autouse=True)
def empty_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))


def test_settings_show_what_each_installed_hook_delivers(seeded: Seeded, live: Server) -> None:
    client = live.client()
    try:
        page = client.get("/settings").text
        assert "No harness runs cuecard's hooks for this project" in page
        settings = seeded.root / ".claude/settings.json"
        settings.parent.mkdir(exist_ok=True)
        settings.write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [HOOK]}]}}))
        assert client.post(
            "/api/settings", json={"auto_accept": True, "delivery_limit": 5_000}
        ).is_success
        page = client.get("/settings").text
        assert "claude at most 5,000 characters" in page
        assert "hook output inline" not in page
        assert client.post(
            "/api/settings", json={"auto_accept": True, "delivery_limit": 50_000}
        ).is_success
        page = client.get("/settings").text
        assert "claude at most 8," in page
        assert "(it keeps 10,000 characters of hook output inline)" in page
    finally:
        client.close()
