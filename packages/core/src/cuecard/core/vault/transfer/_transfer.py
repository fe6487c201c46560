"""Moving a vault between a folder and PostgreSQL, both ways: ``vault export`` / ``vault import``.

Into PostgreSQL the target must be migrated and empty (nothing but the notes' templates); into a
folder the target must hold no vault yet (a default-layout vault is created there). A folder of
either layout imports (its names mapped through its layout: note files, the inbox, logs, the
forgotten and sessions folders); export always writes the default layout.

What "identical" means. Folder -> PostgreSQL -> a new folder, for a default-layout vault that
cuecard wrote: every file under the vault root is byte-identical except ``.lock``, namely
  - each canonical note (``cuecard_notes.text``, byte for byte: prose, headings, fact lines,
    the superseded section; a note the folder lacks is absent from both);
  - the inbox and processed submissions (``cuecard_submissions``: waiting ones ``pending`` or,
    when the pending list names them, ``reviewed``; ``processed``), byte for byte;
  - ``review/pending.md`` (rows of ``cuecard_pending`` plus its header time and command in
    ``cuecard_pending_list``), ``review/conflicts.md`` (the open conflicts in order; the file
    exists once any conflict was queued), ``review/adjudicated.md`` and ``review/promoted.md``
    (one row per line, ``line`` as written: lines that do not parse move too, as lines),
    ``forgotten/*.md`` (``cuecard_forgotten``, one row per line) and ``sessions/*.md``
    (``cuecard_archives``, byte for byte); the READMEs are the ones ``vault init`` writes;
and, in the vault's cache folder, the use records say the same (per fact id: the number of uses
and the last day; ``usage.log`` is rewritten one line per use) and the digest cursor holds the
same entries (``digest-cursor.json`` key ``sessions/<day>.md`` <-> ``cuecard_digest_cursor`` row
``<day>.md``). Not byte-identical: a pending list edited by hand (ticked or deleted items are left
out and the rest renumbered, as ``apply`` would read it), log headers edited by hand (the
standard header is written back), a log or forgotten file without a final line break (it
gets one), READMEs edited by hand (``vault init``'s come back), and a UAM-layout vault (its
wording of pending items, conflicts and log lines becomes the default's; its fact stamps and
notes' text are kept as written). Not carried at all: notes other than the eight canonical
ones, files cuecard does not write (an editor's settings, attachments), and the recall index
(rebuilt on first search). Use records of fact ids that no
note holds any more (forgotten or removed facts) are dropped: on PostgreSQL uses live on facts.

PostgreSQL -> a folder -> a new database: every table holds the same rows, except what the
folder cannot hold: serial numbers (``seq`` of submissions, pending items, conflicts,
adjudications, promotions, forgotten lines; the order is kept), timestamps (``submitted_at``,
``reviewed_at``, ``created_at``, ``updated_at``, ``forgotten_at``, ``promoted_at`` of facts;
``decided_at`` and ``promotions.promoted_at`` keep their minute, read back from the log line),
``cuecard_schema``, submissions marked ``dropped`` (the folder has no place for them), closed
conflicts (the folder keeps only the open queue; each decision stays in the adjudication log),
``cuecard_adjudications.conflict`` of a decision whose conflict is closed (the log line does not
name it; it reads back empty), and ``cuecard_promotions.submission`` when the promoted line no
longer carries its stamp (read back from the fact's stamp otherwise).
"""

from __future__ import annotations

from pathlib import Path

from cuecard.core.vault._errors import VaultError
from cuecard.core.vault._model import Moved
from cuecard.core.vault.folder._vault import Vault
from cuecard.core.vault.postgres._vault import NOTE_IDS, PgVault

__all__ = ["Moved", "folder_to_pg", "pg_to_folder"]

# Rows in any table but the notes (which hold their templates after migrate-db).
_COUNT = """
SELECT (SELECT count(*) FROM cuecard_facts) + (SELECT count(*) FROM cuecard_submissions)
     + (SELECT count(*) FROM cuecard_conflicts) + (SELECT count(*) FROM cuecard_pending)
     + (SELECT count(*) FROM cuecard_pending_list) + (SELECT count(*) FROM cuecard_adjudications)
     + (SELECT count(*) FROM cuecard_promotions) + (SELECT count(*) FROM cuecard_forgotten)
     + (SELECT count(*) FROM cuecard_archives) + (SELECT count(*) FROM cuecard_digest_cursor)
"""


def _require_empty(pg: PgVault) -> None:
    row = pg.conn.execute(_COUNT).fetchone()
    pg.conn.commit()
    if row is None or int(row[0]) != 0:
        raise VaultError(
            f"PostgreSQL vault {pg.url}: not empty; import into a freshly migrated database"
        )


def folder_to_pg(vault: Vault, pg: PgVault) -> Moved:
    """Copy a folder vault into an empty PostgreSQL vault, in one transaction."""
    from cuecard.core.vault.transfer._import import (
        import_logs,
        import_queues,
        import_records,
        optional_text,
    )

    _require_empty(pg)
    moved = Moved()
    with pg.conn.transaction():
        for note in NOTE_IDS:
            text = optional_text(vault.tree, vault.rel(vault.note_file(note)))
            if text is None:
                pg.conn.execute("DELETE FROM cuecard_notes WHERE note = %s", (note,))
                continue
            moved.facts += pg.add_note_text(note, text)
            moved.notes.append(note)
        import_queues(vault, pg, moved)
        import_logs(vault, pg, moved)
        import_records(vault, pg, moved)
    return moved


def pg_to_folder(pg: PgVault, root: Path) -> Moved:
    """Copy a PostgreSQL vault into a new default-layout folder vault (one consistent read)."""
    from cuecard.core.vault._layout import DEFAULT
    from cuecard.core.vault.folder._init import init_vault
    from cuecard.core.vault.transfer._export import (
        check_names,
        read_all,
        write_logs,
        write_queues,
        write_records,
    )

    with pg.conn.transaction():
        pg.conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        held = read_all(pg)
    check_names(held)
    vault, _ = init_vault(root, DEFAULT)
    moved = Moved()
    notes = dict(held["notes"])
    for note in NOTE_IDS:
        path = vault.note_file(note)
        if note not in notes:
            vault.tree.remove(vault.rel(path))
            continue
        vault.write(path, notes[note])
        moved.notes.append(note)
    moved.facts = int(held["facts"])
    write_queues(vault, held, moved)
    write_logs(vault, held, moved)
    write_records(vault, held, moved)
    return moved
