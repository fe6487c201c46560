"""The ``cuecard dsh`` command group, also run as ``python -m cuecard.dsh_adapter``.

Subcommands come from a fixed table (one module each, imported only when chosen); nothing here
scans entry points, so the per-call paths (``call``, ``recall``) stay cheap.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from cuecard.core.cli import Command, add_subcommands

__all__ = ["DESCRIPTION", "SUBCOMMANDS", "main", "register"]

SUBCOMMANDS: dict[str, Command] = {
    c.name: c
    for c in (
        Command(
            "call",
            "run one memory tool (search, show, submit, status) for the DSH plugin",
            "cuecard.dsh_adapter.cli._call",
        ),
        Command(
            "recall",
            "recall vault facts for a user message (the discipline plugin's gate and search)",
            "cuecard.dsh_adapter.cli._recall",
        ),
        Command(
            "install",
            "record this Python for the DSH plugins and add them to a DSH profile",
            "cuecard.dsh_adapter.cli._install",
        ),
        Command(
            "uninstall",
            "remove what `cuecard dsh install` wrote and added to DSH profiles",
            "cuecard.dsh_adapter.cli._uninstall",
        ),
        Command(
            "deploy",
            "write the vault rules into agent instruction files (~/.dsh, ~/.codex, ~/.claude)",
            "cuecard.dsh_adapter.cli._deploy",
        ),
        Command(
            "hook",
            "hand a DSH hook payload to cuecard-hook (PostToolUse also delivers the tool's "
            "memories)",
            "cuecard.dsh_adapter.cli._hook",
        ),
        Command(
            "serve",
            "answer the DSH plugins' requests, one JSON object per line, until end of input",
            "cuecard.dsh_adapter.cli._serve",
        ),
    )
}
DESCRIPTION = (
    "The DeepSeek Harness adapter: the Python side of the cuecard-dsh-memory and "
    "cuecard-dsh-discipline plugins, their installer, and the deployer of vault rules into agent "
    "instruction files."
)


def _fill(parser: argparse.ArgumentParser) -> None:
    add_subcommands(parser, SUBCOMMANDS.values(), dest="dsh_command")

    def usage(_args: argparse.Namespace) -> int:
        parser.print_help(sys.stderr)
        return 2

    parser.set_defaults(run=usage)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Entry point of the ``cuecard.commands`` group: adds ``cuecard dsh``."""
    parser = subparsers.add_parser(
        "dsh",
        help="DeepSeek Harness adapter: tool calls, recall, install, deploy",
        description=DESCRIPTION,
    )
    _fill(parser)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cuecard.dsh_adapter …``: the same subcommands as ``cuecard dsh …``."""
    from cuecard.core.cli import run_command

    parser = argparse.ArgumentParser(prog="python -m cuecard.dsh_adapter", description=DESCRIPTION)
    _fill(parser)
    args = parser.parse_args(None if argv is None else list(argv))
    return run_command(args.run, args)
