"""Forgetting: stale, unprotected, unused facts move to the forgotten folder (never deleted).

A fact is a candidate when it has a promotion stamp at least ``days`` old, names nothing
protected (paths, servers, ports, accounts, rules, agents, ... or a ``#keep`` tag), and was not
returned by ``search`` or ``show`` (nor tagged as used) within ``days``. Lines without a stamp
(written by hand or by a template) are never forgotten. Applying moves each line to
``<forgotten>/<note file name>``: the forgotten copy is written before the note is rewritten, so
a crash can leave a line in both places, never in neither.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from cuecard.core._fsio import atomic_write
from cuecard.core.vault._facts import fact_id, note_facts, stamp_date, usage_tag
from cuecard.core.vault.folder._vault import Vault

__all__ = ["PROTECTED", "Candidate", "apply_forget", "candidates", "pick"]

PROTECTED = re.compile(
    r"\b(?:path|director|config|prefer|account|server|port\b|ports\b|credential|password"
    r"|secret|model|domain|backup|script|rule|coordinat|agent|vault|endpoint|api\b|url)"
    r"|#keep\b|路径|目录|配置|偏好|账号|服务器|端口|凭据|密码|密钥|规则|协作|模型|域名|备份|脚本",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Candidate:
    """A fact line that would be forgotten."""

    note: str
    """Vault-relative note path."""
    line: str
    id: str
    stamped: date
    last_used: date | None


def pick(
    notes: Iterable[tuple[str, str]], uses: dict[str, date], *, today: date, days: int = 90
) -> list[Candidate]:
    """The lines to forget among ``notes`` (vault-relative path, text; the index note left out
    by the caller), given each fact's last use. Pure: both backends feed it their notes."""
    found = []
    for rel, text in notes:
        for fact in note_facts(text):
            if fact.superseded or fact.placeholder or PROTECTED.search(fact.text):
                continue
            stamped = stamp_date(fact.line)
            if stamped is None or (today - stamped).days < days:
                continue
            ident = fact_id(fact.text)
            count, tagged = usage_tag(fact.line)
            last = max(
                (d for d in (uses.get(ident), tagged or (stamped if count else None)) if d),
                default=None,
            )
            if last is not None and (today - last).days < days:
                continue
            found.append(Candidate(rel, fact.line, ident, stamped, last))
    return found


def candidates(vault: Vault, *, today: date, days: int = 90) -> list[Candidate]:
    """Every line that forgetting would move now."""
    index_file = vault.note_file("index")
    notes = (
        (rel, path.read_text(encoding="utf-8", errors="replace"))
        for rel, path in vault.iter_notes()
        if path != index_file
    )
    return pick(notes, vault.last_uses(), today=today, days=days)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return ""


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
            kept = _read(target)
            have = set(kept.splitlines())
            add = [c.line for c in items if c.line not in have]
            if add:
                body = kept if not kept or kept.endswith("\n") else kept + "\n"
                atomic_write(target, body + "\n".join(add) + "\n")
            lines = _read(note).splitlines(keepends=True)
            drop = [c.line for c in items]
            out = []
            for line in lines:
                if line.rstrip("\r\n") in drop:
                    drop.remove(line.rstrip("\r\n"))
                    continue
                out.append(line)
            atomic_write(note, "".join(out))
    return found
