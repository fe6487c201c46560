"""Reconcile against pytest-httpserver playing Data Machine's REST routes."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from pytest_httpserver import HTTPServer

from cuecard.core.cli import main
from cuecard.wp_projection import (
    Change,
    Projector,
    ReconcileAuthError,
    ReconcileError,
    SafeRoot,
    SyncSettings,
    reconcile,
    site_key,
)

API = "/wp-json/datamachine/v1"
AUTH = "Basic " + base64.b64encode(b"admin:abcd efgh ijkl").decode()


def ok(data: object) -> dict[str, object]:
    return {"success": True, "data": data}


def serve_site(
    server: HTTPServer, files: dict[str, tuple[str, str]], daily: dict[str, str] | None = None
) -> None:
    """files: filename -> (layer, content). Requires the Authorization header."""
    listing = [
        {
            "filename": name,
            "size": len(body),
            "modified": "2026-11-30T07:30:17+00:00",
            "type": "core",
            "layer": layer,
        }
        for name, (layer, body) in files.items()
    ]
    listing.append({"filename": "daily", "type": "daily_summary", "month_count": 1})
    headers = {"Authorization": AUTH}
    server.expect_request(f"{API}/files/agent", headers=headers).respond_with_json(ok(listing))
    for name, (_, body) in files.items():
        server.expect_request(f"{API}/files/agent/{name}", headers=headers).respond_with_json(
            ok({"filename": name, "size": len(body), "modified": "x", "content": body})
        )
    days = daily or {}
    months: dict[str, list[str]] = {}
    for key in days:
        month, day = key.rsplit("/", 1)
        months.setdefault(month, []).append(day)
    server.expect_request(f"{API}/files/agent/daily", headers=headers).respond_with_json(ok(months))
    for key, body in days.items():
        server.expect_request(f"{API}/files/agent/daily/{key}", headers=headers).respond_with_json(
            ok({"date": key, "content": body})
        )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    return runtime


def settings_for(server: HTTPServer, **kw: Any) -> SyncSettings:
    return SyncSettings(
        site_url=server.url_for("/").rstrip("/"),
        authorization=AUTH,
        user_id=1,
        agent_id=0,
        agent_slug="admin",
        backoff_s=0.25,
        **kw,
    )


def test_a_pull_projects_every_listed_record(httpserver, root) -> None:
    serve_site(
        httpserver,
        {
            "SITE.md": ("shared", "site\n"),
            "MEMORY.md": ("agent", "memory\n"),
            "USER.md": ("user", "me\n"),
        },
        daily={"2026/04/17": "daily note\n"},
    )
    settings = settings_for(httpserver)
    result = reconcile(Projector(SafeRoot(root)), settings, sleep=lambda s: None)
    assert sorted(o.action for o in result.outcomes) == ["written"] * 4
    base = root / ".dm-memory" / settings.site
    assert (base / "shared/SITE.md").read_text() == "site\n"
    assert (base / "agents/admin/MEMORY.md").read_text() == "memory\n"
    assert (base / "users/1/USER.md").read_text() == "me\n"
    assert (base / "agents/admin/daily/2026/04/17.md").read_text() == "daily note\n"
    manifest = json.loads((root / ".dm-memory/.manifest.json").read_text())
    assert manifest["sites"][settings.site]["last_sync_at"] is not None
    # Run again: nothing changes on disk.
    again = reconcile(Projector(SafeRoot(root)), settings, sleep=lambda s: None)
    assert sorted(o.action for o in again.outcomes) == ["unchanged"] * 4


def test_a_hash_mismatch_is_repaired_and_pull_wins_over_push(httpserver, root) -> None:
    settings = settings_for(httpserver)
    path = f"{settings.site}/agents/admin/MEMORY.md"
    projector = Projector(SafeRoot(root))
    # Push delivered a version (seq 7) that the site has since replaced without an event.
    projector.apply(
        [
            Change(
                kind="update",
                site=settings.site,
                home_url=settings.home_url,
                path=path,
                layer="agent",
                agent_slug="admin",
                filename="MEMORY.md",
                content=b"pushed\n",
                seq=7,
            )
        ]
    )
    serve_site(httpserver, {"MEMORY.md": ("agent", "current on the site\n")})
    result = reconcile(projector, settings, sleep=lambda s: None)
    assert [(o.path, o.action) for o in result.outcomes] == [(path, "written")]
    assert (root / ".dm-memory" / path).read_text() == "current on the site\n"
    record = json.loads((root / ".dm-memory/.manifest.json").read_text())["records"][path]
    assert record["hash"] == hashlib.sha1(b"current on the site\n").hexdigest()
    assert record["source"] == "pull"
    assert record["seq"] == 7


def test_a_record_missing_on_the_site_is_deleted(httpserver, root) -> None:
    settings = settings_for(httpserver)
    projector = Projector(SafeRoot(root))
    projector.apply(
        [
            Change(
                kind="update",
                path=f"{settings.site}/agents/admin/scratch.md",
                layer="agent",
                filename="scratch.md",
                agent_slug="admin",
                content=b"gone upstream\n",
                seq=1,
                site=settings.site,
                home_url=settings.home_url,
            ),
            Change(
                kind="update",
                path=f"{settings.site}/agents/other/MEMORY.md",
                layer="agent",
                filename="MEMORY.md",
                agent_slug="other",
                content=b"another agent\n",
                seq=2,
                site=settings.site,
                home_url=settings.home_url,
            ),
        ]
    )
    serve_site(httpserver, {"MEMORY.md": ("agent", "memory\n")})
    result = reconcile(projector, settings, sleep=lambda s: None)
    actions = {o.path: o.action for o in result.outcomes}
    assert actions[f"{settings.site}/agents/admin/scratch.md"] == "deleted"
    assert not (root / ".dm-memory" / settings.site / "agents/admin/scratch.md").exists()
    # Another agent's files are outside this pull's scope and stay.
    assert (root / ".dm-memory" / settings.site / "agents/other/MEMORY.md").exists()


def test_a_transient_500_is_retried(httpserver, root) -> None:
    httpserver.expect_oneshot_request(f"{API}/files/agent").respond_with_json(
        {"code": "internal_server_error"}, status=500
    )
    serve_site(httpserver, {"SITE.md": ("shared", "site\n")})
    waits: list[float] = []
    settings = settings_for(httpserver)
    result = reconcile(Projector(SafeRoot(root)), settings, sleep=waits.append)
    assert [o.action for o in result.outcomes] == ["written"]
    assert waits == [0.25]
    assert sum(1 for req, _ in httpserver.log if req.path == f"{API}/files/agent") == 2


def test_persistent_failures_give_up_after_the_retries(httpserver, root) -> None:
    httpserver.expect_request(f"{API}/files/agent").respond_with_data("down", status=503)
    waits: list[float] = []
    with pytest.raises(ReconcileError, match="failed 3 times; last: 503"):
        reconcile(Projector(SafeRoot(root)), settings_for(httpserver), sleep=waits.append)
    assert waits == [0.25, 0.5]
    assert not (root / ".dm-memory" / ".manifest.json").exists()


def test_an_auth_failure_is_reported_clearly(httpserver, root) -> None:
    httpserver.expect_request(f"{API}/files/agent").respond_with_json(
        {"code": "rest_forbidden", "message": "You must be logged in to manage files."},
        status=401,
    )
    with pytest.raises(ReconcileAuthError) as caught:
        reconcile(Projector(SafeRoot(root)), settings_for(httpserver), sleep=lambda s: None)
    message = str(caught.value)
    assert "answered 401 rest_forbidden You must be logged in to manage files." in message
    assert "check the Application Password" in message
    assert len(httpserver.log) == 1  # an auth failure is not retried


def test_a_connection_refused_is_retried_then_reported(root) -> None:
    settings = SyncSettings(site_url="http://127.0.0.1:9", authorization=AUTH, backoff_s=0.0)
    with pytest.raises(ReconcileError, match="ConnectError"):
        reconcile(Projector(SafeRoot(root)), settings, client=httpx.Client(), sleep=lambda s: None)


def test_hostile_listing_entries_are_refused_not_written(httpserver, root) -> None:
    serve_site(httpserver, {"..%2f..%2fescape.md": ("agent", "x\n"), "ok.md": ("bogus", "y\n")})
    result = reconcile(Projector(SafeRoot(root)), settings_for(httpserver), sleep=lambda s: None)
    assert sorted(o.action for o in result.outcomes) == ["refused", "refused"]
    assert not any(p.is_file() and p.suffix == ".md" for p in root.rglob("*"))


def test_sync_cli_reads_credentials_from_a_file_outside_the_root(
    httpserver, root, tmp_path, capsys
) -> None:
    serve_site(httpserver, {"SITE.md": ("shared", "site\n")})
    auth = tmp_path / "auth.txt"
    auth.write_text("admin:abcd efgh ijkl\n")
    args = [
        "wp",
        "sync",
        "--root",
        str(root),
        "--site-url",
        httpserver.url_for("/"),
        "--auth-file",
        str(auth),
        "--agent-slug",
        "admin",
        "--alias",
        "prod",
        "--json",
    ]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"site", "counts", "outcomes"}
    assert out["site"] == "prod"
    assert out["counts"] == {"written": 1}
    assert (root / ".dm-memory/prod/shared/SITE.md").read_text() == "site\n"
    inside = root / "auth.txt"
    inside.write_text("admin:abcd efgh ijkl\n")
    args[args.index(str(auth))] = str(inside)
    assert main(args) == 2
    assert "credentials must be kept outside the runtime root" in capsys.readouterr().err


def test_sync_cli_exits_1_with_the_reason_on_an_auth_failure(httpserver, root, capsys, monkeypatch):
    httpserver.expect_request(f"{API}/files/agent").respond_with_json(
        {"code": "rest_forbidden", "message": "You must be logged in to manage files."},
        status=401,
    )
    monkeypatch.setenv("CUECARD_WP_AUTH", "admin:wrong")
    code = main(["wp", "sync", "--root", str(root), "--site-url", httpserver.url_for("/")])
    assert code == 1
    err = capsys.readouterr().err
    assert "401 rest_forbidden" in err
    assert "wrong" not in err


def test_the_site_folder_matches_the_push_side(httpserver) -> None:
    assert settings_for(httpserver).site == site_key(httpserver.url_for("/"))


def test_sync_cli_takes_a_json_config_and_options_override_it(
    httpserver, root, tmp_path, capsys, monkeypatch
) -> None:
    serve_site(httpserver, {"MEMORY.md": ("agent", "memory\n")})
    config = tmp_path / "sync.json"
    config.write_text(
        json.dumps(
            {
                "site_url": httpserver.url_for("/"),
                "agent_slug": "wrong",
                "alias": "cfg",
                "include_daily": False,
            }
        )
    )
    monkeypatch.setenv("CUECARD_WP_AUTH", "admin:abcd efgh ijkl")
    assert (
        main(
            [
                "wp",
                "sync",
                "--root",
                str(root),
                "--config",
                str(config),
                "--agent-slug",
                "admin",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["site"] == "cfg"
    assert (root / ".dm-memory/cfg/agents/admin/MEMORY.md").read_text() == "memory\n"
    assert not any("daily" in req.path for req, _ in httpserver.log)
    config.write_text("[1, 2]")
    assert main(["wp", "sync", "--root", str(root), "--config", str(config)]) == 2
    assert "must hold a JSON object" in capsys.readouterr().err


def test_readme_documents_every_subcommand() -> None:
    from cuecard.wp_projection.cli import SUBCOMMANDS

    readme = (Path(__file__).parents[2] / "packages/wp-projection/README.md").read_text()
    for name in SUBCOMMANDS:
        assert f"`{name} " in readme or f"`{name}`" in readme or f"/ `{name} " in readme, name
