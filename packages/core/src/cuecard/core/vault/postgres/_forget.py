"""Forgetting on a PostgreSQL vault: stale, unprotected, unused lines move to ``cuecard_forgotten``.

The rules are the folder vault's own: ``_rules.pick`` runs over the notes' texts (read
from ``cuecard_notes``) and the last uses (``cuecard_facts.last_used``), so a line is a candidate
on PostgreSQL exactly when it would be in a folder holding the same notes and use records.
Candidates name their note by its folder file (``notes/environment.md``). Applying locks every
note row, removes each candidate line from its note's text with ``_notes.remove_fact``, adds it
to ``cuecard_forgotten`` under the note's file name (once: a line already there is not added
again) and brings the facts table in line, all in one transaction.
"""

from __future__ import annotations

from datetime import date

from cuecard.core.vault._facts import bare
from cuecard.core.vault._model import Candidate
from cuecard.core.vault._notes import remove_fact
from cuecard.core.vault._rules import pick
from cuecard.core.vault.postgres._notes import note_file_name, store_note
from cuecard.core.vault.postgres._vault import PgVault

__all__ = ["apply_forget_pg", "candidates_pg"]


class _Notes:
    """A PostgreSQL vault's note texts (note id -> text) and last uses, as read at once."""

    def __init__(self, notes: dict[str, str], uses: dict[str, date]) -> None:
        self.notes = notes
        self.uses = uses


def _view(vault: PgVault, *, lock: bool) -> _Notes:
    rows = vault.conn.execute(
        "SELECT note, text FROM cuecard_notes ORDER BY note FOR UPDATE"
        if lock
        else "SELECT note, text FROM cuecard_notes ORDER BY note"
    ).fetchall()
    uses = vault.conn.execute(
        "SELECT id, max(last_used) FROM cuecard_facts WHERE last_used IS NOT NULL GROUP BY id"
    ).fetchall()
    return _Notes({str(n): str(t) for n, t in rows}, {str(i): d for i, d in uses})


def _found(view: _Notes, today: date, days: int) -> list[Candidate]:
    """The folder's rules over the database's notes, in folder order (by file name), the index
    note left out, named as the folder names them (``notes/<file>``)."""
    notes = sorted((note_file_name(n), t) for n, t in view.notes.items() if n != "index")
    return pick(
        ((f"notes/{name}", text) for name, text in notes), view.uses, today=today, days=days
    )


def candidates_pg(vault: PgVault, *, today: date, days: int = 90) -> list[Candidate]:
    """Every line that forgetting would move now (reads only)."""
    with vault.conn.transaction():
        view = _view(vault, lock=False)
    return _found(view, today, days)


def apply_forget_pg(vault: PgVault, *, today: date, days: int = 90) -> list[Candidate]:
    """Move every candidate line to ``cuecard_forgotten`` in one transaction; what moved."""
    from cuecard.core.vault._facts import fact_id

    with vault.conn.transaction():
        view = _view(vault, lock=True)
        found = _found(view, today, days)
        by_note: dict[str, list[Candidate]] = {}
        for c in found:
            by_note.setdefault(c.note.rsplit("/", 1)[-1], []).append(c)
        names = {note_file_name(n): n for n in view.notes}
        for name, items in by_note.items():
            note = names[name]
            have = {
                str(r[0])
                for r in vault.conn.execute(
                    "SELECT line FROM cuecard_forgotten WHERE file = %s", (name,)
                ).fetchall()
            }
            add = list(dict.fromkeys(c.line for c in items if c.line not in have))
            with vault.conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO cuecard_forgotten (file, line, id) VALUES (%s, %s, %s)",
                    [(name, line, fact_id(bare(line))) for line in add],
                )
            text = view.notes[note]
            for c in items:
                text = remove_fact(text, bare(c.line))
            store_note(vault, note, text)
    return found
