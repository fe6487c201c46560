"""``cuecard migrate``: a constructed DeltaDictum 0.8.x store (schema 7), every field's fate."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from cuecard.core._engine import handle
from cuecard.core._event import Event
from cuecard.core._migrate import FIELDS, migrate, new_id
from tests.core.engine_helpers import add, make_project
from tests.core.lifecycle_helpers import cli, snapshot

ACTIVE = "3f1c2a9e-8b7d-4c6e-9a5f-1b2c3d4e5f60"
CANDIDATE = "4a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
SUPERSEDED = "5b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e"
ARCHIVED = "6c4d5e6f-7a8b-4c9d-8e1f-2a3b4c5d6e7f"
REJECTED = "7d5e6f7a-8b9c-4d0e-9f2a-3b4c5d6e7f80"
LEGACY = "8e6f7a8b-9c0d-4e1f-8a3b-4c5d6e7f8091"
SOURCE = b"def charge(amount, key):\n    ...\n"

FULL_ATOM = {
    "id": ACTIVE,
    "project_id": "shop",
    "schema_version": 7,
    "capture_origin": "model_initiated",
    "capture_source": "agent",
    "memory_type": "anti_memory",
    "scope": "service",
    "title": "Never retry charge() without the idempotency key",
    "topic_key": "billing/retries",
    "trigger": "retrying a failed payment",
    "trigger_variants": ["re-sending a charge", "payment retry loop"],
    "behavior_delta": "Do not retry charge() without passing the same idempotency key.",
    "what": "Do not retry charge() without passing the same idempotency key.",
    "why": "The provider double-charged customers in the March incident.",
    "tags": ["billing", "incident"],
    "applies_to": {
        "files": ["src/billing/**/*.py", "/etc/abs.py"],
        "components": ["PaymentGateway"],
        "operations": ["retry"],
    },
    "assumptions": [
        "the provider honours idempotency keys",
        {"key": "runtime", "equals": "python", "description": "Python service"},
    ],
    "revisit_when": [
        {
            "kind": "file_changed",
            "description": "the client is rewritten",
            "path": "src/billing/client.py",
        },
        "we change payment provider",
    ],
    "alternatives": [{"option": "retry in the queue", "reason": "loses ordering"}],
    "evidence_refs": [
        {"source_type": "file", "source_ref": "src/billing/client.py", "summary": "charge()"},
        {"source_type": "test_log", "source_ref": "pytest tests/billing", "summary": "2 failed"},
        {"source_type": "user_statement", "source_ref": "chat 2026-03-02", "summary": "said so"},
    ],
    "anchors": {
        "keywords": ["idempotency key", "charge retry"],
        "not_when": ["refund"],
        "files": ["src/billing/client.py"],
    },
    "authority": "validated",
    "lifecycle_state": "active",
    "valid_from": "2026-03-01T00:00:00.000Z",
    "valid_until": "2027-03-01T00:00:00.000Z",
    "retrieval_forms": {"micro": "x", "short": "x", "full": "x"},
    "confidence": 0.81,
    "registry_key_id": "reg-1",
    "evidence_state": {
        "checked_at": "2026-03-02T00:00:00Z",
        "artifacts": [
            {
                "source_ref": "src/billing/client.py",
                "status": "verified",
                "provenance": "repo",
                "hash": hashlib.sha256(SOURCE).hexdigest(),
            }
        ],
        "verified_count": 1,
        "support": "human_reviewed",
    },
    "replaces": None,
    "suspected_pair": ["9f7a8b9c-0d1e-4f2a-9b4c-5d6e7f8091a2"],
    "requested_authority": "canonical",
    "revision_requested": {"reason": "name the provider", "at": "2026-03-03T00:00:00Z"},
    "revised_by": None,
    "review": {
        "source": "local_ui",
        "reviewed_at": "2026-03-02T10:00:00Z",
        "rationale": "confirmed with the on-call",
    },
    "superseded_by": None,
    "contested_at": None,
    "archived_at": None,
    "archived_reason": None,
    "legacy_reason": None,
    "legacy_at": None,
    "replaced_by": None,
    "predominance": 0.4,
    "activation_count": 12,
    "created_at": "2026-03-01T09:00:00.000Z",
    "updated_at": "2026-03-02T10:00:00.000Z",
}


def _atom(ident: str, state: str, topic: str, **extra) -> dict:
    return {
        "id": ident,
        "project_id": "shop",
        "schema_version": 7,
        "memory_type": "lesson",
        "title": f"{state} atom",
        "topic_key": topic,
        "trigger": "touching the ledger",
        "behavior_delta": f"The {state} lesson about the ledger.",
        "why": "Learned in review.",
        "lifecycle_state": state,
        "evidence_refs": [],
        "anchors": {"keywords": ["ledger rows"]},
        "created_at": "2026-01-01T00:00:00Z",
        **extra,
    }


def _write(path: Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value, indent=2))


def make_dd(root: Path) -> Path:
    dd = root / ".dd"
    _write(dd / "atoms/billing/retries.json", FULL_ATOM)
    _write(dd / "atoms/ledger/rows.json", _atom("legacy-style-id", "active", "ledger/rows"))
    _write(
        dd / f"candidates/{CANDIDATE}.json",
        _atom(CANDIDATE, "candidate", "billing/retries", replaces=ACTIVE),
    )
    _write(
        dd / f"archive/{SUPERSEDED}.json",
        _atom(SUPERSEDED, "superseded", "billing/retries", superseded_by=ACTIVE),
    )
    _write(
        dd / f"archive/{ARCHIVED}.json",
        _atom(
            ARCHIVED, "archived", "ledger/old", archived_reason="Never activated in 40 retrievals"
        ),
    )
    _write(dd / f"archive/{REJECTED}.json", _atom(REJECTED, "rejected", "ledger/rejected"))
    _write(
        dd / f"legacy/{LEGACY}.json",
        _atom(
            LEGACY,
            "legacy",
            "billing/retries",
            memory_type="procedure",
            legacy_reason="we moved to the queue",
        ),
    )
    _write(dd / "archive/broken.json", "{not json")
    _write(dd / "archive/old.json", {**_atom("x", "archived", "a/b"), "schema_version": 5})
    _write(
        dd / "candidates/secret.json",
        _atom(
            "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5e",
            "candidate",
            "ops/keys",
            behavior_delta="Use AKIAIOSFODNN7EXAMPLE for deploys.",
        ),
    )
    _write(dd / "actions/act1.json", {"id": "act1", "kind": "archive"})
    _write(dd / "relations.json", [{"id": "r1", "relation_type": "supersedes"}])
    _write(dd / "config.json", {"project_id": "shop", "budget_tokens": 800})
    return dd


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "src/billing").mkdir(parents=True)
    (root / "src/billing/client.py").write_bytes(SOURCE)
    make_dd(root)
    return root


def _memories(root: Path) -> dict[str, dict]:
    folder = root / ".cuecard" / "memories"
    return {p.stem: json.loads(p.read_text()) for p in folder.glob("*.json")}


def test_fields_table_covers_every_schema_7_field() -> None:
    assert set(FULL_ATOM) <= set(FIELDS)


def test_migration_opts_in_and_converts_every_atom(project: Path, monkeypatch, capsys) -> None:
    assert cli(monkeypatch, project, "migrate", "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["opted_in"] and (project / ".cuecard" / "config.json").is_file()
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
        assert memory["review"]["migrated"] is True and memory["not_derivable"] is None
        assert "migrated_needs_not_derivable" in memory["review"]["issues"]


def test_the_full_atom_maps_field_by_field(project: Path) -> None:
    migrate(project, project)
    m = _memories(project)[ACTIVE]
    assert (m["topic"], m["kind"], m["status"]) == ("billing/retries", "failed_approach", "active")
    assert m["title"] == FULL_ATOM["title"] and m["origin"] == "model_initiated"
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
    assert "confirmed with the on-call" in review["note"] and "validated" in review["note"]
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
    assert report["dry_run"] and len(report["converted"]) == 7 and not report["opted_in"]
    assert snapshot(project) == before


def test_running_again_converts_nothing_twice(project: Path) -> None:
    migrate(project, project)
    before = _memories(project)
    again = migrate(project, project)
    assert again.converted == [] and len(again.already) == 7
    assert _memories(project) == before


def test_a_topic_held_by_a_cuecard_memory_becomes_a_revision(tmp_path: Path) -> None:
    store = make_project(tmp_path / "repo")
    holder = add(store, topic="billing/retries")
    make_dd(store.root)
    report = migrate(store.root, store.root)
    memory = _memories(store.root)[ACTIVE]
    assert memory["status"] == "candidate" and memory["revises"] == holder
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
    outside.write_text(json.dumps(_atom("b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6f", "active", "x/y")))
    (project / ".dd/atoms/x").mkdir()
    (project / ".dd/atoms/x/y.json").symlink_to(outside)
    report = migrate(project, project, dry_run=True)
    assert {"file": ".dd/atoms/x/y.json", "reason": "not a regular file"} in report.skipped


def test_run_from_a_subfolder_opts_in_the_repository_root(
    project: Path, monkeypatch, capsys
) -> None:
    assert cli(monkeypatch, project / "src" / "billing", "migrate", "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["opted_in"] and (project / ".cuecard" / "config.json").is_file()
    assert not (project / "src" / "billing" / ".cuecard").exists()
