"""``cuecard uninstall HARNESS``: remove what ``cuecard install`` wrote.

A harness another distribution installs is uninstalled by the entry of the same name in the group
``cuecard.uninstallers``, with the protocol of ``cuecard.installers`` (``register(parser)`` adds
its options and returns ``run(args, foreign) -> int``)."""

from __future__ import annotations

import argparse
from functools import partial
from pathlib import Path

from cuecard.hooks.cli._common import (
    HARNESS_CHOICES,
    KEYS,
    KNOWN_INSTALLERS,
    UNINSTALLER_GROUP,
    Runner,
    add_harness,
    given_flags,
    harness_check,
    installers_of,
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    uninstallers = installers_of(UNINSTALLER_GROUP)
    available = (*HARNESS_CHOICES, *uninstallers)
    missing = sorted(set(KNOWN_INSTALLERS) - set(available))
    parser = sub.add_parser(
        "uninstall",
        description=(
            "Remove what `cuecard install` wrote: cuecard's hooks (other hooks and settings "
            "stay), its plugin file, its skills and its MCP server entry. --json prints keys: "
            f"{KEYS}."
        ),
    )
    add_harness(parser, (*available, *missing), harness_check(available, "uninstall"))
    runners: dict[str, tuple[Runner, list[argparse.Action]]] = {}
    for name, add_uninstaller in uninstallers.items():
        before = len(parser._actions)
        runner = add_uninstaller(parser)
        runners[name] = (runner, parser._actions[before:])
    parser.set_defaults(run=partial(run, runners))


def run(runners: dict[str, tuple[Runner, list[argparse.Action]]], args: argparse.Namespace) -> int:
    from cuecard.core import UsageError
    from cuecard.hooks._install import uninstall
    from cuecard.hooks.cli._common import HARNESS_OPTIONS, print_report, project

    if args.harness in runners:
        foreign = [flag for dest, flag in HARNESS_OPTIONS if getattr(args, dest, None)]
        return runners[args.harness][0](args, foreign)
    for name, (_, actions) in runners.items():
        if given := given_flags(args, actions):
            raise UsageError(f"{', '.join(given)}: only for `cuecard uninstall {name}`")

    report = uninstall(
        args.harness,
        project=project(args),
        user=args.user,
        plugin=Path(args.plugin).resolve() if args.plugin else None,
    )
    print_report(report.as_json(), args.json, "uninstall")
    return 0
