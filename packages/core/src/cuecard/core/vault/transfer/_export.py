"""Writing a PostgreSQL vault's queues, logs and records into a new default-layout folder.

The parts of ``_transfer.pg_to_folder`` after the notes. ``read_all`` reads everything in
the caller's (repeatable-read) transaction; the writers only write files. Names that come from
the database are checked before any file is written under them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from cuecard.core.vault._errors import VaultError
from cuecard.core.vault._layout import DEFAULT
from cuecard.core.vault.folder._vault import Vault
from cuecard.core.vault.postgres._vault import PgVault

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.vault._model import Moved

__all__ = ["check_names", "read_all", "write_logs", "write_queues", "write_records"]

_QUERIES: dict[str, str] = {
    "notes": "SELECT note, text FROM cuecard_notes ORDER BY note",
    "submissions": "SELECT name, body, status FROM cuecard_submissions "
    "WHERE status <> 'dropped' ORDER BY seq",
    "pending": "SELECT fact, note, source, replaces FROM cuecard_pending ORDER BY seq",
    "pending_list": "SELECT generated, command FROM cuecard_pending_list",
    "conflicts": "SELECT incoming, existing, source, note, open FROM cuecard_conflicts "
    "ORDER BY seq",
    "adjudications": "SELECT decision, detail, decided_at, line FROM cuecard_adjudications "
    "ORDER BY seq",
    "promotions": "SELECT detail, promoted_at, line FROM cuecard_promotions ORDER BY seq",
    "forgotten": "SELECT file, line FROM cuecard_forgotten ORDER BY seq",
    "archives": "SELECT name, text FROM cuecard_archives ORDER BY name",
    "uses": "SELECT id, max(uses), max(last_used) FROM cuecard_facts "
    "WHERE last_used IS NOT NULL AND uses > 0 GROUP BY id",
    "cursor": "SELECT name, size, sha256 FROM cuecard_digest_cursor ORDER BY name",
}


def read_all(pg: PgVault) -> dict[str, Any]:
    """Every table's rows the folder holds, by part (``facts``: the number of fact rows)."""
    held: dict[str, Any] = {part: pg.conn.execute(sql).fetchall() for part, sql in _QUERIES.items()}
    row = pg.conn.execute("SELECT count(*) FROM cuecard_facts").fetchone()
    held["facts"] = int(row[0]) if row else 0
    return held


def _name(name: object, what: str) -> str:
    """A file name from the database, refused unless it is a plain ``NAME.md``."""
    text = str(name)
    if "/" in text or "\\" in text or text.startswith(".") or not text.endswith(".md"):
        raise VaultError(f"{what} {text!r}: not a plain NAME.md file name; nothing written")
    return text


def check_names(held: dict[str, Any]) -> None:
    """Refuse, before anything is written, a file name from the database that is not plain."""
    for part, what in (
        ("submissions", "submission"),
        ("forgotten", "forgotten file"),
        ("archives", "session archive"),
        ("cursor", "digest cursor entry"),
    ):
        for row in held[part]:
            _name(row[0], what)


def _minute(value: datetime) -> str:
    return value.astimezone().strftime("%Y-%m-%d %H:%M")


def _clock(when: datetime) -> Callable[[], datetime]:
    return lambda: when


