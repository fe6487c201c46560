"""Running the real PHP bridge in tests/wp_projection/php/harness.php (a WordPress stand-in).

One `run_php` call is one WordPress request that fires Data Machine's actions, then (unless
`run_queue=False`) a later request in which Action Scheduler or WP-Cron runs what is due. The
options (WordPress's database) persist in `<state>/options.json` between calls.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import subprocess
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HARNESS = Path(__file__).resolve().parents[1] / "wp_projection" / "php" / "harness.php"
HOME = "http://127.0.0.1:8089"
PHP = shutil.which("php")

needs_php = pytest.mark.skipif(PHP is None, reason="php-cli missing: run scripts/deps/php.sh")

USERS = [
    {"ID": 1, "user_login": "admin", "role": "administrator"},
    {"ID": 2, "user_login": "bob", "role": "editor"},
    {"ID": 3, "user_login": "carol", "role": "author"},
]
AGENTS = [
    {"agent_id": 1, "agent_slug": "admin", "owner_id": 1},
    {"agent_id": 2, "agent_slug": "bob", "owner_id": 2},
    {"agent_id": 7, "agent_slug": "ops-bot", "owner_id": 1},
]


def scope(
    filename: str = "MEMORY.md", layer: str = "agent", user: int = 1, agent: int = 0
) -> dict[str, Any]:
    """A `WP_Agent_Memory_Scope` argument, as Data Machine passes it."""
    return {
        "__scope": {
            "layer": layer,
            "workspace_type": "site",
            "workspace_id": HOME,
            "user_id": user,
            "agent_id": agent,
            "filename": filename,
        }
    }


def updated(filename: str = "MEMORY.md", content: str = "x\n", **kw: Any) -> dict[str, Any]:
    args = [scope(filename, **kw), content, {}]
    return {"action": "datamachine_agent_memory_updated", "args": args}


def php_has(extension: str) -> bool:
    assert PHP is not None
    listed = subprocess.run([PHP, "-m"], capture_output=True, text=True, check=True).stdout
    return extension in listed.split()


def transport_flags(transport: str) -> list[str]:
    """PHP flags that leave the bridge exactly the transport a test means to exercise.

    "wp": the harness defines wp_remote_post. "curl": no WordPress HTTP API; needs php-curl.
    "stream": no WordPress HTTP API and curl disabled, whatever the machine has installed.
    """
    flags = ["-d", "display_errors=stderr"]
    if transport == "curl" and not php_has("curl"):
        pytest.skip("php-curl is not installed")
    if transport == "stream":
        flags += ["-d", "disable_functions=curl_init,curl_exec,curl_setopt_array"]
    return flags


def run_php(
    state: Path,
    plugin_dir: Path,
    events: list[dict[str, Any]],
    *,
    as_user: Any = None,
    **script: Any,
) -> dict[str, Any]:
    """One request firing ``events``, then the scheduler's run; returns the harness's report."""
    assert PHP is not None
    spec: dict[str, Any] = {
        "home_url": HOME + "/",
        "options_file": str(state / "options.json"),
        "log_file": str(state / "php.log"),
        "substrate": False,
        "transport": "wp",
        "users": USERS,
        "agents": AGENTS,
        "events": events,
        **script,
    }
    path = state / f"script-{uuid.uuid4().hex[:8]}.json"
    path.write_text(json.dumps(spec))
    path.chmod(0o644)
    argv = [PHP, *transport_flags(spec["transport"]), str(HARNESS), str(plugin_dir), str(path)]
    if as_user is not None:
        argv = as_user.command(argv)
    result = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    report = dict(json.loads(result.stdout))
    report["stderr"] = result.stderr
    return report


class HungReceiver:
    """A receiver that accepts connections and never answers; counts what it accepted."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.accepted = 0
        self._held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            self._held.append(conn)

    def wait_accepted(self, count: int, timeout: float = 30.0) -> int:
        """Wait (bounded) until ``count`` connections were accepted; returns how many were."""
        import time

        deadline = time.monotonic() + timeout
        while self.accepted < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.accepted

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        for conn in self._held:
            conn.close()


@contextlib.contextmanager
def serve_php(state: Path, plugin_dir: Path, port: int, **script: Any) -> Iterator[str]:
    """WordPress's REST API as the harness serves it (PHP's built-in server, the harness as its
    router): the bridge's routes and Data Machine's file routes over the disk store under
    ``uploads_dir``. Yields the site's URL; stopped at the end."""
    import os
    import time

    assert PHP is not None
    spec: dict[str, Any] = {
        "home_url": f"http://127.0.0.1:{port}/",
        "options_file": str(state / "options.json"),
        "log_file": str(state / "php.log"),
        "users": USERS,
        "agents": AGENTS,
        "events": [],
        **script,
    }
    path = state / f"serve-{uuid.uuid4().hex[:8]}.json"
    path.write_text(json.dumps(spec))
    env = {**os.environ, "HARNESS_PLUGIN_DIR": str(plugin_dir), "HARNESS_SCRIPT": str(path)}
    server = subprocess.Popen(
        [PHP, "-d", "display_errors=0", "-S", f"127.0.0.1:{port}", str(HARNESS)],
        env=env,
        cwd=state,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:  # liveness bound: the server accepts connections
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            assert server.poll() is None, "php -S exited"
            assert time.monotonic() < deadline, "php -S did not start"
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)
