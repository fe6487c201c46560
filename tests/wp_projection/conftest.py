"""Fixtures for the projection tests: envelopes, a live receiver on loopback, the web user (the
parts are in ``tests._support.wp``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cuecard.wp_projection import ReceiverSettings, render_settings, write_bridge
from tests._support.wp import (
    SECRET,
    WEB_USER,
    Receiver,
    WebUser,
    envelope,
    run_receiver,
    signed,
)
from tests._support.wp_bridge import HARNESS


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[Receiver]:
    """A fresh receiver on loopback, in this process."""
    yield from run_receiver(tmp_path / "runtime")


@pytest.fixture(scope="module")
def shared_receiver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Receiver]:
    """One receiver for a module's tests that only check what does not change."""
    yield from run_receiver(tmp_path_factory.mktemp("shared") / "runtime")


@pytest.fixture
def bridge(tmp_path: Path, receiver: Receiver, secret: str) -> Path:
    """A bridge written into ``mu-plugins`` as the README says, sending to ``receiver``, with
    no agent settings at all."""
    out = tmp_path / "mu-plugins"
    write_bridge(out, render_settings(endpoint=receiver.url + "/events", secret=secret))
    return out


@pytest.fixture
def make_envelope() -> Any:
    """The ``envelope(...)`` builder."""
    return envelope


@pytest.fixture
def sign() -> Any:
    """``sign(body, secret=..., ts=...)`` -> signed request headers."""
    return signed


@pytest.fixture
def secret() -> str:
    return SECRET


@pytest.fixture
def start_receiver() -> Iterator[Any]:
    """``start_receiver(settings, port=None) -> Receiver``; stopped at teardown."""
    running: list[Iterator[Receiver]] = []

    def start(settings: ReceiverSettings, port: int | None = None) -> Receiver:
        gen = run_receiver(settings.root, settings, port)
        running.append(gen)
        return next(gen)

    yield start
    for gen in running:
        for _ in gen:
            pass


@pytest.fixture(scope="session")
def web_user() -> WebUser:
    """The system user ``cuecard-web`` (created when missing); skips unless the tests run as
    root, the only way to switch users without a password."""
    import os
    import pwd
    import shutil
    import subprocess
    import sys

    if os.geteuid() != 0:
        pytest.skip("running PHP as another user needs root (setpriv)")
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is missing")
    try:
        entry = pwd.getpwnam(WEB_USER)
    except KeyError:
        made = subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", WEB_USER],
            check=False,
            capture_output=True,
            text=True,
        )
        if made.returncode != 0:
            pytest.skip(f"cannot create the system user {WEB_USER}: {made.stderr.strip()}")
        entry = pwd.getpwnam(WEB_USER)
    user = WebUser(WEB_USER, entry.pw_uid, entry.pw_gid)
    # The checkout and the venv must be readable by others (not so under a private home).
    harness = HARNESS
    probe = subprocess.run(
        user.command([sys.executable, "-c", f"open({str(harness)!r}).close()"]),
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        pytest.skip(f"{WEB_USER} cannot read this checkout or its Python: {probe.stderr[-200:]}")
    return user


@pytest.fixture
def open_tmp() -> Iterator[Path]:
    """A temporary folder every user can traverse (pytest's own is private to its user)."""
    import shutil
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="cuecard-wp-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)
