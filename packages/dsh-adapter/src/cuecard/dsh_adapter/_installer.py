"""``cuecard install dsh`` (entry point ``cuecard.installers``): runs ``cuecard dsh install
--hooks`` with the options given, which are this module's, not the hooks distribution's; and
``cuecard uninstall dsh`` (entry point ``cuecard.uninstallers``): runs ``cuecard dsh
uninstall``."""

from __future__ import annotations

import argparse
from collections.abc import Callable

COMMAND = ("dsh", "install", "--hooks")
UNINSTALL = ("dsh", "uninstall")


def register(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace, list[str]], int]:
    """Add the dsh options to ``cuecard install``'s parser; returns the installer."""
    parser.description = (
        f"{parser.description} dsh: runs `cuecard dsh install --hooks` (the cuecard-dsh-adapter "
        "distribution: DSH's Claude Code hook bridge runs cuecard-hook; its own --json keys; its "
        "options through that command)."
    )
    dsh = parser.add_argument_group("dsh only (passed to `cuecard dsh install --hooks`)")
    dsh.add_argument("--profile", help="the DSH profile (default web)")
    dsh.add_argument("--dsh", metavar="PATH", help="the dsh executable (default: dsh on PATH)")
    dsh.add_argument("--dsh-home", metavar="DIR", help="DSH_HOME for the dsh command")
    dsh.add_argument("--no-add", action="store_true", help="write and pack only; print the command")
    return run


def run(args: argparse.Namespace, foreign: list[str]) -> int:
    """``cuecard dsh install --hooks`` with the options given, through the CLI."""
    from cuecard.core import UsageError
    from cuecard.core.cli import main

    if foreign:
        raise UsageError(
            f"{', '.join(foreign)}: not for dsh; give its options to `cuecard "
            f"{' '.join(COMMAND)}` (see its --help)"
        )
    forwarded = ["--json"] if args.json else []
    forwarded += ["--no-add"] if args.no_add else []
    for flag in ("--profile", "--dsh", "--dsh-home"):
        value = getattr(args, flag[2:].replace("-", "_"))
        if value is not None:
            forwarded += [flag, value]
    return main([*COMMAND, *forwarded])


def register_uninstall(
    parser: argparse.ArgumentParser,
) -> Callable[[argparse.Namespace, list[str]], int]:
    """Add the dsh options to ``cuecard uninstall``'s parser; returns the uninstaller."""
    parser.description = (
        f"{parser.description} dsh: runs `cuecard dsh uninstall` (the cuecard-dsh-adapter "
        "distribution: removes the plugins and hook bridge it added to DSH profiles, puts back "
        "the profile files it changed, and removes dsh.json, dsh-hooks.json, the plugin tarballs "
        "and its backups; see that command's --help)."
    )
    dsh = parser.add_argument_group("dsh only (passed to `cuecard dsh uninstall`)")
    dsh.add_argument(
        "--dsh", metavar="PATH", help="the dsh executable (default: the one the install used)"
    )
    return run_uninstall


def run_uninstall(args: argparse.Namespace, foreign: list[str]) -> int:
    """``cuecard dsh uninstall`` with the options given, through the CLI."""
    from cuecard.core import UsageError
    from cuecard.core.cli import main

    if foreign:
        raise UsageError(
            f"{', '.join(foreign)}: not for dsh; see `cuecard {' '.join(UNINSTALL)} --help`"
        )
    forwarded = ["--json"] if args.json else []
    forwarded += ["--dsh", args.dsh] if args.dsh is not None else []
    return main([*UNINSTALL, *forwarded])
