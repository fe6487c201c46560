"""``cuecard install HARNESS``: make a harness run cuecard's hooks.

cuecard's own harnesses are installed here; a harness another distribution installs comes from
the entry-point group ``cuecard.installers``: the entry's name is the harness, its value a
callable ``register(parser)`` that adds the installer's own options to this command's parser
(an argument group) and returns ``run(args, foreign) -> int``, where ``foreign`` lists the flags
of cuecard's own harnesses that were given (``--user``, ...), for the installer to refuse.
"""

from __future__ import annotations

import argparse
from functools import partial
from pathlib import Path

from cuecard.hooks.cli._common import (
    HARNESS_CHOICES,
    INSTALLER_GROUP,
    KEYS,
    KNOWN_INSTALLERS,
    Runner,
    add_harness,
    given_flags,
    harness_check,
    installers_of,
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    installers = installers_of(INSTALLER_GROUP)
    available = (*HARNESS_CHOICES, *installers)
    missing = sorted(set(KNOWN_INSTALLERS) - set(available))
    parser = sub.add_parser(
        "install",
        description=(
            "Write the harness's hook configuration and the cuecard-save and cuecard-review "
            "skills, merging with what is there (other hooks are kept; cuecard's own are "
            "replaced), idempotent, with a copy of each file it changes (in a git work tree under "
            ".git/cuecard/backups/, else <file>.cuecard.bak). "
            "claude: .claude/settings.json; codex: .codex/hooks.json; opencode: "
            ".opencode/plugins/cuecard.js; grok: .grok/hooks/cuecard.json. It also registers "
            "`cuecard mcp` (the memory tools) as the harness's MCP server cuecard, unless "
            "--no-mcp. A project that did "
            f"not opt in is initialised first. --json prints keys: {KEYS}."
        ),
    )
    add_harness(parser, (*available, *missing), harness_check(available))
    runners: dict[str, tuple[Runner, list[argparse.Action]]] = {}
    for name, add_installer in installers.items():
        before = len(parser._actions)
        runner = add_installer(parser)
        runners[name] = (runner, parser._actions[before:])
    parser.add_argument(
        "--hook-command",
        metavar="PATH",
        help=(
            "the cuecard-hook executable to run, a path of this machine (claude: written to the "
            "git-ignored .claude/settings.local.json; codex, opencode, grok: only with --user, "
            "as a project's file is committed); default: a project runs cuecard-hook "
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
    parser.add_argument(
        "--trust-folder",
        action="store_true",
        help=(
            "grok: trust the project's folder even when it holds other hooks, MCP or LSP "
            "servers for Grok Build (the install lists them; trust runs them too)"
        ),
    )
    parser.add_argument(
        "--no-mcp",
        action="store_true",
        help=(
            "leave out the MCP server (the default registers `cuecard mcp`, the vault's memory "
            "tools, in the harness's MCP configuration: .mcp.json, .codex/config.toml, "
            "opencode.json, .grok/config.toml)"
        ),
    )
    parser.set_defaults(run=partial(run, runners))


def run(runners: dict[str, tuple[Runner, list[argparse.Action]]], args: argparse.Namespace) -> int:
    from cuecard.core import UsageError
    from cuecard.hooks._install import install
    from cuecard.hooks.cli._common import HARNESS_OPTIONS, print_report, project

    if args.harness in runners:
        foreign = [flag for dest, flag in HARNESS_OPTIONS if getattr(args, dest)]
        return runners[args.harness][0](args, foreign)
    for name, (_, actions) in runners.items():
        if given := given_flags(args, actions):
            raise UsageError(f"{', '.join(given)}: only for `cuecard install {name}`")

    if args.trust_folder and (args.harness != "grok" or args.no_trust or args.user):
        raise UsageError(
            "--trust-folder: only for a project's `cuecard install grok`, without --no-trust"
        )
    root = project(args)
    notes = []
    if args.plugin is None:
        from cuecard.hooks._install import preflight

        preflight(args.harness, project=root, user=args.user, mcp=not args.no_mcp)
    if not args.user and args.plugin is None:
        from cuecard.core.engine import locate_root

        if locate_root(str(root)) is None:
            from cuecard.core import Store

            Store.init(root)
            notes.append(f"initialised cuecard in {root}")
    report = install(
        args.harness,
        project=root,
        user=args.user,
        hook_path=args.hook_command,
        plugin=Path(args.plugin).resolve() if args.plugin else None,
        trust=not args.no_trust,
        trust_folder=args.trust_folder,
        mcp=not args.no_mcp,
    )
    report.notes[:0] = notes
    if not args.user and args.plugin is None:
        from cuecard.core.engine import clear_failures

        clear_failures(str(root))  # the hook commands are new: old failures are moot
    print_report(report.as_json(), args.json, "install")
    return 0
