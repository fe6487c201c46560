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

from cuecard.core.base._errors import ValidationError
from cuecard.core.base._fsio import crash_point
from cuecard.core.engine._secrets import find_secret
from cuecard.core.vault._facts import note_facts
from cuecard.core.vault._model import Applied, Pending, Review
from cuecard.core.vault._notes import add_fact, has_fact, supersede
from cuecard.core.vault._rules import classify_submissions
from cuecard.core.vault.folder._conflicts import queue_conflicts
from cuecard.core.vault.folder._pending import parse_pending, render_pending
from cuecard.core.vault.folder._processed import archive_sources
from cuecard.core.vault.folder._vault import Vault

__all__ = ["apply_pending", "auto", "promote", "review", "write_review"]


def _live(vault: Vault, note_id: str) -> list[str]:
    return [
        f.text
        for f in note_facts(vault.read(vault.note_file(note_id)))
        if not f.superseded and not f.placeholder
    ]


def review(vault: Vault) -> Review:
    """Classify every inbox fact (reads only; nothing is written)."""
    return classify_submissions(
        ((path.name, vault.read(path)) for path in vault.inbox_files()),
        vault.layout.classify,
        lambda note_id: _live(vault, note_id),
    )


def _check(vault: Vault, entries: list[Pending]) -> None:
    known = (*vault.layout.notes, "other")
    refusals = []
    for i, p in enumerate(entries, 1):
        if p.note not in known:
            refusals.append(f"pending item {i}: note {p.note!r} is not one of {', '.join(known)}")
        if not p.fact:
            refusals.append(f"pending item {i}: the fact is empty")
        secret = find_secret(p.fact)
        if secret is not None:
            refusals.append(f"pending item {i}: looks like a plaintext credential ({secret})")
    if refusals:
        raise ValidationError(["nothing applied:", *refusals])


def _log(vault: Vault, promoted: list[Pending]) -> None:
    if not promoted:
        return
    path = vault.path(vault.layout.promoted)
    text = vault.read(path)
    when = vault.now().strftime("%Y-%m-%d %H:%M")
    lines = [f"- {when} | {vault.note_file(p.note).name} | {p.fact}" for p in promoted]
    vault.write(
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
        original = vault.read(path) or vault.layout.notes_templates.get(note_id, "")
        text = original
        for p in items:
            if has_fact(text, p.fact):
                done.skipped += 1
                continue
            if p.replaces:
                text = supersede(vault, text, p.replaces)
            text = add_fact(vault, text, p.fact, p.source)
            done.promoted.append(p)
        if text != original or vault.tree.lstat(vault.rel(path)) is None:
            vault.write(path, text)
            crash_point("vault-apply-note")
    crash_point("vault-apply-notes-written")
    _log(vault, done.promoted)
    done.archived = archive_sources(vault, sources)
    crash_point("vault-apply-archived")
    return done


def write_review(vault: Vault, result: Review, command: str) -> int:
    """Queue the review's conflicts and write the pending list, under the vault lock."""
    with vault.lock():
        queued = queue_conflicts(vault, result.conflicts)
        vault.write(vault.path(vault.layout.pending), render_pending(vault, result, command))
    return queued


def apply_pending(vault: Vault, command: str) -> Applied:
    """Promote the pending list's unticked items and archive the reviewed sources."""
    with vault.lock():
        path = vault.path(vault.layout.pending)
        entries, sources = parse_pending(vault.layout, vault.read(path))
        if sources is None:
            sources = [p.source for p in entries]
        done = promote(vault, entries, sources)
        if vault.tree.lstat(vault.rel(path)) is not None:
            vault.write(path, render_pending(vault, Review(), command))
    return done


def auto(vault: Vault) -> tuple[Review, Applied, int]:
    """Review and apply in one step, under one lock (only when asked)."""
    with vault.lock():
        result = review(vault)
        queued = queue_conflicts(vault, result.conflicts)
        done = promote(vault, result.pending, result.sources)
    return result, done, queued
