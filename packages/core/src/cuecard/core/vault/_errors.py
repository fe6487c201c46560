"""Errors of the vault, under ``CuecardError``.

CuecardError
└── VaultError                   the vault could not do what was asked
    ├── NotAVault                no vault at the configured place
    ├── VaultExists              ``init`` would overwrite a vault (use ``--force``)
    └── VaultBusy(TimeoutError)  another writer held the vault lock past the bounded wait
"""

from __future__ import annotations

from cuecard.core._errors import CuecardError

__all__ = ["NotAVault", "VaultBusy", "VaultError", "VaultExists"]


class VaultError(CuecardError):
    """The vault could not carry out an operation."""


class NotAVault(VaultError):
    """The configured folder holds no vault of a known layout."""


class VaultExists(VaultError):
    """A vault is already there and ``--force`` was not given."""


class VaultBusy(VaultError, TimeoutError):
    """Another writer held the vault lock past the bounded wait."""
