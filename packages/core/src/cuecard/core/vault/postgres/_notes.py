"""A PostgreSQL vault's notes as documents: ``cuecard_notes.text`` is the note; facts derive.

Each canonical note is one row holding the whole document exactly as a folder vault's note file
holds it (prose, headings, fact lines with their stamps, the superseded section). Every edit is
made by the folder vault's own pure functions (``_notes``) on that text, under a row lock on the
note (``SELECT ... FOR UPDATE``), and ``cuecard_facts`` (the searchable table) is brought in
line in the same transaction by a diff on fact id: new ids are inserted, gone ids deleted, and
only rows whose line, position, status or headings changed are updated (``context``: the
headings a fact sits under, searched with it as the folder vault's index does, and ``dates``:
the date terms of the fact and its headings), so surviving facts keep their ``uses`` and
``last_used``; only new or changed lines are redacted again. A fact id that occurs twice in a
note keeps its first line.
"""

from __future__ import annotations

import re
from typing import Any

from cuecard.core.vault._layout import DEFAULT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.vault._facts import NoteFact
    from cuecard.core.vault.postgres._conn import Connected

__all__ = [
    "derive_facts",
    "fact_contexts",
    "fact_dates",
    "lock_note",
    "note_file_name",
    "note_id_of_file",
    "stamp_source",
    "store_note",
]

_SOURCE = re.compile(
    r"\(written \d{4}-\d{2}-\d{2} ?[｜|] ?source: ?(?:inbox/)?([^)]*)\)|（写入 "
    r"\d{4}-\d{2}-\d{2}｜来源：(?:Agent提交区/)?([^）]*)）"
)


def note_file_name(note_id: str) -> str:
    """The file a default-layout folder vault keeps a note in: ``env`` -> ``environment.md``."""
    if note_id == "other":
        return DEFAULT.catch_all.rsplit("/", 1)[-1]
    names = DEFAULT.notes.get(note_id)
    return names[0] if names else f"{note_id}.md"  # a note no layout names: its id


def note_id_of_file(name: str) -> str | None:
    """The note id of a default-layout note file name, if it is one."""
    from cuecard.core.vault._shared import NOTE_IDS

    return next((n for n in NOTE_IDS if note_file_name(n) == name), None)


def stamp_source(line: str) -> str | None:
    """The submission a fact line's stamp names (``source: inbox/NAME``), if it has a stamp."""
    found = _SOURCE.search(line)
    if found is None:
        return None
    return (found.group(1) or found.group(2) or "").strip() or None


def _placed(text: str) -> dict[str, tuple[int, NoteFact, str, str]]:
    """Fact id -> (position, fact line, status, headings) in a note's text; the first line of
    an id wins. The headings are those the folder vault's search indexes a fact with."""
    from cuecard.core.vault._facts import fact_id, note_facts

    placed: dict[str, tuple[int, NoteFact, str, str]] = {}
    for position, fact in enumerate(note_facts(text), 1):
        status = "superseded" if fact.superseded else "placeholder" if fact.placeholder else ""
        placed.setdefault(fact_id(fact.text), (position, fact, status or "active", fact.context))
    return placed


def fact_contexts(text: str) -> dict[str, str]:
    """Fact id -> the headings a note's text puts it under, redacted (``cuecard_facts.context``)."""
    return {ident: _redacted(context) for ident, (*_, context) in _placed(text).items()}


def _redacted(context: str) -> str:
    from cuecard.core.engine._secrets import redact

    return redact(context) if context else ""


def fact_dates(text: str, context: str) -> str:
    """The date terms a fact is searched by (``cuecard_facts.dates``), from its redacted text
    and headings: those of its text and of its innermost dated heading, as the folder vault's
    index and the mirror give an entry (``recall._dates``)."""
    from cuecard.core.recall._dates import date_terms, dated

    return " ".join(dict.fromkeys((*date_terms(text), *dated(context))))


