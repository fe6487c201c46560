"""No path segment git takes for its repository folder is ever projected (receiver, sync, disk).

A signed event or a site listing that names `.git/config` would otherwise plant a repository
under the managed folder whose config a later `git status` runs. The bridge's side of the same
rule is in test_bridge_queue.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from cuecard.core.cli import main
from cuecard.wp_projection import PathRefused, SafeRoot, normalise_relative
from tests._support.wp_corpus import GIT_PATHS

API = "/wp-json/datamachine/v1"
AUTH = "admin:abcd efgh ijkl"


def _no_git_anywhere(base: Path) -> None:
    for path in base.rglob("*"):
        assert path.name.rstrip(". ").lower() not in (".git", "git~1"), path


@pytest.mark.parametrize("raw", GIT_PATHS)
def test_a_git_metadata_segment_is_refused_by_the_path_rules(raw: str) -> None:
    with pytest.raises(PathRefused, match="git repository metadata"):
        normalise_relative(raw)


@pytest.mark.parametrize("name", [".github/CODEOWNERS", ".gitignore", "git/x.md", "my.git.md"])
def test_names_that_only_look_like_git_are_kept(name: str) -> None:
    assert normalise_relative(name) == name


def test_the_disk_layer_refuses_a_git_segment_whatever_the_caller(tmp_path: Path) -> None:
    root = SafeRoot(tmp_path)
    for rel in ("site/agents/a/.git/config", "site/.GIT/HEAD", "GIT~1/x"):
        with pytest.raises(PathRefused, match="git repository metadata"):
            root.write(rel, b"[core]\n\tfsmonitor = touch /tmp/pwned\n")
    _no_git_anywhere(tmp_path)


@pytest.mark.parametrize("layer", ["agent", "shared"])
def test_signed_events_naming_git_metadata_are_refused_and_nothing_is_written(
    receiver, make_envelope, layer: str
) -> None:
    for seq, name in enumerate(GIT_PATHS, start=1):
        env = make_envelope(
            seq=seq, filename=name, layer=layer, content="[core]\n\tfsmonitor = touch /tmp/x\n"
        )
        response = receiver.post(env)
        assert response.status_code == 422, (name, response.text)
        assert "git repository metadata" in response.json()["error"]
        deleted = receiver.post(make_envelope("memory.deleted", seq=seq, filename=name))
        assert deleted.status_code == 422, name
    report = receiver.status()
    assert report["queue"] == {"waiting": 0, "applied": 0}
    assert receiver.files() == {}
    _no_git_anywhere(receiver.root)


def test_sync_refuses_git_metadata_the_site_lists(
    httpserver: HTTPServer, tmp_path: Path, monkeypatch, capsys
) -> None:
    names = [".git", ".GIT", ".git.", "GIT~1", "MEMORY.md"]
    listing = [{"filename": n, "type": "core", "layer": "agent"} for n in names]
    httpserver.expect_request(f"{API}/files/agent").respond_with_json(
        {"success": True, "data": listing}
    )
    for name in names:
        content = "memory\n" if name == "MEMORY.md" else "gitdir: /tmp/elsewhere\n"
        httpserver.expect_request(f"{API}/files/agent/{name}").respond_with_json(
            {"success": True, "data": {"filename": name, "content": content}}
        )
    httpserver.expect_request(f"{API}/files/agent/daily").respond_with_json(
        {"success": True, "data": {}}
    )
    root = tmp_path / "runtime"
    root.mkdir()
    monkeypatch.setenv("CUECARD_WP_AUTH", AUTH)
    code = main(
        [
            "wp",
            "sync",
            "--root",
            str(root),
            "--site-url",
            httpserver.url_for("/"),
            "--agent-slug",
            "admin",
            "--alias",
            "prod",
            "--json",
        ]
    )
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    refused = {o["path"]: o["detail"] for o in report["outcomes"] if o["action"] == "refused"}
    assert set(refused) == {".git", ".GIT", ".git.", "GIT~1"}
    assert all("git repository metadata" in d for d in refused.values())
    assert (root / ".dm-memory/prod/agents/admin/MEMORY.md").read_text() == "memory\n"
    _no_git_anywhere(root)
