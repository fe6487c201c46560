"""``cuecard migrate``: a constructed DeltaDictum 0.8.x store (schema 7), every field's fate."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cuecard.core.engine import Event, handle
from cuecard.core.lifecycle._migrate import FIELDS, migrate, new_id
from tests._support.deltadictum import (
    ACTIVE,
    ARCHIVED,
    CANDIDATE,
    FULL_ATOM,
    LEGACY,
    REJECTED,
    SOURCE,
    SUPERSEDED,
    atom,
    make_dd,
)
from tests._support.lifecycle import cli, snapshot
from tests._support.project import add, make_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "src/billing").mkdir(parents=True)
    (root / "src/billing/client.py").write_bytes(SOURCE)
    make_dd(root)
    return root


def _memories(root: Path) -> dict[str, dict[str, Any]]:
    folder = root / ".cuecard" / "memories"
    return {p.stem: json.loads(p.read_text()) for p in folder.glob("*.json")}


def test_fields_table_covers_every_schema_7_field() -> None:
    assert set(FULL_ATOM) <= set(FIELDS)


def test_migration_opts_in_and_converts_everyatom(project: Path, monkeypatch, capsys) -> None:
    assert cli(monkeypatch, project, "migrate", "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["opted_in"]
    assert (project / ".cuecard" / "config.json").is_file()
    renamed = new_id("legacy-style-id")
    assert report["renamed"] == [{"from": "legacy-style-id", "to": renamed}]
    assert {c["id"] for c in report["converted"]} == {
        ACTIVE,
        CANDIDATE,
        SUPERSEDED,
        ARCHIVED,
        REJECTED,
        LEGACY,
        renamed,
    }
    skipped = {s["file"]: s["reason"] for s in report["skipped"]}
    assert "not valid JSON" in skipped[".dd/archive/broken.json"]
    assert "schema_version 5" in skipped[".dd/archive/old.json"]
    assert "credential" in skipped[".dd/candidates/secret.json"]
    assert report["not_converted"] == {"actions": 1, "relations": 1}
    memories = _memories(project)
    assert set(memories) == {c["id"] for c in report["converted"]}
    for memory in memories.values():
        assert memory["review"]["migrated"] is True
        assert memory["not_derivable"] is None
        assert "migrated_needs_not_derivable" in memory["review"]["issues"]


def test_the_full_atom_maps_field_by_field(project: Path) -> None:
    migrate(project, project)
    m = _memories(project)[ACTIVE]
    assert (m["topic"], m["kind"], m["status"]) == ("billing/retries", "failed_approach", "active")
    assert m["title"] == FULL_ATOM["title"]
    assert m["origin"] == "model_initiated"
    assert m["source"] == "deltadictum:agent"
    assert m["created_at"].startswith("2026-03-01T09:00:00")
    body = m["body"]
    assert body.startswith(FULL_ATOM["behavior_delta"])
    for text in (
        "Why: The provider double-charged",
        "When: retrying a failed payment",
        "Also when: re-sending a charge; payment retry loop",
        "Alternative: retry in the queue: loses ordering",
        "Assumes: the provider honours idempotency keys",
        "Assumes: Python service (runtime = python)",
        "Reconsider when: the client is rewritten (file_changed: src/billing/client.py)",
        "Reconsider when: we change payment provider",
        "Only within components: PaymentGateway",
        "Only within operations: retry",
        "Scope: service",
        "Valid until: 2027-03-01",
        "Tags: billing, incident",
    ):
        assert text in body, text
    assert m["triggers"] == [
        {
            "on": ["read", "edit", "write"],
            "paths": ["src/billing/client.py", "src/billing/**/*.py"],
            "symbols": [],
            "commands": [],
            "keywords": [],
        },
        {
            "on": ["prompt"],
            "paths": [],
            "symbols": [],
            "commands": [],
            "keywords": ["idempotency key", "charge retry", "PaymentGateway", "retry"],
        },
    ]
    assert [(e["kind"], e["ref"]) for e in m["evidence"]] == [
        ("file", "src/billing/client.py"),
        ("command", "pytest tests/billing"),
        ("note", "chat 2026-03-02"),
    ]
    assert m["evidence"][0]["sha256"] == hashlib.sha256(SOURCE).hexdigest()
    review = m["review"]
    assert review["reviewed_at"].startswith("2026-03-02T10:00:00")
    assert "confirmed with the on-call" in review["note"]
    assert "validated" in review["note"]
    assert "revision requested: name the provider" in review["note"]
    assert "confidence 0.81" in review["note"]
    assert "dd_not_when_dropped" in review["issues"]
    assert any(i.startswith("dd_suspected_pair:9f7a8b9c") for i in review["issues"])
    assert "dd_path_dropped:/etc/abs.py" in review["issues"]


def test_lifecycle_states_map_to_statuses(project: Path) -> None:
    migrate(project, project)
    memories = _memories(project)
    assert memories[CANDIDATE]["status"] == "candidate"
    assert memories[CANDIDATE]["revises"] == ACTIVE
    assert memories[SUPERSEDED]["status"] == "superseded"
    assert memories[SUPERSEDED]["superseded_by"] == ACTIVE
    assert memories[ARCHIVED]["status"] == "archived"
    assert memories[ARCHIVED]["archived_reason"] == "Never activated in 40 retrievals"
    assert memories[REJECTED]["status"] == "archived"
    assert memories[REJECTED]["archived_reason"] == "rejected in DeltaDictum"
    legacy = memories[LEGACY]
    assert (legacy["status"], legacy["kind"]) == ("active", "failed_approach")
    assert legacy["topic"] == f"billing/retries/legacy-{LEGACY[:8]}"
    assert "Abandoned because: we moved to the queue" in legacy["body"]
    assert memories[new_id("legacy-style-id")]["kind"] == "trap"


def test_migrated_memories_fire(project: Path) -> None:
    migrate(project, project)
    root = str(project)
    delivered = handle(root, Event("edit", paths=("src/billing/client.py",), session="s"))
    assert ACTIVE in [b.key for b in delivered.delivered]
    prompted = handle(root, Event("prompt", prompt="add a charge retry here", session="p"))
    assert ACTIVE in [b.key for b in prompted.delivered]


def test_dry_run_writes_nothing_and_does_not_opt_in(project: Path, monkeypatch, capsys) -> None:
    before = snapshot(project)
    assert cli(monkeypatch, project, "migrate", "--dry-run", "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["dry_run"]
    assert len(report["converted"]) == 7
    assert not report["opted_in"]
    assert snapshot(project) == before


def test_running_again_converts_nothing_twice(project: Path) -> None:
    migrate(project, project)
    before = _memories(project)
    again = migrate(project, project)
    assert again.converted == []
    assert len(again.already) == 7
    assert _memories(project) == before


def test_a_topic_held_by_a_cuecard_memory_becomes_a_revision(tmp_path: Path) -> None:
    store = make_project(tmp_path / "repo")
    holder = add(store, topic="billing/retries")
    make_dd(store.root)
    report = migrate(store.root, store.root)
    memory = _memories(store.root)[ACTIVE]
    assert memory["status"] == "candidate"
    assert memory["revises"] == holder
    assert "dd_topic_taken" in memory["review"]["issues"]
    assert ACTIVE in [c["id"] for c in report.converted]


def test_migrate_from_another_folder_and_from_the_dd_folder(tmp_path: Path) -> None:
    store = make_project(tmp_path / "repo")
    old = tmp_path / "old-checkout"
    make_dd(old)
    assert len(migrate(old / ".dd", store.root, dry_run=True).converted) == 7
    assert len(migrate(old, store.root).converted) == 7


def test_no_store_is_a_usage_error(tmp_path: Path, monkeypatch, capsys) -> None:
    assert cli(monkeypatch, tmp_path, "migrate", "--from-deltadictum", str(tmp_path)) == 2
    assert "no DeltaDictum store" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_symlinked_atoms_are_not_followed(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(atom("b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6f", "active", "x/y")))
    (project / ".dd/atoms/x").mkdir()
    (project / ".dd/atoms/x/y.json").symlink_to(outside)
    report = migrate(project, project, dry_run=True)
    assert {"file": ".dd/atoms/x/y.json", "reason": "not a regular file"} in report.skipped


def test_linked_folders_and_fifos_in_the_store_are_neither_followed_nor_opened(
    project: Path, tmp_path: Path
) -> None:
    """A folder of ``.dd`` linked outside is not read (its atoms are not converted), and a FIFO
    in a file's place is skipped or left out, never opened (it would hang the command)."""
    import os

    outside = tmp_path / "outside"
    outside.mkdir()
    leak = atom("c3d4e5f6-a7b8-4c9d-8e1f-2a3b4c5d6e7f", "active", "leak/ed")
    (outside / "leak.json").write_text(json.dumps(leak))
    (project / ".dd/atoms/linked").symlink_to(outside)
    (project / ".dd/relations.json").unlink(missing_ok=True)
    os.mkfifo(project / ".dd/relations.json")
    os.mkfifo(project / ".dd/atoms/fifo.json")
    report = migrate(project, project, dry_run=True)
    assert {"file": ".dd/atoms/fifo.json", "reason": "not a regular file"} in report.skipped
    assert not any("leak" in item["file"] for item in report.converted + report.skipped)
    assert "relations" not in report.not_converted


def test_run_from_a_subfolder_opts_in_the_repository_root(
    project: Path, monkeypatch, capsys
) -> None:
    assert cli(monkeypatch, project / "src" / "billing", "migrate", "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["opted_in"]
    assert (project / ".cuecard" / "config.json").is_file()
    assert not (project / "src" / "billing" / ".cuecard").exists()
