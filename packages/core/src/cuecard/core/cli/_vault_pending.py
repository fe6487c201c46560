"""``cuecard vault pending drop ID``: leave one item of a PostgreSQL vault's pending list out."""

from __future__ import annotations

import argparse

from cuecard.core.cli._vault import add_common


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "pending",
        help="edit a PostgreSQL vault's pending list (drop an item before apply)",
        description=(
            "On a PostgreSQL vault the pending list `cuecard vault review` writes is a table; "
            "`pending drop ID` removes the item with that id (shown by review) so `cuecard "
            "vault apply` does not promote it. A folder vault's pending list is a Markdown file "
            "you edit instead. --json prints keys: dropped (fact, note, source, replaces)."
        ),
    )
    actions = parser.add_subparsers(dest="pending_action", metavar="ACTION", required=True)
    drop = actions.add_parser("drop", help="remove one pending item by its id")
    drop.add_argument("id", type=int, help="the item's id, as `cuecard vault review` shows it")
    add_common(drop)
    drop.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core._errors import NotFound, UsageError
    from cuecard.core.cli._vault_open import open_any
    from cuecard.core.vault._vault import Vault

    vault = open_any(args)
    if isinstance(vault, Vault):
        raise UsageError(
            f"vault {vault.root}: a folder vault's pending list is the file "
            f"{vault.layout.pending}; tick [x] or delete the line instead"
        )
    from cuecard.core.vault._pg_promote import drop_pending

    with vault:
        item = drop_pending(vault, args.id)
    if item is None:
        raise NotFound(f"pending item {args.id}: no such item (see `cuecard vault review`)")
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json(
            {
                "dropped": {
                    "fact": item.fact,
                    "note": item.note,
                    "source": item.source,
                    "replaces": item.replaces,
                }
            }
        )
    else:
        print(f"dropped pending item {args.id}: {item.fact[:100]}")
    return 0
