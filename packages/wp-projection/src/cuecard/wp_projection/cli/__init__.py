"""``cuecard wp …``: the Data Machine projection commands (entry point ``cuecard.commands``).

Each subcommand lives in its own module with ``register(subparsers)`` and ``run(args)``, imported
only when the subcommand is chosen; heavy imports happen inside ``run``.
"""

from __future__ import annotations

import argparse

from cuecard.core.cli import Command, add_subcommands

__all__ = ["SUBCOMMANDS", "register"]

SUBCOMMANDS: dict[str, Command] = {
    c.name: c
    for c in (
        Command(
            "bridge",
            "write the WordPress bridge plugin with its settings",
            "cuecard.wp_projection.cli._bridge",
        ),
        Command(
            "serve",
            "receive the bridge's signed events and project them",
            "cuecard.wp_projection.cli._serve",
        ),
        Command(
            "sync",
            "pull the current records through Data Machine's REST API and repair the projection",
            "cuecard.wp_projection.cli._sync",
        ),
        Command(
            "wire",
            "include the projected files in Claude Code, OpenCode or Kimaki configuration",
            "cuecard.wp_projection.cli._wire",
        ),
        Command(
            "unwire",
            "remove the projection from a runtime's configuration",
            "cuecard.wp_projection.cli._unwire",
        ),
        Command(
            "status",
            "what is projected, from which site and sequence, what waits, what was preserved",
            "cuecard.wp_projection.cli._status",
        ),
    )
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
    add_subcommands(parser, SUBCOMMANDS.values(), dest="wp_command", metavar="SUBCOMMAND")
