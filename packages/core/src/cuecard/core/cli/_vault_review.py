"""``cuecard vault review``: classify the inbox into a pending list."""

from __future__ import annotations

import argparse

from cuecard.core.cli._vault import add_common

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.vault._pg import PgVault


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
            "conflicts, supersessions, sources, pending_list. On a PostgreSQL vault the pending "
            "list is a table: this prints it with an id per item (also in --json), and "
            "`cuecard vault pending drop ID` leaves an item out."
        ),
    )
    add_common(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.cli._vault_open import open_any
    from cuecard.core.vault._promote import review, write_review
    from cuecard.core.vault._vault import Vault

    vault = open_any(args)
    if not isinstance(vault, Vault):
        with vault:
            return _review_pg(vault, args.json)
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


def _review_pg(vault: PgVault, as_json: bool) -> int:
    from cuecard.core.vault._pg_promote import PENDING_TABLE, pending_rows, review_pg

    result, queued = review_pg(vault)
    rows = pending_rows(vault)
    if as_json:
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
                    for ident, p in rows
                ],
                "duplicates": result.duplicates,
                "conflicts": len(result.conflicts),
                "supersessions": result.supersessions,
                "sources": result.sources,
                "pending_list": f"table {PENDING_TABLE}",
            }
        )
        return 0
    print(
        f"review: {len(rows)} pending, {result.duplicates} duplicate(s), "
        f"{len(result.conflicts)} conflict(s) ({queued} newly queued), "
        f"{result.supersessions} supersession(s)"
    )
    for ident, p in rows:
        mark = f" [replaces: {p.replaces[:40]}]" if p.replaces else ""
        print(f"  {ident:>4} -> {p.note:6s} | {p.fact[:70]}{mark}")
    print(
        "pending list: the database table; leave an item out with `cuecard vault pending drop "
        "ID`, promote with `cuecard vault apply`"
    )
    return 0
