"""The conflict queue of a PostgreSQL vault: a table, decided in transactions with row locks.

A decision locks its conflict row (``FOR UPDATE``), edits the note's text with the folder
vault's functions under the note's row lock (``remove_fact``, ``add_fact``), logs the decision
in ``cuecard_adjudications`` (with its line as the folder's adjudication log writes it) and
closes the conflict, all in one transaction: two people deciding the same conflict at once
apply one decision, the second finds it decided.
"""

from __future__ import annotations

import json
from pathlib import PurePosixPath

from cuecard.core.base._errors import NotFound, UsageError
from cuecard.core.vault._facts import bare
from cuecard.core.vault._layout import DEFAULT
from cuecard.core.vault._model import DECISIONS, Conflict
from cuecard.core.vault._notes import add_fact, remove_fact
from cuecard.core.vault.postgres._notes import lock_note, store_note
from cuecard.core.vault.postgres._vault import NOTE_IDS, PgVault

__all__ = ["adjudicate_pg", "queue_pg"]


def queue_pg(vault: PgVault) -> list[Conflict]:
    """The open conflicts, in queue order."""
    with vault.conn.transaction():
        rows = vault.conn.execute(
            "SELECT incoming, existing, source, note FROM cuecard_conflicts WHERE open ORDER BY seq"
        ).fetchall()
    return [Conflict(str(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]


def adjudicate_pg(vault: PgVault, ident: str, decision: str) -> Conflict:
    """Carry out a decision on one open conflict (by id or unique prefix)."""
    if decision not in DECISIONS:
        raise UsageError(f"--decision {decision!r}: choose one of {', '.join(DECISIONS)}")
    prefix = ident.strip().lower()
    with vault.conn.transaction():
        rows = vault.conn.execute(
            "SELECT id, incoming, existing, source, note FROM cuecard_conflicts "
            "WHERE open AND starts_with(id, %s) FOR UPDATE",
            (prefix,),
        ).fetchall()
        if not prefix or not rows:
            raise NotFound(f"conflict {ident!r}: not in the queue (see `cuecard vault conflicts`)")
        if len(rows) > 1:
            raise UsageError(f"conflict {ident!r}: the prefix names {len(rows)} conflicts")
        key, new, old, source, note = (str(v) for v in rows[0])
        conflict = Conflict(new, old, source, note)
        if note not in NOTE_IDS:
            note = DEFAULT.classify(new)
        if decision in ("use-new", "keep-both"):
            original = lock_note(vault, note)
            text = remove_fact(original, bare(old)) if decision == "use-new" else original
            text = add_fact(vault, text, new, PurePosixPath(source).name or "conflict")
            if text != original:
                store_note(vault, note, text)
            if decision == "use-new":  # the old fact may still wait to be promoted
                vault.conn.execute(
                    "DELETE FROM cuecard_pending WHERE note = %s AND fact = %s", (note, old)
                )
        now = vault.now()
        line = vault.layout.log_format.format(
            when=now.strftime("%Y-%m-%d %H:%M"),
            decision=vault.layout.decisions[decision],
            new=new,
            old=old,
        )
        vault.conn.execute(
            "INSERT INTO cuecard_adjudications (conflict, decision, detail, decided_at, line) "
            "VALUES (%s, %s, %s, %s, %s)",
            (key, decision, json.dumps({"new": new, "old": old}, ensure_ascii=False), now, line),
        )
        if decision != "defer":
            vault.conn.execute("UPDATE cuecard_conflicts SET open = false WHERE id = %s", (key,))
            _settle(vault, PurePosixPath(source).name)
    return conflict


def _settle(vault: PgVault, name: str) -> None:
    """Archive the reviewed submission ``name`` once nothing of it waits any more (no open
    conflict, no pending item): decided, it no longer counts as waiting. In the caller's
    transaction."""
    from cuecard.core.vault.postgres._promote import _archive

    waiting = vault.conn.execute(
        "SELECT (SELECT count(*) FROM cuecard_conflicts WHERE open AND source = %s) "
        "+ (SELECT count(*) FROM cuecard_pending WHERE source = %s)",
        (name, name),
    ).fetchone()
    if waiting is not None and int(waiting[0]) == 0:
        _archive(vault, [name])
