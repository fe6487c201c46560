"""Review and apply on a PostgreSQL vault: the pending list is the table ``cuecard_pending``.

``review`` classifies every waiting submission as the folder vault does (the default layout's
keyword rules, duplicates, conflicts, supersessions), replaces the pending table, marks the
submissions it saw as reviewed and keeps the list's header time, in one transaction. ``apply``
promotes the pending rows in one transaction that holds them locked (``FOR UPDATE``) under the
promoters' advisory lock: two promoters never promote the same row, and a promoter killed
midway promotes nothing. Each note's text is edited by the folder vault's own functions under
its row lock (notes are locked in name order, as every writer locks them), so a promotion
writes the same note text on either backend; the promotion log gets the folder's lines.
"""

from __future__ import annotations

from cuecard.core.base._fsio import crash_point
from cuecard.core.engine._secrets import find_secret
from cuecard.core.vault._layout import DEFAULT
from cuecard.core.vault._model import Applied, Pending, Review
from cuecard.core.vault._notes import add_fact, has_fact, supersede
from cuecard.core.vault._rules import classify_submissions, distinct
from cuecard.core.vault.postgres._notes import lock_note, note_file_name, store_note
from cuecard.core.vault.postgres._vault import PgVault

__all__ = [
    "PENDING_TABLE",
    "apply_pg",
    "drop_pending",
    "pending_rows",
    "promotion_line",
    "review_pg",
]

PENDING_TABLE = "cuecard_pending"
_PROMOTE_LOCK = 0x70726F6D  # "prom": promoters and reviewers take turns


def _live(vault: PgVault, note: str) -> list[str]:
    rows = vault.conn.execute(
        "SELECT text FROM cuecard_facts WHERE note = %s AND status = 'active' ORDER BY position",
        (note,),
    ).fetchall()
    return [str(r[0]) for r in rows]


def review_pg(
    vault: PgVault, command: str = "cuecard vault apply", *, header: bool = True
) -> tuple[Review, int]:
    """Classify the waiting submissions into the pending table; (review, conflicts queued).

    The pending list's header (its time and ``command``) is kept as the folder's would be;
    ``header=False`` for a review that ``apply --auto`` runs, which writes no list there."""
    with vault.conn.transaction():
        vault.conn.execute("SELECT pg_advisory_xact_lock(%s)", (_PROMOTE_LOCK,))
        rows = vault.conn.execute(
            "SELECT name, body FROM cuecard_submissions WHERE status IN ('pending', 'reviewed') "
            "ORDER BY name FOR UPDATE"
        ).fetchall()
        result = classify_submissions(
            ((str(name), str(body)) for name, body in rows),
            DEFAULT.classify,
            lambda note: _live(vault, note),
        )
        queued = 0
        for c in distinct(result.conflicts, set()):
            # The same two facts wait once, whichever submissions brought the new one.
            cur = vault.conn.execute(
                "INSERT INTO cuecard_conflicts (id, note, existing, incoming, source) "
                "SELECT %s, %s, %s, %s, %s WHERE NOT EXISTS (SELECT 1 FROM cuecard_conflicts "
                "WHERE open AND note = %s AND existing = %s AND incoming = %s) "
                "ON CONFLICT (id) DO NOTHING",
                (c.id, c.note, c.old, c.new, c.source, c.note, c.old, c.new),
            )
            queued += cur.rowcount
        vault.conn.execute("DELETE FROM cuecard_pending")
        for p in result.pending:
            vault.conn.execute(
                "INSERT INTO cuecard_pending (fact, note, source, replaces) "
                "VALUES (%s, %s, %s, %s)",
                (p.fact, p.note, p.source, p.replaces),
            )
        vault.conn.execute(
            "UPDATE cuecard_submissions SET status = 'reviewed' WHERE name = ANY(%s) "
            "AND status IN ('pending', 'reviewed')",
            (result.sources,),
        )
        if header:
            vault.conn.execute(
                "INSERT INTO cuecard_pending_list (generated, command) VALUES (%s, %s) "
                "ON CONFLICT (one) DO UPDATE SET generated = EXCLUDED.generated, "
                "command = EXCLUDED.command",
                (vault.now().strftime("%Y-%m-%d %H:%M"), command),
            )
    return result, queued


def pending_rows(vault: PgVault) -> list[tuple[int, Pending]]:
    """The pending table: (id, item), in review order."""
    with vault.conn.transaction():
        rows = vault.conn.execute(
            "SELECT seq, fact, note, source, replaces FROM cuecard_pending ORDER BY seq"
        ).fetchall()
    return [(int(r[0]), Pending(str(r[1]), str(r[2]), str(r[3]), str(r[4]))) for r in rows]


def drop_pending(vault: PgVault, ident: int) -> Pending | None:
    """Remove one pending item (it will not be promoted); the item, or None if no such id."""
    with vault.conn.transaction():
        row = vault.conn.execute(
            "DELETE FROM cuecard_pending WHERE seq = %s RETURNING fact, note, source, replaces",
            (ident,),
        ).fetchone()
    if row is None:
        return None
    return Pending(str(row[0]), str(row[1]), str(row[2]), str(row[3]))


