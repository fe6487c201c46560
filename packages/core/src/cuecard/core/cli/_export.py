"""``cuecard export``: live path-scoped memories as another agent's rule files."""

from __future__ import annotations

import argparse

from cuecard.core.cli._output import emit_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "export",
        description=(
            "For agents without hooks: write the live memories that have path triggers as that "
            "tool's rule files, so one committed source serves every agent. claude: "
            ".claude/rules/cuecard/<topic>.md (paths); cursor: .cursor/rules/cuecard/<topic>.mdc "
            "(globs); agents-md: one owned block in AGENTS.md. Only files cuecard wrote (they "
            "carry a cuecard-export comment) are changed or removed; running it twice changes "
            "nothing; `cuecard import` skips these files. A memory imported from a tool's rule "
            "is not exported back to that tool. --json prints keys: target, written, unchanged, "
            "removed, skipped ([{file, reason}])."
        ),
    )
    parser.add_argument("target", choices=("claude", "cursor", "agents-md"))
    parser.add_argument("--out", metavar="DIR", help="write under DIR (default: the project root)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cuecard.core.lifecycle._export import export_rules
    from cuecard.core.store._store import Store

    store = Store.open()
    out = Path(args.out).expanduser() if args.out else store.root
    out.mkdir(parents=True, exist_ok=True)
    report = export_rules(store.memories(), args.target, out)
    if args.json:
        emit_json(report.as_json())
        return 0
    for name in report.written:
        print(f"wrote {name}")
    for name in report.removed:
        print(f"removed {name}")
    for item in report.skipped:
        print(f"skipped {item['file']}: {item['reason']}")
    print(
        f"{len(report.written)} written, {len(report.unchanged)} unchanged, "
        f"{len(report.removed)} removed"
    )
    return 0
