"""``cuecard vault apply``: promote the pending list (or review and apply with --auto)."""

from __future__ import annotations

import argparse

from cuecard.core.cli.vault import add_common

TYPE_CHECKING = False
if TYPE_CHECKING:
    pass


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "apply",
        description=(
            "Under the vault lock, promote every unticked item of the pending list into its "
            "canonical note with a date and source stamp (a fact already there is not added "
            "again), move superseded lines under the superseded heading, and archive every "
            "inbox file the review saw (not files that arrived later) to the processed folder. "
            "Running it again does nothing new. --auto reviews and applies in one step (only "
            "when you ask for it). --json prints keys: promoted (each fact, note, source), "
            "skipped, archived, conflicts."
        ),
    )
    parser.add_argument("--auto", action="store_true", help="review and apply in one step")
    add_common(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.cli.vault._open import open_backend

    with open_backend(args) as vault:
        done, conflicts = vault.apply(auto=args.auto)
        places = vault.places
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json(
            {
                "promoted": [
                    {"fact": p.fact, "note": p.note, "source": p.source} for p in done.promoted
                ],
                "skipped": done.skipped,
                "archived": done.archived,
                "conflicts": conflicts,
            }
        )
        return 0
    print(f"applied {len(done.promoted)} fact(s) to canonical notes")
    for p in done.promoted:
        print(f"  + {p.fact[:100]}")
    if done.skipped:
        print(f"{done.skipped} already present, not added again")
    print(f"{len(done.archived)} inbox file(s) archived to {places.processed}")
    if conflicts:
        print(f"warning: {conflicts} conflict(s) wait in {places.conflicts}")
    return 0
