"""``cuecard dsh call TOOL``: one memory tool call, JSON request on stdin, JSON answer on stdout."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "call",
        help="run one memory tool (search, show, submit, status) for the DSH plugin",
        description=(
            "Reads one JSON request on stdin and prints one JSON response on stdout. Requests: "
            'search {"query", "limit"?}, show {"doc"}, submit {"facts", "agent"?}, status {}. '
            "The vault is found as `cuecard vault` finds it: --vault, CUECARD_VAULT, then the "
            "user config."
        ),
        epilog=(
            "Response keys: ok (bool), output (text wrapped in <memory-data>), error (on failure), "
            "data (status and submit: the vault's JSON). Exit status 0 when ok, 1 when refused, "
            "2 for a malformed request."
        ),
    )
    parser.add_argument("tool", help="search, show, submit or status")
    parser.add_argument(
        "--vault", metavar="PATH", help="the vault (default: CUECARD_VAULT, then the user config)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.dsh_adapter._call import MAX_REQUEST_BYTES, handle, parse_request, refusal
    from cuecard.dsh_adapter._errors import BadRequest, VaultNotConfigured
    from cuecard.dsh_adapter._vault import VaultClient, find_project, vault_location

    code = 0
    try:
        request = parse_request(args.tool, sys.stdin.buffer.read(MAX_REQUEST_BYTES + 1))
    except BadRequest as exc:
        response, code = refusal(str(exc)), 2
    else:
        response = handle(
            args.tool, request, VaultClient(args.vault), project=find_project(Path.cwd())
        )
        if not response["ok"]:
            code = 1
            try:
                vault_location(args.vault)
            except VaultNotConfigured as exc:
                if "CUECARD_VAULT" not in response["error"]:
                    response["error"] = f"{response['error']}\n{exc}"
    sys.stdout.write(json.dumps(response, ensure_ascii=False) + "\n")
    return code
