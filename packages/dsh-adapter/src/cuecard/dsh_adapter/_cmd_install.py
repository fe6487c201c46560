"""``cuecard dsh install``: record the interpreter and place the plugins in a DSH profile."""

from __future__ import annotations

import argparse
import sys

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "install",
        help="record this Python for the DSH plugins and add them to a DSH profile",
        description=(
            "Records this interpreter as the plugins' `default` python (in "
            "$XDG_CONFIG_HOME/cuecard/dsh.json), packs the plugins as npm tarballs and adds them "
            "to a DSH profile with `dsh plugin --profile PROFILE add`. With --no-add it only "
            "records and packs, and prints the command to run."
        ),
        epilog="--json prints keys: python, record, tarballs, profile, added, command.",
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
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import os
    import shutil
    import subprocess
    from pathlib import Path

    from cuecard.dsh_adapter._errors import DshAdapterError
    from cuecard.dsh_adapter._install import record_interpreter
    from cuecard.dsh_adapter._paths import config_dir
    from cuecard.dsh_adapter._plugins import PLUGINS, pack

    record = record_interpreter(Path(sys.executable))
    out = Path(args.out) if args.out else config_dir() / "dsh-plugins"
    tarballs = [pack(PLUGINS[p], out).absolute() for p in (args.plugin or list(PLUGINS))]
    dsh = args.dsh or shutil.which("dsh")
    command = [dsh or "dsh", "plugin", "--profile", args.profile, "add", *map(str, tarballs)]
    added = False
    if not args.no_add:
        if dsh is None:
            raise DshAdapterError(
                "dsh is not on PATH: pass --dsh PATH, or run `" + " ".join(command) + "` yourself"
            )
        env = dict(os.environ)
        if args.dsh_home:
            env["DSH_HOME"] = str(Path(args.dsh_home).absolute())
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
            raise DshAdapterError(f"`dsh plugin add` failed (exit {done.returncode}): {tail}")
        added = True
    report = {
        "python": sys.executable,
        "record": str(record),
        "tarballs": [str(t) for t in tarballs],
        "profile": args.profile,
        "added": added,
        "command": command,
    }
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json(report)
    else:
        print(f"recorded {sys.executable} as the plugins' default python ({record})")
        print("added to DSH profile " + args.profile if added else "to add: " + " ".join(command))
    return 0
