"""Errors of the memory tools (DSH's and the MCP server's), under core's tree::

CuecardError
├── UsageError
│   └── BadRequest            a tool request that breaks the protocol (exit 2)
├── ConfigError
│   └── VaultNotConfigured    no vault named by --vault, CUECARD_VAULT or the user config
└── VaultCallError            a ``cuecard vault`` command refused or failed
"""

from __future__ import annotations

from cuecard.core.base._errors import ConfigError, CuecardError, UsageError

__all__ = ["BadRequest", "VaultCallError", "VaultNotConfigured"]


class BadRequest(UsageError):
    """A tool request that is not what the protocol says."""


class VaultNotConfigured(ConfigError):
    """No vault location is set anywhere cuecard looks."""


class VaultCallError(CuecardError):
    """A vault command exited non-zero; the message is the command's own."""
