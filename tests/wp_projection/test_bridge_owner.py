"""The secret lives outside what WordPress loads by itself, readable by the web server's user.

PHP runs here as another user than the one who ran `cuecard wp bridge` (setpriv), as a web
server does; these tests need root to switch users and skip otherwise.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from tests._support.wp import WebUser
from tests._support.wp_bridge import needs_php, run_php, updated

pytestmark = needs_php

CUECARD = str(Path(sys.executable).parent / "cuecard")


def _bridge_cli(
    out: Path, endpoint: str, secret: str, *extra: str, as_user: WebUser | None = None
) -> subprocess.CompletedProcess[str]:
    argv = [CUECARD, "wp", "bridge", "--out", str(out), "--endpoint", endpoint, "--json", *extra]
    if as_user is not None:
        argv = as_user.command(argv)
    env = {**os.environ, "CUECARD_WP_SECRET": secret}
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, check=False)


def _state_for(user: WebUser, base: Path) -> Path:
    """The stand-in's database and log, writable by the web server's user."""
    state = base / "state"
    state.mkdir()
    os.chown(state, user.uid, user.gid)
    return state


def test_with_owner_php_running_as_the_web_user_reads_the_settings(
    open_tmp: Path, web_user, receiver, secret
) -> None:
    out = open_tmp / "wp-content" / "mu-plugins"
    done = _bridge_cli(out, receiver.url + "/events", secret, "--owner", web_user.name)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["owner"] == web_user.name
    assert report["owner_command"] is None
    folder = out / "cuecard-bridge"
    settings = folder / "settings.php"
    for path, mode in ((folder, 0o700), (settings, 0o600)):
        info = path.stat()
        assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (
            web_user.uid,
            web_user.gid,
            mode,
        )
    assert sorted(p.name for p in out.glob("*.php")) == ["cuecard-bridge.php"]
    state = _state_for(web_user, open_tmp)
    ran = run_php(state, out, [updated("MEMORY.md", "as www\n")], as_user=web_user)
    assert [d["result"]["status"] for d in ran["delivered"]] == [202], ran["log"]
    assert "Permission denied" not in ran["log"] + ran["stderr"]
    receiver.wait_idle(applied=1)
    assert list(receiver.files().values()) == [b"as www\n"]


def test_without_owner_the_web_user_gets_one_clear_line_and_no_php_warning(
    open_tmp: Path, web_user, receiver, secret
) -> None:
    out = open_tmp / "mu-plugins"
    legacy = out / "cuecard-bridge-settings.php"
    out.mkdir()
    legacy.write_text("<?php\n// Written by `cuecard wp bridge`; holds the shared secret\n")
    legacy.chmod(0o600)
    done = _bridge_cli(out, receiver.url + "/events", secret)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["removed"] == [str(legacy)]  # WordPress included it itself
    assert "run again with --owner USER" in done.stderr
    state = _state_for(web_user, open_tmp)
    ran = run_php(state, out, [updated("MEMORY.md", "m\n")], as_user=web_user)
    assert ran["delivered"][0]["result"]["ok"] is False
    assert (
        f"cannot read the settings file {out}/cuecard-bridge/settings.php as user "
        f"{web_user.name}; make it readable by the web server's user only" in ran["log"]
    )
    assert "Permission denied" not in ran["log"] + ran["stderr"]  # WordPress never includes it
    assert len(ran["queue"]) == 1  # kept for when the settings can be read


def test_owner_without_the_right_to_chown_prints_the_command(
    open_tmp: Path, web_user, secret
) -> None:
    out = open_tmp / "mu"
    out.mkdir()
    os.chown(out, web_user.uid, web_user.gid)
    done = _bridge_cli(
        out, "http://127.0.0.1:8765/events", secret, "--owner", "root", as_user=web_user
    )
    assert done.returncode == 0, done.stderr
    command = f"sudo chown -R root:root {out}/cuecard-bridge"
    assert json.loads(done.stdout)["owner_command"] == command
    assert f"run: {command}" in done.stderr
    unknown = _bridge_cli(out, "http://127.0.0.1:8765/events", secret, "--owner", "no-such-u")
    assert unknown.returncode == 2
    assert "--owner 'no-such-u': no such user" in unknown.stderr
