"""The ``cuecard install``, ``cuecard uninstall`` and ``cuecard demo`` commands.

Registered through the ``cuecard.commands`` entry points; heavy imports stay inside ``run``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["register_demo", "register_install", "register_uninstall"]

HARNESS_CHOICES = ("claude", "codex", "opencode", "grok")
_KEYS = "harness, scope, written, unchanged, removed, backups, notes"


# Harnesses another cuecard distribution installs: `cuecard install NAME` runs its command.
DELEGATED = {"dsh": ("dsh", "install", "--hooks")}


def _common(parser: argparse.ArgumentParser, *, delegated: bool = False) -> None:
    choices = (*HARNESS_CHOICES, *DELEGATED) if delegated else HARNESS_CHOICES
    parser.add_argument("harness", choices=choices)
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
        help="make a harness (claude, codex, opencode, grok, dsh) run cuecard's hooks",
        description=(
            "Write the harness's hook configuration and the cuecard-save and cuecard-review "
            "skills, merging with what is there (other hooks are kept; cuecard's own are "
            "replaced), idempotent, with a <file>.cuecard.bak copy of each file it changes. "
            "claude: .claude/settings.json; codex: .codex/hooks.json; opencode: "
            ".opencode/plugins/cuecard.js; grok: .grok/hooks/cuecard.json. A project that did "
            f"not opt in is initialised first. --json prints keys: {_KEYS}. dsh: runs `cuecard "
            "dsh install --hooks` (the cuecard-dsh-adapter distribution: DSH's Claude Code hook "
            "bridge runs cuecard-hook; its own --json keys; its options through that command)."
        ),
    )
    _common(parser, delegated=True)
    dsh = parser.add_argument_group("dsh only (passed to `cuecard dsh install --hooks`)")
    dsh.add_argument("--profile", help="the DSH profile (default web)")
    dsh.add_argument("--dsh", metavar="PATH", help="the dsh executable (default: dsh on PATH)")
    dsh.add_argument("--dsh-home", metavar="DIR", help="DSH_HOME for the dsh command")
    dsh.add_argument("--no-add", action="store_true", help="write and pack only; print the command")
    parser.add_argument(
        "--hook-command",
        metavar="PATH",
        help=(
            "the cuecard-hook executable to run, a path of this machine (claude: written to the "
            "git-ignored .claude/settings.local.json); default: a project runs cuecard-hook "
            "from the PATH (a quiet no-op without cuecard), --user the installed one"
        ),
    )
    parser.add_argument(
        "--no-trust",
        action="store_true",
        help=(
            "codex: leave the hooks untrusted (the default records Codex's trust for them); "
            "grok: leave the project's folder untrusted (the default trusts it, as /hooks-trust "
            "does); either way the exact step is printed"
        ),
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
    from cuecard.core.engine import locate_root

    found = locate_root(None)
    return Path(found) if found else Path.cwd()


def _print(report_json: dict[str, object], as_json: bool, verb: str) -> None:
    from cuecard.core.cli import emit_json

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


def _dsh_options(args: argparse.Namespace) -> list[str]:
    """The dsh-only options given, as `cuecard dsh install` takes them."""
    out = ["--no-add"] if args.no_add else []
    for flag in ("--profile", "--dsh", "--dsh-home"):
        value = getattr(args, flag[2:].replace("-", "_"))
        if value is not None:
            out += [flag, value]
    return out


def _delegate(args: argparse.Namespace) -> int:
    """``cuecard install dsh``: the installing distribution's own command, through the CLI (a
    satellite never imports another)."""
    from importlib.metadata import entry_points

    from cuecard.core import UsageError
    from cuecard.core.cli import ENTRY_POINT_GROUP, main

    command = DELEGATED[args.harness]
    given = [
        "--" + name.replace("_", "-")
        for name in ("user", "project", "plugin", "hook_command", "no_trust")
        if getattr(args, name)
    ]
    if given:
        raise UsageError(
            f"{', '.join(given)}: not for {args.harness}; give its options to `cuecard "
            f"{' '.join(command)}` (see its --help)"
        )
    if command[0] not in {e.name for e in entry_points(group=ENTRY_POINT_GROUP)}:
        raise UsageError(
            f"cuecard install {args.harness} needs the cuecard-{args.harness}-adapter "
            f"distribution (pip install cuecard-{args.harness}-adapter)"
        )
    forwarded = [*(["--json"] if args.json else []), *_dsh_options(args)]
    return main([*command, *forwarded])


def run_install(args: argparse.Namespace) -> int:
    from cuecard.hooks._install import install

    if args.harness in DELEGATED:
        return _delegate(args)
    dsh_only = [item for item in _dsh_options(args) if item.startswith("--")]
    if dsh_only:
        from cuecard.core import UsageError

        raise UsageError(f"{', '.join(dsh_only)}: only for `cuecard install dsh`")

    project = _project(args)
    notes = []
    if args.plugin is None:
        from cuecard.hooks._install import preflight

        preflight(args.harness, project=project, user=args.user)
    if not args.user and args.plugin is None:
        from cuecard.core.engine import locate_root

        if locate_root(str(project)) is None:
            from cuecard.core import Store

            Store.init(project)
            notes.append(f"initialised cuecard in {project}")
    report = install(
        args.harness,
        project=project,
        user=args.user,
        hook_path=args.hook_command,
        plugin=Path(args.plugin).resolve() if args.plugin else None,
        trust=not args.no_trust,
    )
    report.notes[:0] = notes
    if not args.user and args.plugin is None:
        from cuecard.core.engine import clear_failures

        clear_failures(str(project))  # the hook commands are new: old failures are moot
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
