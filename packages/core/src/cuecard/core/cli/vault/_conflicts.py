"""``cuecard vault conflicts``: the queue a person adjudicates."""

from __future__ import annotations

import argparse

from cuecard.core.cli.vault import add_common


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "conflicts",
        description=(
            "List the similar-but-different facts waiting for a decision, each with an id for "
            "`cuecard vault adjudicate ID`. --json prints keys: conflicts (each id, new, old, "
            "source, note)."
        ),
    )
    add_common(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.cli.vault._open import open_backend
    from cuecard.core.vault._render import clean, render_queue

    with open_backend(args) as vault:
        waiting = vault.conflicts()
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json({"conflicts": [{k: clean(v) for k, v in c.as_json().items()} for c in waiting]})
        return 0
    print(clean(render_queue(waiting)))
    return 0
