"""``cuecard wp …``: the Data Machine projection commands (entry point ``cuecard.commands``).

Each subcommand lives in its own module with ``register(subparsers)`` and ``run(args)``; heavy
imports happen inside ``run``.
"""

from __future__ import annotations

import argparse
import importlib

__all__ = ["SUBCOMMANDS", "register"]

SUBCOMMANDS: dict[str, str] = {
    "bridge": "cuecard.wp_projection.cli._bridge",
    "serve": "cuecard.wp_projection.cli._serve",
    "sync": "cuecard.wp_projection.cli._sync",
    "wire": "cuecard.wp_projection.cli._wire",
    "unwire": "cuecard.wp_projection.cli._unwire",
    "status": "cuecard.wp_projection.cli._status",
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "wp",
        allow_abbrev=False,
        help="project WordPress Data Machine agent memory to local files",
        description=(
            "One-way projection of Data Machine agent memory: a signed WordPress bridge, a "
            "loopback receiver, REST reconcile, safe writes under one managed folder, and "
            "runtime wiring. Secrets come from files or environment variables, never from "
            "the command line."
        ),
    )
    sub = parser.add_subparsers(dest="wp_command", metavar="SUBCOMMAND")
    for module in SUBCOMMANDS.values():
        importlib.import_module(module).register(sub)
