"""``cuecard dsh uninstall``: remove what ``cuecard dsh install`` wrote and registered."""

from __future__ import annotations

import argparse

__all__ = ["register", "run"]

KEYS = "harness, scope, written, unchanged, removed, backups, notes"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "uninstall",
        description=(
            "Removes what `cuecard dsh install` (and `cuecard install dsh`) did, as its record "
            "($XDG_CONFIG_HOME/cuecard/dsh-install.json) tells: the packages it added to each DSH "
            "profile (with `dsh plugin --profile PROFILE remove`), cuecard's rows in the "
            "profile's cordis.patch.yml (the file put back as it was when nothing else changed "
            "it), the profile's package.json put back likewise, the pnpm-lock.yaml and "
            "node_modules the install made when nothing else is left in the profile, and "
            "cuecard's own files: dsh.json, dsh-hooks.json, the plugin tarballs, the copies kept "
            "in dsh-backups/ and the record. If `dsh plugin remove` fails, nothing is removed. "
            "A profile the host made during the install stays (DSH made it, as its first run "
            "would)."
        ),
        epilog=f"--json prints keys: {KEYS} (as `cuecard uninstall` for the other harnesses).",
    )
    parser.add_argument(
        "--dsh",
        metavar="PATH",
        help="the dsh executable (default: the one the install used, else dsh on PATH)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import sys

    from cuecard.dsh_adapter._host import run_dsh
    from cuecard.dsh_adapter._uninstall import uninstall

    done = uninstall(run_dsh, args.dsh)
    report = {
        "harness": "dsh",
        "scope": "user",
        "written": done.written,
        "unchanged": [],
        "removed": done.removed,
        "backups": [],
        "notes": done.notes,
    }
    if args.json:
        from cuecard.core.cli import emit_json

        emit_json(report)
        return 0
    for path in done.written:
        print(f"restored: {path}", file=sys.stderr)
    for path in done.removed:
        print(f"removed: {path}", file=sys.stderr)
    for note in done.notes:
        print(f"note: {note}", file=sys.stderr)
    print("cuecard uninstall for dsh (user): done", file=sys.stderr)
    return 0