def _columns(fact: NoteFact, context: str) -> tuple[Any, ...]:
    """What a fact line gives its row: (line, text, shown, source, written, context, dates)."""
    from cuecard.core.engine._secrets import redact
    from cuecard.core.engine._text import neutralise
    from cuecard.core.vault._facts import stamp_date

    text, heads = redact(fact.text), _redacted(context)
    return (
        fact.line,
        text,
        neutralise(redact(fact.line.strip())),
        stamp_source(fact.line),
        stamp_date(fact.line),
        heads,
        fact_dates(text, heads),
    )


def derive_facts(text: str) -> dict[str, tuple[Any, ...]]:
    """Fact id -> the ``cuecard_facts`` row a note's text gives it (first line of an id wins):
    (position, line, text, shown, status, source, written, context, dates)."""
    rows: dict[str, tuple[Any, ...]] = {}
    for ident, (position, fact, status, context) in _placed(text).items():
        line, redacted, shown, source, written, heads, dates = _columns(fact, context)
        rows[ident] = (position, line, redacted, shown, status, source, written, heads, dates)
    return rows


def lock_note(vault: Connected, note: str) -> str:
    """The note's text, its row locked until the transaction ends (created from its template
    when missing). Call inside a transaction."""
    vault.conn.execute(
        "INSERT INTO cuecard_notes (note, text) VALUES (%s, %s) ON CONFLICT (note) DO NOTHING",
        (note, DEFAULT.notes_templates.get(note, "")),
    )
    row = vault.conn.execute(
        "SELECT text FROM cuecard_notes WHERE note = %s FOR UPDATE", (note,)
    ).fetchone()
    return str(row[0]) if row else ""


def store_note(vault: Connected, note: str, text: str) -> int:
    """Write a note's text and bring its facts in line (see the module docstring); the number
    of facts inserted. Call inside a transaction, after ``lock_note`` for an edit."""
    conn = vault.conn
    conn.execute(
        "INSERT INTO cuecard_notes (note, text) VALUES (%s, %s) ON CONFLICT (note) DO UPDATE "
        "SET text = EXCLUDED.text, updated_at = now() WHERE cuecard_notes.text <> EXCLUDED.text",
        (note, text),
    )
    placed = _placed(text)
    have = {
        str(r[0]): (int(r[1]), str(r[2]), str(r[3]), str(r[4]))
        for r in conn.execute(
            "SELECT id, position, line, status, context FROM cuecard_facts WHERE note = %s",
            (note,),
        ).fetchall()
    }
    gone = [ident for ident in have if ident not in placed]
    new, changed, moved = [], [], []
    for ident, (position, fact, status, context) in placed.items():
        old = have.get(ident)
        if old is None:
            new.append((note, ident, position, status, *_columns(fact, context)))
        elif old[1] != fact.line or old[3] != _redacted(context):
            changed.append((position, status, *_columns(fact, context), note, ident))
        elif (old[0], old[2]) != (position, status):
            moved.append((ident, position, status))
    if gone:
        conn.execute("DELETE FROM cuecard_facts WHERE note = %s AND id = ANY(%s)", (note, gone))
    if moved:  # one statement: an edit near the top of a long note moves every line below
        ids, positions, states = (list(column) for column in zip(*moved, strict=True))
        conn.execute(
            "UPDATE cuecard_facts f SET position = m.position, status = m.status "
            "FROM unnest(%s::text[], %s::int[], %s::text[]) AS m(id, position, status) "
            "WHERE f.note = %s AND f.id = m.id",
            (ids, positions, states, note),
        )
    with conn.cursor() as cur:
        if changed:
            cur.executemany(
                "UPDATE cuecard_facts SET position = %s, status = %s, line = %s, text = %s, "
                "shown = %s, source = %s, written = %s, context = %s, dates = %s "
                "WHERE note = %s AND id = %s",
                changed,
            )
    if new:  # one statement: the search postings' trigger then runs once for all of them
        columns = [list(column) for column in zip(*new, strict=True)]
        conn.execute(
            "INSERT INTO cuecard_facts (note, id, position, status, line, text, shown, "
            "source, written, context, dates) SELECT * FROM unnest(%s::text[], %s::text[], "
            "%s::int[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], "
            "%s::date[], %s::text[], %s::text[])",
            columns,
        )
    return len(new)
