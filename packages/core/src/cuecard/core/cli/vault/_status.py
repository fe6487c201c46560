"""``cuecard vault status``: what the vault holds (read-only)."""

from __future__ import annotations

import argparse

from cuecard.core.cli.vault import add_common


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "status",
        description=(
            "Show the vault and its layout, the recall index (the notes and facts a search sees: "
            "status brings the index up to date first, as a search does), the submissions "
            "waiting in the inbox (README files not counted), the "
            "conflicts waiting, and when facts were last promoted. --json prints keys: vault, "
            "layout, index (path, exists, notes, facts), pending, conflicts, last_promotion, "
            "recall (mode, configured, streams, vectors)."
        ),
    )
    add_common(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.cli.vault._open import open_backend

    with open_backend(args) as vault:
        info = vault.status()
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json(info)
        return 0
    index = info["index"]
    print(f"vault: {info['vault']} ({info['layout']} layout)")
    if info["layout"] == "postgresql":
        state = "PostgreSQL full-text and trigram indexes"
    else:
        state = "up to date"
    print(f"index: {index['path']} ({state}; {index['notes']} notes, {index['facts']} facts)")
    print(f"inbox: {info['pending']} submission(s) waiting for review")
    print(f"conflicts waiting: {info['conflicts']}")
    print(f"last promotion: {info['last_promotion'] or 'never'}")
    recall = info["recall"]
    print(f"search mode: {recall['mode']} ({', '.join(recall['streams'])})")
    print(f"local vectors: {recall['vectors']}")
    return 0
