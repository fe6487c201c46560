"""``cuecard wp sync``: reconcile the projection with the site's REST API (pull wins)."""

from __future__ import annotations

import argparse
from collections import Counter

from cuecard.core.cli import emit_json
from cuecard.wp_projection.cli._common import add_root, add_sync_options


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "sync",
        allow_abbrev=False,
        description=(
            "Fetch every record through /wp-json/datamachine/v1/files/agent (and the daily "
            "routes), compare SHA-1 hashes, write what differs, delete owned records the site "
            "dropped; local edits are preserved. Exit 1 on an auth failure or an unreachable "
            "site. --json prints keys: site, counts, outcomes."
        ),
    )
    add_root(parser)
    add_sync_options(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.wp_projection._projector import Projector
    from cuecard.wp_projection._reconcile import reconcile
    from cuecard.wp_projection._wiring import refresh
    from cuecard.wp_projection.cli._common import root_of, sync_settings, sync_values

    root = root_of(args)
    settings = sync_settings(sync_values(args), root.root)
    result = reconcile(Projector(root, on_change=refresh), settings)
    counts = Counter(o.action for o in result.outcomes)
    if args.json:
        emit_json(
            {
                "site": settings.site,
                "counts": dict(sorted(counts.items())),
                "outcomes": [
                    {"path": o.path, "action": o.action, "detail": o.detail}
                    for o in result.outcomes
                ],
            }
        )
    else:
        summary = ", ".join(f"{n} {a}" for a, n in sorted(counts.items())) or "nothing to do"
        print(f"synced {settings.home_url} into {root.managed}/{settings.site}: {summary}")
        for outcome in result.outcomes:
            if outcome.action in ("preserved", "refused"):
                print(f"  {outcome.action}: {outcome.path}: {outcome.detail}")
    return 0
