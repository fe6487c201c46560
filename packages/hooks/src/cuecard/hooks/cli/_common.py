"""What ``cuecard install`` and ``cuecard uninstall`` share: the harness options, the project,
the report."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cuecard.core import pip_command

__all__ = [
    "HARNESS_CHOICES",
    "HARNESS_OPTIONS",
    "INSTALLER_GROUP",
    "KEYS",
    "KNOWN_INSTALLERS",
    "UNINSTALLER_GROUP",
    "Runner",
    "add_harness",
    "given_flags",
    "harness_check",
    "installers_of",
    "print_report",
    "project",
]

HARNESS_CHOICES = ("claude", "codex", "opencode", "grok")
KEYS = "harness, scope, written, unchanged, removed, backups, notes"

# The options of cuecard's own harnesses (dest, flag): another distribution's installer takes
# its own instead.
HARNESS_OPTIONS = (
    ("user", "--user"),
    ("project", "--project"),
    ("plugin", "--plugin"),
    ("hook_command", "--hook-command"),
    ("no_trust", "--no-trust"),
    ("trust_folder", "--trust-folder"),
    ("no_mcp", "--no-mcp"),
)


def add_harness(
    parser: argparse.ArgumentParser,
    choices: Sequence[str],
    check: Callable[[str], str] | None = None,
) -> None:
    """The harness and the options both commands take; ``check`` (argparse's ``type``) may refuse
    a harness with its own message before the choices are checked."""
    parser.add_argument("harness", choices=choices, type=check or str)
    parser.add_argument(
        "--user", action="store_true", help="use the configuration in your home, not the project's"
    )
    parser.add_argument(
        "--project", metavar="DIR", help="the project (default: the opted-in folder around here)"
    )
    parser.add_argument(
        "--plugin",
        metavar="DIR",
        help="claude only: write a Claude Code plugin folder instead of settings",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def project(args: argparse.Namespace) -> Path:
    if args.project:
        return Path(args.project).resolve()
    from cuecard.core.engine import locate_root

    found = locate_root(None)
    return Path(found) if found else Path.cwd()


def print_report(report_json: dict[str, object], as_json: bool, verb: str) -> None:
    from cuecard.core.cli import emit_json

    if as_json:
        emit_json(report_json)
        return
    for key, label in (("written", "wrote"), ("removed", "removed"), ("unchanged", "unchanged")):
        for path in report_json[key]:  # type: ignore[attr-defined]
            print(f"{label}: {path}", file=sys.stderr)
    for path in report_json["backups"]:  # type: ignore[attr-defined]
        print(f"backup: {path}", file=sys.stderr)
    for note in report_json["notes"]:  # type: ignore[attr-defined]
        print(f"note: {note}", file=sys.stderr)
    print(
        f"cuecard {verb} for {report_json['harness']} ({report_json['scope']}): done",
        file=sys.stderr,
    )


# The entry-point groups through which other distributions install a harness (see
# ``cuecard.hooks.cli._install``) and uninstall it, with the same ``register(parser)`` protocol.
INSTALLER_GROUP = "cuecard.installers"
UNINSTALLER_GROUP = "cuecard.uninstallers"

# The harnesses other cuecard distributions install, and the distribution that does: without it
# `cuecard install NAME` says what to install instead of calling NAME an invalid choice.
KNOWN_INSTALLERS = {"dsh": "cuecard-dsh-adapter"}

Runner = Callable[[argparse.Namespace, list[str]], int]


def installers_of(group: str) -> dict[str, Callable[[argparse.ArgumentParser], Runner]]:
    """The other distributions' installers (or uninstallers: ``group``), by harness name (a
    broken one is left out)."""
    from importlib.metadata import entry_points

    found: dict[str, Any] = {}
    for entry in sorted(entry_points(group=group), key=lambda e: e.name):
        if entry.name in HARNESS_CHOICES:
            continue
        try:
            found[entry.name] = entry.load()
        except Exception as exc:  # a broken installer must not take the others down
            print(
                f"cuecard: warning: installer {entry.name!r} failed to load: {exc}", file=sys.stderr
            )
    return found


def harness_check(available: Sequence[str], verb: str = "install") -> Callable[[str], str]:
    """argparse's ``type`` for the harness: a known harness whose distribution is missing is a
    usage error naming that distribution."""

    def check(name: str) -> str:
        wanted = KNOWN_INSTALLERS.get(name)
        if wanted is not None and name not in available:
            raise argparse.ArgumentTypeError(
                f"`cuecard {verb} {name}` needs the {wanted} distribution, which is not "
                f"installed: {pip_command(wanted)} (harnesses installable here: "
                f"{', '.join(available)})"
            )
        return name

    return check


def given_flags(args: argparse.Namespace, actions: list[argparse.Action]) -> list[str]:
    """The flags of ``actions`` given on the command line (a value other than the default)."""
    return [
        max(a.option_strings, key=len)
        for a in actions
        if a.option_strings and getattr(args, a.dest, a.default) != a.default
    ]
