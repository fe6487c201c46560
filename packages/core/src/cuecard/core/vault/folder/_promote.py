"""Promotion: review the inbox into a human-editable pending list, then apply it.

``review`` classifies each inbox fact into a canonical note by the layout's keyword rules (the
catch-all note when none claims it) and compares it with the note's live facts: an equal fact is
a duplicate, a similar one a conflict (queued for a person), and a fact that says it replaces a
similar one a supersession. ``apply`` promotes the unticked pending items under the vault lock,
stamps each line with the date and the source file, moves superseded lines under the superseded
heading, and archives every source file the review saw (never a later arrival). Each note is
replaced atomically and promoted facts are never added twice, so a crash at any point leaves the
vault consistent and running ``apply`` again finishes the work.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from cuecard.core._errors import ValidationError
from cuecard.core._fsio import atomic_write, crash_point
from cuecard.core.engine._text import neutralise
from cuecard.core.vault._facts import best_overlap, classify_against, inbox_facts, note_facts
from cuecard.core.vault._layout import Layout
from cuecard.core.vault._notes import add_fact, has_fact, supersede
from cuecard.core.vault._secrets import find_credential, redact_credentials
from cuecard.core.vault.folder._conflicts import Conflict, queue_conflicts
from cuecard.core.vault.folder._vault import Vault

__all__ = [
    "Applied",
    "Pending",
    "Review",
    "apply_pending",
    "classify_submissions",
    "numbered_pending",
    "parse_pending",
    "promote",
    "render_pending",
    "review",
    "tick_pending",
    "write_review",
]

SUPERSESSION = re.compile(
    r"改为|改用|换成|迁移到|升级到|更新为|弃用|废弃|不再使用|代替|替代|替换|取代|"
    r"\bdeprecated\b|\bsuperseded\b|\breplaced by\b|\breplaces\b|\bnow uses\b|\binstead of\b"
    r"|\bnew version\b|\bno longer\b|\bmigrated to\b|\bchanged to\b|新版本",
    re.IGNORECASE,
)
_SOURCES = re.compile(r"^<!-- sources: (.*) -->$")
_ITEM = re.compile(r"^- \[ \]\s*\d+\.\s+(.*)$")


@dataclass(frozen=True)
class Pending:
    """A fact waiting to be promoted."""

    fact: str
    note: str
    source: str
    replaces: str = ""


@dataclass
class Review:
    """What a review found."""

    pending: list[Pending] = field(default_factory=list)
    duplicates: int = 0
    conflicts: list[Conflict] = field(default_factory=list)
    supersessions: int = 0
    sources: list[str] = field(default_factory=list)


@dataclass
class Applied:
    """What an apply did."""

    promoted: list[Pending] = field(default_factory=list)
    skipped: int = 0
    archived: list[str] = field(default_factory=list)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return ""


def _live(vault: Vault, note_id: str) -> list[str]:
    return [
        f.text
        for f in note_facts(_read(vault.note_file(note_id)))
        if not f.superseded and not f.placeholder
    ]


def classify_submissions(
    submissions: Iterable[tuple[str, str]],
    note_of: Callable[[str], str],
    live: Callable[[str], list[str]],
) -> Review:
    """Classify every fact of ``submissions`` (name, text), in order: ``note_of`` names a fact's
    note, ``live`` gives a note's live facts. Pure apart from those two; both backends use it."""
    result = Review()
    known: dict[str, list[str]] = {}
    for name, body in submissions:
        result.sources.append(name)
        for raw in inbox_facts(body):
            fact = neutralise(redact_credentials(raw)).strip()
            if not fact:
                continue
            note_id = note_of(fact)
            existing = known.setdefault(note_id, live(note_id))
            status, hit = classify_against(fact, existing)
            if status == "duplicate":
                result.duplicates += 1
                continue
            replaces = ""
            if status == "conflict" and hit is not None:
                if not SUPERSESSION.search(fact):
                    result.conflicts.append(Conflict(fact, hit, name, note_id))
                    continue
                replaces = hit
            elif SUPERSESSION.search(fact):
                replaces = best_overlap(fact, existing, 0.3) or ""
            if replaces:
                result.supersessions += 1
            result.pending.append(Pending(fact, note_id, name, replaces))
            existing.append(fact)
    return result


def review(vault: Vault) -> Review:
    """Classify every inbox fact (reads only; nothing is written)."""
    return classify_submissions(
        ((path.name, _read(path)) for path in vault.inbox_files()),
        vault.layout.classify,
        lambda note_id: _live(vault, note_id),
    )


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
    for line in _read(vault.path(vault.layout.pending)).splitlines():
        number = _NUMBER.match(line)
        entries = parse_pending(vault.layout, line)[0] if number else []
        if number and entries:
            found.append((int(number.group(3)), entries[0]))
    return found


