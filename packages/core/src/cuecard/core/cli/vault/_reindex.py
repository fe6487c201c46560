"""``cuecard vault reindex``: build the vault's recall index again from its notes."""

from __future__ import annotations

import argparse

from cuecard.core.cli.vault import add_common


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "reindex",
        description=(
            "Delete the vault's recall index (recall.sqlite3 in the cache folder, a cache built "
            "from the notes) and build it again. A search rebuilds an index it cannot read by "
            "itself, once, and says so; run this when it could not, or after changing the notes "
            "behind cuecard's back. A folder vault only (PostgreSQL keeps its own indexes). "
            "--json prints keys: path, notes, facts."
        ),
    )
    add_common(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.cli.vault._open import open_vault

    vault = open_vault(args)
    vault.index.rebuild()
    counts = vault.index.counts()
    vault.index.close()
    report = {"path": vault.index.db_path, "notes": counts["files"], "facts": counts["entries"]}
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json(report)
    else:
        print(f"rebuilt {report['path']}: {report['notes']} notes, {report['facts']} facts")
    return 0
