"""cuecard.wp_projection."""

from __future__ import annotations

from cuecard.wp_projection.__about__ import __version__

__all__ = ["__version__"]
