"""``cuecard vault pending drop ID``: leave one item of the pending list out of the next apply."""

from __future__ import annotations

import argparse

from cuecard.core.cli.vault import add_common


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "pending",
        description=(
            "`pending drop ID` leaves the item with that id (as `cuecard vault review` shows "
            "it) out of the next `cuecard vault apply`. On a folder vault it ticks the item's "
            "line in the pending-list file (as ticking [x] by hand does); on a PostgreSQL vault "
            "it deletes the item's row from the pending table. --json prints keys: dropped "
            "(fact, note, source, replaces)."
        ),
    )
    actions = parser.add_subparsers(dest="pending_action", metavar="ACTION", required=True)
    drop = actions.add_parser("drop", help="remove one pending item by its id")
    drop.add_argument("id", type=int, help="the item's id, as `cuecard vault review` shows it")
    add_common(drop)
    drop.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.base._errors import NotFound
    from cuecard.core.cli.vault._open import open_backend

    with open_backend(args) as vault:
        item = vault.drop_pending(args.id)
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
