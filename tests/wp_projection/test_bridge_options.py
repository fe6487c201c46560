"""`cuecard wp bridge --agent-slug` and `--blocking`: kept, with their meaning under the queue.

`--agent-slug SLUG` is a last resort: the default agent of a site's one user, only where the
bridge cannot ask Data Machine at all. `--blocking` makes the write's own request deliver the
queue when it ends, after its response is sent, instead of waiting for the scheduler.

Each test writes the bridge through the CLI, then runs the written plugin in the PHP harness.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cuecard.core.cli import main
from tests._support.wp_bridge import HungReceiver, needs_php, run_php, scope, updated

pytestmark = needs_php

ONE_USER = [{"ID": 1, "user_login": "admin", "role": "administrator"}]
TWO_USERS = [*ONE_USER, {"ID": 2, "user_login": "bob", "role": "editor"}]


def _cli_bridge(
    tmp_path: Path, endpoint: str, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[Path, dict[str, Any], str]:
    """``cuecard wp bridge … --json`` -> (the mu-plugins folder, its JSON, its stderr)."""
    out = tmp_path / "mu-plugins"
    argv = ["wp", "bridge", "--out", str(out), "--endpoint", endpoint + "/events", "--json"]
    assert main([*argv, *extra]) == 0
    captured = capsys.readouterr()
    return out, json.loads(captured.out), captured.err


@pytest.fixture(autouse=True)
def _secret_env(monkeypatch: pytest.MonkeyPatch, secret: str) -> None:
    monkeypatch.setenv("CUECARD_WP_SECRET", secret)


# -- --agent-slug ----------------------------------------------------------------------------------


def test_agent_slug_is_accepted_with_a_note_that_it_is_only_a_fallback(
    tmp_path, receiver, capsys
) -> None:
    out, report, err = _cli_bridge(tmp_path, receiver.url, capsys, "--agent-slug", "solo")
    assert report["agent_slug"] == "solo"
    assert report["blocking"] is False
    assert "Data Machine resolves each scope's agent itself; --agent-slug solo is only a " in err
    assert "fallback" in err
    assert "exactly one user" in err
    assert "'agent_slug'  => 'solo'," in (out / "cuecard-bridge" / "settings.php").read_text()
    # Without the option there is no note and no fallback.
    _, plain, err = _cli_bridge(tmp_path, receiver.url, capsys)
    assert plain["agent_slug"] is None
    assert "--agent-slug" not in err


def test_agent_slug_names_the_one_users_agent_when_data_machine_cannot_be_asked(
    tmp_path, receiver, capsys
) -> None:
    out, _, _ = _cli_bridge(tmp_path, receiver.url, capsys, "--agent-slug", "solo")
    events = [
        updated("MEMORY.md", "the one user\n", user=1, agent=0),
        updated("SOUL.md", "default agent user\n", user=0, agent=0),
        updated("USER_MEMORY.md", "principal\n", layer="principal", user=1, agent=0),
        # An explicit agent id is not the default agent: the fallback never names it.
        updated("MEMORY.md", "agent 7\n", user=1, agent=7),
    ]
    ran = run_php(tmp_path, out, events, datamachine="none", users=ONE_USER)
    slugs = [d["envelope"]["scope"]["agent_slug"] for d in ran["delivered"]]
    assert slugs == ["solo", "solo", "solo"], ran["log"]
    assert ran["log"].count("Data Machine could not resolve its agent") == 1
    assert "agent-layer MEMORY.md of user 1 (agent id 7)" in ran["log"]
    assert receiver.site_files(3) == {
        "agents/solo/MEMORY.md": b"the one user\n",
        "agents/solo/SOUL.md": b"default agent user\n",
        "agents/solo/users/1/USER_MEMORY.md": b"principal\n",
    }


@pytest.mark.parametrize("datamachine", ["full", "repository"])
def test_agent_slug_never_overrides_what_data_machine_resolves(
    tmp_path, receiver, capsys, datamachine: str
) -> None:
    out, _, _ = _cli_bridge(tmp_path, receiver.url, capsys, "--agent-slug", "solo")
    ran = run_php(
        tmp_path, out, [updated("MEMORY.md", "dm\n", user=1, agent=0)], datamachine=datamachine
    )
    assert [d["envelope"]["scope"]["agent_slug"] for d in ran["delivered"]] == ["admin"]
    assert receiver.site_files(1) == {"agents/admin/MEMORY.md": b"dm\n"}


def test_agent_slug_is_not_used_where_data_machines_repository_answers_nothing(
    tmp_path, receiver, capsys
) -> None:
    # Data Machine can be asked (its repository exists) but has no agent for the user: that is
    # Data Machine's answer, and the fallback does not replace it.
    out, _, _ = _cli_bridge(tmp_path, receiver.url, capsys, "--agent-slug", "solo")
    ran = run_php(
        tmp_path,
        out,
        [updated("MEMORY.md", "m\n", user=1, agent=0)],
        datamachine="repository",
        users=ONE_USER,
        agents=[],
    )
    assert ran["delivered"] == []
    assert "Data Machine could not resolve its agent" in ran["log"]
    assert "--agent-slug fallback" not in ran["log"]


def test_agent_slug_never_maps_a_second_user_onto_the_first_users_path(
    tmp_path, receiver, capsys
) -> None:
    out, _, _ = _cli_bridge(tmp_path, receiver.url, capsys, "--agent-slug", "admin")
    first = run_php(
        tmp_path,
        out,
        [updated("MEMORY.md", "admin's\n", user=1)],
        datamachine="none",
        users=ONE_USER,
    )
    assert [d["result"]["status"] for d in first["delivered"]] == [202], first["log"]
    assert receiver.site_files(1) == {"agents/admin/MEMORY.md": b"admin's\n"}
    # Bob joins the site. Neither user's default agent can be told apart without Data Machine,
    # so both are refused, loudly; bob's memory never replaces admin's file.
    events = [
        updated("MEMORY.md", "bob's\n", user=2, agent=0),
        updated("MEMORY.md", "admin's again\n", user=1, agent=0),
        {"action": "datamachine_agent_memory_deleted", "args": [scope("MEMORY.md", user=2)]},
    ]
    second = run_php(tmp_path, out, events, datamachine="none", users=TWO_USERS)
    assert second["delivered"] == []
    assert second["queue"] == []
    assert second["errors"] == []
    assert (
        "cuecard bridge: event for the agent-layer MEMORY.md of user 2 (agent id 0) refused: "
        "Data Machine could not resolve its agent, and it is never sent under another agent's "
        "name (the --agent-slug fallback serves only a site with exactly one user; this site "
        "has several users); nothing sent" in second["log"]
    )
    assert second["log"].count("this site has several users") == 3
    assert receiver.site_files(1) == {"agents/admin/MEMORY.md": b"admin's\n"}
    status = receiver.status()
    assert status["queue"]["applied"] == 1


def test_agent_slug_refuses_a_scope_of_a_user_who_is_not_the_sites_one_user(
    tmp_path, receiver, capsys
) -> None:
    out, _, _ = _cli_bridge(tmp_path, receiver.url, capsys, "--agent-slug", "solo")
    ran = run_php(
        tmp_path, out, [updated("MEMORY.md", "x\n", user=5)], datamachine="none", users=ONE_USER
    )
    assert ran["delivered"] == []
    assert (
        "(the --agent-slug fallback serves only a site with exactly one user; user 5 is not the "
        "site's one user)" in ran["log"]
    )


# -- --blocking ------------------------------------------------------------------------------------


def test_blocking_is_accepted_with_a_note_of_what_it_does(tmp_path, receiver, capsys) -> None:
    out, report, err = _cli_bridge(tmp_path, receiver.url, capsys, "--blocking")
    assert report["blocking"] is True
    assert report["agent_slug"] is None
    assert "--blocking: each request that queues an envelope also delivers the queue when it " in (
        err
    )
    assert "'blocking'    => true," in (out / "cuecard-bridge" / "settings.php").read_text()


@pytest.mark.parametrize("blocking", [True, False])
def test_blocking_delivers_at_the_end_of_the_write_after_the_response(
    tmp_path, receiver, capsys, blocking: bool
) -> None:
    extra = ["--blocking"] if blocking else []
    out, _, _ = _cli_bridge(tmp_path, receiver.url, capsys, *extra)
    events = [updated("MEMORY.md", "now\n"), updated("notes.md", "n\n")]
    # No scheduler run follows: only the write's own request can deliver.
    ran = run_php(tmp_path, out, events, run_queue=False, finish_request=True)
    assert ran["errors"] == []
    assert ran["stderr"] == ""
    if not blocking:
        assert ran["delivered"] == []
        assert len(ran["queue"]) == 2
        return
    assert [(d["result"]["status"], d["phase"], d["after_response"]) for d in ran["delivered"]] == [
        (202, "request", True),
        (202, "request", True),
    ]
    assert [d["envelope"]["seq"] for d in ran["delivered"]] == [1, 2]
    assert ran["queue"] == []
    assert receiver.site_files(2) == {
        "agents/admin/MEMORY.md": b"now\n",
        "agents/admin/notes.md": b"n\n",
    }
    # Nothing was left for the scheduler, so no run was scheduled.
    assert ran["scheduled"] == []


def test_blocking_without_fastcgi_finish_request_delivers_before_the_response(
    tmp_path, receiver, capsys
) -> None:
    out, _, _ = _cli_bridge(tmp_path, receiver.url, capsys, "--blocking")
    ran = run_php(tmp_path, out, [updated("MEMORY.md", "m\n")], run_queue=False)
    assert [(d["phase"], d["after_response"]) for d in ran["delivered"]] == [("request", False)]
    assert receiver.site_files(1) == {"agents/admin/MEMORY.md": b"m\n"}


@pytest.mark.parametrize("scheduler", ["action_scheduler", "wp_cron"])
def test_blocking_with_a_hung_receiver_costs_one_request_then_the_scheduler_retries(
    tmp_path, capsys, scheduler: str
) -> None:
    hung = HungReceiver()
    php = {"run_queue": False, "finish_request": True, "scheduler": scheduler}
    try:
        out, _, _ = _cli_bridge(tmp_path, hung.url, capsys, "--blocking", "--timeout", "0.5")
        first = run_php(tmp_path, out, [updated("a.md", "a\n")], **php)
        # The response went out first; then the one attempt waited on the receiver and failed.
        assert [(d["after_response"], d["result"]["ok"]) for d in first["delivered"]] == [
            (True, False)
        ]
        assert hung.wait_accepted(1) == 1
        assert [q["attempts"] for q in first["queue"]] == [1]
        assert "not delivered (attempt 1)" in first["log"]
        assert "next attempt in 5 s" in first["log"]
        assert [s["status"] for s in first["scheduled"]] == ["pending"]
        # Later writes stand aside: they queue, and the scheduler's backoff retries for them.
        second = run_php(tmp_path, out, [updated("b.md", "b\n")], **php)
        assert second["delivered"] == []
        assert hung.accepted == 1
        assert [s["status"] for s in second["scheduled"]] == ["pending"]  # still the one retry
        # Should the scheduler lose that retry, the next write standing aside arranges a run.
        options_file = tmp_path / "options.json"
        options = json.loads(options_file.read_text())
        options.pop("__action_scheduler", None)
        options.pop("cron", None)
        options_file.write_text(json.dumps(options))
        third = run_php(tmp_path, out, [updated("c.md", "c\n")], **php)
        assert third["delivered"] == []
        assert len(third["queue"]) == 3
        assert [(s["scheduler"], s["status"]) for s in third["scheduled"]] == [
            (scheduler, "pending")
        ]
        assert [q["label"] for q in second["queue"]] == [
            "memory.updated agent/a.md of agent admin",
            "memory.updated agent/b.md of agent admin",
        ]
    finally:
        hung.close()
