"""Fixtures of the hook tests: the shared repository (``tests._support.hooks.build_repo``), a
fresh one, and the hook runner."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests._support.hooks import build_repo, run_hook


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_repo(tmp_path_factory.mktemp("hooks") / "repo")


@pytest.fixture
def fresh_repo(tmp_path: Path) -> Path:
    return build_repo(tmp_path / "repo")


@pytest.fixture
def hook() -> Callable[..., subprocess.CompletedProcess[bytes]]:
    return run_hook
