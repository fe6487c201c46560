"""``cuecard vault init``: create a vault."""

from __future__ import annotations

import argparse

from cuecard.core.cli._vault import add_common

LAYOUT_NAMES = ("default", "unified-agent-memory")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "init",
        help="create a vault (default English layout or unified-agent-memory)",
        description=(
            "Create a vault: canonical notes, inbox/ (with processed/), review/, forgotten/ and "
            "sessions/ (or the unified-agent-memory folders under 50-Agent-Context/). An "
            "existing vault is never overwritten without --force, and --force first copies it "
            "to a sibling <name>-backup-<YYYYmmdd-HHMMSS> folder. --json prints keys: vault, "
            "layout, backup."
        ),
    )
    parser.add_argument("--layout", choices=LAYOUT_NAMES, default="default", help="the profile")
    parser.add_argument("--force", action="store_true", help="back up, then re-create the notes")
    add_common(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cuecard.core.vault._init import init_vault
    from cuecard.core.vault._layout import LAYOUTS
    from cuecard.core.vault._location import resolve_vault_path

    root = Path(resolve_vault_path(args.vault))
    vault, backup = init_vault(root, LAYOUTS[args.layout], force=args.force)
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json(
            {
                "vault": str(vault.root),
                "layout": vault.layout.name,
                "backup": None if backup is None else str(backup),
            }
        )
        return 0
    if backup is not None:
        print(f"backed up the old vault to {backup}")
    print(f"vault ({vault.layout.name} layout) ready at {vault.root}")
    return 0
