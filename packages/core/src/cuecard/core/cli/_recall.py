"""``cuecard recall``: search this project's live memories and the vault."""

from __future__ import annotations

import argparse

from cuecard.core.cli._limit import limit_arg


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "recall",
        description=(
            "Rank the current project's live memories (index in .cuecard/local/) and, when a "
            "vault is configured (--vault, $CUECARD_VAULT or the user config), the vault's "
            "canonical facts by BM25 against QUERY; print both, redacted, in one <memory-data> "
            "block. --json prints keys: query, project (each id, text, score), vault (each note, "
            "id, text, score; null when no vault is configured)."
        ),
    )
    parser.add_argument("query", nargs="+", help="what to look for")
    parser.add_argument("--limit", type=limit_arg, default=8, help="most results per source")
    parser.add_argument("--vault", metavar="PATH", help="the vault folder")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.cli._search import run_recall

    return run_recall(args.vault, " ".join(args.query), args.limit, args.json)
