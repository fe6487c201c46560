"""Declarative checks on RE2: patterns over a changed file or a command. A check never runs code."""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["pattern_problem"]


@functools.cache
def _re2() -> Any:
    import re2

    return re2


def pattern_problem(pattern: str) -> str | None:
    """Say why RE2 refuses ``pattern``, or ``None`` when it compiles."""
    re2 = _re2()
    options = re2.Options()
    options.log_errors = False
    try:
        re2.compile(pattern, options)
    except re2.error as exc:
        return f"is a pattern RE2 cannot run ({exc})"
    return None
