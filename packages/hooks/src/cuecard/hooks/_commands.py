"""The ``cuecard install``, ``cuecard uninstall`` and ``cuecard demo`` commands.

Registered through the ``cuecard.commands`` entry points; heavy imports stay inside ``run``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["register_demo", "register_install", "register_uninstall"]

HARNESS_CHOICES = ("claude", "codex", "opencode", "grok")
_KEYS = "harness, scope, written, unchanged, removed, backups, notes"


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("harness", choices=HARNESS_CHOICES)
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


def register_install(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "install",
        help="make a harness (claude, codex, opencode, grok) run cuecard's hooks",
        description=(
            "Write the harness's hook configuration and the cuecard-save and cuecard-review "
            "skills, merging with what is there (other hooks are kept; cuecard's own are "
            "replaced), idempotent, with a <file>.cuecard.bak copy of each file it changes. "
            "claude: .claude/settings.json; codex: .codex/hooks.json; opencode: "
            ".opencode/plugins/cuecard.js; grok: .grok/hooks/cuecard.json. A project that did "
            f"not opt in is initialised first. --json prints keys: {_KEYS}."
        ),
    )
    _common(parser)
    parser.add_argument(
        "--hook-command",
        metavar="PATH",
        help="the cuecard-hook executable to run (default: the one installed with cuecard)",
    )
    parser.set_defaults(run=run_install)


def register_uninstall(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "uninstall",
        help="remove cuecard's hooks and skills from a harness",
        description=(
            "Remove what `cuecard install` wrote: cuecard's hooks (other hooks and settings "
            f"stay), its plugin file and its skills. --json prints keys: {_KEYS}."
        ),
    )
    _common(parser)
    parser.set_defaults(run=run_uninstall)


def register_demo(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "demo",
        help="watch cuecard deliver memories in a replayed Claude Code session",
        description=(
            "Create a throwaway git repository with a few memories, replay a recorded Claude "
            "Code session through the real cuecard-hook command, and print each event and what "
            "the agent received. Nothing outside the temporary folder is touched. --json prints "
            "keys: repository, steps (each: event, description, received), delivered."
        ),
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary repository")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run_demo)


def _project(args: argparse.Namespace) -> Path:
    if args.project:
        return Path(args.project).resolve()
    from cuecard.core._paths import locate_root

    found = locate_root(None)
    return Path(found) if found else Path.cwd()


def _print(report_json: dict[str, object], as_json: bool, verb: str) -> None:
    from cuecard.core.cli._output import emit_json

    if as_json:
        emit_json(report_json)
        return
    for key, label in (("written", "wrote"), ("removed", "removed"), ("unchanged", "unchanged")):
        for path in report_json[key]:  # type: ignore[attr-defined]
            print(f"{label}: {path}")
    for path in report_json["backups"]:  # type: ignore[attr-defined]
        print(f"backup: {path}")
    for note in report_json["notes"]:  # type: ignore[attr-defined]
        print(f"note: {note}")
    print(f"cuecard {verb} for {report_json['harness']} ({report_json['scope']}): done")


def run_install(args: argparse.Namespace) -> int:
    from cuecard.hooks._install import install

    project = _project(args)
    notes = []
    if not args.user and args.plugin is None:
        from cuecard.core._paths import locate_root

        if locate_root(str(project)) is None:
            from cuecard.core._store import Store

            Store.init(project)
            notes.append(f"initialised cuecard in {project}")
    report = install(
        args.harness,
        project=project,
        user=args.user,
        hook_path=args.hook_command,
        plugin=Path(args.plugin).resolve() if args.plugin else None,
    )
    report.notes[:0] = notes
    _print(report.as_json(), args.json, "install")
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    from cuecard.hooks._install import uninstall

    report = uninstall(
        args.harness,
        project=_project(args),
        user=args.user,
        plugin=Path(args.plugin).resolve() if args.plugin else None,
    )
    _print(report.as_json(), args.json, "uninstall")
    return 0


def run_demo(args: argparse.Namespace) -> int:
    from cuecard.hooks._demo import run_demo as demo

    return demo(keep=args.keep, as_json=args.json)
