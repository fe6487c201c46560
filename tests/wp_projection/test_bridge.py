"""The PHP bridge, run by a real `php` against the real receiver on loopback.

tests/wp_projection/php/harness.php stands in for WordPress (see its header for the functions
it fakes), loads the plugin written by `cuecard wp bridge` as a must-use plugin, fires Data
Machine's actions (the plugin queues an envelope per event), then runs the queue as Action
Scheduler would in a later request.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import stat
import subprocess
import uuid
from pathlib import Path

from tests._support.wp_bridge import HOME, PHP, needs_php, run_php, scope

pytestmark = needs_php


def test_bridge_writes_the_plugin_and_private_settings(bridge: Path, secret) -> None:
    settings = bridge / "cuecard-bridge" / "settings.php"
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600
    assert stat.S_IMODE(settings.parent.stat().st_mode) == 0o700
    assert secret in settings.read_text()
    assert "datamachine_agent_memory_updated" in (bridge / "cuecard-bridge.php").read_text()
    # WordPress loads every top-level PHP file of mu-plugins: the secret is not one of them.
    assert sorted(p.name for p in bridge.glob("*.php")) == ["cuecard-bridge.php"]
    assert PHP is not None
    for php_file in [bridge / "cuecard-bridge.php", settings]:
        lint = subprocess.run([PHP, "-l", str(php_file)], capture_output=True, text=True)
        assert lint.returncode == 0, lint.stdout


def test_each_action_produces_the_documented_envelope(tmp_path, bridge, receiver) -> None:
    composed = tmp_path / "SITE.md"
    composed.write_text("# SITE.md\ncomposed\n")
    content = "# MEMORY.md\n\n## Facts\n- e2e probe — ünïcode\n"
    metadata = {
        "layer": "agent",
        "user_id": 1,
        "agent_id": 0,
        "filename": "MEMORY.md",
        "hash": hashlib.sha1(content.encode()).hexdigest(),
        "bytes": len(content.encode()),
    }
    out = run_php(
        tmp_path,
        bridge,
        [
            {"action": "datamachine_agent_memory_updated", "args": [scope(), content, metadata]},
            {
                "action": "datamachine_agent_memory_updated",
                "args": [scope("scratch.md", agent=1), "temp\n", {}],
            },
            {"action": "datamachine_agent_memory_deleted", "args": [scope("old.md")]},
            {"action": "datamachine_guideline_updated", "args": [100, "memory"]},
            {
                "action": "datamachine_composable_regenerated",
                "args": ["SITE.md", str(composed), {"mode": "auto"}],
            },
        ],
        substrate=True,
    )
    assert out["errors"] == []
    delivered = out["delivered"]
    assert [d["result"]["status"] for d in delivered] == [202] * 5
    envs = [d["envelope"] for d in delivered]
    assert [e["type"] for e in envs] == [
        "memory.updated",
        "memory.updated",
        "memory.deleted",
        "guideline.updated",
        "composable.regenerated",
    ]
    assert [e["seq"] for e in envs] == [1, 2, 3, 4, 5]
    assert len({e["event_id"] for e in envs}) == 5
    first = envs[0]
    assert first["schema"] == "dm-memory-projection/v1"
    assert str(uuid.UUID(first["event_id"])) == first["event_id"]
    assert first["site"] == {"home_url": HOME, "blog_id": 1}
    assert first["scope"] == {
        "layer": "agent",
        "workspace_type": "site",
        "workspace_id": HOME,
        "user_id": 1,
        "agent_id": 0,
        "agent_slug": "admin",
        "agent_dir": "admin",
        "filename": "MEMORY.md",
        "key": f"agent:site:{HOME}:1:0:MEMORY.md",
    }
    assert first["content"] == content
    assert first["content_encoding"] == "utf-8"
    assert first["hash"] == hashlib.sha1(content.encode()).hexdigest()
    assert first["bytes"] == len(content.encode())
    assert first["metadata"] == metadata
    assert "content" not in envs[2]
    assert envs[2]["scope"]["filename"] == "old.md"
    assert envs[3]["post_id"] == 100
    assert envs[3]["guideline_type"] == "memory"
    assert envs[4]["scope"]["layer"] == "shared"
    assert envs[4]["content"] == "# SITE.md\ncomposed\n"
    headers = delivered[0]["headers"]
    assert headers["X-Cuecard-Signature"].startswith("sha256=")
    assert headers["X-Cuecard-Timestamp"].isdigit()
    # The receiver applied all of it: agent 0 and agent 1 name the same agent folder.
    receiver.wait_idle(applied=5)
    files = receiver.files()
    site = next(iter(receiver.status()["sites"]))
    assert files == {
        f"{site}/agents/admin/MEMORY.md": content.encode(),
        f"{site}/agents/admin/scratch.md": b"temp\n",
        f"{site}/shared/SITE.md": b"# SITE.md\ncomposed\n",
    }


def test_the_sequence_survives_requests(tmp_path, bridge, receiver) -> None:
    first = run_php(
        tmp_path,
        bridge,
        [{"action": "datamachine_agent_memory_updated", "args": [scope(), "one\n", {}]}],
    )
    second = run_php(
        tmp_path,
        bridge,
        [{"action": "datamachine_agent_memory_updated", "args": [scope(), "two\n", {}]}],
    )
    assert first["delivered"][0]["envelope"]["seq"] == 1
    assert second["delivered"][0]["envelope"]["seq"] == 2


def test_guideline_events_need_the_substrate(tmp_path, bridge, receiver) -> None:
    out = run_php(
        tmp_path,
        bridge,
        [{"action": "datamachine_guideline_updated", "args": [100, "memory"]}],
        substrate=False,
    )
    assert out["delivered"] == []
    assert out["errors"] == []
    assert not (tmp_path / "options.json").exists()  # no sequence number was spent


def test_a_signed_request_is_accepted_and_a_changed_byte_refused(tmp_path, bridge, receiver):
    out = run_php(
        tmp_path,
        bridge,
        [{"action": "datamachine_agent_memory_updated", "args": [scope(), "signed\n", {}]}],
    )
    sent = out["delivered"][0]
    assert sent["result"]["status"] == 202
    body = sent["body"].encode()
    headers = {**sent["headers"]}
    changed = body.replace(b"signed", b"signeD")
    refused = receiver.client.post(receiver.url + "/events", content=changed, headers=headers)
    assert refused.status_code == 401
    assert "does not match the body" in refused.json()["error"]
    again = receiver.client.post(receiver.url + "/events", content=body, headers=headers)
    assert again.status_code == 409  # the same signed request, replayed


def test_without_wp_remote_post_the_stream_fallback_delivers(tmp_path, bridge, receiver) -> None:
    out = run_php(
        tmp_path,
        bridge,
        [{"action": "datamachine_agent_memory_updated", "args": [scope(), "native\n", {}]}],
        transport="stream",
    )
    assert out["delivered"][0]["result"]["transport"] == "stream"
    assert out["delivered"][0]["result"]["status"] == 202
    receiver.wait_idle(applied=1)
    assert list(receiver.files().values()) == [b"native\n"]


def test_without_wp_remote_post_curl_delivers(tmp_path, bridge, receiver) -> None:
    out = run_php(
        tmp_path,
        bridge,
        [{"action": "datamachine_agent_memory_updated", "args": [scope(), "curl\n", {}]}],
        transport="curl",
    )
    assert out["delivered"][0]["result"]["transport"] == "curl"
    assert out["delivered"][0]["result"]["status"] == 202
    receiver.wait_idle(applied=1)
    assert list(receiver.files().values()) == [b"curl\n"]


def test_bytes_that_are_not_utf8_travel_as_base64(tmp_path, bridge, receiver) -> None:
    raw = b"caf\xe9 latin-1\n\xff"
    out = run_php(
        tmp_path,
        bridge,
        [
            {
                "action": "datamachine_agent_memory_updated",
                "args": [scope("latin.md"), {"__bytes_b64": base64.b64encode(raw).decode()}, {}],
            }
        ],
    )
    env = out["delivered"][0]["envelope"]
    assert env["content_encoding"] == "base64"
    assert env["hash"] == hashlib.sha1(raw).hexdigest()
    receiver.wait_idle(applied=1)
    assert list(receiver.files().values()) == [raw]


def test_an_unreachable_receiver_never_fails_the_write(tmp_path, bridge) -> None:
    settings = bridge / "cuecard-bridge" / "settings.php"
    text = settings.read_text()
    start = text.index("'endpoint'")
    end = text.index("\n", start)
    settings.write_text(text[:start] + "'endpoint' => 'http://127.0.0.1:9/events'," + text[end:])
    out = run_php(
        tmp_path,
        bridge,
        [
            {"action": "datamachine_agent_memory_updated", "args": [scope(), "lost\n", {}]},
            {"action": "datamachine_agent_memory_deleted", "args": [scope("old.md")]},
        ],
    )
    assert out["errors"] == []
    assert [d["result"]["ok"] for d in out["delivered"]] == [False]  # the head, then backoff
    assert [q["label"] for q in out["queue"]] == [
        "memory.updated agent/MEMORY.md of agent admin",
        "memory.deleted agent/old.md of agent admin",
    ]
    assert "not delivered (attempt 1)" in out["log"]
    assert "next attempt in 5 s" in out["log"]
    assert [(s["hook"], s["status"]) for s in out["scheduled"]] == [
        ("cuecard_bridge_deliver", "pending")
    ]


def test_bridge_cli_refuses_a_bad_endpoint_and_a_missing_secret(
    tmp_path, capsys, monkeypatch
) -> None:
    from cuecard.core.cli import main

    out = str(tmp_path / "o")
    monkeypatch.setenv("CUECARD_WP_SECRET", "s" * 20)
    assert main(["wp", "bridge", "--out", out, "--endpoint", "ftp://x"]) == 2
    assert "--endpoint 'ftp://x' must be an http(s) URL" in capsys.readouterr().err
    assert main(["wp", "bridge", "--out", out, "--agent", "x=admin"]) == 2
    assert "--agent 'x=admin' must be ID=SLUG" in capsys.readouterr().err
    assert main(["wp", "bridge", "--out", out, "--agent-slug", "Not A Slug"]) == 2
    assert "--agent-slug 'Not A Slug' must match [a-z0-9][a-z0-9-]*" in capsys.readouterr().err
    assert main(["wp", "bridge", "--out", out, "--json"]) == 0
    assert set(json.loads(capsys.readouterr().out)) == {
        "files",
        "endpoint",
        "settings_dir",
        "owner",
        "owner_command",
        "removed",
        "agent_slug",
        "blocking",
    }
    assert os.access(tmp_path / "o" / "cuecard-bridge.php", os.R_OK)
    monkeypatch.setenv("CUECARD_WP_SECRET", "")
    assert main(["wp", "bridge", "--out", out]) == 2
    assert "shared secret" in capsys.readouterr().err


def test_content_too_large_to_send_becomes_a_hint_to_pull(tmp_path, bridge, receiver) -> None:
    big = "z" * (1024 * 1024 + 100)
    out = run_php(
        tmp_path,
        bridge,
        [{"action": "datamachine_agent_memory_updated", "args": [scope(), big, {}]}],
    )
    env = out["delivered"][0]["envelope"]
    assert "content" not in env
    assert env["metadata"] == {"cuecard_content_omitted": "larger than the receiver accepts"}
    assert out["delivered"][0]["result"]["status"] == 202
    report = receiver.wait_idle(applied=1)
    assert receiver.files() == {}
    assert next(iter(report["sites"].values()))["reconcile_needed"] is True


def test_the_bridge_refuses_git_metadata_and_sends_nothing(tmp_path, bridge, receiver) -> None:
    names = [".git/HEAD", ".git/config", ".GIT/hooks/pre-commit", "sub/.git/HEAD", "GIT~1/x"]
    events = [
        {"action": "datamachine_agent_memory_updated", "args": [scope(n), "[core]\n", {}]}
        for n in names
    ]
    events += [{"action": "datamachine_agent_memory_deleted", "args": [scope(n)]} for n in names]
    events.append({"action": "datamachine_composable_regenerated", "args": [".git/config", ""]})
    out = run_php(tmp_path, bridge, events)
    assert out["errors"] == []
    assert out["delivered"] == []
    for name in names:
        assert f"event for {name} refused: segment" in out["log"]
    assert "git repository metadata" in out["log"]
    assert receiver.status()["queue"] == {"waiting": 0, "applied": 0}
    assert not (tmp_path / "options.json").exists()  # no sequence number was spent
