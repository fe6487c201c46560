"""Fixtures for the review UI: a seeded project and vault, and `cuecard ui` running for real
(the parts are in ``tests._support.ui``)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._support.ui import InThread, Seeded, Server, make_seeded, start_ui, stop_ui


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> Seeded:
    """Seeded once; each test gets a copy (seeding writes with fsync, copying does not)."""
    base = tmp_path_factory.mktemp("template")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(base / "cache"))
        return make_seeded(base)


@pytest.fixture
def seeded(template: Seeded, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Seeded:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    shutil.copytree(template.root, tmp_path / "repo", symlinks=True)
    shutil.copytree(template.vault, tmp_path / "vault", symlinks=True)
    return Seeded(tmp_path / "repo", tmp_path / "vault", dict(template.ids), template.request)


@pytest.fixture
def ui(seeded: Seeded) -> Iterator[Server]:
    """`cuecard ui` on a freshly seeded project, for tests that change things."""
    server = start_ui(seeded.root, seeded.vault)
    yield server
    stop_ui(server)


@pytest.fixture
def live(seeded: Seeded) -> Iterator[Server]:
    """A freshly seeded project served in-process on a loopback port, for change tests."""
    running = InThread(seeded)
    yield Server(running.served.url, None)
    running.stop()


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Seeded, Server]]:
    """One seeded project and server per module, for tests that must leave it unchanged."""
    base = tmp_path_factory.mktemp("ui")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(base / "cache"))
        seeded = make_seeded(base)
        server = start_ui(seeded.root, seeded.vault)
        yield seeded, server
        stop_ui(server)
