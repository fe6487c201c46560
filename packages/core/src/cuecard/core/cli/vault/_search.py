"""``cuecard vault search``: BM25 recall over the vault's canonical facts."""

from __future__ import annotations

import argparse

from cuecard.core.cli._limit import limit_arg
from cuecard.core.cli.vault import add_common


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "search",
        description=(
            "Rank every canonical fact by BM25 against QUERY (words, code identifiers, dotted "
            "addresses, Chinese, Japanese and Korean text) and print the best, redacted and "
            "wrapped in <memory-data>. The index is brought up to date first (only changed "
            "notes are read). Returned facts count as used, for `vault forget`. --json prints "
            "keys: query, count, results (each note, id, text, score); in hybrid mode or with "
            "--explain also mode, and with --explain explain (streams, expansion, vectors_off; on "
            "a PostgreSQL vault also lexical and mirror) and each result's ranks. A score orders "
            "the results of one search only: BM25 gives a word held by half the facts or more "
            "next to no weight, so in a vault of a few facts a right hit can score 0.00000."
        ),
    )
    parser.add_argument("query", nargs="+", help="what to look for")
    parser.add_argument("--limit", type=limit_arg, default=8, help="most results (1-100, 8)")
    parser.add_argument(
        "--mode",
        choices=("bm25", "hybrid"),
        default=None,
        help="bm25, or hybrid (BM25, the concept graph and, with cuecard-core[vectors], local "
        "vectors, fused by RRF); default: config recall.mode (bm25, hybrid, or auto: hybrid "
        "when the vectors extra is installed), else bm25",
    )
    parser.add_argument(
        "--explain", action="store_true", help="show each result's rank in every stream"
    )
    add_common(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.cli._search import run_search

    return run_search(
        args.vault, " ".join(args.query), args.limit, args.json, args.mode, args.explain
    )
