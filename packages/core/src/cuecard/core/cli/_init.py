"""``cuecard init``: opt a project in."""

from __future__ import annotations

import argparse
from pathlib import Path

from cuecard.core.cli._output import emit_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "init",
        help="opt this project in: write .cuecard/ (config, .gitignore, memories/, inbox/)",
        description=(
            "Opt the project in by writing .cuecard/config.json (with a project id), "
            ".cuecard/.gitignore (ignores the derived local/ folder), .cuecard/memories/ and "
            ".cuecard/inbox/. Existing files are kept. "
            "--json prints keys: root, created, project_id."
        ),
    )
    parser.add_argument("path", nargs="?", default=".", help="project root (default: here)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core._store import Store

    root = Path(args.path)
    if not root.is_dir():
        from cuecard.core._errors import UsageError

        raise UsageError(f"{root}: not a folder")
    store, created = Store.init(root)
    config = store.config()
    if args.json:
        emit_json({"root": str(store.root), "created": created, "project_id": config.project_id})
    else:
        state = "initialised" if created else "already initialised"
        print(f"cuecard {state} in {store.dir} (project {config.project_id})")
    return 0
