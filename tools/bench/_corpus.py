"""A realistic corpus of project memories for the benchmarks (deterministic for a seed)."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import uuid
from pathlib import Path
from typing import Any

AREAS = [
    "billing",
    "payments",
    "auth",
    "users",
    "search",
    "api",
    "web",
    "mobile",
    "infra",
    "db",
    "jobs",
    "mailer",
    "reports",
    "admin",
    "catalog",
    "orders",
    "shipping",
    "inventory",
    "ml",
    "analytics",
    "notifications",
    "gateway",
    "cache",
    "storage",
    "docs",
    "scripts",
    "tools",
]
SUBS = [
    "models",
    "views",
    "handlers",
    "services",
    "utils",
    "migrations",
    "tests",
    "schemas",
    "workers",
    "clients",
    "routes",
    "components",
    "hooks",
    "config",
    "fixtures",
]
EXTS = ["py", "ts", "tsx", "sql", "go", "rs", "yaml", "json", "md", "sh", "tf", "proto"]
PROGRAMS = [
    "alembic upgrade",
    "alembic downgrade",
    "make release",
    "make migrate",
    "npm run build",
    "npm publish",
    "terraform apply",
    "terraform destroy",
    "kubectl apply",
    "kubectl delete",
    "docker compose up",
    "pytest -x",
    "cargo publish",
    "git push",
    "psql",
    "redis-cli flushall",
    "pip install",
    "poetry lock",
    "yarn upgrade",
    "helm upgrade",
    "aws s3 sync",
    "rsync",
]
WORDS = [
    "migration",
    "refund",
    "invoice",
    "webhook",
    "retry",
    "idempotency",
    "timezone",
    "cache",
    "deadlock",
    "rollback",
    "feature flag",
    "rate limit",
    "quota",
    "tenant",
    "locale",
    "currency",
    "pagination",
    "backfill",
    "snapshot",
    "shard",
    "replica",
    "cron",
    "token refresh",
    "session",
]


def memory(rng: random.Random, index: int, now: str) -> dict[str, Any]:
    area = rng.choice(AREAS)
    sub = rng.choice(SUBS)
    ext = rng.choice(EXTS)
    shape = rng.random()
    if shape < 0.45:
        clause: dict[str, Any] = {
            "on": ["edit", "write"],
            "paths": [f"src/{area}/{sub}/**", f"src/{area}/{sub}{index % 40}/*.{ext}"],
        }
    elif shape < 0.6:
        clause = {"on": ["read", "edit"], "paths": [f"{area}/{sub}/*.{{{ext},{rng.choice(EXTS)}}}"]}
    elif shape < 0.68:
        clause = {"on": ["edit"], "paths": [f"**/{sub}/*.{ext}"]}
    elif shape < 0.85:
        clause = {"on": ["run"], "commands": [f"{rng.choice(PROGRAMS)} {area}{index % 50}"]}
    elif shape < 0.95:
        clause = {"on": ["prompt"], "keywords": [f"{rng.choice(WORDS)} {area}{index % 30}"]}
    else:
        clause = {"on": ["edit", "search"], "symbols": [f"{area}_{sub}_{index}"]}
    body = (
        f"In {area}/{sub}, {rng.choice(WORDS)} handling must go through the {area} service; "
        f"the direct path skipped the lock and corrupted {rng.choice(WORDS)} records. "
        + " ".join(rng.choice(WORDS) for _ in range(rng.randint(10, 60)))
    )
    return {
        "schema_version": 1,
        "id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        "topic": f"{area}/{sub}/m{index}",
        "kind": rng.choice(["trap", "decision", "failed_approach", "fact", "procedure"]),
        "status": "active",
        "title": f"{area} {sub}: {rng.choice(WORDS)} rule {index}",
        "body": body[:3900],
        "not_derivable": "Learned from an incident; the code does not show it.",
        "triggers": [clause],
        "check": None,
        "evidence": [],
        "origin": "user_explicit",
        "source": "bench",
        "created_at": now,
        "updated_at": now,
        "revises": None,
        "superseded_by": None,
        "archived_reason": None,
        "batch": None,
        "review": {
            "reviewed_by": None,
            "reviewed_at": None,
            "note": "",
            "auto_accepted": False,
            "migrated": False,
            "issues": [],
        },
    }


def file_evidence(rng: random.Random, record: dict[str, Any], now: str) -> list[dict[str, Any]]:
    """One or two hashed files as ``cuecard import`` and ``ingest`` record them: the files the
    memory was learned from, each with the sha256 of its content then."""
    folder = record["topic"].rsplit("/", 1)[0]
    out = []
    for n in range(rng.choice((1, 1, 1, 2))):
        ref = f"src/{folder}/{rng.choice(WORDS).replace(' ', '_')}_{n}.{rng.choice(EXTS)}"
        out.append(
            {
                "kind": "file",
                "ref": ref,
                "sha256": hashlib.sha256(f"{record['id']}:{ref}".encode()).hexdigest(),
                "summary": "the file the fix changed",
                "recorded_at": now,
                "verified": True,
            }
        )
    return out


def build_project(root: Path, count: int, seed: int = 7, evidence: float = 0.0) -> Path:
    """A git repository opted in to cuecard with ``count`` active memories; the share
    ``evidence`` of them carry file evidence (the same memories otherwise, for a seed)."""
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    from cuecard.core import Store

    store, _ = Store.init(root)
    rng = random.Random(seed)
    which = random.Random(seed + 1)  # apart, so that the memories are the same at any share
    now = "2026-01-01T00:00:00+00:00"
    for i in range(count):
        record = memory(rng, i, now)
        if which.random() < evidence:
            record["evidence"] = file_evidence(which, record, now)
        (store.memories_dir / f"{record['id']}.json").write_text(json.dumps(record, indent=2))
    return root
