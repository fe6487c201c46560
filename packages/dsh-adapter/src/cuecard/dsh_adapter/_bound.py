"""Bounding text handed to a model: core's ``bound`` (a visible cut, a wrapped block keeps its
closing tag)."""

from __future__ import annotations

from cuecard.core.tools import CLOSE_TAG, MAX_OUTPUT_CHARS, TRUNCATION_MARKER, bound

__all__ = ["CLOSE_TAG", "MAX_OUTPUT_CHARS", "TRUNCATION_MARKER", "bound"]
