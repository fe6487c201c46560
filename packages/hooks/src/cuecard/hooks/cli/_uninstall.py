"""``cuecard uninstall HARNESS``: remove what ``cuecard install`` wrote."""

from __future__ import annotations

import argparse
from pathlib import Path

from cuecard.hooks.cli._common import HARNESS_CHOICES, KEYS, add_harness


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "uninstall",
        description=(
            "Remove what `cuecard install` wrote: cuecard's hooks (other hooks and settings "
            "stay), its plugin file, its skills and its MCP server entry. --json prints keys: "
            f"{KEYS}."
        ),
    )
    add_harness(parser, HARNESS_CHOICES)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.hooks._install import uninstall
    from cuecard.hooks.cli._common import print_report, project

    report = uninstall(
        args.harness,
        project=project(args),
        user=args.user,
        plugin=Path(args.plugin).resolve() if args.plugin else None,
    )
    print_report(report.as_json(), args.json, "uninstall")
    return 0
