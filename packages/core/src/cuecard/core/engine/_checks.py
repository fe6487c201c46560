"""Declarative checks on RE2: patterns over a changed file or a command. A check never runs code.

A check reports a *violation* when its ``if`` pattern matches and its ``unless`` pattern (when
given) does not. Over files only violations the change introduced count: lines that match the
``if`` pattern after the change and did not before. Only the first 256 KB of a file is judged.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["JUDGED_BYTES", "introduced", "pattern_problem", "violates"]

JUDGED_BYTES = 256 * 1024


@functools.cache
def _re2() -> Any:
    import re2

    return re2


@functools.cache
def _compiled(pattern: str) -> Any:
    re2 = _re2()
    options = re2.Options()
    options.log_errors = False
    return re2.compile(pattern, options)


def pattern_problem(pattern: str) -> str | None:
    """Say why RE2 refuses ``pattern``, or ``None`` when it compiles."""
    try:
        _compiled(pattern)
    except _re2().error as exc:
        return f"is a pattern RE2 cannot run ({exc})"
    return None


def violates(if_pattern: str | None, unless_pattern: str | None, text: str) -> bool:
    """Whether ``text`` (cut to the judged size) is a violation of the check."""
    text = text[:JUDGED_BYTES]
    if not if_pattern or _compiled(if_pattern).search(text) is None:
        return False
    return not (unless_pattern and _compiled(unless_pattern).search(text) is not None)


def introduced(
    if_pattern: str | None, unless_pattern: str | None, before: str | None, after: str
) -> list[str]:
    """The lines of ``after`` that violate the check and were not violations in ``before``."""
    if not violates(if_pattern, unless_pattern, after):
        return []
    pattern = _compiled(if_pattern)
    hits = [line for line in after[:JUDGED_BYTES].splitlines() if pattern.search(line)]
    if before is not None and violates(if_pattern, unless_pattern, before):
        old = {line for line in before[:JUDGED_BYTES].splitlines() if pattern.search(line)}
        return [line.strip() for line in hits if line not in old]
    return [line.strip() for line in hits] or ["(the file as a whole matches)"]
