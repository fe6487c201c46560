"""Fixtures of the DSH adapter tests: an isolated cuecard home and a real vault."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._support.dsh import Home, vault_cli

FACTS = [
    "The staging server listens on port 8443",
    "We deploy with make release from the main branch",
    "用户偏好简体中文回复",
    "The parser lives in snake_case module token_stream.py",
]


def _isolate(root: Path, mp: pytest.MonkeyPatch) -> Home:
    h = Home(root, root / "config", root / "cache", root / "vault")
    mp.setenv("XDG_CONFIG_HOME", str(h.config))
    mp.setenv("XDG_CACHE_HOME", str(h.cache))
    mp.setenv("CUECARD_VAULT", str(h.vault))
    mp.setenv("HOME", str(root / "userhome"))
    (root / "userhome").mkdir(exist_ok=True)
    return h


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    """An isolated cuecard user (config, cache, HOME); CUECARD_VAULT names a vault not yet made."""
    return _isolate(tmp_path, monkeypatch)


@pytest.fixture
def home(isolated: Home) -> Home:
    """An isolated cuecard user with an empty vault."""
    vault_cli("vault", "init")
    return isolated


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Home]:
    """A vault with promoted facts, shared by the read-only tests of one module."""
    with pytest.MonkeyPatch.context() as mp:
        h = _isolate(tmp_path_factory.mktemp("seeded"), mp)
        vault_cli("vault", "init")
        vault_cli("vault", "submit", "--agent", "seed", stdin="\n".join(FACTS) + "\n")
        vault_cli("vault", "apply", "--auto")
        yield h
