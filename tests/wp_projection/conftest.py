"""Fixtures for the projection tests: envelopes, a live receiver on loopback, helpers."""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from cuecard.wp_projection import (
    ReceiverSettings,
    build_app,
    render_settings,
    signed_headers,
    write_bridge,
)

SECRET = "test-secret-0123456789abcdef"
HOME = "http://127.0.0.1:8089"


def envelope(
    kind: str = "memory.updated",
    *,
    seq: int = 1,
    filename: str = "MEMORY.md",
    content: str | bytes | None = "# MEMORY.md\n\n## Facts\n- probe\n",
    layer: str = "agent",
    user_id: int = 1,
    agent_id: int = 0,
    agent_slug: str | None = "admin",
    home_url: str = HOME,
    event_id: str | None = None,
) -> dict[str, Any]:
    """A ``dm-memory-projection/v1`` envelope as the bridge builds it."""
    env: dict[str, Any] = {
        "schema": "dm-memory-projection/v1",
        "event_id": event_id or str(uuid.uuid4()),
        "seq": seq,
        "emitted_at": "2026-11-30T07:30:17Z",
        "site": {"home_url": home_url, "blog_id": 1},
        "type": kind,
    }
    if kind == "guideline.updated":
        env.update(post_id=100, guideline_type="memory")
        return env
    env["scope"] = {
        "layer": layer,
        "workspace_type": "site",
        "workspace_id": home_url,
        "user_id": user_id,
        "agent_id": agent_id,
        "agent_slug": agent_slug,
        "filename": filename,
        "key": f"{layer}:site:{home_url}:{user_id}:{agent_id}:{filename}",
    }
    if kind in ("memory.updated", "composable.regenerated") and content is not None:
        raw = content.encode() if isinstance(content, str) else content
        env.update(
            content=raw.decode(),
            content_encoding="utf-8",
            hash=hashlib.sha1(raw).hexdigest(),
            bytes=len(raw),
            metadata={"layer": layer, "filename": filename},
        )
    return env


def signed(body: bytes, *, secret: str = SECRET, ts: int | None = None) -> dict[str, str]:
    headers = signed_headers(secret.encode(), int(time.time()) if ts is None else ts, body)
    headers["Content-Type"] = "application/json"
    return headers


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Receiver:
    url: str
    root: Path
    managed: Path
    client: httpx.Client

    def post(self, env: dict[str, Any] | bytes, **kw: Any) -> httpx.Response:
        body = env if isinstance(env, bytes) else json.dumps(env).encode()
        headers = kw.pop("headers", None) or signed(body)
        return self.client.post(self.url + "/events", content=body, headers=headers, **kw)

    def status(self) -> dict[str, Any]:
        response = self.client.get(self.url + "/status", headers=signed(b""))
        assert response.status_code == 200, response.text
        return dict(response.json())

    def wait_idle(self, applied: int | None = None, timeout: float = 60) -> dict[str, Any]:
        """Poll the signed status until the worker drained the queue (bounded, not a timing)."""
        deadline = time.monotonic() + timeout
        while True:
            report = self.status()
            done = report["idle"] and (applied is None or report["queue"]["applied"] >= applied)
            if done:
                return report
            assert time.monotonic() < deadline, f"the worker did not drain the queue: {report}"
            time.sleep(0.02)

    def files(self) -> dict[str, bytes]:
        """Every regular file under the managed folder except the receiver's own state."""
        out = {}
        for path in sorted(self.managed.rglob("*")):
            rel = path.relative_to(self.managed).as_posix()
            if path.is_file() and not rel.startswith("."):
                out[rel] = path.read_bytes()
        return out

    def site_files(self, applied: int) -> dict[str, bytes]:
        """``files()`` once ``applied`` envelopes were applied, without the site's folder."""
        self.wait_idle(applied=applied)
        return {path.split("/", 1)[1]: body for path, body in self.files().items()}


def start_server(app: Any, port: int) -> tuple[uvicorn.Server, threading.Thread]:
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the receiver did not start")
        time.sleep(0.01)
    return server, thread


def _receiver(
    root: Path, settings: ReceiverSettings | None = None, port: int | None = None
) -> Iterator[Receiver]:
    root.mkdir(exist_ok=True)
    settings = settings or ReceiverSettings(root=root, secret=SECRET.encode())
    port = port or free_port()
    server, thread = start_server(build_app(settings), port)
    with httpx.Client(timeout=30) as client:
        yield Receiver(f"http://127.0.0.1:{port}", root, root / ".dm-memory", client)
    server.should_exit = True
    thread.join(timeout=30)


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[Receiver]:
    """A fresh receiver on loopback, in this process."""
    yield from _receiver(tmp_path / "runtime")


@pytest.fixture(scope="module")
def shared_receiver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Receiver]:
    """One receiver for a module's tests that only check what does not change."""
    yield from _receiver(tmp_path_factory.mktemp("shared") / "runtime")


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
        gen = _receiver(settings.root, settings, port)
        running.append(gen)
        return next(gen)

    yield start
    for gen in running:
        for _ in gen:
            pass


@dataclass(frozen=True)
class WebUser:
    """A system user other than the one running the tests, as a web server runs PHP."""

    name: str
    uid: int
    gid: int

    def command(self, argv: list[str]) -> list[str]:
        """``argv`` run as this user (setpriv: real and effective ids, no supplementary groups)."""
        return [
            "setpriv",
            f"--reuid={self.uid}",
            f"--regid={self.gid}",
            "--clear-groups",
            "--",
            *argv,
        ]


WEB_USER = "cuecard-web"


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
    harness = Path(__file__).parent / "php" / "harness.php"
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
