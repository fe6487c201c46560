"""Opening the vault a command names. Standard library only (the search path uses it)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cuecard.core.vault._location import resolve_vault_location, resolve_vault_path
from cuecard.core.vault.folder._vault import Vault

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.vault._backend import Backend

__all__ = ["notice", "open_backend", "open_vault"]


def notice(line: str) -> None:
    """Print a line the vault has for the user (waiting for its lock, ...) on stderr."""
    print(line, file=sys.stderr, flush=True)


def open_vault(args: argparse.Namespace) -> Vault:
    """The folder vault; a ``postgresql://`` setting is refused (the command needs a folder)."""
    return Vault.open(Path(resolve_vault_path(getattr(args, "vault", None))), notify=notice)


def open_backend(args: argparse.Namespace) -> Backend:
    """The vault the settings name, folder or PostgreSQL, behind the backend interface."""
    from cuecard.core.vault._factory import open_backend as open_location

    return open_location(resolve_vault_location(getattr(args, "vault", None)), notify=notice)
