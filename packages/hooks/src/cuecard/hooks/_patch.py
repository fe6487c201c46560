"""Codex ``apply_patch`` Update File hunks applied to a file's text. Pure functions, stdlib only.

An Update File section holds hunks; each opens with ``@@`` (optionally followed by a line of the
file to seek first) and lists lines prefixed with a space (context), ``-`` (removed) or ``+``
(added); ``*** End of File`` anchors a hunk at the end of the file. Applying follows Codex: each
hunk's old lines (context and removed) are sought from where the previous hunk ended, first
exactly, then ignoring trailing and then surrounding whitespace; a hunk whose lines are not found
makes the whole patch unknown (``None``), as Codex refuses it. The result ends with a newline.
"""

from __future__ import annotations

import re

__all__ = ["Hunk", "apply_hunks", "update_hunks"]

_SECTION = re.compile(r"^\*\*\* (Add File|Update File|Delete File): (.+?)\s*$")
_MAX_HUNKS = 1_000


class Hunk:
    """One ``@@`` hunk: the line to seek first, the old and new lines, and the end anchor."""

    __slots__ = ("at_end", "context", "new", "old")

    def __init__(
        self, context: str | None, old: list[str], new: list[str], at_end: bool = False
    ) -> None:
        self.context = context
        self.old = old
        self.new = new
        self.at_end = at_end

    def __repr__(self) -> str:
        return f"Hunk({self.context!r}, {self.old!r}, {self.new!r}, at_end={self.at_end})"


def update_hunks(patch: str) -> dict[str, list[Hunk]]:
    """The hunks of each ``Update File`` section of ``patch``, by the path its header names."""
    out: dict[str, list[Hunk]] = {}
    hunks: list[Hunk] | None = None
    hunk: Hunk | None = None
    lines = patch.split("\n")  # Codex splits at newlines only (not at U+2028 or a form feed)
    if lines and lines[-1] == "":
        lines.pop()
    for raw in lines:
        line = raw.removesuffix("\r")
        header = _SECTION.match(line)
        if header is not None:
            hunks = hunk = None
            if header.group(1) == "Update File":
                hunks = out.setdefault(header.group(2), [])
            continue
        if hunks is None or line.startswith("*** Move to: "):
            continue
        if line.startswith("*** End of File"):
            if hunk is not None:
                hunk.at_end = True
            hunk = None
            continue
        if line.startswith("***"):  # *** End Patch, or a header this parser does not know
            hunks = hunk = None
            continue
        if line.startswith("@@"):
            context = line[2:].strip() or None
            hunk = Hunk(context, [], [])
            hunks.append(hunk)
            continue
        if hunk is None:  # the first hunk may leave out its @@ line
            hunk = Hunk(None, [], [])
            hunks.append(hunk)
        if len(hunks) > _MAX_HUNKS:
            return {}
        mark, text = (line[:1], line[1:]) if line else (" ", "")
        if mark in (" ", "-"):
            hunk.old.append(text)
        if mark in (" ", "+"):
            hunk.new.append(text)
    return out


class _TooCostly(Exception):
    """Seeking the hunks would cost more than a hook may spend."""


class _Lines:
    """A file's lines and, computed once when first needed, their whitespace-trimmed forms."""

    def __init__(self, lines: list[str], budget: int = 4_000_000) -> None:
        self.forms: dict[int, list[str]] = {0: lines}
        self.budget = budget
        """Line comparisons left: a file of repeated lines cannot make seeking quadratic."""

    def form(self, level: int) -> list[str]:
        if level not in self.forms:
            trim = str.rstrip if level == 1 else str.strip
            self.forms[level] = [trim(line) for line in self.forms[0]]
        return self.forms[level]

    def seek(self, pattern: list[str], start: int, at_end: bool) -> int | None:
        """Where ``pattern`` first occurs from ``start`` (at the end when ``at_end``), comparing
        exactly, then without trailing, then without surrounding whitespace."""
        size = len(self.forms[0])
        if not pattern:
            return start
        if len(pattern) > size:
            return None
        first = size - len(pattern) if at_end else start
        for level in (0, 1, 2):
            lines = self.form(level)
            wanted = self.form_of(pattern, level)
            head = wanted[0]
            for i in range(first, size - len(pattern) + 1):
                if lines[i] == head:
                    self.budget -= len(pattern)
                    if self.budget < 0:
                        raise _TooCostly
                    if lines[i : i + len(pattern)] == wanted:
                        return i
        return None

    @staticmethod
    def form_of(pattern: list[str], level: int) -> list[str]:
        if level == 0:
            return pattern
        trim = str.rstrip if level == 1 else str.strip
        return [trim(line) for line in pattern]


def apply_hunks(before: str, hunks: list[Hunk]) -> str | None:
    """``before`` with ``hunks`` applied, or ``None`` when a hunk does not apply (or finding
    where would take more than a bounded number of line comparisons)."""
    try:
        return _apply(before, hunks)
    except _TooCostly:
        return None


def _apply(before: str, hunks: list[Hunk]) -> str | None:
    lines = before.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline makes no line of its own
    seeker = _Lines(lines)
    edits: list[tuple[int, int, list[str]]] = []
    at = 0
    for hunk in hunks:
        if hunk.context is not None:
            found = seeker.seek([hunk.context], at, False)
            if found is None:
                return None
            at = found + 1
        if not hunk.old:  # pure addition: at the end of the file
            edits.append((len(lines), 0, hunk.new))
            continue
        old, new = hunk.old, hunk.new
        found = seeker.seek(old, at, hunk.at_end)
        if found is None and old[-1] == "":  # a trailing blank line the file may lack
            old = old[:-1]
            new = new[:-1] if new and new[-1] == "" else new
            found = seeker.seek(old, at, hunk.at_end)
        if found is None:
            return None
        edits.append((found, len(old), new))
        at = found + len(old)
    result = list(lines)
    for _, (start, length, new) in sorted(enumerate(edits), key=lambda e: (e[1][0], e[0]),
                                          reverse=True):  # fmt: skip
        result[start : start + length] = new
    return "\n".join(result) + "\n" if result else ""
