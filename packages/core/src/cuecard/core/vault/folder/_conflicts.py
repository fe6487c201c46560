"""The conflict queue: similar but different facts waiting for a person's decision.

A queue line is ``- [ ] <tag> {json}`` (the unified-agent-memory format in that layout). Each
conflict has a short id derived from its content. Decisions: ``use-new`` replaces the old line
with the new fact, ``keep-old`` drops the new fact, ``keep-both`` adds the new fact beside the
old, ``defer`` keeps the conflict in the queue. Every decision is logged, and a submission none of
whose facts waits any more is archived (settled).
"""

from __future__ import annotations

import json
from pathlib import Path

from cuecard.core.base._errors import NotFound, UsageError
from cuecard.core.vault._facts import bare
from cuecard.core.vault._layout import Layout
from cuecard.core.vault._model import DECISIONS, Conflict
from cuecard.core.vault._notes import add_fact, remove_fact
from cuecard.core.vault._rules import distinct
from cuecard.core.vault.folder._vault import Vault

__all__ = [
    "adjudicate",
    "queue",
    "queue_conflicts",
]


def _line(layout: Layout, c: Conflict) -> str:
    k_new, k_old, k_src, k_note = layout.conflict_keys
    data = {k_new: c.new, k_old: c.old, k_src: c.source}
    if c.note:
        data[k_note] = c.note
    return f"- [ ] {layout.conflict_tag} " + json.dumps(
        data, ensure_ascii=False, separators=(",", ":")
    )


def _parse(layout: Layout, line: str) -> Conflict | None:
    k_new, k_old, k_src, k_note = layout.conflict_keys
    text = line.strip()
    prefix = f"- [ ] {layout.conflict_tag}"
    if not text.startswith(prefix):
        return None
    rest = text[len(prefix) :].strip()
    if rest.startswith("{"):
        try:
            data = json.loads(rest)
        except json.JSONDecodeError:
            return None
        if not isinstance(data, dict):
            return None
        values = [data.get(k, "") for k in (k_new, k_old, k_src, k_note)]
        if not all(isinstance(v, str) for v in values) or not values[0]:
            return None
        return Conflict(*values)
    if f"｜{k_new}：" in rest and f"｜{k_old}：" in rest:  # the older line format
        fields: dict[str, str] = {}
        for part in rest.split("｜"):
            key, sep, value = part.partition("：")
            if sep:
                fields[key.strip()] = value.strip()
        return Conflict(fields.get(k_new, ""), fields.get(k_old, ""), fields.get(k_src, ""), "")
    return None


def queue(vault: Vault) -> list[Conflict]:
    """The conflicts waiting, in queue order."""
    found = []
    for line in vault.read(vault.path(vault.layout.conflicts)).splitlines():
        conflict = _parse(vault.layout, line)
        if conflict is not None:
            found.append(conflict)
    return found


def queue_conflicts(vault: Vault, conflicts: list[Conflict]) -> int:
    """Add conflicts not already queued (call under the vault lock); return how many."""
    if not conflicts:
        return 0
    path = vault.path(vault.layout.conflicts)
    text = vault.read(path)
    # The same two facts wait once, whichever submissions brought the new one.
    new = distinct(conflicts, {c.key for c in queue(vault)})
    if not new:
        return 0
    if not text:
        text = vault.layout.conflict_header
    if not text.endswith("\n"):
        text += "\n"
    text += "".join(_line(vault.layout, c) + "\n" for c in new)
    vault.write(path, text)
    return len(new)


def _dequeue(vault: Vault, conflict: Conflict) -> None:
    path = vault.path(vault.layout.conflicts)
    lines = vault.read(path).splitlines(keepends=True)
    for i, line in enumerate(lines):
        parsed = _parse(vault.layout, line)
        if parsed is not None and parsed.id == conflict.id:
            del lines[i]
            break
    vault.write(path, "".join(lines))


def _log(vault: Vault, conflict: Conflict, decision: str) -> None:
    path = vault.path(vault.layout.adjudicated)
    text = vault.read(path) or vault.layout.adjudicated_header
    if not text.endswith("\n"):
        text += "\n"
    text += (
        vault.layout.log_format.format(
            when=vault.now().strftime("%Y-%m-%d %H:%M"),
            decision=vault.layout.decisions[decision],
            new=conflict.new,
            old=conflict.old,
        )
        + "\n"
    )
    vault.write(path, text)


def find(vault: Vault, ident: str) -> Conflict:
    matches = [c for c in queue(vault) if c.id.startswith(ident.strip().lower())]
    if not ident.strip() or not matches:
        raise NotFound(f"conflict {ident!r}: not in the queue (see `cuecard vault conflicts`)")
    if len(matches) > 1:
        raise UsageError(f"conflict {ident!r}: the prefix names {len(matches)} conflicts")
    return matches[0]


def _leave_out(vault: Vault, note_id: str, fact: str) -> None:
    """The old fact may still wait in the pending list (two new facts of one review conflicted):
    ``use-new`` leaves it out of the next apply too."""
    from cuecard.core.vault.folder._pending import tick_pending

    tick_pending(vault, lambda _, p: p.note == note_id and p.fact == fact)


def adjudicate(vault: Vault, ident: str, decision: str) -> Conflict:
    """Carry out a decision on one queued conflict, under the vault lock."""
    if decision not in DECISIONS:
        raise UsageError(f"--decision {decision!r}: choose one of {', '.join(DECISIONS)}")
    with vault.lock():
        conflict = find(vault, ident)
        note_id = (
            conflict.note
            if conflict.note in (*vault.layout.notes, "other")
            else (vault.layout.classify(conflict.new))
        )
        target = vault.note_file(note_id)
        source = Path(conflict.source).name or "conflict"
        if decision == "use-new":
            text = vault.read(target)
            text = remove_fact(text, bare(conflict.old))
            text = add_fact(vault, text, conflict.new, source)
            vault.write(target, text)
            _leave_out(vault, note_id, conflict.old)
        elif decision == "keep-both":
            vault.write(target, add_fact(vault, vault.read(target), conflict.new, source))
        _log(vault, conflict, decision)
        if decision != "defer":
            _dequeue(vault, conflict)
            _settle(vault, Path(conflict.source).name)
    return conflict


def _settle(vault: Vault, name: str) -> None:
    """Archive the inbox submission ``name`` once nothing of it waits any more (no conflict in
    the queue, no unticked pending item): a decided submission no longer counts as waiting, and
    a later review does not see it again. The caller holds the vault lock."""
    from cuecard.core.vault.folder._pending import parse_pending
    from cuecard.core.vault.folder._processed import archive_sources

    if not name.endswith(".md") or not vault.tree.is_file(f"{vault.layout.inbox}/{name}"):
        return
    if any(Path(c.source).name == name for c in queue(vault)):
        return
    entries, _ = parse_pending(vault.layout, vault.read(vault.path(vault.layout.pending)))
    if any(Path(p.source).name == name for p in entries):
        return
    archive_sources(vault, [name])
