"""Fixtures for the core tests: every test gets its own user config and cache folders, no vault
setting from the environment, and ``cc``, the ``cuecard`` CLI run in process."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from cuecard.core.cli import main
from tests._support.cli import Run


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("CUECARD_VAULT", "CUECARD_VAULT_MIRROR"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def cc(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Run:
    """``cuecard ARGS...`` in this process: (exit code, stdout, stderr); ``stdin=`` feeds it."""

    def run(*args: str, stdin: str = "") -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return run
