"""``cuecard vault export DEST`` and ``cuecard vault import SOURCE``: folder <-> PostgreSQL."""

from __future__ import annotations

import argparse

from cuecard.core.cli.vault import add_common

_KEYS = (
    "--json prints keys: source, target, facts, notes, submissions, processed, conflicts, "
    "pending, adjudications, promotions, forgotten, archives, uses, cursor."
)
_WHAT = (
    "Carries every canonical note byte for byte (prose, fact lines with their stamps, the "
    "superseded section), the inbox submissions waiting and processed ones byte for byte, the "
    "pending list, the open conflicts in order, the adjudication and promotion logs line for "
    "line, forgotten lines, session archives, each fact's use count and last use, and the "
    "digest cursor. One side must be a folder and the other a postgresql:// URL (password from "
    "PGPASSWORD or a pgpass file); a PostgreSQL target must be migrated (`cuecard vault "
    "migrate-db`) and empty, a folder target must hold no vault (a default-layout vault is "
    "created; a unified-agent-memory folder imports through its layout). "
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    export = sub.add_parser(
        "export",
        description="Copy the vault (--vault, $CUECARD_VAULT or the config) to DEST. "
        + _WHAT
        + _KEYS,
    )
    export.add_argument("dest", metavar="DEST", help="a new folder or a postgresql:// URL")
    add_common(export)
    export.set_defaults(run=run_export)
    imp = sub.add_parser(
        "import",
        description="Copy the vault at SOURCE into the vault (--vault, $CUECARD_VAULT or the "
        "config). " + _WHAT + _KEYS,
    )
    imp.add_argument("source", metavar="SOURCE", help="a folder vault or a postgresql:// URL")
    add_common(imp)
    imp.set_defaults(run=run_import)


def run_export(args: argparse.Namespace) -> int:
    from cuecard.core.vault._location import resolve_vault_location

    return _copy(resolve_vault_location(args.vault), args.dest, "DEST", args.json)


def run_import(args: argparse.Namespace) -> int:
    from cuecard.core.vault._location import resolve_vault_location

    return _copy(args.source, resolve_vault_location(args.vault), "SOURCE", args.json)


def _copy(source: str, target: str, given: str, as_json: bool) -> int:
    import os
    from pathlib import Path

    from cuecard.core.base._errors import UsageError
    from cuecard.core.vault._location import check_database_url, is_database_url
    from cuecard.core.vault.folder._vault import Vault
    from cuecard.core.vault.postgres._vault import PgVault, open_pg
    from cuecard.core.vault.transfer._transfer import folder_to_pg, pg_to_folder

    for value in (source, target):
        if is_database_url(value):
            check_database_url(given, value)
    if is_database_url(source) == is_database_url(target):
        raise UsageError(
            f"{given}: one side must be a folder vault and the other a postgresql:// URL "
            f"(got {'two URLs' if is_database_url(source) else 'two folders'})"
        )
    if is_database_url(target):
        vault = Vault.open(Path(os.path.expanduser(source)))
        pg: PgVault = open_pg(target)
        with pg:
            moved = folder_to_pg(vault, pg)
    else:
        with open_pg(source) as pg:
            moved = pg_to_folder(pg, Path(os.path.expanduser(target)))
    figures = {
        "facts": moved.facts,
        "notes": moved.notes,
        "submissions": moved.submissions,
        "processed": moved.processed,
        "conflicts": moved.conflicts,
        "pending": moved.pending,
        "adjudications": moved.adjudications,
        "promotions": moved.promotions,
        "forgotten": moved.forgotten,
        "archives": moved.archives,
        "uses": moved.uses,
        "cursor": moved.cursor,
    }
    if as_json:
        from cuecard.core.cli._output import emit_json

        emit_json({"source": source, "target": target, **figures})
    else:
        print(
            f"copied {moved.facts} fact line(s) in {len(moved.notes)} note(s), "
            f"{moved.submissions} waiting and {moved.processed} processed submission(s), "
            f"{moved.conflicts} conflict(s) from {source} to {target}"
        )
    return 0
