"""Fixtures shared by every test folder: a home of the session's own (see
``tests._support.home``), the CLI, an opted-in project, a PostgreSQL server."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# the shared helpers' assertions report their values as a test's own do
pytest.register_assert_rewrite("tests._support")

from tests._support import home as session_home  # noqa: E402
from tests._support.cli import run_cli  # noqa: E402
from tests._support.postgres import PgServer, running_server  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    """Before any test or subprocess runs: HOME and the XDG folders in a session folder."""
    if session_home.SESSION is None:
        session_home.isolate()


def pytest_unconfigure(config: pytest.Config) -> None:
    if session_home.SESSION is not None:
        session_home.restore(session_home.SESSION)
        session_home.SESSION = None


@pytest.fixture
def cli() -> Callable[..., subprocess.CompletedProcess[str]]:
    return run_cli


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An opted-in project inside a real git repository."""
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    result = run_cli("init", cwd=root)
    assert result.returncode == 0, result.stderr
    return root


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """A throwaway PostgreSQL server for the session (see ``tests._support.postgres``); skips
    when no PostgreSQL binaries exist."""
    yield from running_server()


@pytest.fixture
def pg_url(pg_server: PgServer, monkeypatch: pytest.MonkeyPatch) -> str:
    """A fresh empty database on the test server; ``PGPASSWORD`` set for this test."""
    import psycopg

    name = "t_" + uuid.uuid4().hex[:16]
    with psycopg.connect(
        pg_server.url("postgres"), password=pg_server.password, autocommit=True
    ) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    monkeypatch.setenv("PGPASSWORD", pg_server.password)
    return pg_server.url(name)
