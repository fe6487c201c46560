"""``cuecard import``: other agents' path-scoped rules as active memories."""

from __future__ import annotations

import argparse

from cuecard.core.cli._output import emit_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "import",
        description=(
            "Turn other agents' path-scoped rule files into active memories, one per file under "
            "the topic rules/<tool>/<file>, firing on reads, edits and writes of the repository "
            "files their paths match, with the file as hashed evidence, accepted by you. Read: "
            "Claude Code .claude/rules/*.md (paths), Cursor .cursor/rules/*.mdc (globs), GitHub "
            "Copilot .github/instructions/*.instructions.md (applyTo), Continue "
            ".continue/rules/*.md (globs), Windsurf .windsurf/rules/*.md (trigger: glob), Kiro "
            ".kiro/steering/*.md (inclusion: fileMatch, fileMatchPattern), and CLAUDE.md or "
            "AGENTS.md in a subfolder (firing on that folder; their tools load them only on "
            "reads there). A bare pattern (*.ts) "
            "applies across folders (**/*.ts). Skipped and reported: rules with no paths or "
            "always on, paths that match nothing, a topic a memory from elsewhere holds, "
            "content validation refuses. A body over 1,500 characters is cut at a paragraph "
            "and points at its file. Importing again updates the memories whose file changed. "
            "--json prints keys: dry_run, imported ([{id, topic, file, paths, truncated}]), "
            "updated ([{id, topic, file, paths, truncated}]), unchanged ([{id, topic, file}]), "
            "skipped ([{file, reason}])."
        ),
    )
    parser.add_argument(
        "--from",
        dest="source",
        metavar="DIR",
        help="the folder holding the rule folders (default: the project root)",
    )
    parser.add_argument("--dry-run", action="store_true", help="report, write nothing")
    parser.add_argument("--reviewer", help="who accepts the memories (default: git user.name)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cuecard.core.base._errors import UsageError
    from cuecard.core.lifecycle._import import import_rules
    from cuecard.core.store._store import Store

    store = Store.open()
    source = Path(args.source).expanduser() if args.source else None
    if source is not None and not source.is_dir():
        raise UsageError(f"--from {args.source}: not a folder")
    report = import_rules(store, source=source, dry_run=args.dry_run, reviewer=args.reviewer)
    if args.json:
        emit_json(report.as_json())
        return 0
    verb = "would import" if args.dry_run else "imported"
    for item in report.imported:
        print(f"{verb} {item['file']} as {item['topic']} ({item['id'][:8]})")
    for item in report.updated:
        print(
            f"{'would update' if args.dry_run else 'updated'} {item['topic']} from {item['file']}"
        )
    for item in report.skipped:
        print(f"skipped {item['file']}: {item['reason']}")
    print(
        f"{len(report.imported)} new, {len(report.updated)} updated, "
        f"{len(report.unchanged)} unchanged, {len(report.skipped)} skipped"
        + (" (dry run: nothing written)" if args.dry_run else "")
    )
    return 0
