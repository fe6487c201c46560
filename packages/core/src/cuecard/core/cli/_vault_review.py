"""``cuecard vault review``: classify the inbox into a pending list."""

from __future__ import annotations

import argparse

from cuecard.core.cli._vault import add_common


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "review",
        help="classify inbox facts into a human-editable pending list",
        description=(
            "Classify every inbox fact into a canonical note by the layout's keyword rules (the "
            "catch-all note when none claims it), drop duplicates, queue conflicts (similar but "
            "different facts) for adjudication, mark supersessions (a fact that says it replaces "
            "a similar one), and write the pending list. Untick nothing to promote everything; "
            "tick [x] or delete a line to leave a fact out; then run `cuecard vault apply`. "
            "--json prints keys: pending (each fact, note, source, replaces), duplicates, "
            "conflicts, supersessions, sources, pending_list."
        ),
    )
    add_common(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.cli._vault_open import open_vault
    from cuecard.core.vault._promote import review, write_review

    vault = open_vault(args)
    result = review(vault)
    queued = write_review(vault, result, "cuecard vault apply")
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json(
            {
                "pending": [
                    {"fact": p.fact, "note": p.note, "source": p.source, "replaces": p.replaces}
                    for p in result.pending
                ],
                "duplicates": result.duplicates,
                "conflicts": len(result.conflicts),
                "supersessions": result.supersessions,
                "sources": result.sources,
                "pending_list": vault.layout.pending,
            }
        )
        return 0
    print(
        f"review: {len(result.pending)} pending, {result.duplicates} duplicate(s), "
        f"{len(result.conflicts)} conflict(s) ({queued} newly queued), "
        f"{result.supersessions} supersession(s)"
    )
    for p in result.pending:
        mark = f" [replaces: {p.replaces[:40]}]" if p.replaces else ""
        print(f"  -> {p.note:6s} | {p.fact[:70]}{mark}")
    print(f"pending list: {vault.layout.pending}; promote with `cuecard vault apply`")
    return 0
