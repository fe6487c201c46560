"""Forgetting: stale, unprotected, unused facts move to the forgotten folder (never deleted).

A fact is a candidate when it has a promotion stamp at least ``days`` old, names nothing
protected (paths, servers, ports, accounts, rules, agents, ... or a ``#keep`` tag), and was not
returned by ``search`` or ``show`` (nor tagged as used) within ``days``. Lines without a stamp
(written by hand or by a template) are never forgotten. Applying moves each line to
``<forgotten>/<note file name>``: the forgotten copy is written before the note is rewritten, so
a crash can leave a line in both places, never in neither.
"""

from __future__ import annotations

from datetime import date

from cuecard.core.vault._model import Candidate
from cuecard.core.vault._rules import pick
from cuecard.core.vault.folder._vault import Vault

__all__ = ["apply_forget", "candidates"]


def candidates(vault: Vault, *, today: date, days: int = 90) -> list[Candidate]:
    """Every line that forgetting would move now."""
    index_file = vault.note_file("index")
    notes = ((rel, vault.read(path)) for rel, path in vault.iter_notes() if path != index_file)
    return pick(notes, vault.last_uses(), today=today, days=days)


def apply_forget(vault: Vault, *, today: date, days: int = 90) -> list[Candidate]:
    """Move every candidate line, under the vault lock; return what moved."""
    with vault.lock():
        found = candidates(vault, today=today, days=days)
        by_note: dict[str, list[Candidate]] = {}
        for c in found:
            by_note.setdefault(c.note, []).append(c)
        for rel, items in by_note.items():
            note = vault.path(rel)
            target = vault.path(vault.layout.forgotten) / note.name
            kept = vault.read(target)
            have = set(kept.splitlines())
            add = [c.line for c in items if c.line not in have]
            if add:
                body = kept if not kept or kept.endswith("\n") else kept + "\n"
                vault.write(target, body + "\n".join(add) + "\n")
            lines = vault.read(note).splitlines(keepends=True)
            drop = [c.line for c in items]
            out = []
            for line in lines:
                if line.rstrip("\r\n") in drop:
                    drop.remove(line.rstrip("\r\n"))
                    continue
                out.append(line)
            vault.write(note, "".join(out))
    return found
