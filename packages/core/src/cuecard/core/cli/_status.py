"""``cuecard status``: what cuecard holds for this project."""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

from cuecard.core.cli._output import emit_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "status",
        description=(
            "Show whether this project opted in and what its store holds; exits 1 outside a "
            "project that opted in, as list does. --json prints keys: "
            "opted_in, root, project_id, memories (counts by status), live, inbox (proposals "
            "waiting), problems, setup (what this person must run before the project's Codex "
            "or Grok Build hooks run here, or its Claude Code hooks in a subfolder: a list of "
            "{harness, reason, run})."
        ),
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cuecard.core.doctor._hookcheck import setup_steps
    from cuecard.core.store._store import Store, find_root

    root = find_root()
    if root is None:
        from cuecard.core.cli._output import error
        from cuecard.core.engine._paths import linked_local_problem

        linked = linked_local_problem(".")
        if linked is not None:
            error(linked)
            return 1
        # as `cuecard list` does: exit 1, the message on stderr (--json still prints its object)
        if args.json:
            emit_json({"opted_in": False, "root": None})
        error("this project has not opted in to cuecard; run `cuecard init` at its root")
        return 1
    store = Store.open(root)
    config = store.config()
    memories, problems = store.load()
    from cuecard.core.lifecycle._store_findings import unsafe_store_entries

    problems = [f"{line}: cuecard reads and writes nothing through it" for line in
                unsafe_store_entries(root)] + problems  # fmt: skip
    counts = Counter(m.status.value for m in memories)
    try:  # by descriptor: an inbox that is a link is not listed
        entries = store.tree.entries(".cuecard/inbox")
    except OSError:
        entries = []
    inbox = [name for name, kind in entries if name.endswith(".json") and kind == "file"]
    summary: dict[str, Any] = {
        "opted_in": True,
        "root": str(store.root),
        "project_id": config.project_id,
        "memories": dict(sorted(counts.items())),
        "live": counts["active"] + counts["contested"],
        "inbox": len(inbox),
        "problems": problems,
        "setup": setup_steps(store.root, Path.home()),  # trust by path; Claude's subfolders
    }
    if args.json:
        emit_json(summary)
        return 0
    print(f"cuecard project {config.project_id} at {store.root}")
    print(f"live memories: {summary['live']}")
    for status, count in sorted(counts.items()):
        print(f"  {status}: {count}")
    print(f"proposals waiting in the inbox: {len(inbox)}")
    for problem in problems:
        print(f"problem: {problem}")
    for step in summary["setup"]:
        print(f"{step['harness']}: {step['reason']}; run `{step['run']}`")
    return 0
