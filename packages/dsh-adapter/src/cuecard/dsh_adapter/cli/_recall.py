"""``cuecard dsh recall [TEXT]``: the discipline plugin's recall for one user message."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

# Not `from typing import ...` at run time: the per-call paths stay lean.
TYPE_CHECKING = False
if TYPE_CHECKING:
    pass

__all__ = ["register", "run"]


def _int_in(low: int, high: int) -> Callable[[str], int]:
    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{value!r} must be a whole number") from None
        if not low <= number <= high:
            raise argparse.ArgumentTypeError(f"{number} must be between {low} and {high}")
        return number

    return parse


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "recall",
        description=(
            "Reads a user message (TEXT, or stdin) and, in auto mode, searches the vault only "
            "when it mentions a memory-sensitive topic (the list: cuecard.dsh_adapter._topics, "
            "changed in the [dsh] table of the user config). Prints one <memory-data> block of at "
            "most --max-chars characters, or nothing when the gate stays shut or nothing matched "
            "(exit 0 either way). Never writes the vault."
        ),
        epilog="--json prints keys: topics, searched, count, output.",
    )
    parser.add_argument("text", nargs="*", help="the message (default: read stdin)")
    parser.add_argument(
        "--mode", choices=("auto", "always"), default="auto", help="auto (default) or always"
    )
    parser.add_argument("--limit", type=_int_in(1, 50), default=5, help="most facts (1-50, 5)")
    parser.add_argument(
        "--max-chars",
        type=_int_in(200, 20000),
        default=1600,
        help="most characters printed, closing tag included (200-20000, 1600)",
    )
    parser.add_argument(
        "--vault", metavar="PATH", help="the vault (default: CUECARD_VAULT, then the user config)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    text = (
        " ".join(args.text)
        if args.text
        else sys.stdin.buffer.read(64 * 1024).decode("utf-8", "replace")
    )
    from cuecard.dsh_adapter._recall import recall_text

    return recall_text(
        text,
        mode=args.mode,
        limit=args.limit,
        max_chars=args.max_chars,
        vault=args.vault,
        as_json=args.json,
    )
