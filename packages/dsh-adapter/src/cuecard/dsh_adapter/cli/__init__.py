"""The ``cuecard dsh`` command group, also run as ``python -m cuecard.dsh_adapter``.

Subcommands come from a fixed table (one module each); nothing here scans entry points, so the
per-call paths (``call``, ``recall``) stay cheap.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

__all__ = ["SUBCOMMANDS", "main", "register"]

SUBCOMMANDS: dict[str, str] = {
    "call": "cuecard.dsh_adapter.cli._call",
    "recall": "cuecard.dsh_adapter.cli._recall",
    "install": "cuecard.dsh_adapter.cli._install",
    "deploy": "cuecard.dsh_adapter.cli._deploy",
    "hook": "cuecard.dsh_adapter.cli._hook",
    "serve": "cuecard.dsh_adapter.cli._serve",
}
DESCRIPTION = (
    "The DeepSeek Harness adapter: the Python side of the cuecard-dsh-memory and "
    "cuecard-dsh-discipline plugins, their installer, and the deployer of vault rules into agent "
    "instruction files."
)


def _fill(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="dsh_command", metavar="COMMAND")
    for module in SUBCOMMANDS.values():
        importlib.import_module(module).register(sub)

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
