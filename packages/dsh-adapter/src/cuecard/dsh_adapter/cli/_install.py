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

    from cuecard.dsh_adapter import _record
    from cuecard.dsh_adapter._errors import DshAdapterError
    from cuecard.dsh_adapter._hookbridge import (
        BRIDGE_PACKAGES,
        hooks_config,
        patch_rows,
        put_patch_rows,
    )
    from cuecard.dsh_adapter._host import run_dsh
    from cuecard.dsh_adapter._install import record_interpreter
    from cuecard.dsh_adapter._journal import missing_folders, undone_on_failure
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
    kept = _record.load() or {"files": [], "made": [], "profiles": []}
    made = list(
        dict.fromkeys(str(d) for d in (*missing_folders(config_dir()), *missing_folders(out)))
    )
    entry = _record.entry(kept, dsh_home, args.profile, dsh)
    pdir = dsh_home / "profiles" / args.profile
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
            wanted = [PLUGINS[p] for p in plugins]
            wanted += [s.rsplit("@", 1)[0] for s in (BRIDGE_PACKAGES if args.hooks else ())]
            new = _record.snapshot_profile(entry, pdir, wanted, journal)
            run_dsh(command, args.dsh_home)
            added = True
            if new:
                remove = [dsh or "dsh", "plugin", "--profile", args.profile, "remove", *new]
                journal.on_undo(lambda: run_dsh(remove, args.dsh_home))
        if hooks_file is not None and pdir.is_dir():
            patch_file = pdir / "cordis.patch.yml"
            old = patch_file.read_text(encoding="utf-8") if patch_file.is_file() else ""
            text = put_patch_rows(old, patch_rows(hooks_file))
            _record.snapshot_patch(entry, patch_file, text, journal)
            journal.write(patch_file, text)
        files = [record, *tarballs, *([hooks_file] if hooks_file else [])]
        _record.save(kept, entry, [str(f) for f in files], made, journal)
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
