"""``cuecard vault submit``: write facts to the vault inbox."""

from __future__ import annotations

import argparse
import sys

from cuecard.core.cli.vault import add_common


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "submit",
        description=(
            "Write the facts (from the arguments, else stdin; one per line) to one new inbox "
            "file <agent>-<YYYYMMDD>-<HHMMSS>-<nn>.md, created exclusively (a taken name moves "
            "to the next number). A credential-shaped or unsafe line refuses the whole "
            "submission and nothing is written. --json prints keys: file, facts."
        ),
    )
    parser.add_argument("facts", nargs="*", help="fact lines (default: read stdin)")
    parser.add_argument("--agent", required=True, help="who submits, e.g. dsh, codex, claude")
    add_common(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.cli.vault._open import open_backend
    from cuecard.core.vault._rules import check_agent

    check_agent(args.agent)
    lines = "\n".join(args.facts).splitlines() if args.facts else sys.stdin.read().splitlines()
    with open_backend(args) as vault:
        name, count = vault.submit(args.agent, lines)
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json({"file": name, "facts": count})
    else:
        print(f"submitted {count} fact(s) to the inbox as {name}", file=sys.stderr)
        print(
            "they become searchable after review and promotion (cuecard vault review)",
            file=sys.stderr,
        )
    return 0
