"""Errors of the vault, under ``CuecardError``.

CuecardError
└── VaultError                   the vault could not do what was asked
    ├── NotAVault                no vault at the configured place
    ├── VaultExists              ``init`` would overwrite a vault (use ``--force``)
    └── VaultBusy(TimeoutError)  another writer held the vault lock past the bounded wait

A PostgreSQL vault's driver raises its own errors (a server gone, a statement refused):
``database_error`` tells them, for the edges that report them (the CLI, the review UI).
"""

from __future__ import annotations

import sys

from cuecard.core.base._errors import CuecardError

__all__ = ["NotAVault", "VaultBusy", "VaultError", "VaultExists", "database_error"]


class VaultError(CuecardError):
    """The vault could not carry out an operation."""


class NotAVault(VaultError):
    """The configured folder holds no vault of a known layout."""


class VaultExists(VaultError):
    """A vault is already there and ``--force`` was not given."""


class VaultBusy(VaultError, TimeoutError):
    """Another writer held the vault lock past the bounded wait."""


def database_error(exc: BaseException) -> bool:
    """Whether ``exc`` is an error of the PostgreSQL driver. Only the PostgreSQL vault imports
    psycopg, so an error of its kind comes from there (and a process that never imported it
    cannot meet one: nothing is imported here)."""
    psycopg = sys.modules.get("psycopg")
    return psycopg is not None and isinstance(exc, psycopg.Error)
