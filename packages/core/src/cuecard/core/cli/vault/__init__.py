"""``cuecard vault``: the shared fact vault. One module per subcommand."""

from __future__ import annotations

import argparse
import importlib

__all__ = ["SUBCOMMANDS", "register"]

SUBCOMMANDS: dict[str, str] = {
    "init": "cuecard.core.cli.vault._init",
    "submit": "cuecard.core.cli.vault._submit",
    "search": "cuecard.core.cli.vault._search",
    "show": "cuecard.core.cli.vault._show",
    "status": "cuecard.core.cli.vault._status",
    "review": "cuecard.core.cli.vault._review",
    "apply": "cuecard.core.cli.vault._apply",
    "conflicts": "cuecard.core.cli.vault._conflicts",
    "adjudicate": "cuecard.core.cli.vault._adjudicate",
    "forget": "cuecard.core.cli.vault._forget",
    "archive": "cuecard.core.cli.vault._archive",
    "digest": "cuecard.core.cli.vault._digest",
    "migrate-db": "cuecard.core.cli.vault._migrate_db",
    "pending": "cuecard.core.cli.vault._pending",
    "mirror": "cuecard.core.cli.vault._mirror",
    "export": "cuecard.core.cli.vault._transfer",
    "import": "cuecard.core.cli.vault._transfer",
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
        help="the shared fact vault: submit, search, review, apply, adjudicate, forget",
        description=(
            "The vault is a Markdown folder shared by all agents: canonical notes of fact lines, "
            "an inbox agents submit to, a reviewed promotion into the notes, a conflict queue a "
            "person decides, and a reversible forgetting. Vault location: --vault, then "
            "$CUECARD_VAULT, then `vault` in $XDG_CONFIG_HOME/cuecard/config.toml."
        ),
    )
    commands = parser.add_subparsers(dest="vault_command", metavar="COMMAND")
    for module in dict.fromkeys(SUBCOMMANDS.values()):  # one module may add two commands
        importlib.import_module(module).register(commands)
