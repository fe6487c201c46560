"""Every harness, event and command of cuecard-hooks is documented."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from cuecard.hooks._harness import EVENTS, HARNESSES
from cuecard.hooks._hook import USAGE
from cuecard.hooks._install import EVENTS as INSTALLED
from tests._support.cli import run_cli
from tests._support.hooks import HOOK

README = (Path(__file__).parents[2] / "packages" / "hooks" / "README.md").read_text()


def test_readme_names_every_harness_and_event() -> None:
    for harness in HARNESSES:
        assert f"cuecard install {harness}" in README
        assert harness in USAGE
    for event in set(EVENTS.values()):
        assert f"`{event}`" in README or event in README
        assert event in USAGE
    for events in INSTALLED.values():
        assert set(events) <= set(EVENTS.values())


def test_hook_help(tmp_path: Path) -> None:
    result = subprocess.run([HOOK, "--help"], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout == USAGE


@pytest.mark.parametrize("command", ["install", "uninstall", "demo"])
def test_commands_document_their_json_keys(command: str, tmp_path: Path) -> None:
    result = run_cli(command, "--help", cwd=tmp_path)
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "--json prints keys:" in text
    if command != "demo":
        for option in ("--user", "--project", "--plugin"):
            assert option in text
        assert "claude,codex,opencode,grok" in text.replace(" ", "")
