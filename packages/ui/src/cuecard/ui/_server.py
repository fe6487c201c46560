"""Serving: bind a loopback port, make a fresh key, print the URL, run until interrupted."""

from __future__ import annotations

import secrets
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass

from cuecard.ui._guard import GuardSettings
from cuecard.ui._project import Project

__all__ = ["Served", "bind", "serve"]


@dataclass(frozen=True)
class Served:
    """A bound socket and the URL (with its key) that opens the UI."""

    sock: socket.socket
    guard: GuardSettings

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.guard.port}/?key={self.guard.key}"


def bind(port: int = 0) -> Served:
    """Bind ``127.0.0.1:port`` (0 picks a free port) and make a fresh key and page token."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(64)
    bound = int(sock.getsockname()[1])
    guard = GuardSettings(
        port=bound, key=secrets.token_urlsafe(32), token=secrets.token_urlsafe(32)
    )
    return Served(sock, guard)


def serve(
    project: Project, served: Served, *, on_ready: Callable[[str], None] | None = None
) -> None:
    """Run the UI on the bound socket until interrupted (Ctrl-C)."""
    import uvicorn

    from cuecard.ui._app import build_app

    app = build_app(project, served.guard)
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        server_header=False,
        date_header=False,
    )
    server = uvicorn.Server(config)
    if on_ready is not None:
        on_ready(served.url)
    else:
        print(served.url, flush=True)
    try:
        server.run(sockets=[served.sock])
    finally:
        served.sock.close()
        print("cuecard ui: stopped", file=sys.stderr)
