"""``cuecard vault``: the shared fact vault. One module per subcommand, imported when chosen."""

from __future__ import annotations

import argparse

from cuecard.core.cli._command import Command
from cuecard.core.cli._subcommands import add_subcommands

__all__ = ["SUBCOMMANDS", "add_common", "register"]

# `cuecard vault --help` lists them in this order; one module may hold two (export, import).
SUBCOMMANDS: dict[str, Command] = {
    c.name: c
    for c in (
        Command(
            "init",
            "create a vault (default English layout or unified-agent-memory)",
            "cuecard.core.cli.vault._init",
        ),
        Command(
            "submit",
            "submit facts to the inbox (the only write path for agents)",
            "cuecard.core.cli.vault._submit",
        ),
        Command(
            "search",
            "search the canonical facts (BM25), results wrapped in <memory-data>",
            "cuecard.core.cli.vault._search",
        ),
        Command(
            "show",
            "print one canonical note, redacted, wrapped in <memory-data>",
            "cuecard.core.cli.vault._show",
        ),
        Command(
            "status",
            "vault, layout, index, pending inbox files, conflicts, last promotion",
            "cuecard.core.cli.vault._status",
        ),
        Command(
            "reindex",
            "delete the vault's recall index (a cache) and build it again from the notes",
            "cuecard.core.cli.vault._reindex",
        ),
        Command(
            "review",
            "classify inbox facts into a human-editable pending list",
            "cuecard.core.cli.vault._review",
        ),
        Command(
            "apply",
            "promote the unticked pending items into the canonical notes",
            "cuecard.core.cli.vault._apply",
        ),
        Command(
            "conflicts",
            "list the conflicts waiting, with ids",
            "cuecard.core.cli.vault._conflicts",
        ),
        Command(
            "adjudicate",
            "decide conflicts: use-new, keep-old, keep-both or defer",
            "cuecard.core.cli.vault._adjudicate",
        ),
        Command(
            "forget",
            "list (or with --apply move) stale, unprotected, unused facts",
            "cuecard.core.cli.vault._forget",
        ),
        Command(
            "archive",
            "append a session summary (stdin) to sessions/<YYYY-MM-DD>.md",
            "cuecard.core.cli.vault._archive",
        ),
        Command(
            "digest",
            "ask the configured model for durable facts in new session archives (off by default)",
            "cuecard.core.cli.vault._digest",
        ),
        Command(
            "migrate-db",
            "create or upgrade the schema of a PostgreSQL vault (safe to run twice)",
            "cuecard.core.cli.vault._migrate_db",
        ),
        Command(
            "pending",
            "edit the pending list (drop an item before apply)",
            "cuecard.core.cli.vault._pending",
        ),
        Command(
            "mirror",
            "copy a folder vault's notes to its PostgreSQL mirror (for Obsidian users)",
            "cuecard.core.cli.vault._mirror",
        ),
        Command(
            "export",
            "copy this vault to DEST (a folder or a postgresql:// URL)",
            "cuecard.core.cli.vault._transfer",
        ),
        Command(
            "import",
            "copy SOURCE (a folder or a postgresql:// URL) into this vault",
            "cuecard.core.cli.vault._transfer",
        ),
    )
}


def add_common(parser: argparse.ArgumentParser) -> None:
    """``--vault`` and ``--json``, which every vault command takes."""
    parser.add_argument(
        "--vault",
        metavar="PATH|URL",
        help="the vault folder or a postgresql:// URL without a password (else $CUECARD_VAULT, "
        "else `vault` in the user config.toml)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "vault",
        description=(
            "The vault is a Markdown folder shared by all agents: canonical notes of fact lines, "
            "an inbox agents submit to, a reviewed promotion into the notes, a conflict queue a "
            "person decides, and a reversible forgetting. Vault location: --vault, then "
            "$CUECARD_VAULT, then `vault` in $XDG_CONFIG_HOME/cuecard/config.toml."
        ),
    )
    add_subcommands(parser, SUBCOMMANDS.values(), dest="vault_command")
