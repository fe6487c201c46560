"""The pending list: the human-editable file a review writes and an apply reads.

Each unticked item is ``- [ ] <n>. <note>:…｜<target>:…｜<source>:…[｜<replaces>:…]｜<fact>:…`` in
the layout's labels, after a comment naming the review's source files. A person ticks an item (or
``vault pending drop`` does) to leave it out of the next apply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from cuecard.core.vault._layout import Layout
from cuecard.core.vault._model import Pending, Review
from cuecard.core.vault.folder._vault import Vault

__all__ = ["numbered_pending", "parse_pending", "render_pending", "tick_pending"]


_SOURCES = re.compile(r"^<!-- sources: (.*) -->$")


_ITEM = re.compile(r"^- \[ \]\s*\d+\.\s+(.*)$")


def _target(vault: Vault, note_id: str) -> str:
    return vault.note_file(note_id).relative_to(vault.root).as_posix()


def render_pending(vault: Vault, result: Review, command: str) -> str:
    layout = vault.layout
    note, target, source, replaces, fact = layout.pending_labels
    lines = [
        layout.pending_header.format(
            now=vault.now().strftime("%Y-%m-%d %H:%M"), command=command
        ).rstrip("\n"),
        "<!-- sources: " + json.dumps(sorted(result.sources), ensure_ascii=False) + " -->",
        "",
    ]
    if not result.pending:
        lines.append(layout.pending_empty)
    for i, p in enumerate(result.pending, 1):
        extra = f"｜{replaces}:{p.replaces}" if p.replaces else ""
        lines.append(
            f"- [ ] {i}. {note}:{p.note}｜{target}:{_target(vault, p.note)}｜{source}:{p.source}"
            f"{extra}｜{fact}:{p.fact}"
        )
    return "\n".join(lines) + "\n"


def parse_pending(layout: Layout, text: str) -> tuple[list[Pending], list[str] | None]:
    """Unticked items of a pending list and the review's source files (``None`` if absent)."""
    note, target, source, replaces, fact = (re.escape(label) for label in layout.pending_labels)
    item = re.compile(
        rf"^{note}:(?P<note>.*?)｜{target}:.*?｜{source}:(?P<source>.*?)"
        rf"(?:｜{replaces}:(?P<replaces>.*?))?｜{fact}:(?P<fact>.*)$"
    )
    entries: list[Pending] = []
    sources: list[str] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        found = _SOURCES.match(line)
        if found and sources is None:
            try:
                value = json.loads(found.group(1))
            except json.JSONDecodeError:
                value = None
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                sources = value
            continue
        head = _ITEM.match(line)
        if head is None:
            continue
        parts = item.match(head.group(1))
        if parts is None:
            continue
        entries.append(
            Pending(
                parts.group("fact").strip(),
                parts.group("note").strip(),
                parts.group("source").strip(),
                (parts.group("replaces") or "").strip(),
            )
        )
    return entries, sources


_NUMBER = re.compile(r"^(\s*- \[) (\]\s*)(\d+)\.")


def numbered_pending(vault: Vault) -> list[tuple[int, Pending]]:
    """The pending list's unticked items with their numbers (the ids a person gives)."""
    found = []
    for line in vault.read(vault.path(vault.layout.pending)).splitlines():
        number = _NUMBER.match(line)
        entries = parse_pending(vault.layout, line)[0] if number else []
        if number and entries:
            found.append((int(number.group(3)), entries[0]))
    return found


def tick_pending(vault: Vault, chosen: Callable[[int, Pending], bool]) -> list[Pending]:
    """Tick the unticked items ``chosen`` picks (number, item), as a person would to leave them
    out of the next apply; the items ticked. The caller holds the vault lock."""
    path = vault.path(vault.layout.pending)
    lines = vault.read(path).splitlines(keepends=True)
    ticked = []
    for i, line in enumerate(lines):
        number = _NUMBER.match(line)
        entries = parse_pending(vault.layout, line)[0] if number else []
        if number and entries and chosen(int(number.group(3)), entries[0]):
            lines[i] = _NUMBER.sub(r"\1x\2\3.", line, count=1)
            ticked.append(entries[0])
    if ticked:
        vault.write(path, "".join(lines))
    return ticked
