"""``cuecard demo``: cuecard's main job on embedded defaults, for a newcomer.

It makes a throwaway git repository with a small billing app and four memories, then replays a
recorded Claude Code session (``data/demo/session.json``) through the real ``cuecard-hook``
command, one subprocess per hook call as Claude Code would run it, and prints each event and what
the agent (or the person) received.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import textwrap
from pathlib import Path
from typing import Any

__all__ = ["DEMO_MEMORIES", "build_repository", "render", "replay", "run_demo"]

DEMO_FILES = {
    "src/billing/charge.py": (
        "from billing import provider\n\n\ndef charge(order):\n"
        "    return provider.charge(order.total)\n"
    ),
    "src/billing/provider.py": "class Declined(Exception):\n    pass\n",
    "tests/test_charge.py": "def test_retry_uses_idempotency_key():\n    ...\n",
    "migrations/0042_add_charge_key.py": "# adds orders.charge_key\n",
    "docs/adr/0007-payments-provider.md": "# We use one payment provider\n",
}

DEMO_MEMORIES: list[dict[str, Any]] = [
    {
        "topic": "billing/charge-retries",
        "kind": "trap",
        "title": "charge() is not idempotent: retry only with the order's idempotency key",
        "body": (
            "The payment provider treats every charge call as a new payment. A retry without "
            "idempotency_key=order.charge_key charges the customer twice."
        ),
        "not_derivable": "The provider's behaviour is not in this code; a double charge taught it.",
        "triggers": [{"on": ["edit", "write"], "paths": ["src/billing/**"]}],
    },
    {
        "topic": "migrations/downgrade",
        "kind": "failed_approach",
        "title": "alembic downgrade breaks on 0042: it drops orders.charge_key with data in it",
        "body": (
            "Downgrading past 0042 fails on production-sized data and leaves the table locked. "
            "Write a new forward migration instead of downgrading."
        ),
        "not_derivable": "The failure appears only on real data; the migration file looks fine.",
        "triggers": [{"on": ["run"], "commands": ["alembic downgrade"]}],
    },
    {
        "topic": "deploy/staging",
        "kind": "procedure",
        "title": "Deploy to staging with `make deploy-staging`, never by pushing the branch",
        "body": "A push to the staging branch skips the smoke tests; `make deploy-staging` runs them.",  # noqa: E501
        "not_derivable": "The CI rule lives outside this repository.",
        "triggers": [{"on": ["prompt"], "keywords": ["deploy"]}],
    },
    {
        "topic": "docs/payments-provider",
        "kind": "decision",
        "title": "One payment provider, by contract until 2027",
        "body": "Do not add a second provider: the contract forbids it until 2027.",
        "not_derivable": "The contract is not in the repository.",
        "triggers": [{"on": ["read", "edit"], "paths": ["docs/adr/**"]}],
    },
]


def build_repository(root: Path) -> None:
    """A git repository at ``root`` with the demo files, opted in, with the demo memories."""
    import uuid

    from cuecard.core import Store, compile_index, validate_memory

    root.mkdir(parents=True)
    for rel, text in DEMO_FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    git = ["git", "-c", "user.name=cuecard demo", "-c", "user.email=demo@cuecard.invalid"]
    subprocess.run([*git, "init", "-q", str(root)], check=True, capture_output=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True, capture_output=True)
    subprocess.run([*git, "commit", "-qm", "demo app"], cwd=root, check=True, capture_output=True)
    store, _ = Store.init(root)
    now = store.now().isoformat()
    for spec in DEMO_MEMORIES:
        memory = validate_memory(
            {
                "id": str(uuid.uuid4()),
                "status": "active",
                "origin": "user_explicit",
                "source": "demo",
                "created_at": now,
                "updated_at": now,
                **spec,
            }
        )
        store.add(memory)
    compile_index(store)


def _substitute(value: Any, mapping: dict[str, str]) -> Any:
    if isinstance(value, str):
        for key, replacement in mapping.items():
            value = value.replace(key, replacement)
        return value
    if isinstance(value, list):
        return [_substitute(v, mapping) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, mapping) for k, v in value.items()}
    return value


def _apply(root: Path, payload: dict[str, Any]) -> None:
    """Make the change a Write or Edit made, as the harness would before its PostToolUse."""
    args = payload.get("tool_input") or {}
    path = Path(str(args.get("file_path", "")))
    if not path.is_absolute():
        path = root / path
    if payload.get("tool_name") == "Write":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(str(args.get("content", "")), encoding="utf-8")
    elif payload.get("tool_name") == "Edit" and path.is_file():
        text = path.read_text(encoding="utf-8")
        path.write_text(
            text.replace(str(args["old_string"]), str(args["new_string"]), 1), encoding="utf-8"
        )


def describe(event: str, payload: dict[str, Any], root: Path) -> str:
    """A one-line label of a hook call."""
    if event == "SessionStart":
        return f"SessionStart ({payload.get('source', '')})"
    if event == "UserPromptSubmit":
        return f'UserPromptSubmit "{payload.get("prompt", "")}"'
    if event == "Stop":
        active = " (stop_hook_active)" if payload.get("stop_hook_active") else ""
        return f"Stop{active}"
    args = payload.get("tool_input") or {}
    target = str(args.get("command") or args.get("file_path") or "")
    target = target.replace(str(root) + os.sep, "").replace(str(root) + "/", "")
    return f"{event} {payload.get('tool_name', '')} {target}".rstrip()


def replay(root: Path, hook: str, session: str = "demo-session") -> list[dict[str, Any]]:
    """Run each recorded step through ``hook`` (a ``cuecard-hook`` executable)."""
    from cuecard.hooks._install import data_text

    recorded = json.loads(data_text("demo", "session.json"))
    mapping = {"$ROOT": str(root), "$SESSION": session}
    env = {k: v for k, v in os.environ.items() if k != "CUECARD_PROJECT_DIR"}
    steps = []
    for step in recorded["steps"]:
        payload = _substitute(step["payload"], mapping)
        if step.get("apply"):
            _apply(root, payload)
        result = subprocess.run(
            [hook, "claude", step["event"]],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            cwd=root,
            env=env,
            timeout=60,
            check=False,
        )
        answer = json.loads(result.stdout) if result.stdout.strip() else {}
        steps.append(
            {
                "event": describe(step["event"], payload, root),
                "description": step["say"],
                "received": answer,
                "exit": result.returncode,
            }
        )
    return steps


def _received(answer: dict[str, Any]) -> tuple[str, str]:
    if not answer:
        return "", ""
    if "systemMessage" in answer:
        return "the person sees", str(answer["systemMessage"])
    if answer.get("decision") == "block":
        return "the agent is asked (Stop blocks with this reason)", str(answer.get("reason", ""))
    return "the agent receives", str(answer.get("hookSpecificOutput", {}).get("additionalContext"))


def render(root: str, steps: list[dict[str, Any]], delivered: int) -> str:
    """The demo's printed story: each step, and what the agent or the person received."""
    lines = [
        f"cuecard demo: a throwaway git repository at {root}",
        f"with {len(DEMO_MEMORIES)} memories; replaying a recorded Claude Code session",
        "through the real cuecard-hook command, one process per hook call.",
        "",
    ]
    for number, step in enumerate(steps, 1):
        lines.append(f"[{number}] {step['event']}")
        lines.append(textwrap.indent(step["description"], "    "))
        who, text = _received(step["received"])
        if not text:
            lines.extend(["    → nothing for the agent", ""])
            continue
        lines.append(f"    → {who}:")
        lines.extend([textwrap.indent(text, "      "), ""])
    lines.append(f"{delivered} memory deliveries in the session, each at the action it applies to.")
    lines.append(
        "Next: `cuecard init` in your project, `cuecard install claude` (or codex, opencode, "
        "grok), and `cuecard add` your first memory."
    )
    return "\n".join(lines) + "\n"


def run_demo(*, keep: bool = False, as_json: bool = False) -> int:
    from cuecard.hooks._install import default_hook_path

    base = Path(tempfile.mkdtemp(prefix="cuecard-demo-"))
    root = base / "shop"
    try:
        build_repository(root)
        steps = replay(root, default_hook_path())
        delivered = sum(
            str(s["received"].get("hookSpecificOutput", {}).get("additionalContext", "")).count(
                "(memory "
            )
            for s in steps
        )
        if as_json:
            from cuecard.core.cli import emit_json

            emit_json({"repository": str(root), "steps": steps, "delivered": delivered})
            return 0
        print(render(str(root), steps, delivered), end="")
        if keep:
            print(f"The repository is kept at {root}.")
        return 0
    finally:
        if not keep:
            shutil.rmtree(base, ignore_errors=True)
