"""``cuecard vault migrate-db``: create or upgrade a PostgreSQL vault's schema."""

from __future__ import annotations

import argparse

from cuecard.core.cli.vault import add_common


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "migrate-db",
        description=(
            "Apply the schema migrations a PostgreSQL vault (a postgresql:// URL in --vault, "
            "$CUECARD_VAULT or the user config) lacks, in order, each in one transaction under "
            "an advisory lock: running it twice, or on two machines at once, applies each step "
            "once. The password comes from PGPASSWORD or a pgpass file, never the URL. --json "
            "prints keys: vault, applied, version."
        ),
    )
    add_common(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.base._errors import UsageError
    from cuecard.core.vault._location import is_database_url, resolve_vault_location
    from cuecard.core.vault.postgres._vault import PgVault, safe_url

    url = resolve_vault_location(args.vault)
    if not is_database_url(url):
        raise UsageError(
            f"vault {url!r}: migrate-db works on a PostgreSQL vault (a postgresql:// URL); "
            "a folder vault needs no migration"
        )
    with PgVault(url) as vault:
        applied, version = vault.migrate()
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json({"vault": safe_url(url), "applied": applied, "version": version})
    elif applied:
        print(f"applied migration(s) {', '.join(map(str, applied))}; schema version {version}")
    else:
        print(f"schema already at version {version}; nothing to do")
    return 0
