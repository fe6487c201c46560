"""``cuecard init``: opt a project in."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cuecard.core.cli._output import emit_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "init",
        description=(
            "Opt the project in by writing .cuecard/config.json (with a project id), "
            ".cuecard/.gitignore (ignores the derived local/ folder), .cuecard/memories/ and "
            ".cuecard/inbox/. Existing files are kept, and the hooks' index is compiled from the "
            "memories the project holds (a fresh clone's). A folder inside a project that opted in "
            "is refused (commands there already use the outer project) unless --force. A "
            "DeltaDictum store in .dd/ is converted as `cuecard migrate` does. "
            "--json prints keys: root, created, project_id, migrated (memories converted from "
            ".dd/, or null when there is no DeltaDictum store)."
        ),
    )
    parser.add_argument("path", nargs="?", default=".", help="project root (default: here)")
    parser.add_argument(
        "--force",
        action="store_true",
        help="opt in a folder inside another cuecard project (a nested project of its own)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.base._errors import UsageError
    from cuecard.core.engine._paths import find_root, opted_in
    from cuecard.core.store._store import Store

    root = Path(args.path)
    if not root.is_dir():
        raise UsageError(f"{root}: not a folder")
    root = root.resolve()
    outer = find_root(root.parent) if root.parent != root else None
    if outer is not None and not opted_in(str(root)) and not args.force:
        raise UsageError(
            f"{root} lies inside the cuecard project at {outer}: commands here already use "
            f"its memories. Run cuecard there, or `cuecard init --force {args.path}` to make a "
            "separate project nested in it"
        )
    store, created = Store.init(root)
    migrated = _migrate_deltadictum(root)
    from cuecard.core.cli._compile import compile_after_change

    compile_after_change(store)
    config = store.config()
    if args.json:
        emit_json(
            {
                "root": str(store.root),
                "created": created,
                "project_id": config.project_id,
                "migrated": migrated,
            }
        )
        return 0
    state = "initialised" if created else "already initialised"
    print(f"cuecard {state} in {store.dir} (project {config.project_id})", file=sys.stderr)
    if migrated is not None:
        print(
            f"converted {migrated} memories from the DeltaDictum store in .dd/ (as `cuecard "
            "migrate` does); each waits for a person to supply not_derivable in the review UI, "
            "`cuecard ui` (from the cuecard-ui distribution)",
            file=sys.stderr,
        )
    return 0


def _migrate_deltadictum(root: Path) -> int | None:
    """Convert a DeltaDictum store in ``root/.dd`` (one call, idempotent); ``None`` when none."""
    dd = root / ".dd"
    if not ((dd / "atoms").is_dir() or (dd / "candidates").is_dir()):
        return None
    from cuecard.core.lifecycle._migrate import migrate

    return len(migrate(root, root).converted)
