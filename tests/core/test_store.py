"""The project store: opt-in, transactions rolled forward after a kill, concurrent writers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests._support.cli import BIN, run_cli

ADD = ["add", "--kind", "trap", "--title", "T", "--body", "B", "--not-derivable", "N"]


def files(root: Path) -> dict[str, str]:
    """The store's committed files (the derived ``local/`` folder left out)."""
    store = root / ".cuecard"
    return {
        str(p.relative_to(store)): p.read_text()
        for p in sorted(store.rglob("*"))
        if p.is_file() and p.name != ".lock" and p.relative_to(store).parts[0] != "local"
    }


def memory_files(root: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted((root / ".cuecard/memories").glob("*.json"))]


def test_init_writes_the_opt_in(tmp_path: Path) -> None:
    result = run_cli("init", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["created"] is True
    assert out["project_id"].startswith(tmp_path.name.lower()[:10])
    store = tmp_path / ".cuecard"
    assert (store / "memories").is_dir()
    assert (store / "inbox").is_dir()
    assert "local/" in (store / ".gitignore").read_text().splitlines()
    config = json.loads((store / "config.json").read_text())
    assert config["delivery_limit"] == 10_000
    again = run_cli("init", "--json", cwd=tmp_path)
    assert json.loads(again.stdout) == {**out, "created": False}


@pytest.mark.parametrize(
    "argv",
    [["status"], ["list"], ["show", "abcd"], ["add", "--topic", "a", *ADD[1:]]],
    ids=["status", "list", "show", "add"],
)
def test_a_project_that_did_not_opt_in_gets_nothing_created(
    tmp_path: Path, argv: list[str]
) -> None:
    result = run_cli(*argv, cwd=tmp_path)
    assert list(tmp_path.iterdir()) == []
    assert result.returncode == 1, "status exits as list does"
    assert "has not opted in" in result.stderr
    assert result.stdout == ""


def test_status_json_outside_a_project_still_says_so(tmp_path: Path) -> None:
    result = run_cli("status", "--json", cwd=tmp_path)
    assert result.returncode == 1
    assert json.loads(result.stdout) == {"opted_in": False, "root": None}


@pytest.mark.parametrize("point", ["before-journal", "after-journal", "mid-apply"])
def test_a_killed_writer_is_rolled_forward(project: Path, point: str) -> None:
    """Accepting a revision writes two files; kill the writer at each step of the transaction."""
    old = run_cli(*ADD[:1], "--topic", "billing/retries", *ADD[1:], cwd=project).stdout.strip()
    new_id = "0b5a1c1e-2f3d-4e5f-8a6b-7c8d9e0f1a2b"
    candidate = {
        **memory_files(project)[0],
        "id": new_id,
        "status": "candidate",
        "revises": old,
        "title": "Revised",
    }
    (project / ".cuecard/memories" / f"{new_id}.json").write_text(json.dumps(candidate))
    before = files(project)
    code = (
        "import sys; from cuecard.core import Store; "
        f"Store.open().accept({new_id!r}, reviewer='ana')"
    )
    killed = subprocess.run(
        [sys.executable, "-c", code],
        cwd=project,
        env={**os.environ, "CUECARD_CRASH_AT": point},
        capture_output=True,
    )
    assert killed.returncode == -signal.SIGKILL
    journal = project / ".cuecard/.journal.json"
    if point == "before-journal":
        assert not journal.exists()
        assert files(project) == before
    else:
        assert journal.exists()
    # Every file on disk is whole at every point.
    for record in memory_files(project):
        assert record["id"]
    listing = run_cli("list", "--json", cwd=project)
    assert listing.returncode == 0
    assert not journal.exists()
    states = {m["id"]: m["status"] for m in json.loads(listing.stdout)["memories"]}
    if point == "before-journal":
        assert states == {old: "active", new_id: "candidate"}
    else:
        assert states == {old: "superseded", new_id: "active"}
    assert json.loads(listing.stdout)["problems"] == []


def _add(project: Path, topic: str) -> subprocess.CompletedProcess[str]:
    return run_cli("add", "--topic", topic, *ADD[1:], cwd=project)


def test_eight_concurrent_adds_on_distinct_topics(project: Path) -> None:
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda i: _add(project, f"area/t{i}"), range(8)))
    assert [r.returncode for r in results] == [0] * 8
    records = memory_files(project)
    assert len(records) == 8
    assert {r["id"] for r in records} == {r.stdout.strip() for r in results}


def test_eight_concurrent_adds_on_one_topic(project: Path) -> None:
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: _add(project, "area/one"), range(8)))
    assert sorted(r.returncode for r in results) == [0] + [1] * 7
    refused = [r.stderr for r in results if r.returncode]
    assert all('topic "area/one" already has a live memory' in e for e in refused)
    assert [r["status"] for r in memory_files(project)] == ["active"]


def test_a_torn_file_is_reported_not_fatal(project: Path) -> None:
    _add(project, "area/ok")
    (project / ".cuecard/memories/9d5a1c1e-2f3d-4e5f-8a6b-7c8d9e0f1a2b.json").write_text('{"id": ')
    listing = run_cli("list", "--json", cwd=project)
    out = json.loads(listing.stdout)
    assert len(out["memories"]) == 1
    assert len(out["problems"]) == 1


def test_the_console_script_is_installed() -> None:
    assert (BIN / "cuecard").exists()


def test_config_changes_go_through_the_transaction(project: Path) -> None:
    from cuecard.core import Store

    store = Store.open(project)
    with store.transaction() as tx:
        tx.put_config(store.config().model_copy(update={"auto_accept": False}))
    assert json.loads((project / ".cuecard/config.json").read_text())["auto_accept"] is False
    assert store.config().auto_accept is False


def test_a_held_lock_makes_another_writer_give_up_then_frees_at_release(tmp_path: Path) -> None:
    from cuecard.core import StoreBusy
    from cuecard.core.fs import locked

    path = tmp_path / ".lock"
    busy = pytest.raises(StoreBusy, match=r"held the lock for 0 s")
    with locked(path), busy, locked(path, timeout=0):  # the third waits for the first: none
        pass
    with locked(path, timeout=0):  # the holder left: taken at once
        assert path.is_file()
