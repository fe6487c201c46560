"""Errors of the DSH adapter, under core's tree::

CuecardError
├── UsageError
│   └── BadRequest            a tool request that breaks the protocol (exit 2)
├── ConfigError
│   └── VaultNotConfigured    no vault named by --vault, CUECARD_VAULT or the user config
├── VaultCallError            a ``cuecard vault`` command refused or failed
└── DshAdapterError           the adapter could not do what was asked
    └── DeployError           a deploy verb refused (outside the allowlist, markers broken, …)

The first three are the memory tools' own (``cuecard.core.tools``), shared with the MCP server.
"""

from __future__ import annotations

from cuecard.core import CuecardError
from cuecard.core.tools import BadRequest, VaultCallError, VaultNotConfigured

__all__ = ["BadRequest", "DeployError", "DshAdapterError", "VaultCallError", "VaultNotConfigured"]


class DshAdapterError(CuecardError):
    """The root of the adapter's own failures."""


class DeployError(DshAdapterError):
    """A deploy verb refused; nothing was changed."""
