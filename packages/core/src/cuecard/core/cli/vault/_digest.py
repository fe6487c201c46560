"""``cuecard vault digest``: durable facts from session archives, by a model the person chose."""

from __future__ import annotations

import argparse
import sys


def _limit(value: str) -> int:
    if not value.isdigit() or not 1 <= int(value) <= 1000:
        raise argparse.ArgumentTypeError(f"--limit {value!r} must be a whole number from 1 to 1000")
    return int(value)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from cuecard.core.cli.vault import add_common

    parser = sub.add_parser(
        "digest",
        description=(
            "Off unless the user config has [digest] enabled = true with base_url and model (an "
            "OpenAI-compatible endpoint the person chose; the key, if any, from the environment "
            "variable named by api_key_env). Sends each session archive's text that was not "
            "digested yet (a per-file cursor), redacted, asks for durable facts, drops "
            "credential-shaped lines and writes the rest to the inbox as one submission (agent "
            "digest) for review. A file's cursor advances only when its request succeeded. "
            "--dry-run prints the requests it would send and sends and writes nothing. --json "
            "prints keys: enabled, dry_run, pending, sent, written, facts, dropped, requests."
        ),
    )
    parser.add_argument("--dry-run", action="store_true", help="show the requests, send nothing")
    parser.add_argument("--limit", type=_limit, default=None, help="at most this many archives")
    add_common(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.cli.vault._open import open_backend
    from cuecard.core.vault._digest import load_digest_config

    path, config = load_digest_config()
    with open_backend(args) as vault:
        report = vault.digest(config, dry_run=args.dry_run, limit=args.limit)
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json(report)
        return 0
    if not report["enabled"]:
        print(
            f"session digest is off: nothing sent (turn it on with [digest] enabled = true, "
            f"base_url and model in {path})",
            file=sys.stderr,
        )
        return 0
    if args.dry_run:
        for request in report["requests"]:
            print(f"would send {request['file']} to {config.base_url} ({config.model}):")
            print(request["body"]["messages"][1]["content"])
            print()
        print(f"{report['pending']} archive(s) pending; nothing sent or written (dry run)")
        return 0
    print(
        f"{report['sent']} archive(s) digested: {report['facts']} fact(s) written to "
        f"{', '.join(report['written']) or 'no inbox file'}; {report['dropped']} line(s) dropped"
    )
    return 0
