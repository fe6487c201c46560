"""The README's front page fits two screens and links the rest; the reference
(docs/reference.md) documents every command and setting; the set-up commands are the real ones."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

import pytest

from cuecard.core import ProjectConfig
from cuecard.core.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
REFERENCE = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
# The options of config.json's "retire" object, read from the public model's field.
RETIRE_FIELDS = ProjectConfig.model_fields["retire"].annotation.model_fields  # type: ignore[union-attr]
MAX_README_LINES = 150
"""Two screens of a terminal or a browser window: the front page says what cuecard is, the two
set-up commands, a first memory, the demo, the review UI, the harnesses and the vault."""
MOVED = ("docs/setup.md", "docs/reference.md", "docs/vault.md", "docs/security.md",
         "docs/departures.md")  # fmt: skip


def commands() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert isinstance(sub, argparse._SubParsersAction)
    return sorted(sub.choices)


@pytest.mark.parametrize("name", commands())
def test_every_command_is_in_the_reference(name: str) -> None:
    assert f"`cuecard {name}" in REFERENCE or f"cuecard {name} " in REFERENCE


@pytest.mark.parametrize(
    "key",
    [*ProjectConfig.model_fields, *(f"retire.{k}" for k in RETIRE_FIELDS)],
)
def test_every_setting_is_in_the_reference(key: str) -> None:
    if key == "retire":
        return
    assert f"`{key}`" in REFERENCE


def test_the_setup_commands_are_real_scripts() -> None:
    block = re.search(r"## Set up.*?```sh\n(.*?)```", README, re.S)
    assert block is not None
    lines = [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.strip()]
    assert lines == ["scripts/quickstart", "scripts/test"]
    for line in lines:
        assert os.access(ROOT / line, os.X_OK)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-1] == "scripts/test", "CI runs exactly the README's test command, last"


def test_the_wheel_install_the_docs_give_is_the_one_ci_runs() -> None:
    docs = (ROOT / "docs" / "installing.md").read_text(encoding="utf-8")
    check = (ROOT / "scripts" / "check-install").read_text(encoding="utf-8")
    assert "bin/python -m pip install dist/cuecard_core-*.whl dist/cuecard_hooks-*.whl" in docs
    setup = (ROOT / "docs" / "setup.md").read_text(encoding="utf-8")
    assert "`python -m pip install dist/cuecard_core-*.whl dist/cuecard_hooks-*.whl`" in setup
    assert "pip_install dist/cuecard_core-*.whl dist/cuecard_hooks-*.whl)" in check
    assert "](installing.md)" in setup
    assert "](releasing.md)" in setup
    assert "](docs/setup.md)" in README
    releasing = (ROOT / "docs" / "releasing.md").read_text(encoding="utf-8")
    assert "twine check --strict dist/*" in releasing
    assert "twine check --strict" in check, "CI runs the release procedure's check"


def test_the_first_screen_shows_the_vault_tools_outside_dsh_and_terminal_review() -> None:
    first = "\n".join(README.splitlines()[:30])
    assert "memory_search" in first
    assert "memory_submit" in first
    assert "cuecard install claude" in first
    assert "cuecard mcp" in first
    assert "cuecard review" in first


def test_the_front_page_fits_two_screens_and_links_what_moved() -> None:
    assert len(README.splitlines()) <= MAX_README_LINES
    headings = re.findall(r"^## (.+)$", README, re.M)
    for section in ("Set up", "What a session looks like", "The review UI", "Harnesses",
                    "The vault", "More"):  # fmt: skip
        assert any(h.startswith(section) for h in headings), section
    for doc in MOVED:
        assert f"]({doc})" in README, doc
        assert (ROOT / doc).is_file(), doc
    assert "cuecard demo" in README
    assert "ssh -L" in README  # the UI from another machine


def test_the_front_page_shows_the_review_ui_the_browser_tests_render() -> None:
    shot = re.search(r"!\[[^\]]*\]\((packages/ui/docs/screenshots/[\w.-]+\.png)\)", README)
    assert shot is not None
    assert (ROOT / shot.group(1)).is_file()
    browser = (ROOT / "tests" / "ui" / "test_browser.py").read_text(encoding="utf-8")
    assert f'"{Path(shot.group(1)).stem}": "/"' in browser  # the main page's screenshot
