"""``cuecard list``: the memories of this project."""

from __future__ import annotations

import argparse

from cuecard.core.cli._output import emit_json

STATUSES = ("candidate", "active", "contested", "superseded", "archived")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "list",
        description=(
            'List the project\'s memories. --json prints {"memories": [...], "problems": [...]}: '
            "each memory with id, topic, kind, status, title, origin, updated_at; problems name "
            "files that are not valid memories."
        ),
    )
    parser.add_argument("--status", choices=STATUSES, help="only memories with this status")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.store._store import Store

    memories, problems = Store.open().load()
    if args.status:
        memories = [m for m in memories if m.status == args.status]
    memories.sort(key=lambda m: (m.topic, m.created_at))
    if args.json:
        rows = [
            {
                "id": m.id,
                "topic": m.topic,
                "kind": m.kind.value,
                "status": m.status.value,
                "title": m.title,
                "origin": m.origin.value,
                "updated_at": m.updated_at.isoformat(),
            }
            for m in memories
        ]
        emit_json({"memories": rows, "problems": problems})
        return 0
    for m in memories:
        print(f"{m.id[:8]}  {m.status.value:<10} {m.kind.value:<15} {m.topic}  {m.title}")
    if not memories:
        print("no memories" + (f" with status {args.status}" if args.status else ""))
    for problem in problems:
        print(f"problem: {problem}")
    return 0
