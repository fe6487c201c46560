"""cuecard.dsh_adapter."""

from __future__ import annotations

from cuecard.dsh_adapter.__about__ import __version__

__all__ = ["__version__"]
