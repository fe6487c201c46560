"""``cuecard dsh deploy detect|preview|apply|rollback|selfcheck``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["register", "run"]

VERBS = {
    "detect": "list the allowlisted agent instruction files that exist",
    "preview": "show what apply would change (a diff); writes nothing",
    "apply": "write the managed block of vault rules (backup, lock, atomic replace, verify)",
    "rollback": "restore each target from its newest backup",
    "selfcheck": "check each target holds exactly one current managed block",
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "deploy",
        description=(
            "Keeps a managed block of vault rules in the allowlisted agent instruction files "
            "~/.dsh/AGENTS.md, ~/.codex/AGENTS.md and ~/.claude/CLAUDE.md, between "
            "<!-- cuecard:begin --> and <!-- cuecard:end -->. Never creates a file and never "
            "touches any other file. Without --target, every allowlisted file that exists."
        ),
        epilog=(
            "--json prints keys: verb, home, targets (each agent, path, changed, written, backup, "
            "problem, diff). Exit status 0 ok, 1 a check or rollback failed or a file refused, "
            "2 a target outside the allowlist."
        ),
    )
    parser.add_argument(
        "verb", choices=tuple(VERBS), help="; ".join(f"{k}: {v}" for k, v in VERBS.items())
    )
    parser.add_argument(
        "--home", metavar="DIR", help="the home folder holding the targets (default: ~)"
    )
    parser.add_argument(
        "--target",
        action="append",
        default=[],
        metavar="AGENT|PATH",
        help="dsh, codex, claude, or the path of one of their files (repeatable)",
    )
    parser.add_argument(
        "--vault",
        metavar="PATH",
        help="the vault the rules name (default: as `cuecard vault` finds it)",
    )
    parser.add_argument(
        "--agent", metavar="NAME", help="the --agent name the rules tell agents to submit as"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import contextlib
    from dataclasses import asdict

    from cuecard.core import UsageError
    from cuecard.dsh_adapter._deployer import Deployer
    from cuecard.dsh_adapter._errors import VaultNotConfigured
    from cuecard.dsh_adapter._vault import vault_location

    if args.agent is not None and not args.agent.replace("-", "").isalnum():
        raise UsageError(f"--agent {args.agent!r} must be letters, digits and '-'")
    vault = args.vault
    if vault is None:
        with contextlib.suppress(VaultNotConfigured):
            vault = vault_location(None)
    home = Path(args.home).expanduser() if args.home else Path.home()
    if not home.is_dir():
        raise UsageError(f"--home {home} is not a folder")
    deployer = Deployer(home.absolute(), vault=vault, agent=args.agent)
    verb = args.verb
    outcomes: list[dict[str, object]]
    if verb == "detect":
        outcomes = [{"agent": t.agent, "path": str(t.path)} for t in deployer.detect()]
    else:
        outcomes = [asdict(o) for o in getattr(deployer, verb)(deployer.resolve(args.target))]
    failed = any(o.get("problem") for o in outcomes) and verb in ("rollback", "selfcheck")
    if args.json:
        from cuecard.core.cli import emit_json

        emit_json({"verb": verb, "home": str(home), "targets": outcomes})
    else:
        _print(verb, outcomes)
    return 1 if failed else 0


def _print(verb: str, outcomes: list[dict[str, object]]) -> None:
    if not outcomes:
        print(f"{verb}: no allowlisted agent instruction file found", file=sys.stderr)
    for o in outcomes:
        if verb == "detect":
            print(f"{o['agent']}\t{o['path']}")
        elif verb == "preview":
            print(o["diff"] or f"{o['path']}: up to date", end="" if o["diff"] else "\n")
        elif o.get("problem"):
            print(f"{o['path']}: {o['problem']}")
        elif verb == "selfcheck":
            print(f"{o['path']}: ok")
        else:
            what = "written" if o["written"] else "unchanged"
            backup = f" (backup {o['backup']})" if o.get("backup") and o["written"] else ""
            print(f"{o['path']}: {what}{backup}")
