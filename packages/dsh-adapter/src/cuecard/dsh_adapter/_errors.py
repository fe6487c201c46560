"""Errors of the DSH adapter, under core's tree::

CuecardError
├── UsageError
│   └── BadRequest            a tool request that breaks the protocol (exit 2)
├── ConfigError
│   └── VaultNotConfigured    no vault named by --vault, CUECARD_VAULT or the user config
└── DshAdapterError           the adapter could not do what was asked
    ├── VaultCallError        a ``cuecard vault`` command refused or failed
    └── DeployError           a deploy verb refused (outside the allowlist, markers broken, …)
"""

from __future__ import annotations

from cuecard.core import ConfigError, CuecardError, UsageError

__all__ = ["BadRequest", "DeployError", "DshAdapterError", "VaultCallError", "VaultNotConfigured"]


class BadRequest(UsageError):
    """A tool request on stdin that is not what the protocol says."""


class VaultNotConfigured(ConfigError):
    """No vault location is set anywhere cuecard looks."""


class DshAdapterError(CuecardError):
    """The root of the adapter's own failures."""


class VaultCallError(DshAdapterError):
    """A vault command exited non-zero; the message is the command's own."""


class DeployError(DshAdapterError):
    """A deploy verb refused; nothing was changed."""
