"""Moving a vault between a folder and PostgreSQL, both ways: ``vault export`` / ``vault import``.

What moves: every canonical note's fact lines as written (stamps included), in order, with their
state (live, superseded, template example); the inbox submissions waiting and the processed
ones, byte for byte; the open conflicts; the day each fact was last used. Into PostgreSQL the
target must be migrated and empty; into a folder the target must not hold a vault yet (a
default-layout vault is created there). A note's prose around its fact lines (headings other
than the superseded one, paragraphs) is not carried: the database holds facts, not prose.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from cuecard.core.vault._errors import VaultError
from cuecard.core.vault._pg import NOTE_IDS, PgVault
from cuecard.core.vault._vault import Vault

__all__ = ["Moved", "folder_to_pg", "pg_to_folder"]


@dataclass
class Moved:
    """What a transfer carried."""

    facts: int = 0
    submissions: int = 0
    processed: int = 0
    conflicts: int = 0
    notes: list[str] = field(default_factory=list)


def _agent(name: str) -> str:
    parts = name[:-3].rsplit("-", 3) if name.endswith(".md") else [name]
    return parts[0] if len(parts) == 4 else "unknown"


def _md_files(folder: Path) -> list[Path]:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    return sorted(
        folder / e.name
        for e in entries
        if e.name.endswith(".md")
        and e.name.lower() != "readme.md"
        and not e.name.startswith(".")
        and e.is_file(follow_symlinks=False)
    )


def _require_empty(pg: PgVault) -> None:
    row = pg.conn.execute(
        "SELECT (SELECT count(*) FROM cuecard_facts) + (SELECT count(*) FROM "
        "cuecard_submissions) + (SELECT count(*) FROM cuecard_conflicts)"
    ).fetchone()
    pg.conn.commit()
    if row is None or int(row[0]) != 0:
        raise VaultError(
            f"PostgreSQL vault {pg.url}: not empty; import into a freshly migrated database"
        )


def folder_to_pg(vault: Vault, pg: PgVault) -> Moved:
    """Copy a folder vault into an empty PostgreSQL vault, in one transaction."""
    from cuecard.core.vault._conflicts import queue
    from cuecard.core.vault._facts import inbox_facts

    _require_empty(pg)
    moved = Moved()
    with pg.conn.transaction():
        for note in NOTE_IDS:
            path = vault.note_file(note)
            if path.is_symlink() or not path.is_file():
                continue
            moved.facts += pg.add_note_text(note, path.read_text(encoding="utf-8"))
            moved.notes.append(note)
        for status, folder in (("pending", vault.inbox), ("processed", vault.processed)):
            for path in _md_files(folder):
                body = path.read_text(encoding="utf-8")
                pg.conn.execute(
                    "INSERT INTO cuecard_submissions (name, agent, body, facts, status) "
                    "VALUES (%s, %s, %s, %s, %s)",
                    (path.name, _agent(path.name), body, len(inbox_facts(body)), status),
                )
                if status == "pending":
                    moved.submissions += 1
                else:
                    moved.processed += 1
        for c in queue(vault):
            pg.conn.execute(
                "INSERT INTO cuecard_conflicts (id, note, existing, incoming, source) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
                (c.id, c.note, c.old, c.new, c.source),
            )
            moved.conflicts += 1
        for ident, day in vault.last_uses().items():
            pg.conn.execute(
                "UPDATE cuecard_facts SET last_used = %s, uses = greatest(uses, 1) WHERE id = %s",
                (day, ident),
            )
    return moved


def pg_to_folder(pg: PgVault, root: Path) -> Moved:
    """Copy a PostgreSQL vault into a new default-layout folder vault."""
    from cuecard.core._fsio import atomic_write
    from cuecard.core.vault._conflicts import queue_conflicts
    from cuecard.core.vault._init import init_vault
    from cuecard.core.vault._layout import DEFAULT
    from cuecard.core.vault._pg_conflicts import queue_pg
    from cuecard.core.vault._recall import record_use

    vault, _ = init_vault(root, DEFAULT)
    moved = Moved()
    with pg.conn.transaction():
        rows = pg.conn.execute(
            "SELECT note, line, status, id, last_used FROM cuecard_facts ORDER BY note, position"
        ).fetchall()
        submissions = pg.conn.execute(
            "SELECT name, body, status FROM cuecard_submissions "
            "WHERE status IN ('pending', 'reviewed', 'processed') ORDER BY seq"
        ).fetchall()
    by_note: dict[str, list[tuple[str, str]]] = {}
    uses: dict[str, list[str]] = {}
    for note, line, status, ident, last_used in rows:
        by_note.setdefault(str(note), []).append((str(line), str(status)))
        if last_used is not None:
            uses.setdefault(last_used.isoformat(), []).append(str(ident))
    for note in NOTE_IDS:
        lines = by_note.get(note)
        if not lines:
            continue
        live = [line for line, status in lines if status != "superseded"]
        old = [line for line, status in lines if status == "superseded"]
        text = f"# {note}\n\n" + "".join(f"{line}\n" for line in live)
        if old:
            text += f"\n{DEFAULT.superseded_heading}\n\n" + "".join(f"{line}\n" for line in old)
        atomic_write(vault.note_file(note), text)
        moved.facts += len(lines)
        moved.notes.append(note)
    vault.processed.mkdir(parents=True, exist_ok=True)
    for name, body, status in submissions:
        folder = vault.processed if status == "processed" else vault.inbox
        atomic_write(folder / str(name), str(body))
        if status == "processed":
            moved.processed += 1
        else:
            moved.submissions += 1
    conflicts = queue_pg(pg)
    with vault.lock():
        moved.conflicts = queue_conflicts(vault, conflicts)
    for day, ids in sorted(uses.items()):
        record_use(str(vault.cache_dir), ids, day)
    return moved