def write_queues(vault: Vault, held: dict[str, Any], moved: Moved) -> None:
    """Submissions, the pending list (if one was generated) and the conflict queue."""
    from cuecard.core.vault._model import Conflict, Pending, Review
    from cuecard.core.vault.folder._conflicts import _line
    from cuecard.core.vault.folder._pending import render_pending

    reviewed = []
    for name, body, status in held["submissions"]:
        file = _name(name, "submission")
        vault.write((vault.processed if status == "processed" else vault.inbox) / file, body)
        if status == "processed":
            moved.processed += 1
        else:
            moved.submissions += 1
        if status == "reviewed":
            reviewed.append(file)
    for generated, command in held["pending_list"]:
        try:
            when = datetime.strptime(str(generated), "%Y-%m-%d %H:%M")
        except ValueError:
            when = vault.now()
        items = [Pending(*(str(v) for v in row)) for row in held["pending"]]
        lister = Vault(vault.root, DEFAULT, clock=_clock(when), cache_dir=vault.cache_dir)
        text = render_pending(lister, Review(pending=items, sources=reviewed), str(command))
        vault.write(vault.path(DEFAULT.pending), text)
        moved.pending = len(items)
    if held["conflicts"] or held["adjudications"]:
        queued = [Conflict(*(str(v) for v in row[:4])) for row in held["conflicts"] if row[4]]
        body = "".join(_line(DEFAULT, c) + "\n" for c in queued)
        vault.write(vault.path(DEFAULT.conflicts), DEFAULT.conflict_header + body)
        moved.conflicts = len(queued)


def _adjudication_line(decision: str, detail: str, decided_at: datetime) -> str:
    """The log line of a decision logged before lines were kept (schema version 2)."""
    try:
        data = json.loads(detail)
    except ValueError:
        data = {}
    return DEFAULT.log_format.format(
        when=_minute(decided_at),
        decision=DEFAULT.decisions.get(decision, decision),
        new=data.get("new", "") if isinstance(data, dict) else "",
        old=data.get("old", "") if isinstance(data, dict) else "",
    )


def write_logs(vault: Vault, held: dict[str, Any], moved: Moved) -> None:
    """The adjudication log (with its header) and the promotion log, one line per row."""
    from cuecard.core.vault.postgres._promote import promotion_line

    if held["adjudications"]:
        lines = [
            str(line) if line is not None else _adjudication_line(str(d), str(detail), when)
            for d, detail, when, line in held["adjudications"]
        ]
        text = DEFAULT.adjudicated_header + "".join(f"{line}\n" for line in lines)
        vault.write(vault.path(DEFAULT.adjudicated), text)
        moved.adjudications = len(lines)
    if held["promotions"]:
        lines = []
        for detail, when, line in held["promotions"]:
            note, _, fact = str(detail).partition(" | ")
            if line is None and note in DEFAULT.notes_templates:
                line = promotion_line(_minute(when), note, fact)
            lines.append(str(line if line is not None else ""))
        vault.write(vault.path(DEFAULT.promoted), "".join(f"{line}\n" for line in lines))
        moved.promotions = len(lines)


def write_records(vault: Vault, held: dict[str, Any], moved: Moved) -> None:
    """Forgotten lines, session archives, use records and the digest cursor."""
    from cuecard.core.vault._location import cache_tree
    from cuecard.core.vault.folder._digest import cursor_file
    from cuecard.core.vault.postgres._logs import render_cursor, render_usage

    forgotten: dict[str, list[str]] = {}
    for file, line in held["forgotten"]:
        forgotten.setdefault(_name(file, "forgotten file"), []).append(str(line))
    for file, lines in forgotten.items():
        vault.write(vault.path(DEFAULT.forgotten) / file, "".join(f"{x}\n" for x in lines))
    for name, text in held["archives"]:
        vault.write(vault.path(DEFAULT.sessions) / _name(name, "session archive"), str(text))
    if held["uses"]:
        cache_tree(vault.cache_dir).write(
            vault.usage_log.name,
            render_usage({str(i): (int(n), day) for i, n, day in held["uses"]}),
        )
    if held["cursor"]:
        files = {
            f"{DEFAULT.sessions}/{_name(name, 'digest cursor entry')}": {
                "size": int(size),
                "sha256": str(sha),
            }
            for name, size, sha in held["cursor"]
        }
        cache_tree(vault.cache_dir).write(cursor_file(vault.cache_dir).name, render_cursor(files))
    moved.forgotten = len(held["forgotten"])
    moved.archives = len(held["archives"])
    moved.uses = len(held["uses"])
    moved.cursor = len(held["cursor"])
