"""``cuecard demo``: a replayed Claude Code session through the real ``cuecard-hook``."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "demo",
        description=(
            "Create a throwaway git repository with a few memories, replay a recorded Claude "
            "Code session through the real cuecard-hook command, and print each event and what "
            "the agent received. Nothing outside the temporary folder is touched. --json prints "
            "keys: repository, steps (each: event, description, received), delivered."
        ),
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary repository")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.hooks._demo import run_demo

    return run_demo(keep=args.keep, as_json=args.json)
