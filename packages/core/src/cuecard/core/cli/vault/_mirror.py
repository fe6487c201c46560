"""``cuecard vault mirror``: copy a folder vault's notes to its PostgreSQL mirror now."""

from __future__ import annotations

import argparse

from cuecard.core.cli.vault import add_common


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "mirror",
        description=(
            "A folder vault (the one you keep open in Obsidian) can mirror to a PostgreSQL "
            "database that agents on other machines search: set CUECARD_VAULT_MIRROR or "
            "`vault_mirror` in the user config.toml to a postgresql:// URL without a password "
            "(PGPASSWORD or a pgpass file supplies it; prepare the database with `cuecard vault "
            "migrate-db --vault URL`). Every apply, adjudicate and forget --apply then copies the "
            "canonical notes; this command copies them now (after hand edits). One way only: "
            "nothing comes back from the database. --json prints keys: url, notes, removed, "
            "facts (facts newly inserted)."
        ),
    )
    parser.add_argument("--to", metavar="URL", help="the database (else the mirror setting)")
    add_common(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.base._errors import UsageError
    from cuecard.core.cli.vault._open import open_vault
    from cuecard.core.vault._location import check_database_url, is_database_url
    from cuecard.core.vault.transfer._mirror import MIRROR_ENV, mirror_location, mirror_notes

    if args.to is not None and not is_database_url(args.to):
        raise UsageError(f"--to {args.to!r}: give a postgresql:// URL")
    url = check_database_url("--to", args.to) if args.to else mirror_location()
    if url is None:
        raise UsageError(
            f'no mirror set: pass --to URL, set {MIRROR_ENV}, or add vault_mirror = "URL" to '
            "the user config.toml"
        )
    done = mirror_notes(open_vault(args), url)
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json(
            {"url": done.url, "notes": done.notes, "removed": done.removed, "facts": done.facts}
        )
        return 0
    print(f"mirrored {len(done.notes)} note(s) to {done.url} ({done.facts} new fact(s))")
    if done.removed:
        print(f"removed from the mirror: {', '.join(done.removed)}")
    return 0
