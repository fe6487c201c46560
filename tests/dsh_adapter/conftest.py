"""Fixtures of the DSH adapter tests: an isolated cuecard home and a real vault."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._support.dsh import Home, isolate, seed_vault, vault_cli


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    """An isolated cuecard user (config, cache, HOME); CUECARD_VAULT names a vault not yet made."""
    return isolate(tmp_path, monkeypatch)


@pytest.fixture
def home(isolated: Home) -> Home:
    """An isolated cuecard user with an empty vault."""
    vault_cli("vault", "init")
    return isolated


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Home]:
    """A vault with promoted facts, shared by the read-only tests of one module."""
    with pytest.MonkeyPatch.context() as mp:
        h = isolate(tmp_path_factory.mktemp("seeded"), mp)
        seed_vault()
        yield h
