"""The projection keeps each agent in Data Machine's own folder, on the PHP harness's site: two
agents of one slug never share a folder, and after an agent is renamed `cuecard wp sync` leaves no
stale copy (a locally edited file is kept and reported). The site is the WordPress stand-in run by
PHP (the bridge's events, its signed state route, Data Machine's file routes over its disk
store); the receiver and `cuecard wp sync` are the real ones."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from cuecard.core.cli import main
from cuecard.wp_projection import render_settings, write_bridge
from tests._support.wp import free_port
from tests._support.wp_bridge import USERS, needs_php, run_php, serve_php, updated

pytestmark = needs_php

STAGING = "ops--" + hashlib.sha256(b"staging").hexdigest()[:16]
AGENTS = [
    {"agent_id": 7, "agent_slug": "ops", "owner_id": 1},
    {"agent_id": 8, "agent_slug": "ops", "owner_id": 2, "instance_key": "staging"},
]
RENAMED = [{**AGENTS[0], "agent_slug": "ops-renamed"}, AGENTS[1]]


class Site:
    """The harness's site: its disk store, its bridge and the receiver it sends to."""

    def __init__(self, tmp_path: Path, secret: str, receiver: Any) -> None:
        self.state = tmp_path
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.uploads = tmp_path / "uploads"
        self.store = self.uploads / "datamachine-files" / "agents"
        self.bridge = tmp_path / "mu-plugins"
        self.receiver = receiver
        write_bridge(self.bridge, render_settings(endpoint=receiver.url + "/events", secret=secret))
        self.secret_file = tmp_path / "secret"
        self.secret_file.write_text(secret)

    def write(
        self, agents: list[dict[str, Any]], folder: str, name: str, text: str, **scope: int
    ) -> dict[str, Any]:
        """Data Machine writes a memory file in its store, then fires its action."""
        (self.store / folder).mkdir(parents=True, exist_ok=True)
        (self.store / folder / name).write_text(text)
        out = run_php(
            self.state,
            self.bridge,
            [updated(name, text, **scope)],
            agents=agents,
            home_url=self.url + "/",
            uploads_dir=str(self.uploads),
        )
        assert [d["result"]["status"] for d in out["delivered"]] == [202], out["log"]
        return dict(out["delivered"][0]["envelope"])

    def rename(self, old: str, new: str) -> None:
        """`datamachine/rename-agent`: the folder moves; no memory event fires."""
        (self.store / old).rename(self.store / new)

    def sync(
        self,
        agents: list[dict[str, Any]],
        capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch,
        **ids: int,
    ) -> dict[str, Any]:
        monkeypatch.setenv("CUECARD_WP_AUTH", "admin:abcd efgh ijkl")
        argv = ["wp", "sync", "--root", str(self.receiver.root), "--site-url", self.url]
        argv += ["--secret-file", str(self.secret_file), "--json"]
        for key, value in ids.items():
            argv += [f"--{key.replace('_', '-')}", str(value)]
        with serve_php(
            self.state, self.bridge, self.port, agents=agents, uploads_dir=str(self.uploads)
        ):
            capsys.readouterr()
            assert main(argv) == 0
        return dict(json.loads(capsys.readouterr().out))

    def status(self, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
        capsys.readouterr()
        assert main(["wp", "status", "--root", str(self.receiver.root), "--json"]) == 0
        return dict(json.loads(capsys.readouterr().out))


@pytest.fixture
def site(tmp_path, secret, receiver) -> Site:
    return Site(tmp_path, secret, receiver)


def _agent_files(receiver: Any, applied: int) -> dict[str, bytes]:
    files = receiver.site_files(applied)
    return {k: v for k, v in files.items() if k.startswith("agents/")}


def test_two_agents_of_one_slug_land_in_data_machines_own_folders(site) -> None:
    seven = site.write(AGENTS, "ops", "MEMORY.md", "seven\n", user=1, agent=7)
    eight = site.write(AGENTS, STAGING, "MEMORY.md", "eight\n", user=2, agent=8)
    assert (seven["scope"]["agent_slug"], seven["scope"]["agent_dir"]) == ("ops", "ops")
    assert (eight["scope"]["agent_slug"], eight["scope"]["agent_dir"]) == ("ops", STAGING)
    assert _agent_files(site.receiver, 2) == {
        "agents/ops/MEMORY.md": b"seven\n",
        f"agents/{STAGING}/MEMORY.md": b"eight\n",
    }


def test_a_renamed_agent_leaves_no_stale_folder_after_sync(site, capsys, monkeypatch) -> None:
    site.write(AGENTS, "ops", "MEMORY.md", "seven\n", user=1, agent=7)
    site.write(AGENTS, "ops", "SOUL.md", "soul\n", user=1, agent=7)
    site.write(AGENTS, STAGING, "MEMORY.md", "eight\n", user=2, agent=8)
    site.receiver.wait_idle(applied=3)
    site.rename("ops", "ops-renamed")

    report = site.sync(RENAMED, capsys, monkeypatch, user_id=1, agent_id=7)
    stale = [o for o in report["outcomes"] if o["action"] == "stale"]
    assert [o["path"].split("/", 1)[1] for o in stale] == ["agents/ops"]
    assert "2 files removed, 0 local edits kept" in stale[0]["detail"]
    managed = site.receiver.managed
    [site_dir] = [p for p in managed.iterdir() if p.is_dir()]
    assert not (site_dir / "agents/ops").exists()  # no stale copy, not even the folder
    assert (site_dir / "agents/ops-renamed/MEMORY.md").read_text() == "seven\n"
    assert (site_dir / "agents/ops-renamed/SOUL.md").read_text() == "soul\n"
    assert (site_dir / f"agents/{STAGING}/MEMORY.md").read_text() == "eight\n"  # untouched

    status = site.status(capsys)
    [state] = status["sites"].values()
    assert [s["folder"] for s in state["stale_agents"]] == ["agents/ops"]
    assert state["bridge"]["queue"]["waiting"] == 0
    assert main(["wp", "status", "--root", str(site.receiver.root)]) == 0
    text = capsys.readouterr().out
    assert "WordPress queue: 0 waiting" in text
    assert "agent folder agents/ops is gone from Data Machine (renamed or removed)" in text
    # What the renamed agent writes next lands in its new folder.
    site.write(RENAMED, "ops-renamed", "MEMORY.md", "after\n", user=1, agent=7)
    assert _agent_files(site.receiver, 4)["agents/ops-renamed/MEMORY.md"] == b"after\n"


def test_a_local_edit_in_a_renamed_agents_folder_is_kept_and_reported(
    site, capsys, monkeypatch
) -> None:
    site.write(AGENTS, "ops", "MEMORY.md", "seven\n", user=1, agent=7)
    site.write(AGENTS, "ops", "SOUL.md", "soul\n", user=1, agent=7)
    site.receiver.wait_idle(applied=2)
    [edited] = site.receiver.managed.rglob("agents/ops/SOUL.md")
    edited.write_text("my own notes\n")
    site.rename("ops", "ops-renamed")

    report = site.sync(RENAMED, capsys, monkeypatch, user_id=1, agent_id=7)
    [stale] = [o for o in report["outcomes"] if o["action"] == "stale"]
    assert "1 files removed, 1 local edits kept" in stale["detail"]
    assert edited.read_text() == "my own notes\n"
    assert not (edited.parent / "MEMORY.md").exists()
    status = site.status(capsys)
    [state] = status["sites"].values()
    [found] = state["stale_agents"]
    assert found["folder"] == "agents/ops"
    assert [k.rsplit("/", 3)[-3:] for k in found["kept"]] == [["agents", "ops", "SOUL.md"]]
    [kept] = [v for k, v in status["preserved"].items() if k.endswith("ops/SOUL.md")]
    assert kept["reason"] == "deleted upstream after a local edit"


def test_the_state_route_refuses_an_unsigned_request(site) -> None:
    import httpx

    with serve_php(site.state, site.bridge, site.port, agents=AGENTS, users=USERS):
        answer = httpx.get(site.url + "/wp-json/cuecard-bridge/v1/state", timeout=30)
    assert answer.status_code == 401


def test_a_site_without_the_state_route_is_synced_and_status_says_why(
    site, capsys, monkeypatch
) -> None:
    site.write(AGENTS, "ops", "MEMORY.md", "seven\n", user=1, agent=7)
    site.receiver.wait_idle(applied=1)
    for plugin in site.bridge.glob("*.php"):  # an older bridge: no state route
        plugin.unlink()
    report = site.sync(AGENTS, capsys, monkeypatch, user_id=1, agent_id=7)
    assert not [o for o in report["outcomes"] if o["action"] == "stale"]
    [state] = site.status(capsys)["sites"].values()
    assert "the bridge answered 404" in state["bridge"]["error"]
    assert state["stale_agents"] == []


def test_the_renamed_agents_next_write_flags_the_old_folder_before_any_sync(
    site, capsys, monkeypatch
) -> None:
    site.write(AGENTS, "ops", "MEMORY.md", "seven\n", user=1, agent=7)
    site.rename("ops", "ops-renamed")
    site.write(RENAMED, "ops-renamed", "MEMORY.md", "after\n", user=1, agent=7)
    site.receiver.wait_idle(applied=2)
    [state] = site.status(capsys)["sites"].values()
    assert state["reconcile_needed"] is True
    assert state["reconcile_reason"] == (
        "agent 7 is now in agents/ops-renamed, the projection also holds agents/ops "
        "(renamed in Data Machine?)"
    )
    site.sync(RENAMED, capsys, monkeypatch, user_id=1, agent_id=7)
    files = _agent_files(site.receiver, 2)
    assert files == {"agents/ops-renamed/MEMORY.md": b"after\n"}
    [state] = site.status(capsys)["sites"].values()
    assert state["reconcile_needed"] is False
