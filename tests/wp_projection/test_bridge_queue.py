"""The bridge's queue: durable in WordPress, delivered after the request, in order, until acked.

Each `run_php` is a WordPress request firing Data Machine's actions; with `run_queue` the harness
then runs what Action Scheduler (or WP-Cron) has due, as a later request would, its clock moved
`advance` seconds ahead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cuecard.wp_projection import ReceiverSettings, render_settings, write_bridge
from tests._support.wp import free_port
from tests._support.wp_bridge import HungReceiver, needs_php, run_php, updated

pytestmark = needs_php


def _bridge(tmp_path: Path, url: str, secret: str, timeout: float = 5.0) -> Path:
    out = tmp_path / "mu-plugins"
    write_bridge(out, render_settings(endpoint=url + "/events", secret=secret, timeout_s=timeout))
    return out


def _site_md(i: int) -> dict[str, Any]:
    """Data Machine regenerates SITE.md on nearly every request (its "Generated:" line)."""
    return {"action": "datamachine_composable_regenerated", "args": ["SITE.md", "", {"n": i}]}


@pytest.mark.parametrize(("scheduler", "writes"), [("action_scheduler", 100), ("wp_cron", 20)])
def test_writes_made_while_the_receiver_is_down_all_land_in_order(
    tmp_path, secret, start_receiver, scheduler: str, writes: int
) -> None:
    port = free_port()  # nothing listens here yet: the receiver is down
    bridge = _bridge(tmp_path, f"http://127.0.0.1:{port}", secret)
    per_request = 10
    sent: list[dict[str, Any]] = []
    for first in range(0, writes, per_request):
        events = []
        for i in range(first, first + per_request):
            events += [updated(f"contexts/n-{i:03d}.md", f"note {i}\n"), _site_md(i)]
        events.append(updated("MEMORY.md", f"memory after write {first + per_request - 1}\n"))
        out = run_php(tmp_path, bridge, events, scheduler=scheduler)
        assert out["errors"] == []
        assert out["stderr"] == ""
        sent += out["delivered"]
    assert sent
    assert not any(d["result"]["ok"] for d in sent)
    queued = out["queue"]
    # One SITE.md and one MEMORY.md wait (coalesced), except what was already tried once.
    labels = [q["label"] for q in queued]
    assert labels.count("composable.regenerated shared/SITE.md") == 1
    assert 1 <= labels.count("memory.updated agent/MEMORY.md of agent admin") <= 2
    assert len(queued) <= writes + 3
    assert "not delivered (attempt 1)" in (tmp_path / "php.log").read_text()
    assert out["scheduled"]
    assert all(s["hook"] == "cuecard_bridge_deliver" for s in out["scheduled"])

    receiver = start_receiver(
        ReceiverSettings(root=tmp_path / "runtime", secret=secret.encode()), port=port
    )
    later = run_php(tmp_path, bridge, [], scheduler=scheduler, advance=3600)  # an hour later
    delivered = [d for d in later["delivered"] if d["result"]["ok"]]
    assert later["queue"] == []
    assert len(delivered) == len(queued)
    seqs = [d["envelope"]["seq"] for d in delivered]
    assert seqs == sorted(seqs)
    assert len(set(seqs)) == len(seqs)

    report = receiver.wait_idle(applied=len(queued))
    by_path = {p["path"].split("/", 2)[2]: p["seq"] for p in report["projected"]}
    notes = [by_path[f"agents/admin/contexts/n-{i:03d}.md"] for i in range(writes)]
    assert notes == sorted(notes)  # applied in the order they were written
    files = {path.split("/", 1)[1]: body for path, body in receiver.files().items()}
    for i in range(writes):
        assert files[f"agents/admin/contexts/n-{i:03d}.md"] == f"note {i}\n".encode()
    assert files["agents/admin/MEMORY.md"] == f"memory after write {writes - 1}\n".encode()
    assert report["refused_events"] == []


def test_a_hung_receiver_is_never_contacted_by_the_write_request(tmp_path, secret) -> None:
    hung = HungReceiver()
    try:
        bridge = _bridge(tmp_path, hung.url, secret, timeout=1.0)
        events = [updated(f"m{i}.md", f"{i}\n") for i in range(5)] + [_site_md(0)]
        out = run_php(tmp_path, bridge, events, run_queue=False)
        assert hung.accepted == 0  # the request only queued: nothing waited on the receiver
        assert out["delivered"] == []
        assert len(out["queue"]) == 6
        assert [(s["hook"], s["status"]) for s in out["scheduled"]] == [
            ("cuecard_bridge_deliver", "pending")
        ]
        # Action Scheduler's later run waits (1 s) on the hung receiver, keeps everything, and
        # backs off.
        later = run_php(tmp_path, bridge, [])
        assert hung.wait_accepted(1) == 1
        assert [d["result"]["ok"] for d in later["delivered"]] == [False]
        assert len(later["queue"]) == 6
        assert later["queue"][0]["attempts"] == 1
        assert "next attempt in 5 s" in later["log"]
        assert [s["status"] for s in later["scheduled"]] == ["pending"]
    finally:
        hung.close()


def test_a_resend_the_receiver_already_has_counts_as_delivered(tmp_path, secret, receiver):
    bridge = _bridge(tmp_path, receiver.url, secret)
    first = run_php(tmp_path, bridge, [updated("MEMORY.md", "once\n")])
    assert first["delivered"][0]["result"]["status"] == 202
    # A run that died after its POST and before it settled: the envelope is still queued.
    options_file = tmp_path / "options.json"
    options = json.loads(options_file.read_text())
    entry = {
        "id": 99,
        "key": "resent",
        "event_id": first["delivered"][0]["envelope"]["event_id"],
        "label": "memory.updated agent/MEMORY.md of agent admin",
        "seq": 1,
        "attempts": 0,
    }
    envelope = dict(first["delivered"][0]["envelope"])
    del envelope["seq"]
    options["cuecard_bridge_queue"]["entries"] = [entry]
    options["cuecard_bridge_q_99"] = envelope
    options_file.write_text(json.dumps(options))
    again = run_php(tmp_path, bridge, [updated("MEMORY.md", "twice\n")])
    assert [d["result"]["status"] for d in again["delivered"]] == [409, 202]
    assert [d["envelope"]["seq"] for d in again["delivered"]] == [1, 2]
    assert again["queue"] == []
    assert "refused" not in again["log"]
    receiver.wait_idle(applied=2)
    assert list(receiver.files().values()) == [b"twice\n"]


@pytest.mark.parametrize("scheduler", ["action_scheduler", "wp_cron"])
def test_a_run_the_scheduler_lost_is_scheduled_again(tmp_path, secret, receiver, scheduler):
    bridge = _bridge(tmp_path, receiver.url, secret)
    first = run_php(
        tmp_path, bridge, [updated("a.md", "a\n")], scheduler=scheduler, run_queue=False
    )
    assert len(first["scheduled"]) == 1
    # The pending run disappears (a scheduler cleanup, a restored database): the bridge notices
    # on the next write instead of trusting its own note that a run is pending.
    options_file = tmp_path / "options.json"
    options = json.loads(options_file.read_text())
    options.pop("__action_scheduler", None)
    options.pop("cron", None)
    options_file.write_text(json.dumps(options))
    second = run_php(tmp_path, bridge, [updated("b.md", "b\n")], scheduler=scheduler)
    assert [d["result"]["status"] for d in second["delivered"]] == [202, 202]
    assert second["queue"] == []
    receiver.wait_idle(applied=2)


class _PickyReceiver:
    """Answers 500 to every envelope whose body names ``poison``, 202 to the others; records
    what it was sent, in order."""

    def __init__(self) -> None:
        import http.server
        import threading

        seen: list[str] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                envelope = json.loads(body)
                name = envelope.get("scope", {}).get("filename", "")
                seen.append(name)
                poisoned = name.startswith("poison")
                status = 500 if poisoned else 202
                answer = b'{"error": "boom"}' if poisoned else b'{"queued": true}'
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass

        self.seen = seen
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("scheduler", ["action_scheduler", "wp_cron"])
def test_an_envelope_the_receiver_keeps_failing_is_set_aside_and_the_rest_delivered(
    tmp_path, secret, scheduler
) -> None:
    picky = _PickyReceiver()
    try:
        bridge = _bridge(tmp_path, picky.url, secret)
        events = [updated("poison.md", "p\n")] + [updated(f"m{i}.md", f"{i}\n") for i in range(5)]
        # The scheduler's clock runs an hour ahead: every backoff comes due within this run.
        out = run_php(tmp_path, bridge, events, scheduler=scheduler, advance=3600)
        assert picky.seen == ["poison.md"] * 5 + [f"m{i}.md" for i in range(5)]
        assert out["queue"] == []
        summary = out["summary"]
        assert summary["waiting"] == 0
        [aside] = summary["set_aside"]
        assert aside["status"] == 500
        assert aside["attempts"] == 5
        assert aside["reason"] == "boom"
        assert aside["label"] == "memory.updated agent/poison.md of agent admin"
        assert summary["last_error"]["reason"] == "boom"
        assert "(500) after 5 attempts: boom; dropped, the queue goes on" in out["log"]
        assert "(1 more before it is set aside)" in out["log"]
    finally:
        picky.close()


def test_a_receiver_that_is_down_never_sets_an_envelope_aside(tmp_path, secret) -> None:
    bridge = _bridge(tmp_path, f"http://127.0.0.1:{free_port()}", secret)
    out = run_php(tmp_path, bridge, [updated("MEMORY.md", "m\n")], advance=3600)
    summary = out["summary"]
    assert summary["waiting"] == 1
    assert summary["set_aside"] == []
    assert summary["oldest"]["attempts"] >= 5  # tried on every due run, never given up
    assert summary["oldest"]["label"] == "memory.updated agent/MEMORY.md of agent admin"
    assert summary["oldest"]["queued_at"] is not None
    assert "set aside" not in out["log"]


def test_queueing_an_envelope_is_one_database_transaction(tmp_path, secret) -> None:
    bridge = _bridge(tmp_path, f"http://127.0.0.1:{free_port()}", secret)
    events = [updated("MEMORY.md", "m\n"), _site_md(0), _site_md(1)]
    out = run_php(tmp_path, bridge, events, run_queue=False, wpdb="record")
    # one transaction per envelope queued (the second SITE.md coalesces, in its own)
    assert out["wpdb_queries"] == ["START TRANSACTION", "COMMIT"] * 3
    assert len(out["queue"]) == 2
