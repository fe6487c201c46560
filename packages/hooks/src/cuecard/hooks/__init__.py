"""cuecard.hooks."""

from __future__ import annotations

from cuecard.hooks.__about__ import __version__

__all__ = ["__version__"]
