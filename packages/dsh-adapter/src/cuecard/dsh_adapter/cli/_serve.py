"""``cuecard dsh serve``: the worker the DSH plugins keep (JSON lines on stdin and stdout)."""

from __future__ import annotations

import argparse

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "serve",
        description=(
            "The long-lived worker a DSH plugin keeps (one per host process), so that a tool "
            "call does not start an interpreter. Reads one JSON request per line on stdin: "
            '{"id", "op": "hello"}, {"id", "op": "call", "tool", "request", "project"?}, '
            '{"id", "op": "recall", "text", "mode"?, "limit"?, "max_chars"?, "project"?}, '
            '{"id", "op": "hook", "event", "payload"} (a hook bridge event, answered with what '
            "`cuecard dsh hook EVENT` prints); "
            "prints one JSON answer per line on stdout, in order, each with the request's id "
            '(a failed request answers {"id", "error"} and the worker goes on). The plugins '
            "start it as `python -I -m cuecard.dsh_adapter serve`."
        ),
    )
    parser.add_argument(
        "--vault", metavar="PATH", help="the vault (default: CUECARD_VAULT, then the user config)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.dsh_adapter._worker import serve

    return serve(args.vault)
