"""The throwaway PostgreSQL server of the tests dies with the test process, however it ends."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests._support.postgres import pg_bin

ROOT = Path(__file__).resolve().parents[3]

# A test process: starts a server as the pg_server fixture does, says where, and waits for its
# end, which never comes: it is killed.
STARTER = """
import json, sys
from tests._support.postgres import running_server
servers = running_server()  # held: a generator let go runs its teardown
server = next(servers)
pid = open(server.folder + "/data/postmaster.pid").readline().strip()
print(json.dumps({"folder": server.folder, "pid": int(pid)}), flush=True)
sys.stdin.read()
"""


def _gone(pid: int) -> bool:
    """Whether process ``pid`` ended (a zombie no one reaped counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


@pytest.mark.skipif(pg_bin() is None, reason="no PostgreSQL binaries (initdb, pg_ctl)")
def test_a_killed_test_process_takes_its_postgresql_server_with_it() -> None:
    starter = subprocess.Popen(
        [sys.executable, "-c", STARTER],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert starter.stdout is not None
    assert starter.stdin is not None
    try:
        line = starter.stdout.readline()
        assert line, "the starter printed nothing: it failed to start a server"
        started = json.loads(line)
        assert os.path.isdir(started["folder"])
        assert not _gone(started["pid"])
        starter.send_signal(signal.SIGKILL)  # no teardown runs
        assert starter.wait(timeout=60) == -signal.SIGKILL
        # The watchdog writes to the starter's output too: the pipe ends when it has done its work.
        assert starter.stdout.read() == ""
    finally:
        if starter.poll() is None:
            starter.kill()
            starter.wait()
        starter.stdin.close()
        starter.stdout.close()
    assert not os.path.exists(started["folder"])
    assert _gone(started["pid"])
