"""The receiver reconciles through REST at start, on the first event and on a sequence gap."""

from __future__ import annotations

import base64
from pathlib import Path

from pytest_httpserver import HTTPServer

from cuecard.wp_projection import ReceiverSettings, SyncSettings

API = "/wp-json/datamachine/v1"
AUTH = "Basic " + base64.b64encode(b"admin:app pass").decode()


def serve_site(server: HTTPServer, memory: str, site: str = "site\\n") -> None:
    server.clear()
    listing = [
        {"filename": "MEMORY.md", "type": "core", "layer": "agent"},
        {"filename": "SITE.md", "type": "core", "layer": "shared"},
    ]
    ok = {"success": True, "data": listing}
    server.expect_request(f"{API}/files/agent").respond_with_json(ok)
    for name, body in (("MEMORY.md", memory), ("SITE.md", site)):
        server.expect_request(f"{API}/files/agent/{name}").respond_with_json(
            {"success": True, "data": {"filename": name, "content": body}}
        )
    server.expect_request(f"{API}/files/agent/daily").respond_with_json(
        {"success": True, "data": {}}
    )


def test_reconcile_at_start_on_first_contact_and_on_a_gap(
    httpserver: HTTPServer, tmp_path: Path, secret, start_receiver, make_envelope
) -> None:
    home = httpserver.url_for("/").rstrip("/")
    serve_site(httpserver, "v1\\n")
    sync = SyncSettings(
        site_url=home, authorization=AUTH, agent_slug="admin", aliases={home: "prod"}
    )
    root = tmp_path / "runtime"
    receiver = start_receiver(
        ReceiverSettings(root=root, secret=secret.encode(), aliases={home: "prod"}, sync=sync)
    )
    memory = root / ".dm-memory/prod/agents/admin/MEMORY.md"
    report = receiver.wait_idle()
    assert memory.read_text() == "v1\\n"  # pulled at start, before any push
    assert report["sites"]["prod"]["last_sync_at"] is not None

    serve_site(httpserver, "v2\\n")  # changed on the site without an event (a scaffold write)
    receiver.post(
        make_envelope(seq=1, filename="SITE.md", layer="shared", content="site\\n", home_url=home)
    )
    receiver.wait_idle(applied=1)
    assert memory.read_text() == "v2\\n"  # the first event from a site asks for a pull

    serve_site(httpserver, "v3\\n")
    receiver.post(
        make_envelope(seq=2, filename="SITE.md", layer="shared", content="site\\n", home_url=home)
    )
    receiver.wait_idle(applied=2)
    assert memory.read_text() == "v2\\n"  # in sequence: push is trusted, no pull

    receiver.post(
        make_envelope(seq=5, filename="SITE.md", layer="shared", content="site\\n", home_url=home)
    )
    report = receiver.wait_idle(applied=3)
    assert memory.read_text() == "v3\\n"  # the gap 2 -> 5 made it pull
    assert report["sites"]["prod"]["reconcile_needed"] is False
    assert report["worker_error"] is None


def test_a_failing_reconcile_is_reported_in_status(
    httpserver: HTTPServer, tmp_path: Path, secret, start_receiver
) -> None:
    httpserver.expect_request(f"{API}/files/agent").respond_with_json(
        {"code": "rest_forbidden", "message": "You must be logged in to manage files."},
        status=401,
    )
    home = httpserver.url_for("/").rstrip("/")
    sync = SyncSettings(site_url=home, authorization=AUTH, agent_slug="admin")
    receiver = start_receiver(
        ReceiverSettings(root=tmp_path / "runtime", secret=secret.encode(), sync=sync)
    )
    report = receiver.wait_idle()
    assert "reconcile:" in report["worker_error"]
    assert "401 rest_forbidden" in report["worker_error"]


def test_a_periodic_pull_catches_writes_without_events(
    httpserver: HTTPServer, tmp_path: Path, secret, start_receiver
) -> None:
    import time

    home = httpserver.url_for("/").rstrip("/")
    serve_site(httpserver, "v1\n")
    sync = SyncSettings(site_url=home, authorization=AUTH, agent_slug="admin", aliases={home: "p"})
    root = tmp_path / "runtime"
    receiver = start_receiver(
        ReceiverSettings(
            root=root, secret=secret.encode(), aliases={home: "p"}, sync=sync, reconcile_every_s=0
        )
    )
    memory = root / ".dm-memory/p/agents/admin/MEMORY.md"
    receiver.wait_idle()
    assert memory.read_text() == "v1\n"
    serve_site(httpserver, "written by a scaffold, no event\n")
    deadline = time.monotonic() + 60
    while memory.read_text() != "written by a scaffold, no event\n":
        assert time.monotonic() < deadline, "no periodic pull happened"
        time.sleep(0.05)


def test_serve_on_a_root_it_cannot_write_exits_1_before_listening(open_tmp: Path, request) -> None:
    import os
    import subprocess
    import sys

    root = open_tmp / "runtime"
    root.mkdir()
    cuecard = str(Path(sys.executable).parent / "cuecard")
    argv = [cuecard, "wp", "serve", "--root", str(root), "--port", "0"]
    if os.geteuid() == 0:  # root writes anywhere: run the receiver as another user
        argv = request.getfixturevalue("web_user").command(argv)
    else:
        root.chmod(0o555)
    env = {**os.environ, "CUECARD_WP_SECRET": "s" * 24}
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 1, done.stderr
    assert "listening" not in done.stderr
    assert "Traceback" not in done.stderr
    assert f"cannot write {root}/.dm-memory" in done.stderr
    assert "run the receiver as a user who can write the runtime root" in done.stderr
    assert not (root / ".dm-memory").exists()
