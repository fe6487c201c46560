"""``cuecard show``: one memory."""

from __future__ import annotations

import argparse

from cuecard.core.cli._output import emit_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "show",
        description=(
            "Show one memory by its id or a unique prefix of at least 4 characters. --json prints "
            "the memory's JSON record (the keys of `cuecard schema memory`)."
        ),
    )
    parser.add_argument("id")
    parser.add_argument("--json", action="store_true", help="print the memory's JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.store._store import Store

    memory = Store.open().get(args.id)
    if args.json:
        emit_json(memory.model_dump(mode="json"))
        return 0
    print(f"{memory.title}\n")
    print(f"id:       {memory.id}")
    print(f"topic:    {memory.topic}")
    print(f"kind:     {memory.kind.value}    status: {memory.status.value}")
    print(f"origin:   {memory.origin.value} ({memory.source})")
    print(f"\n{memory.body}\n")
    if memory.not_derivable:
        print(f"not derivable: {memory.not_derivable}")
    for i, clause in enumerate(memory.triggers):
        parts = [f"on {','.join(clause.on)}"]
        for name in ("paths", "commands", "symbols", "keywords"):
            values = getattr(clause, name)
            if values:
                parts.append(f"{name} {', '.join(values)}")
        print(f"trigger {i}: " + "; ".join(parts))
    return 0
