"""What ``cuecard install`` and ``cuecard uninstall`` share: the harness options, the project,
the report."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["HARNESS_CHOICES", "HARNESS_OPTIONS", "KEYS", "add_harness", "print_report", "project"]

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
