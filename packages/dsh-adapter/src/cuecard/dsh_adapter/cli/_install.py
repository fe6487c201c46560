"""``cuecard dsh install``: record the interpreter and place the plugins in a DSH profile."""

from __future__ import annotations

import argparse
import sys
from functools import partial

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "install",
        description=(
            "Records this interpreter as the plugins' `default` python (in "
            "$XDG_CONFIG_HOME/cuecard/dsh.json), packs the plugins as npm tarballs and adds them "
            "to a DSH profile with `dsh plugin --profile PROFILE add`. With --no-add it only "
            "records and packs, and prints the command to run."
        ),
        epilog="--json prints keys: python, record, tarballs, profile, added, command, hooks, "
        "patch.",
    )
    parser.add_argument(
        "--plugin",
        action="append",
        choices=("memory", "discipline"),
        default=[],
        help="which plugin (repeatable; default both)",
    )
    parser.add_argument("--profile", default="web", help="the DSH profile (default web)")
    parser.add_argument("--dsh", metavar="PATH", help="the dsh executable (default: dsh on PATH)")
    parser.add_argument(
        "--dsh-home", metavar="DIR", help="DSH_HOME for the dsh command (default: its own)"
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        help="where to write the tarballs (default: the cuecard config folder)",
    )
    parser.add_argument("--no-add", action="store_true", help="record and pack only")
    parser.add_argument(
        "--hooks",
        action="store_true",
        help=(
            "also deliver project memories through DSH's Claude Code hook bridge: adds "
            "@deepseek-ai/dsh-hooks-claude-code, writes a hooks.json running cuecard-hook and "
            "mounts it in the profile's cordis.patch.yml"
        ),
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import json
    import os
    import shutil
    from pathlib import Path

    from cuecard.dsh_adapter._errors import DshAdapterError
    from cuecard.dsh_adapter._hookbridge import (
        BRIDGE_PACKAGES,
        hooks_config,
        patch_rows,
        put_patch_rows,
    )
    from cuecard.dsh_adapter._install import record_interpreter
    from cuecard.dsh_adapter._journal import undone_on_failure
    from cuecard.dsh_adapter._paths import config_dir
    from cuecard.dsh_adapter._plugins import PLUGINS, pack

    plugins = args.plugin or list(PLUGINS)
    out = Path(args.out) if args.out else config_dir() / "dsh-plugins"
    dsh = args.dsh or shutil.which("dsh")
    dsh_home = Path(args.dsh_home or os.environ.get("DSH_HOME") or Path.home() / ".dsh").absolute()
    # what can refuse is checked before anything is written; a later failure undoes the writes
    if args.hooks:
        from cuecard.dsh_adapter._hookevent import load_responder

        if load_responder() is None:
            raise DshAdapterError(
                f"--hooks needs cuecard-hooks installed beside {sys.executable}: "
                "`pip install cuecard-hooks` into that environment"
            )
    if not args.no_add and dsh is None:
        raise DshAdapterError(
            "dsh is not on PATH: pass --dsh PATH, or --no-add to write and pack only and run the "
            "`dsh plugin add` command it prints yourself; nothing was written"
        )
    hooks_file = patch_file = None
    added = False
    with undone_on_failure() as journal:
        record = record_interpreter(Path(sys.executable), journal=journal)
        tarballs = [pack(PLUGINS[p], out, journal=journal).absolute() for p in plugins]
        specs = [*map(str, tarballs), *(BRIDGE_PACKAGES if args.hooks else ())]
        command = [dsh or "dsh", "plugin", "--profile", args.profile, "add", *specs]
        if args.hooks:
            hooks_file = config_dir() / "dsh-hooks.json"
            # the discipline plugin gives a prompt's memories itself; without it, the bridge does
            config = hooks_config(Path(sys.executable), prompt="discipline" not in plugins)
            journal.write(hooks_file, json.dumps(config, indent=2) + "\n")
        if not args.no_add:
            _host(command, args.dsh_home)
            added = True
        if hooks_file is not None and (dsh_home / "profiles" / args.profile).is_dir():
            patch_file = dsh_home / "profiles" / args.profile / "cordis.patch.yml"
            old = patch_file.read_text(encoding="utf-8") if patch_file.is_file() else ""
            journal.write(patch_file, put_patch_rows(old, patch_rows(hooks_file)))
    report = {
        "python": sys.executable,
        "record": str(record),
        "tarballs": [str(t) for t in tarballs],
        "profile": args.profile,
        "added": added,
        "command": command,
        "hooks": None if hooks_file is None else str(hooks_file),
        "patch": None if patch_file is None else str(patch_file),
    }
    if args.json:
        from cuecard.core.cli import emit_json

        emit_json(report)
    else:
        say = partial(print, file=sys.stderr)  # messages, as every command's (README)
        say(f"recorded {sys.executable} as the plugins' default python ({record})")
        say("added to DSH profile " + args.profile if added else "to add: " + " ".join(command))
        if patch_file is not None:
            say(f"mounted the Claude Code hook bridge on {hooks_file} in {patch_file}")
    return 0


def _host(command: list[str], dsh_home: str | None) -> None:
    """Run ``dsh plugin …`` (with ``DSH_HOME`` from ``--dsh-home``); a failure raises."""
    import os
    import subprocess
    from pathlib import Path

    from cuecard.dsh_adapter._errors import DshAdapterError

    env = dict(os.environ)
    if dsh_home:
        env["DSH_HOME"] = str(Path(dsh_home).absolute())
    verb = " ".join(command[1:2] + command[4:5])
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise DshAdapterError(f"`dsh {verb}` could not be run: {exc}") from exc
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        raise DshAdapterError(f"`dsh {verb}` failed (exit {done.returncode}): {tail}")
