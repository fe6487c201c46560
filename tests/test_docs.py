"""The README documents every command and setting, and its set-up commands are the real ones."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

import pytest

from cuecard.core._config import ProjectConfig, RetireOptions
from cuecard.core.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def commands() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert isinstance(sub, argparse._SubParsersAction)
    return sorted(sub.choices)


@pytest.mark.parametrize("name", commands())
def test_every_command_is_in_the_readme(name: str) -> None:
    assert f"`cuecard {name}" in README or f"cuecard {name} " in README


@pytest.mark.parametrize(
    "key",
    [*ProjectConfig.model_fields, *(f"retire.{k}" for k in RetireOptions.model_fields)],
)
def test_every_setting_is_in_the_readme(key: str) -> None:
    if key == "retire":
        return
    assert f"`{key}`" in README


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
    assert "`python -m pip install dist/cuecard_core-*.whl dist/cuecard_hooks-*.whl`" in README
    assert "pip_install dist/cuecard_core-*.whl dist/cuecard_hooks-*.whl)" in check
    assert "](docs/installing.md)" in README
    assert "](docs/releasing.md)" in README
    releasing = (ROOT / "docs" / "releasing.md").read_text(encoding="utf-8")
    assert "twine check --strict dist/*" in releasing
    assert "twine check --strict" in check, "CI runs the release procedure's check"
