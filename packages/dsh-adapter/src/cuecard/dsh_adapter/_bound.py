"""Bounding text handed to a model: a visible cut, and a wrapped block keeps its closing tag."""

from __future__ import annotations

__all__ = ["CLOSE_TAG", "MAX_OUTPUT_CHARS", "TRUNCATION_MARKER", "bound"]

MAX_OUTPUT_CHARS = 1024 * 1024
TRUNCATION_MARKER = "\n[output truncated by cuecard: 1 MiB limit]\n"
CLOSE_TAG = "</memory-data>"


def bound(text: str, limit: int = MAX_OUTPUT_CHARS, marker: str = TRUNCATION_MARKER) -> str:
    """``text`` cut to ``limit`` characters with ``marker``; a closing tag at the end survives."""
    if len(text) <= limit:
        return text
    tail = marker + CLOSE_TAG if text.rstrip().endswith(CLOSE_TAG) else marker
    return (text[: max(0, limit - len(tail))] + tail)[:limit]
