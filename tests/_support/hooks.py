"""The hook tests' parts: a real git repository with known memories, the hook run as a harness
runs it, and the recorded fixtures played in process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from cuecard.hooks._hook import respond

BIN = Path(sys.executable).parent
HOOK = str(BIN / "cuecard-hook")
NOW = "2026-11-01T00:00:00+00:00"
GIT = ["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid"]

BIG_BODY = ("This paragraph stands for a long procedure with many steps. " * 64)[:3900]


def memory(ident: str, topic: str, kind: str, title: str, body: str, triggers: list[Any],
            **extra: Any) -> dict[str, Any]:  # fmt: skip
    return {
        "schema_version": 1,
        "id": ident,
        "topic": topic,
        "kind": kind,
        "status": "active",
        "title": title,
        "body": body,
        "not_derivable": "Learned the hard way; not in the code.",
        "triggers": triggers,
        "origin": "user_explicit",
        "source": "test",
        "created_at": NOW,
        "updated_at": NOW,
        **extra,
    }


MEMORIES = [
    memory("11111111-1111-4111-8111-111111111111", "billing/charge", "trap",
            "charge() is not idempotent", "Retry charge() only with the order's idempotency key.",
            [{"on": ["edit", "write"], "paths": ["src/billing/**"]}]),
    memory("22222222-2222-4222-8222-222222222222", "migrations/downgrade", "failed_approach",
            "alembic downgrade breaks on 0042", "Write a forward migration instead.",
            [{"on": ["run"], "commands": ["alembic downgrade"]}]),
    memory("33333333-3333-4333-8333-333333333333", "docs/adr", "decision",
            "One payment provider until 2027", "The contract forbids a second provider.",
            [{"on": ["read"], "paths": ["docs/adr/**"]}]),
    memory("44444444-4444-4444-8444-444444444444", "deploy/staging", "procedure",
            "Deploy with make deploy-staging", "Never push the staging branch by hand.",
            [{"on": ["prompt"], "keywords": ["deploy"]}]),
    memory("55555555-5555-4555-8555-555555555555", "migrations/layout", "fact",
            "Migrations are numbered by hand", "Take the next free number from migrations/NEXT.",
            [{"on": ["search"], "paths": ["migrations/**"]}]),
    memory("66666666-6666-4666-8666-666666666666", "scripts/logging", "trap",
            "Scripts log through log.info", "print() output is lost under the scheduler.",
            [{"on": ["edit", "write"], "paths": ["scripts/**/*.py"]}],
            check={"if_content": "print\\(", "when": "edit", "message": "use log.info, not print()",
                   "violates": ["print(x)"], "passes": ["log.info(x)"]}),
    memory("77777777-7777-4777-8777-777777777777", "notebooks/outputs", "procedure",
            "Clear notebook outputs before committing", "Outputs hold customer data.",
            [{"on": ["edit"], "paths": ["notebooks/**"]}]),
    memory("88888888-8888-4888-8888-888888888888", "billing/registry", "fact",
            "New billing modules must be registered", "Add them to src/billing/__init__.py.",
            [{"on": ["write"], "paths": ["src/billing/**"]}]),
    memory("99999999-9999-4999-8999-999999999999", "billing/charge-customer", "decision",
            "charge_customer is deprecated", "Call charge() with an order instead.",
            [{"on": ["search"], "symbols": ["charge_customer"]}]),
    memory("aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "config/debug", "trap",
            "DEBUG must stay off in config", "DEBUG = True leaks stack traces to customers.",
            [{"on": ["edit"], "paths": ["config/**"]}],
            check={"if_content": "DEBUG\\s*=\\s*True", "when": "turn", "message": "DEBUG is on",
                   "violates": ["DEBUG = True"], "passes": ["DEBUG = False"]}),
    *(
        memory(f"bbbbbbb{n}-bbbb-4bbb-8bbb-bbbbbbbbbbbb", f"big/part-{n}", "procedure",
                f"Big procedure {n}", BIG_BODY, [{"on": ["read"], "paths": ["big/**"]}])
        for n in (1, 2, 3)
    ),
]  # fmt: skip

FILES = {
    "src/billing/charge.py": "def charge(order):\n    return provider.charge(order.total)\n",
    "src/billing/__init__.py": "",
    "docs/adr/0001-provider.md": "# One provider\n",
    "migrations/0042_charge_key.py": "# adds charge_key\n",
    "scripts/old.py": "print(1)\nx = 1\n",
    "scripts/tool.py": "x = 1\n",
    "notebooks/report.ipynb": "{}\n",
    "config/settings.py": "DEBUG = False\n",
    "big/file.txt": "big\n",
}


def build_repo(root: Path) -> Path:
    """A committed git repository at ``root``, opted in, with ``MEMORIES`` compiled."""
    root.mkdir(parents=True)
    subprocess.run([*GIT, "init", "-q", str(root)], check=True)
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "app"], cwd=root, check=True)
    from cuecard.core import Store, compile_index

    store, _ = Store.init(root)
    for memory in MEMORIES:
        path = root / ".cuecard" / "memories" / f"{memory['id']}.json"
        path.write_text(json.dumps(memory, indent=2), encoding="utf-8")
    report = compile_index(store)
    assert report.memories == len(MEMORIES), report
    assert not report.left_out, report
    return root


def run_hook(harness: str, event: str, payload: Any, *, cwd: Path,
             raw: bytes | None = None) -> subprocess.CompletedProcess[bytes]:  # fmt: skip
    """Run the installed ``cuecard-hook`` as a harness would."""
    env = {k: v for k, v in os.environ.items() if k != "CUECARD_PROJECT_DIR"}
    data = raw if raw is not None else json.dumps(payload).encode("utf-8")
    return subprocess.run([HOOK, harness, event], input=data, capture_output=True, cwd=cwd,
                          env=env, timeout=120)  # fmt: skip


FIXTURES = Path(__file__).resolve().parents[1] / "hooks" / "fixtures"


def replace_all(value: Any, mapping: dict[str, str]) -> Any:
    """``value`` (JSON data) with each key of ``mapping`` replaced in every string (a fixture's
    placeholders, or a recording's paths); ``{"$repeat": [text, count]}`` is ``text * count``."""
    if isinstance(value, str):
        for key, replacement in mapping.items():
            value = value.replace(key, replacement)
        return value
    if isinstance(value, list):
        return [replace_all(v, mapping) for v in value]
    if isinstance(value, dict):
        if set(value) == {"$repeat"}:
            text, count = value["$repeat"]
            return replace_all(text, mapping) * count
        return {k: replace_all(v, mapping) for k, v in value.items()}
    return value


def _stdin(value: Any) -> bytes:
    return json.dumps(value).encode("utf-8")


def play(harness: str, name: str, spec: dict[str, Any], root: Path, outside: Path) -> str:
    """Run one fixture against ``root`` and return the hook's stdout, paths put back as
    ``$ROOT``. It runs in this process (``respond`` is what ``cuecard-hook`` prints), from the
    repository's folder; test_hook_command.py runs the real command as a subprocess."""
    mapping = {"$ROOT": str(root), "$OUTSIDE": str(outside), "$SESSION": f"{harness}-{name}"}
    for rel, text in spec.get("files", {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    for event, payload in spec.get("setup", []):
        respond(harness, event, _stdin(replace_all(payload, mapping)))
    if "raw" in spec:
        out = respond(harness, spec["event"], spec["raw"].encode("utf-8"))
    else:
        out = respond(harness, spec["event"], _stdin(replace_all(spec["payload"], mapping)))
    return out.replace(str(root), "$ROOT")
