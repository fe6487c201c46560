"""A constructed DeltaDictum 0.8.x store (schema 7) for the migration and opt-in tests."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

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


def atom(ident: str, state: str, topic: str, **extra: Any) -> dict[str, Any]:
    """A DeltaDictum schema-7 atom in ``state``."""
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


def write(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value, indent=2))


def make_dd(root: Path) -> Path:
    """A DeltaDictum 0.8.x store at ``root/.dd``: every lifecycle state, a broken and an old
    file, a credential, actions, relations and a config."""
    dd = root / ".dd"
    write(dd / "atoms/billing/retries.json", FULL_ATOM)
    write(dd / "atoms/ledger/rows.json", atom("legacy-style-id", "active", "ledger/rows"))
    write(
        dd / f"candidates/{CANDIDATE}.json",
        atom(CANDIDATE, "candidate", "billing/retries", replaces=ACTIVE),
    )
    write(
        dd / f"archive/{SUPERSEDED}.json",
        atom(SUPERSEDED, "superseded", "billing/retries", superseded_by=ACTIVE),
    )
    write(
        dd / f"archive/{ARCHIVED}.json",
        atom(
            ARCHIVED, "archived", "ledger/old", archived_reason="Never activated in 40 retrievals"
        ),
    )
    write(dd / f"archive/{REJECTED}.json", atom(REJECTED, "rejected", "ledger/rejected"))
    write(
        dd / f"legacy/{LEGACY}.json",
        atom(
            LEGACY,
            "legacy",
            "billing/retries",
            memory_type="procedure",
            legacy_reason="we moved to the queue",
        ),
    )
    write(dd / "archive/broken.json", "{not json")
    write(dd / "archive/old.json", {**atom("x", "archived", "a/b"), "schema_version": 5})
    write(
        dd / "candidates/secret.json",
        atom(
            "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5e",
            "candidate",
            "ops/keys",
            behavior_delta="Use " + "AKIA" + "Q7MBXL2RN4TPW6YZ" + " for deploys.",
        ),
    )
    write(dd / "actions/act1.json", {"id": "act1", "kind": "archive"})
    write(dd / "relations.json", [{"id": "r1", "relation_type": "supersedes"}])
    write(dd / "config.json", {"project_id": "shop", "budget_tokens": 800})
    return dd
