"""cuecard.ui."""

from __future__ import annotations

from cuecard.ui.__about__ import __version__

__all__ = ["__version__"]
