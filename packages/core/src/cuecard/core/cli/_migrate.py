"""``cuecard migrate``: convert a DeltaDictum 0.8.x store into cuecard memories."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from cuecard.core.cli._output import emit_json

if TYPE_CHECKING:
    from pathlib import Path


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "migrate",
        description=(
            "Convert a DeltaDictum 0.8.x store (the v1 store: .dd/atoms/, .dd/candidates/, "
            ".dd/archive/, .dd/legacy/, schema 7 or 6) into cuecard memories, keeping their ids, "
            "mapping anchors and applies_to to trigger clauses (files to a read/edit/write "
            "clause, keywords, components and operations to a prompt clause), and queuing every "
            "converted memory (review.migrated) for a person to supply not_derivable. A project "
            "that has not opted in is opted in by the migration (not by a dry run). Running it "
            "again converts only what is new. --json prints keys: source, dry_run, opted_in, "
            "converted ([{id, topic, status, file, dropped}]), renamed ([{from, to}]), already "
            "(ids held already), skipped ([{file, reason}]), not_converted ({part: count})."
        ),
    )
    parser.add_argument(
        "--from-deltadictum",
        dest="source",
        metavar="DIR",
        help="the project (or its .dd folder) holding the DeltaDictum store (default: this one)",
    )
    parser.add_argument("--dry-run", action="store_true", help="report, write nothing")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def _toplevel() -> Path | None:
    """The git repository around the working folder: where a project is opted in."""
    import subprocess
    from pathlib import Path

    try:
        out = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"], capture_output=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    text = out.stdout.decode("utf-8", "replace").strip()
    return Path(text).resolve() if out.returncode == 0 and text else None


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cuecard.core.engine._paths import find_root
    from cuecard.core.lifecycle._migrate import migrate

    root = find_root() or _toplevel() or Path.cwd().resolve()
    source = Path(args.source).expanduser().resolve() if args.source else root
    report = migrate(source, root, dry_run=args.dry_run)
    if args.json:
        emit_json(report.as_json())
        return 0
    verb = "would convert" if args.dry_run else "converted"
    for item in report.converted:
        print(f"{verb} {item['file']} → {item['id'][:8]} {item['topic']} ({item['status']})")
    for item in report.skipped:
        print(f"skipped {item['file']}: {item['reason']}")
    for part, count in report.not_converted.items():
        print(f"not converted: {count} {part}")
    if report.opted_in:
        print(f"opted {root} in to cuecard")
    print(
        f"{len(report.converted)} converted, {len(report.already)} already migrated, "
        f"{len(report.skipped)} skipped; each converted memory waits for a person to supply "
        "not_derivable in the review UI" + (" (dry run: nothing written)" if args.dry_run else "")
    )
    return 0
