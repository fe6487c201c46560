"""Whether a proposed memory reads as generic advice any capable agent already follows (clean
code, add tests, handle errors) rather than knowledge of this project: it names no file,
command, identifier, flag or version of it."""

from __future__ import annotations

import re

__all__ = ["generic_reason"]

_ANCHOR = re.compile(
    r"`[^`]+`"  # code span
    r"|\b[\w.-]+/[\w./-]+"  # a path
    r"|\b\w+\.(?:py|js|ts|tsx|go|rs|rb|java|php|sql|json|ya?ml|toml|md|sh|cfg|ini|lock)\b"
    r"|\b[a-z]+_[a-z0-9_]+\b"  # snake_case
    r"|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b"  # camelCase, CamelCase
    r"|\w+\(\)"  # call
    r"|\b\d+(?:\.\d+)+\b"  # a version
    r"|--[a-z][\w-]+"  # a flag
)
_GENERIC = re.compile(
    r"\b(best practices?|clean code|write (?:unit )?tests|add (?:more )?tests|meaningful names|"
    r"descriptive names|handle errors|error handling|keep functions small|follow (?:the )?"
    r"(?:style guide|conventions)|document your code|add comments|code review|be careful|"
    r"double[- ]check|readable code|DRY|SOLID)\b",
    re.IGNORECASE,
)


def generic_reason(title: str, body: str, has_narrow_trigger: bool) -> str | None:
    """Why a proposal reads as advice any capable agent already knows, or ``None``."""
    text = f"{title}\n{body}"
    if _ANCHOR.search(text) or has_narrow_trigger:
        return None
    if _GENERIC.search(text):
        return (
            "reads as generic advice any capable agent already follows; name the file, command "
            "or identifier of this project it applies to"
        )
    if len(text.split()) < 6:
        return "is too short to say anything specific to this project"
    return None
