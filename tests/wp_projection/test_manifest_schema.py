"""The manifest's schema number: a manifest written before agent folders (schema 1) is read and
saved again as the current schema; one written by a newer cuecard-wp-projection is refused with a
message that says so, and nothing on disk changes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from cuecard.core.cli import main
from cuecard.wp_projection import Change, ProjectionError, Projector, SafeRoot

PATH = "s/agents/admin/MEMORY.md"
OTHER = "s/agents/admin/contexts/ops.md"


def _record(content: bytes, seq: int) -> dict[str, Any]:
    # the fields schema 1 wrote: no agent_dir
    return {
        "site": "s",
        "layer": "agent",
        "user_id": 0,
        "agent_id": 0,
        "agent_slug": "admin",
        "filename": PATH.rsplit("/", 1)[-1],
        "hash": hashlib.sha1(content).hexdigest(),
        "bytes": len(content),
        "seq": seq,
        "projected_at": "2026-01-01T00:00:00Z",
        "source": "push",
        "deleted": False,
    }


def _plant(root: Path, schema: int, **extra: Any) -> bytes:
    managed = root / ".dm-memory"
    (managed / "s/agents/admin/contexts").mkdir(parents=True)
    (managed / PATH).write_bytes(b"old\n")
    (managed / OTHER).write_bytes(b"ops\n")
    site = {  # schema 1's site state: no bridge, no stale_agents
        "home_url": "https://a.example",
        "last_seq": 1,
        "last_event_at": "2026-01-01T00:00:00Z",
        "last_sync_at": None,
        "reconcile_needed": False,
        "reconcile_reason": None,
    }
    value = {
        "sentinel": "cuecard-wp-projection",
        "schema": schema,
        "sites": {"s": site},
        "preserved": {},
        "refused": [],
        "wired": {},
        "records": {PATH: _record(b"old\n", 1), OTHER: _record(b"ops\n", 1)},
        **extra,
    }
    raw = json.dumps(value).encode()
    (managed / ".manifest.json").write_bytes(raw)
    return raw


def _update(content: bytes, seq: int) -> Change:
    return Change(
        kind="update",
        site="s",
        home_url="https://a.example",
        path=PATH,
        layer="agent",
        filename="MEMORY.md",
        content=content,
        seq=seq,
    )


def test_a_schema_1_manifest_is_read_and_saved_as_the_current_schema(tmp_path: Path) -> None:
    _plant(tmp_path, 1)
    result = Projector(SafeRoot(tmp_path)).apply([_update(b"new\n", 2)])
    # the file was known as the projection's own: replaced, not kept as a local edit
    assert [o.action for o in result.outcomes] == ["written"]
    assert (tmp_path / ".dm-memory" / PATH).read_bytes() == b"new\n"
    saved = json.loads((tmp_path / ".dm-memory/.manifest.json").read_bytes())
    assert saved["schema"] == 2
    assert saved["records"][PATH]["seq"] == 2
    assert saved["records"][OTHER] == {**_record(b"ops\n", 1), "agent_dir": None}
    assert saved["sites"]["s"]["stale_agents"] == []
    assert saved["sites"]["s"]["bridge"] is None


def test_status_lists_what_a_schema_1_manifest_owns(tmp_path: Path, capsys) -> None:
    _plant(tmp_path, 1)
    assert main(["wp", "status", "--root", str(tmp_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [p["path"] for p in report["projected"]] == [f".dm-memory/{p}" for p in (PATH, OTHER)]


def test_a_newer_schema_is_refused_and_nothing_changes(tmp_path: Path, capsys) -> None:
    raw = _plant(tmp_path, 3, future_field={"kept": True})
    with pytest.raises(ProjectionError, match=r"newer cuecard-wp-projection \(manifest schema 3;"):
        Projector(SafeRoot(tmp_path)).apply([_update(b"new\n", 2)])
    assert main(["wp", "status", "--root", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "written by a newer cuecard-wp-projection" in err
    assert "upgrade cuecard-wp-projection" in err
    assert (tmp_path / ".dm-memory/.manifest.json").read_bytes() == raw
    assert (tmp_path / ".dm-memory" / PATH).read_bytes() == b"old\n"


@pytest.mark.parametrize("schema", [None, 0, "2", True, 2.0])
def test_a_schema_that_is_no_version_is_refused(tmp_path: Path, schema: object) -> None:
    _plant(tmp_path, 1)
    path = tmp_path / ".dm-memory/.manifest.json"
    value = json.loads(path.read_bytes())
    value["schema"] = schema
    path.write_text(json.dumps(value))
    with pytest.raises(ProjectionError, match="is not supported"):
        Projector(SafeRoot(tmp_path)).apply([_update(b"new\n", 2)])
