"""``cuecard vault init``: create a vault."""

from __future__ import annotations

import argparse

from cuecard.core.cli.vault import add_common

LAYOUT_NAMES = ("default", "unified-agent-memory")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "init",
        description=(
            "Create a vault: canonical notes, inbox/ (with processed/), review/, forgotten/ and "
            "sessions/ (or the unified-agent-memory folders under 50-Agent-Context/). An "
            "existing vault is never overwritten without --force, and --force first copies it "
            "to a sibling <name>-backup-<YYYYmmdd-HHMMSS> folder. Given a postgresql:// URL it "
            "creates or upgrades the database's tables (as `vault migrate-db` does; a database "
            "is never overwritten, so --force and --layout do not apply). --remember records "
            "the vault (new, or already there) as `vault` in the user config "
            "(~/.config/cuecard/config.toml), so every cuecard command finds it; without it, "
            "the next step is printed. --json prints "
            "keys: vault, layout, backup, remembered (the config file, or null), next (what to "
            "do for cuecard to find it, or null), and for a database applied (the schema "
            "versions added)."
        ),
    )
    parser.add_argument("--layout", choices=LAYOUT_NAMES, default="default", help="the profile")
    parser.add_argument("--force", action="store_true", help="back up, then re-create the notes")
    parser.add_argument(
        "--remember",
        action="store_true",
        help="record the vault in the user config, for every cuecard command to find",
    )
    add_common(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cuecard.core.vault._layout import LAYOUTS
    from cuecard.core.vault._location import is_database_url, resolve_vault_location
    from cuecard.core.vault.folder._init import init_vault

    location = resolve_vault_location(args.vault)
    if is_database_url(location):
        return _init_database(args, location)
    from cuecard.core.vault._errors import VaultExists

    try:
        vault, backup = init_vault(Path(location), LAYOUTS[args.layout], force=args.force)
    except VaultExists:
        if not args.remember:
            raise
        # `init --remember` on a vault that is there: record it, change nothing in it
        from cuecard.core.vault.folder._vault import Vault

        vault, backup = Vault.open(Path(location)), None
    remembered, step = _found(args, str(Path(vault.root).resolve()))
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json(
            {
                "vault": str(vault.root),
                "layout": vault.layout.name,
                "backup": None if backup is None else str(backup),
                "remembered": remembered,
                "next": step,
            }
        )
        return 0
    if backup is not None:
        print(f"backed up the old vault to {backup}")
    print(f"vault ({vault.layout.name} layout) ready at {vault.root}")
    if remembered is not None:
        print(f"recorded in {remembered}: every cuecard command finds this vault")
    if step is not None:
        print(f"next: {step}")
    return 0


def _found(args: argparse.Namespace, location: str) -> tuple[str | None, str | None]:
    """(the config file the vault was recorded in, or None; what to do for cuecard to find
    the vault, or None when it already does)."""
    import shlex

    from cuecard.core.base._errors import CuecardError
    from cuecard.core.vault._location import resolve_vault_location, user_config_path

    if args.remember:
        from cuecard.core.vault._user_config import record_vault

        return record_vault(location), None
    try:
        found = resolve_vault_location(None)
    except CuecardError:
        found = None
    if found is not None and _same(found, location):
        return None, None
    quoted = shlex.quote(location)
    return None, (
        f"cuecard finds a vault through --vault, CUECARD_VAULT or `vault` in "
        f"{user_config_path()}; record this one there with `cuecard vault init --vault "
        f"{quoted} --remember`, or `export CUECARD_VAULT={quoted}` in your shell profile"
    )


def _same(found: str, location: str) -> bool:
    from pathlib import Path

    try:
        return Path(found).expanduser().resolve() == Path(location)
    except (OSError, RuntimeError):
        return False


def _init_database(args: argparse.Namespace, url: str) -> int:
    from cuecard.core.base._errors import UsageError
    from cuecard.core.vault.postgres._vault import PgVault

    if args.force or args.layout != "default":
        raise UsageError(
            f"{url}: --force and --layout apply to folder vaults; a PostgreSQL vault is never "
            "overwritten and has one layout"
        )
    with PgVault(url) as vault:
        applied, version = vault.migrate()
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json({"vault": url, "layout": "postgresql", "backup": None, "applied": applied})
        return 0
    done = f"schema versions {', '.join(map(str, applied))} applied" if applied else "up to date"
    print(f"vault (PostgreSQL, schema version {version}) ready at {url}: {done}")
    return 0
