"""The shell classifier: whether a command line only reads or searches, and what it names.

Its entry point is public as ``cuecard.core.engine.classify``; the modules here are private.
"""

from __future__ import annotations

__all__: list[str] = []
