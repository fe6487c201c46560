"""``cuecard dsh call TOOL``: one memory tool call, JSON request on stdin, JSON answer on stdout."""

from __future__ import annotations

import argparse

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "call",
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
    parser.add_argument(
        "tool",
        help="search, show, submit or status (or the names the model sees: memory_search, "
        "memory_show, memory_submit, memory_status)",
    )
    parser.add_argument(
        "--vault", metavar="PATH", help="the vault (default: CUECARD_VAULT, then the user config)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.dsh_adapter._call import answer

    return answer(args.tool, args.vault)