def tick_pending(vault: Vault, chosen: Callable[[int, Pending], bool]) -> list[Pending]:
    """Tick the unticked items ``chosen`` picks (number, item), as a person would to leave them
    out of the next apply; the items ticked. The caller holds the vault lock."""
    path = vault.path(vault.layout.pending)
    lines = _read(path).splitlines(keepends=True)
    ticked = []
    for i, line in enumerate(lines):
        number = _NUMBER.match(line)
        entries = parse_pending(vault.layout, line)[0] if number else []
        if number and entries and chosen(int(number.group(3)), entries[0]):
            lines[i] = _NUMBER.sub(r"\1x\2\3.", line, count=1)
            ticked.append(entries[0])
    if ticked:
        atomic_write(path, "".join(lines))
    return ticked


def _check(vault: Vault, entries: list[Pending]) -> None:
    known = (*vault.layout.notes, "other")
    refusals = []
    for i, p in enumerate(entries, 1):
        if p.note not in known:
            refusals.append(f"pending item {i}: note {p.note!r} is not one of {', '.join(known)}")
        if not p.fact:
            refusals.append(f"pending item {i}: the fact is empty")
        secret = find_credential(p.fact)
        if secret is not None:
            refusals.append(f"pending item {i}: looks like a plaintext credential ({secret})")
    if refusals:
        raise ValidationError(["nothing applied:", *refusals])


def _archive(vault: Vault, names: list[str]) -> list[str]:
    moved = []
    vault.processed.mkdir(parents=True, exist_ok=True)
    for name in sorted(set(names)):
        if "/" in name or "\\" in name or name.startswith(".") or not name.endswith(".md"):
            continue
        if name.lower() == "readme.md":
            continue
        src = vault.inbox / name
        if src.is_symlink() or not src.is_file():
            continue
        stem, n = name[:-3], 1
        while True:
            dst = vault.processed / (name if n == 1 else f"{stem}-{n}.md")
            try:
                os.link(src, dst)
            except FileExistsError:
                n += 1
                continue
            break
        src.unlink()
        moved.append(name)
    return moved


def _log(vault: Vault, promoted: list[Pending]) -> None:
    if not promoted:
        return
    path = vault.path(vault.layout.promoted)
    text = _read(path)
    when = vault.now().strftime("%Y-%m-%d %H:%M")
    lines = [f"- {when} | {vault.note_file(p.note).name} | {p.fact}" for p in promoted]
    atomic_write(
        path, (text if text.endswith("\n") or not text else text + "\n") + "\n".join(lines) + "\n"
    )


def promote(vault: Vault, entries: list[Pending], sources: list[str]) -> Applied:
    """Promote entries and archive sources; the caller holds the vault lock."""
    _check(vault, entries)
    done = Applied()
    by_note: dict[str, list[Pending]] = {}
    for p in entries:
        by_note.setdefault(p.note, []).append(p)
    for note_id, items in by_note.items():
        path = vault.note_file(note_id)
        original = _read(path) or vault.layout.notes_templates.get(note_id, "")
        text = original
        for p in items:
            if has_fact(text, p.fact):
                done.skipped += 1
                continue
            if p.replaces:
                text = supersede(vault, text, p.replaces)
            text = add_fact(vault, text, p.fact, p.source)
            done.promoted.append(p)
        if text != original or not path.exists():
            atomic_write(path, text)
            crash_point("vault-apply-note")
    crash_point("vault-apply-notes-written")
    _log(vault, done.promoted)
    done.archived = _archive(vault, sources)
    crash_point("vault-apply-archived")
    return done


def write_review(vault: Vault, result: Review, command: str) -> int:
    """Queue the review's conflicts and write the pending list, under the vault lock."""
    with vault.lock():
        queued = queue_conflicts(vault, result.conflicts)
        atomic_write(vault.path(vault.layout.pending), render_pending(vault, result, command))
    return queued


def apply_pending(vault: Vault, command: str) -> Applied:
    """Promote the pending list's unticked items and archive the reviewed sources."""
    with vault.lock():
        path = vault.path(vault.layout.pending)
        entries, sources = parse_pending(vault.layout, _read(path))
        if sources is None:
            sources = [p.source for p in entries]
        done = promote(vault, entries, sources)
        if path.exists():
            atomic_write(path, render_pending(vault, Review(), command))
    return done


def auto(vault: Vault) -> tuple[Review, Applied, int]:
    """Review and apply in one step, under one lock (only when asked)."""
    with vault.lock():
        result = review(vault)
        queued = queue_conflicts(vault, result.conflicts)
        done = promote(vault, result.pending, result.sources)
    return result, done, queued
