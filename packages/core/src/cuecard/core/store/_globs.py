"""Glob safety and brace expansion for trigger paths. Standard library only.

Trigger globs are repository-relative with ``/`` separators and use ``*``, ``**``, ``?`` and
``{a,b}``. A glob is refused when it could reach outside the repository or blow up on expansion.
"""

from __future__ import annotations

import re

__all__ = ["MAX_BRACE_EXPANSION", "MAX_GLOB_LENGTH", "expand_braces", "glob_problem"]

MAX_GLOB_LENGTH = 200
MAX_BRACE_EXPANSION = 64
_DRIVE = re.compile(r"^[A-Za-z]:")


def glob_problem(glob: str) -> str | None:
    """Say why ``glob`` is not a safe repository-relative pattern, or ``None`` when it is."""
    if not glob.strip():
        return "is empty"
    if "\x00" in glob:
        return "holds a NUL character"
    if len(glob) > MAX_GLOB_LENGTH:
        return f"is longer than {MAX_GLOB_LENGTH} characters"
    if glob.startswith(("/", "~")) or _DRIVE.match(glob) or glob.startswith("\\\\"):
        return "is absolute; use a path relative to the repository root"
    if "\\" in glob:
        return "uses a backslash; write paths with / separators"
    if any(c < " " or c == "\x7f" for c in glob):
        return "holds a control character (a tab, a newline…)"
    try:
        expanded = expand_braces(glob)
    except ValueError as exc:
        return str(exc)
    from cuecard.core.engine._wildmatch import glob_error

    for one in expanded:
        segments = one.rstrip(" ").split("/")
        if ".." in segments:
            return "leaves the repository"
        if one.startswith("#"):
            return "starts with #, which gitignore reads as a comment: it would match nothing"
        if one.startswith("!"):
            return "starts with !, which gitignore reads as an exception: alone it matches nothing"
        if "." in segments or "" in segments[1:-1]:
            return "holds an empty or . folder name (// or /./), which no path has"
        error = glob_error(one)
        if error is not None:
            return error
    return None


def _split_alternatives(inner: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in inner:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def _matching_brace(text: str, start: int) -> int:
    depth = 0
    for index in range(start, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return index
    return -1


def expand_braces(glob: str, limit: int = MAX_BRACE_EXPANSION) -> list[str]:
    """Expand ``{a,b}`` groups (nested too) into plain globs; raise ``ValueError`` past ``limit``.

    A brace with no comma, or one that is never closed, is kept literally.
    """
    start = glob.find("{")
    while start != -1:
        end = _matching_brace(glob, start)
        if end == -1:
            return [glob]
        options = _split_alternatives(glob[start + 1 : end])
        if len(options) > 1:
            head, tail = glob[:start], glob[end + 1 :]
            results: list[str] = []
            for option in options:
                for expanded in expand_braces(head + option + tail, limit):
                    if expanded not in results:
                        results.append(expanded)
                    if len(results) > limit:
                        raise ValueError(f"expands to more than {limit} patterns")
            return results
        start = glob.find("{", start + 1)
    return [glob]
