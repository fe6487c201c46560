"""Helpers for the engine tests: a project with memories written through the real store."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path
from typing import Any

from cuecard.core import Store, validate_memory


def make_project(root: Path) -> Store:
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    store, _ = Store.init(root)
    return store


def add(store: Store, *, topic: str | None = None, **fields: Any) -> str:
    now = store.now().isoformat()
    memory_id = str(uuid.uuid4())
    raw: dict[str, Any] = {
        "id": memory_id,
        "topic": topic or f"t/{memory_id[:8]}",
        "kind": "trap",
        "status": "active",
        "title": f"memory {memory_id[:8]}",
        "body": "Body text of the memory.",
        "not_derivable": "Learned the hard way.",
        "created_at": now,
        "updated_at": now,
    }
    raw.update(fields)
    store.add(validate_memory(raw))
    return memory_id


def add_migration_trap(project: Path) -> Path:
    """Through the real CLI, a trap on editing ``migrations/**`` in ``project``, and the file
    ``migrations/0001.sql`` an edit would touch (returned)."""
    from tests._support.cli import run_cli

    added = run_cli(
        "add", "--topic", "db/migrations", "--kind", "trap", "--title", "Applied migrations",
        "--body", "Applied migrations are immutable; add a new one.",
        "--not-derivable", "learned from an outage", "--on", "edit", "--paths", "migrations/**",
        cwd=project,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    (project / "migrations").mkdir()
    target = project / "migrations" / "0001.sql"
    target.write_text("create table t (id bigint);\n")
    return target
