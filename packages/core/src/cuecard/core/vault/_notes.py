"""Edits of a canonical note's text: add a stamped fact, remove one, move one to superseded.

Pure functions over the note text (the caller reads and writes it: a file for the folder vault,
a row for the PostgreSQL vault). ``NoteHost`` is what they need of the vault: its layout (stamp
format, superseded heading) and its clock.
"""

from __future__ import annotations

import re
from typing import Protocol

from cuecard.core.vault._facts import bare
from cuecard.core.vault._layout import Layout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime

__all__ = ["NoteHost", "add_fact", "has_fact", "remove_fact", "supersede"]


class NoteHost(Protocol):
    """A vault as the note edits see it: a folder ``Vault`` or a ``PgVault``."""

    @property
    def layout(self) -> Layout: ...

    def now(self) -> datetime: ...


_HEADING = re.compile(r"^#{1,6}\s")
_SUPERSEDED = re.compile(r"^#{1,6}\s*(?:已取代|已失效|已废弃|superseded|obsolete)", re.IGNORECASE)


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


def has_fact(text: str, fact: str) -> bool:
    """Whether the note holds ``fact`` as a live line (above any superseded section)."""
    key = _key(fact)
    lines = text.splitlines()
    return any(
        _key(bare(line)) == key
        for line in lines[: _superseded_at(lines)]
        if line.lstrip().startswith("-")
    )


def _superseded_at(lines: list[str]) -> int | None:
    return next((i for i, line in enumerate(lines) if _SUPERSEDED.match(line)), None)


def _without_superseded(lines: list[str], key: str) -> list[str]:
    """The lines without the superseded copy of a fact (one that is true again is revived)."""
    at = _superseded_at(lines)
    if at is None:
        return lines
    for i in range(at + 1, len(lines)):
        if _HEADING.match(lines[i]):
            break
        if lines[i].lstrip().startswith("-") and _key(bare(lines[i])) == key:
            return [*lines[:i], *lines[i + 1 :]]
    return lines


def add_fact(vault: NoteHost, text: str, fact: str, source: str) -> str:
    """The note with ``- fact<stamp>`` added before any superseded section (once only: a live
    copy leaves the note as it is; a superseded copy is taken out, the fact being true again)."""
    if has_fact(text, fact):
        return text
    stamp = vault.layout.stamp.format(date=vault.now().date().isoformat(), source=source)
    new_line = f"- {fact}{stamp}"
    lines = text.splitlines()
    kept = _without_superseded(lines, _key(fact))
    if kept is not lines:
        lines, text = kept, "\n".join(kept) + "\n"
    at = _superseded_at(lines)
    if at is None:
        body = text if not text or text.endswith("\n") else text + "\n"
        return body + new_line + "\n"
    head = lines[:at]
    while head and not head[-1].strip():
        head.pop()
    return "\n".join([*head, new_line, "", *lines[at:]]) + "\n"


def remove_fact(text: str, old: str) -> str:
    """The note without the first live line whose bare fact is ``old``."""
    lines = text.splitlines(keepends=True)
    key = _key(old)
    limit = _superseded_at([line.rstrip("\n") for line in lines])
    for i, line in enumerate(lines):
        if limit is not None and i >= limit:
            break
        if line.lstrip().startswith("-") and _key(bare(line)) == key:
            del lines[i]
            return "".join(lines)
    return text


def supersede(vault: NoteHost, text: str, old: str) -> str:
    """Move the live line whose bare fact is ``old`` under the superseded heading."""
    lines = text.splitlines()
    key = _key(old)
    limit = _superseded_at(lines)
    moved = None
    for i, line in enumerate(lines):
        if limit is not None and i >= limit:
            break
        if line.lstrip().startswith("-") and _key(bare(line)) == key:
            moved = lines.pop(i)
            break
    if moved is None:
        return text
    at = _superseded_at(lines)
    if at is None:
        while lines and not lines[-1].strip():
            lines.pop()
        return "\n".join([*lines, "", vault.layout.superseded_heading, "", moved]) + "\n"
    end = next((j for j in range(at + 1, len(lines)) if _HEADING.match(lines[j])), len(lines))
    while end > at + 1 and not lines[end - 1].strip():
        end -= 1
    lines.insert(end, moved)
    return "\n".join(lines) + "\n"
