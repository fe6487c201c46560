"""Review and apply on a PostgreSQL vault: the pending list is the table ``cuecard_pending``.

``review`` classifies every waiting submission as the folder vault does (the default layout's
keyword rules, duplicates, conflicts, supersessions), replaces the pending table and marks the
submissions it saw as reviewed, in one transaction. ``apply`` promotes the pending rows in one
transaction that holds them locked (``FOR UPDATE``) under the promoters' advisory lock: two
promoters never promote the same row, and a promoter killed midway promotes nothing.
"""

from __future__ import annotations

from cuecard.core._fsio import crash_point
from cuecard.core._text import neutralise
from cuecard.core.vault._conflicts import Conflict
from cuecard.core.vault._facts import best_overlap, classify_against, fact_id, inbox_facts
from cuecard.core.vault._layout import DEFAULT
from cuecard.core.vault._pg import PgVault
from cuecard.core.vault._promote import SUPERSESSION, Applied, Pending, Review
from cuecard.core.vault._secrets import find_credential, redact_credentials

__all__ = [
    "PENDING_TABLE",
    "apply_pg",
    "drop_pending",
    "insert_fact",
    "pending_rows",
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


def review_pg(vault: PgVault) -> tuple[Review, int]:
    """Classify the waiting submissions into the pending table; (review, conflicts queued)."""
    result = Review()
    known: dict[str, list[str]] = {}
    with vault.conn.transaction():
        vault.conn.execute("SELECT pg_advisory_xact_lock(%s)", (_PROMOTE_LOCK,))
        rows = vault.conn.execute(
            "SELECT name, body FROM cuecard_submissions WHERE status IN ('pending', 'reviewed') "
            "ORDER BY name FOR UPDATE"
        ).fetchall()
        for name, body in rows:
            result.sources.append(str(name))
            for raw in inbox_facts(str(body)):
                fact = neutralise(redact_credentials(raw)).strip()
                if not fact:
                    continue
                note = DEFAULT.classify(fact)
                existing = known.setdefault(note, _live(vault, note))
                status, hit = classify_against(fact, existing)
                if status == "duplicate":
                    result.duplicates += 1
                    continue
                replaces = ""
                if status == "conflict" and hit is not None:
                    if not SUPERSESSION.search(fact):
                        result.conflicts.append(Conflict(fact, hit, str(name), note))
                        continue
                    replaces = hit
                elif SUPERSESSION.search(fact):
                    replaces = best_overlap(fact, existing, 0.3) or ""
                if replaces:
                    result.supersessions += 1
                result.pending.append(Pending(fact, note, str(name), replaces))
                existing.append(fact)
        queued = 0
        for c in dict.fromkeys(result.conflicts):
            cur = vault.conn.execute(
                "INSERT INTO cuecard_conflicts (id, note, existing, incoming, source) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
                (c.id, c.note, c.old, c.new, c.source),
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
            "UPDATE cuecard_submissions SET status = 'reviewed' WHERE name = ANY(%s)",
            (result.sources,),
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


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


def insert_fact(vault: PgVault, note: str, fact: str, source: str) -> None:
    """Add a live, stamped fact at the end of a note (revive it if it was superseded)."""
    today = vault.now().date()
    line = "- " + fact + DEFAULT.stamp.format(date=today.isoformat(), source=source)
    vault.conn.execute(
        "INSERT INTO cuecard_facts (note, id, position, line, text, shown, source, "
        "written) VALUES (%s, %s, (SELECT coalesce(max(position), 0) + 1 FROM "
        "cuecard_facts WHERE note = %s), %s, %s, %s, %s, %s) "
        "ON CONFLICT (note, id) DO UPDATE SET status = 'active', line = EXCLUDED.line, "
        "shown = EXCLUDED.shown, source = EXCLUDED.source, written = EXCLUDED.written",
        (
            note,
            fact_id(fact),
            note,
            line,
            redact_credentials(fact),
            neutralise(redact_credentials(line)),
            source,
            today,
        ),
    )


def apply_pg(vault: PgVault) -> Applied:
    """Promote every pending row and archive the reviewed submissions, in one transaction."""
    from cuecard.core._errors import ValidationError

    done = Applied()
    with vault.conn.transaction():
        vault.conn.execute("SELECT pg_advisory_xact_lock(%s)", (_PROMOTE_LOCK,))
        rows = vault.conn.execute(
            "SELECT seq, fact, note, source, replaces FROM cuecard_pending ORDER BY seq FOR UPDATE"
        ).fetchall()
        entries = [Pending(str(r[1]), str(r[2]), str(r[3]), str(r[4])) for r in rows]
        refusals = [
            f"pending item {r[0]}: looks like a plaintext credential ({secret})"
            for r, p in zip(rows, entries, strict=True)
            if (secret := find_credential(p.fact)) is not None
        ]
        if refusals:
            raise ValidationError(["nothing applied:", *refusals])
        for p in entries:
            live = {_key(t) for t in _live(vault, p.note)}
            if _key(p.fact) in live:
                done.skipped += 1
                continue
            if p.replaces:
                vault.conn.execute(
                    "UPDATE cuecard_facts SET status = 'superseded' "
                    "WHERE note = %s AND status = 'active' AND text = %s",
                    (p.note, p.replaces),
                )
            insert_fact(vault, p.note, p.fact, p.source)
            vault.conn.execute(
                "INSERT INTO cuecard_promotions (submission, added, detail) VALUES (%s, 1, %s)",
                (p.source, f"{p.note} | {p.fact}"),
            )
            done.promoted.append(p)
            crash_point("vault-apply-note")
        archived = vault.conn.execute(
            "UPDATE cuecard_submissions SET status = 'processed' WHERE status = 'reviewed' "
            "RETURNING name"
        ).fetchall()
        done.archived = sorted(str(r[0]) for r in archived)
        vault.conn.execute("DELETE FROM cuecard_pending")
        crash_point("vault-apply-archived")
    return done
