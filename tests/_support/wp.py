"""The projection tests' parts: envelopes, signatures, a live receiver on loopback, the web user."""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from cuecard.wp_projection import (
    ReceiverSettings,
    build_app,
    signed_headers,
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


class Idles:
    """Counts the times the receiver's worker found its queue empty (``build_app``'s
    ``on_idle``), so a test waits for the next one instead of polling."""

    def __init__(self) -> None:
        self.count = 0
        self.changed = threading.Condition()

    def __call__(self) -> None:
        with self.changed:
            self.count += 1
            self.changed.notify_all()

    def seen(self) -> int:
        with self.changed:
            return self.count

    def wait_past(self, seen: int, timeout: float) -> bool:
        """Wait until the worker was idle again after ``seen`` (False at the liveness bound)."""
        with self.changed:
            return self.changed.wait_for(lambda: self.count != seen, timeout=timeout)


@dataclass
class Receiver:
    url: str
    root: Path
    managed: Path
    client: httpx.Client
    idles: Idles = field(default_factory=Idles)

    def post(self, env: dict[str, Any] | bytes, **kw: Any) -> httpx.Response:
        body = env if isinstance(env, bytes) else json.dumps(env).encode()
        headers = kw.pop("headers", None) or signed(body)
        return self.client.post(self.url + "/events", content=body, headers=headers, **kw)

    def status(self) -> dict[str, Any]:
        response = self.client.get(self.url + "/status", headers=signed(b""))
        assert response.status_code == 200, response.text
        return dict(response.json())

    def wait_idle(self, applied: int | None = None, timeout: float = 60) -> dict[str, Any]:
        """The signed status once the worker drained the queue: read it, and while it is not
        idle (or not ``applied`` yet) wait for the worker's next idle moment and read it again
        (``timeout`` is a liveness bound, not a timing)."""
        deadline = time.monotonic() + timeout
        while True:
            seen = self.idles.seen()
            report = self.status()
            done = report["idle"] and (applied is None or report["queue"]["applied"] >= applied)
            if done:
                return report
            woke = self.idles.wait_past(seen, max(deadline - time.monotonic(), 0.0))
            assert woke, f"the worker did not drain the queue: {report}"

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


def run_receiver(
    root: Path, settings: ReceiverSettings | None = None, port: int | None = None
) -> Iterator[Receiver]:
    """A receiver on loopback serving ``root``, stopped when the generator ends."""
    root.mkdir(exist_ok=True)
    settings = settings or ReceiverSettings(root=root, secret=SECRET.encode())
    port = port or free_port()
    idles = Idles()
    server, thread = start_server(build_app(settings, on_idle=idles), port)
    with httpx.Client(timeout=30) as client:
        yield Receiver(f"http://127.0.0.1:{port}", root, root / ".dm-memory", client, idles)
    server.should_exit = True
    thread.join(timeout=30)


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
