"""``cuecard vault review``: classify the inbox into a pending list."""

from __future__ import annotations

import argparse

from cuecard.core.cli.vault import add_common

TYPE_CHECKING = False
if TYPE_CHECKING:
    pass


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "review",
        description=(
            "Classify every inbox fact into a canonical note by the layout's keyword rules (the "
            "catch-all note when none claims it), drop duplicates, queue conflicts (similar but "
            "different facts) for adjudication, mark supersessions (a fact that says it replaces "
            "a similar one), and write the pending list. Untick nothing to promote everything; "
            "tick [x] or delete a line to leave a fact out; then run `cuecard vault apply`. "
            "--json prints keys: pending (each fact, note, source, replaces), duplicates, "
            "conflicts, supersessions, sources, pending_list. On a PostgreSQL vault the pending "
            "list is a table: this prints it with an id per item (also in --json), and "
            "`cuecard vault pending drop ID` leaves an item out."
        ),
    )
    add_common(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.cli.vault._open import open_backend

    with open_backend(args) as vault:
        found = vault.review()
        pending_list = vault.places.pending_list
    result = found.review
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json(
            {
                "pending": [
                    {
                        "id": ident,
                        "fact": p.fact,
                        "note": p.note,
                        "source": p.source,
                        "replaces": p.replaces,
                    }
                    for ident, p in found.items
                ],
                "duplicates": result.duplicates,
                "conflicts": len(result.conflicts),
                "supersessions": result.supersessions,
                "sources": result.sources,
                "pending_list": pending_list,
            }
        )
        return 0
    print(
        f"review: {len(found.items)} pending, {result.duplicates} duplicate(s), "
        f"{len(result.conflicts)} conflict(s) ({found.queued} newly queued), "
        f"{result.supersessions} supersession(s)"
    )
    for ident, p in found.items:
        mark = f" [replaces: {p.replaces[:40]}]" if p.replaces else ""
        print(f"  {ident:>4} -> {p.note:6s} | {p.fact[:70]}{mark}")
    print(
        f"pending list: {pending_list}; leave an item out with `cuecard vault pending drop ID`, "
        "promote with `cuecard vault apply`"
    )
    return 0
