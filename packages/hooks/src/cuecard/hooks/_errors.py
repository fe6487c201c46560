"""The hooks distribution's errors (below the installers and the configuration files they
merge, which both raise them)."""

from __future__ import annotations

from cuecard.core import CuecardError

__all__ = ["InstallError"]


class InstallError(CuecardError):
    """A harness configuration cannot be read or written."""
