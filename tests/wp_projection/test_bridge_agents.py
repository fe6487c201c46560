"""The bridge asks Data Machine whose agent a scope is; what it cannot resolve it refuses, loudly.

The harness models Data Machine's agents repository and its directory manager's resolution (see
php/datamachine.php): agent id 0 is the user's own default agent, each user has their own slug.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from cuecard.core.cli import main
from cuecard.wp_projection import render_settings, write_bridge
from tests._support.wp_bridge import needs_php, run_php, scope, updated

pytestmark = needs_php


def test_the_default_agent_is_resolved_without_any_setting(tmp_path, bridge, receiver) -> None:
    out = run_php(tmp_path, bridge, [updated("MEMORY.md", "admin's memory\n", user=1, agent=0)])
    assert out["delivered"][0]["result"]["status"] == 202
    assert out["delivered"][0]["envelope"]["scope"]["agent_slug"] == "admin"
    assert receiver.site_files(1) == {"agents/admin/MEMORY.md": b"admin's memory\n"}


def test_users_of_one_site_each_get_their_own_agents_files(tmp_path, bridge, receiver) -> None:
    events = [
        updated("MEMORY.md", "admin, agent 0\n", user=1, agent=0),
        updated("MEMORY.md", "bob, agent 0\n", user=2, agent=0),
        updated("MEMORY.md", "carol, no agent row\n", user=3, agent=0),
        updated("MEMORY.md", "ops bot\n", user=1, agent=7),
        updated("SOUL.md", "admin through agent 1\n", user=1, agent=1),
        updated("USER_MEMORY.md", "bob with ops\n", layer="principal", user=2, agent=7),
        updated("USER.md", "bob himself\n", layer="user", user=2, agent=0),
    ]
    out = run_php(tmp_path, bridge, events)
    assert [d["result"]["status"] for d in out["delivered"]] == [202] * 7, out["log"]
    assert receiver.site_files(7) == {
        "agents/admin/MEMORY.md": b"admin, agent 0\n",
        "agents/bob/MEMORY.md": b"bob, agent 0\n",
        "agents/carol/MEMORY.md": b"carol, no agent row\n",
        "agents/ops-bot/MEMORY.md": b"ops bot\n",
        "agents/admin/SOUL.md": b"admin through agent 1\n",
        "agents/ops-bot/users/2/USER_MEMORY.md": b"bob with ops\n",
        "users/2/USER.md": b"bob himself\n",
    }
    assert out["log"] == ""


def test_without_data_machines_resolver_the_repository_answers(tmp_path, bridge, receiver) -> None:
    events = [
        updated("MEMORY.md", "bob\n", user=2, agent=0),
        updated("MEMORY.md", "ops\n", user=1, agent=7),
        updated("MEMORY.md", "carol\n", user=3, agent=0),
    ]
    out = run_php(tmp_path, bridge, events, datamachine="repository")
    assert [d["envelope"]["scope"]["agent_slug"] for d in out["delivered"]] == ["bob", "ops-bot"]
    assert (
        "cuecard bridge: event for the agent-layer MEMORY.md of user 3 (agent id 0) refused: "
        "Data Machine could not resolve its agent" in out["log"]
    )
    assert receiver.site_files(2) == {
        "agents/bob/MEMORY.md": b"bob\n",
        "agents/ops-bot/MEMORY.md": b"ops\n",
    }


def test_a_scope_nothing_resolves_is_refused_never_sent_as_another_agent(
    tmp_path, receiver, secret
) -> None:
    out_dir = tmp_path / "mu-plugins"
    settings = render_settings(
        endpoint=receiver.url + "/events", secret=secret, agent_slugs={7: "ops-bot"}
    )
    write_bridge(out_dir, settings)
    events = [
        updated("MEMORY.md", "bob\n", user=2, agent=0),
        updated("MEMORY.md", "ops\n", user=1, agent=7),
        {"action": "datamachine_agent_memory_deleted", "args": [scope("x.md", user=2, agent=0)]},
    ]
    out = run_php(tmp_path, out_dir, events, datamachine="none")
    assert [d["envelope"]["scope"]["agent_slug"] for d in out["delivered"]] == ["ops-bot"]
    assert out["log"].count("Data Machine could not resolve its agent") == 2
    assert receiver.site_files(1) == {"agents/ops-bot/MEMORY.md": b"ops\n"}


def test_a_refused_envelope_is_logged_by_wordpress_and_listed_by_status(
    tmp_path, bridge, receiver
) -> None:
    # A scope Data Machine accepts but the projection's rules refuse: a principal file of user 0.
    principal = updated("USER_MEMORY.md", "n\n", layer="principal", user=0)
    out = run_php(tmp_path, bridge, [principal, updated("ok.md", "ok\n")])
    assert [d["result"]["status"] for d in out["delivered"]] == [422, 202]
    event_id = out["delivered"][0]["envelope"]["event_id"]
    assert (
        f"cuecard bridge: envelope {event_id} (seq 1, memory.updated principal/USER_MEMORY.md of "
        "agent admin) refused by the receiver (422): scope.user_id must be positive" in out["log"]
    )
    assert "; dropped" in out["log"]
    assert out["queue"] == []  # refused envelopes leave the queue; the next one went through
    receiver.wait_idle(applied=1)
    report = json.loads(capsys_out(main, receiver.root))
    [refusal] = report["refused_events"]
    assert refusal["status"] == 422
    assert refusal["event_id"] == event_id
    assert refusal["filename"] == "USER_MEMORY.md"
    assert refusal["agent_slug"] == "admin"
    assert "principal layer (rule 12)" in refusal["reason"]


def capsys_out(main_fn: Callable[[list[str]], int], root: Path) -> str:
    """``cuecard wp status --json`` in a subprocess-free way: capture stdout by redirection."""
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main_fn(["wp", "status", "--root", str(root), "--json"]) == 0
    return buffer.getvalue()


def test_an_undelivered_envelope_is_logged_and_a_bad_signature_shows_in_status(
    tmp_path, receiver
) -> None:
    out_dir = tmp_path / "mu-plugins"
    write_bridge(
        out_dir, render_settings(endpoint=receiver.url + "/events", secret="not-the-secret-0123")
    )
    out = run_php(tmp_path, out_dir, [updated("MEMORY.md", "m\n")])
    assert out["delivered"][0]["result"]["status"] == 401
    assert "not delivered (attempt 1): header X-Cuecard-Signature does not match" in out["log"]
    assert [q["attempts"] for q in out["queue"]] == [1]  # kept: a wrong secret is fixable
    report = json.loads(capsys_out(main, receiver.root))
    assert [(e["status"], "event_id" in e) for e in report["refused_events"]] == [(401, False)]
    assert main(["wp", "status", "--root", str(receiver.root)]) == 0
