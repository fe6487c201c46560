"""Fixtures shared by every test folder."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent


def run_cli(
    *args: str, cwd: Path, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``cuecard`` console script as a user would."""
    full_env = {**os.environ, **(env or {})}
    full_env.pop("CUECARD_PROJECT_DIR", None)
    return subprocess.run(
        [str(BIN / "cuecard"), *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env=full_env,
        timeout=120,
    )


@pytest.fixture
def cli() -> Callable[..., subprocess.CompletedProcess[str]]:
    return run_cli


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    """An opted-in project inside a real git repository."""
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    result = run_cli("init", cwd=root)
    assert result.returncode == 0, result.stderr
    yield root