def _refusals(rows: list[tuple[int, Pending]]) -> list[str]:
    from cuecard.core.vault.postgres._vault import NOTE_IDS

    refusals = []
    for seq, p in rows:
        if p.note not in NOTE_IDS:
            refusals.append(
                f"pending item {seq}: note {p.note!r} is not one of {', '.join(NOTE_IDS)}"
            )
        if not p.fact:
            refusals.append(f"pending item {seq}: the fact is empty")
        secret = find_secret(p.fact)
        if secret is not None:
            refusals.append(f"pending item {seq}: looks like a plaintext credential ({secret})")
    return refusals


def _promote_note(vault: PgVault, note: str, items: list[Pending], done: Applied) -> None:
    """Edit one note's text as the folder vault's promotion does, under its row lock."""
    original = lock_note(vault, note)
    text = original
    for p in items:
        if has_fact(text, p.fact):
            done.skipped += 1
            continue
        text = add_fact(
            vault, supersede(vault, text, p.replaces) if p.replaces else text, p.fact, p.source
        )
        done.promoted.append(p)
    if text != original:
        store_note(vault, note, text)


def apply_pg(vault: PgVault, command: str = "cuecard vault apply") -> Applied:
    """Promote every pending row and archive the reviewed submissions, in one transaction.

    Each note's text is edited by the folder vault's functions (``add_fact``, ``supersede``),
    so a promotion writes the same note text on either backend; each promoted fact gets a line
    in ``cuecard_promotions`` as the folder's promotion log writes it.
    """
    from cuecard.core.base._errors import ValidationError

    done = Applied()
    with vault.conn.transaction():
        vault.conn.execute("SELECT pg_advisory_xact_lock(%s)", (_PROMOTE_LOCK,))
        rows = [
            (int(r[0]), Pending(str(r[1]), str(r[2]), str(r[3]), str(r[4])))
            for r in vault.conn.execute(
                "SELECT seq, fact, note, source, replaces FROM cuecard_pending ORDER BY seq "
                "FOR UPDATE"
            ).fetchall()
        ]
        refusals = _refusals(rows)
        if refusals:
            raise ValidationError(["nothing applied:", *refusals])
        by_note: dict[str, list[Pending]] = {}
        for _, p in rows:
            by_note.setdefault(p.note, []).append(p)
        for note in sorted(by_note):  # every writer locks notes in this order: no deadlock
            lock_note(vault, note)
        for note, items in by_note.items():
            _promote_note(vault, note, items, done)
            crash_point("vault-apply-note")
        now = vault.now()
        when = now.strftime("%Y-%m-%d %H:%M")
        if done.promoted:
            with vault.conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO cuecard_promotions (submission, added, detail, promoted_at, line) "
                    "VALUES (%s, 1, %s, %s, %s)",
                    [
                        (
                            p.source,
                            f"{p.note} | {p.fact}",
                            now,
                            promotion_line(when, p.note, p.fact),
                        )
                        for p in done.promoted
                    ],
                )
        done.archived = _archive(vault)
        vault.conn.execute("DELETE FROM cuecard_pending")
        vault.conn.execute(
            "UPDATE cuecard_pending_list SET generated = %s, command = %s", (when, command)
        )
        crash_point("vault-apply-archived")
    return done


def _archive(vault: PgVault, names: list[str] | None = None) -> list[str]:
    """Mark the reviewed submissions (those of ``names`` only, when given) processed, each under
    a name no processed one holds (``NAME-2.md``, ``NAME-3.md``, ... as the folder's archiving
    names a taken one)."""
    if names is None:
        rows = vault.conn.execute(
            "SELECT seq, name FROM cuecard_submissions WHERE status = 'reviewed' ORDER BY name"
        ).fetchall()
    else:
        rows = vault.conn.execute(
            "SELECT seq, name FROM cuecard_submissions WHERE status = 'reviewed' "
            "AND name = ANY(%s) ORDER BY name",
            (names,),
        ).fetchall()
    for seq, name in rows:
        stem = str(name)[:-3] if str(name).endswith(".md") else str(name)
        taken = {
            str(r[0])
            for r in vault.conn.execute(
                "SELECT name FROM cuecard_submissions WHERE status = 'processed' "
                "AND starts_with(name, %s)",
                (stem,),
            ).fetchall()
        }
        n = 1
        while (target := str(name) if n == 1 else f"{stem}-{n}.md") in taken:
            n += 1
        vault.conn.execute(
            "UPDATE cuecard_submissions SET status = 'processed', name = %s WHERE seq = %s",
            (target, seq),
        )
    return sorted(str(r[1]) for r in rows)


def promotion_line(when: str, note: str, fact: str) -> str:
    """A promotion log line as the folder vault writes it (``_promote._log``)."""
    return f"- {when} | {note_file_name(note)} | {fact}"
