"""Opening the vault a command names. Standard library only (the search path uses it)."""

from __future__ import annotations

import argparse
from pathlib import Path

from cuecard.core.vault._location import resolve_vault_path
from cuecard.core.vault._vault import Vault

__all__ = ["open_vault"]


def open_vault(args: argparse.Namespace) -> Vault:
    return Vault.open(Path(resolve_vault_path(getattr(args, "vault", None))))
