"""Reading a folder vault into an empty PostgreSQL vault: queues, logs and records.

The parts of ``_transfer.folder_to_pg`` after the notes, each inside its transaction. Names
are mapped through the folder's layout (see ``_transfer``'s docstring for what moves).
"""

from __future__ import annotations

import json
import re
import stat
from typing import Any

from cuecard.core.base._confined import Tree
from cuecard.core.vault._errors import VaultError
from cuecard.core.vault._layout import DEFAULT
from cuecard.core.vault.folder._vault import Vault
from cuecard.core.vault.postgres._vault import NOTE_IDS, PgVault

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.vault._model import Moved

__all__ = ["import_logs", "import_queues", "import_records", "md_files", "optional_text"]


def md_files(tree: Tree, rel: str) -> list[str]:
    """The names of the ``*.md`` files directly in folder ``rel`` of ``tree``: not READMEs,
    hidden files nor links (the folders on the way walked by descriptor)."""
    try:
        entries = tree.entries(rel)
    except OSError:
        return []
    return [
        name
        for name, kind in entries
        if name.endswith(".md")
        and name.lower() != "readme.md"
        and not name.startswith(".")
        and kind == "file"
    ]


def _text(tree: Tree, rel: str) -> str:
    """A file's exact text (no newline translation); ``VaultError`` if it is not UTF-8."""
    try:
        return tree.read_bytes(rel).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise VaultError(
            f"{tree.path(rel)}: not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None


def optional_text(tree: Tree, rel: str) -> str | None:
    """A regular file's exact text, or None when there is none (a link, FIFO or device is
    none; a link or special file among the folders on the way is refused, ``UnsafePath``)."""
    st = tree.lstat(rel)
    if st is None or not stat.S_ISREG(st.st_mode):
        return None
    return _text(tree, rel)


_NAME = re.compile(r"^(?P<agent>.+?)-\d{8}-\d{6}-\d{2,3}(?:-\d+)?\.md$")


def _agent(name: str) -> str:
    """The agent of a submission file name (``<agent>-<YYYYMMDD>-<HHMMSS>-<nn>[-<n>].md``)."""
    found = _NAME.match(name)
    return found.group("agent") if found else "unknown"


def _file_names(vault: Vault) -> dict[str, str]:
    """A note file name of the folder's layout -> the default layout's name for that note."""
    from cuecard.core.vault.postgres._notes import note_file_name

    return {vault.note_file(note).name: note_file_name(note) for note in NOTE_IDS}


def import_queues(vault: Vault, pg: PgVault, moved: Moved) -> None:
    """The pending list, the submissions (waiting, reviewed, processed) and the conflicts."""
    from cuecard.core.vault._facts import inbox_facts
    from cuecard.core.vault.folder._conflicts import queue
    from cuecard.core.vault.folder._pending import parse_pending
    from cuecard.core.vault.postgres._logs import parse_pending_header

    layout, conn = vault.layout, pg.conn
    listed = optional_text(vault.tree, layout.pending)
    reviewed: set[str] = set()
    if listed is not None:
        entries, sources = parse_pending(layout, listed)
        reviewed = set(sources if sources is not None else [p.source for p in entries])
        generated, command = parse_pending_header(layout, listed) or (
            vault.now().strftime("%Y-%m-%d %H:%M"),
            "cuecard vault apply",
        )
        conn.execute(
            "INSERT INTO cuecard_pending_list (generated, command) VALUES (%s, %s)",
            (generated, command),
        )
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO cuecard_pending (fact, note, source, replaces) "
                "VALUES (%s, %s, %s, %s)",
                [(p.fact, p.note, p.source, p.replaces) for p in entries],
            )
        moved.pending = len(entries)
    rows = []
    for status, folder in (("pending", layout.inbox), ("processed", layout.processed)):
        for name in md_files(vault.tree, folder):
            body = _text(vault.tree, f"{folder}/{name}")
            state = "reviewed" if status == "pending" and name in reviewed else status
            rows.append((name, _agent(name), body, len(inbox_facts(body)), state))
            if status == "pending":
                moved.submissions += 1
            else:
                moved.processed += 1
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO cuecard_submissions (name, agent, body, facts, status) "
            "VALUES (%s, %s, %s, %s, %s)",
            rows,
        )
    for c in queue(vault):
        moved.conflicts += conn.execute(
            "INSERT INTO cuecard_conflicts (id, note, existing, incoming, source) "
            "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
            (c.id, c.note, c.old, c.new, c.source),
        ).rowcount


def _adjudications(vault: Vault, pg: PgVault, text: str) -> list[tuple[Any, ...]]:
    from cuecard.core.vault.postgres._logs import parse_adjudication

    layout = vault.layout
    if text.startswith(layout.adjudicated_header):
        text = text[len(layout.adjudicated_header) :]
    queued = {
        (str(r[1]), str(r[2])): str(r[0])
        for r in pg.conn.execute(
            "SELECT id, incoming, existing FROM cuecard_conflicts WHERE open ORDER BY seq DESC"
        ).fetchall()
    }
    rows: list[tuple[Any, ...]] = []
    for line in text.splitlines():
        parsed = parse_adjudication(layout, line)
        if parsed is None:
            rows.append(("", "", "", None, line))
            continue
        decision, log = parsed
        if layout is not DEFAULT:
            line = DEFAULT.log_format.format(
                when=log.when.strftime("%Y-%m-%d %H:%M"),
                decision=DEFAULT.decisions[decision],
                new=log.new,
                old=log.old,
            )
        detail = json.dumps({"new": log.new, "old": log.old}, ensure_ascii=False)
        rows.append((queued.get((log.new, log.old), ""), decision, detail, log.when, line))
    return rows


def _promotions(vault: Vault, pg: PgVault, text: str) -> list[tuple[Any, ...]]:
    from cuecard.core.vault.postgres._logs import parse_promotion
    from cuecard.core.vault.postgres._notes import note_id_of_file
    from cuecard.core.vault.postgres._promote import promotion_line

    names = _file_names(vault)
    sources = {
        (str(r[0]), str(r[1])): r[2]
        for r in pg.conn.execute("SELECT note, text, source FROM cuecard_facts").fetchall()
    }
    rows: list[tuple[Any, ...]] = []
    for line in text.splitlines():
        log = parse_promotion(line)
        note = None if log is None else note_id_of_file(names.get(log.what, log.what))
        if log is None or note is None:
            rows.append((None, 0, "", None, line))
            continue
        when = log.when.strftime("%Y-%m-%d %H:%M")
        rows.append(
            (
                sources.get((note, log.new)),
                1,
                f"{note} | {log.new}",
                log.when,
                promotion_line(when, note, log.new) if vault.layout is not DEFAULT else line,
            )
        )
    return rows


def import_logs(vault: Vault, pg: PgVault, moved: Moved) -> None:
    """The adjudication and promotion logs, one row per line (lines that do not parse too)."""
    layout, conn = vault.layout, pg.conn
    adjudicated = optional_text(vault.tree, layout.adjudicated)
    promoted = optional_text(vault.tree, layout.promoted)
    with conn.cursor() as cur:
        if adjudicated is not None:
            rows = _adjudications(vault, pg, adjudicated)
            cur.executemany(
                "INSERT INTO cuecard_adjudications (conflict, decision, detail, decided_at, line) "
                "VALUES (%s, %s, %s, coalesce(%s, now()), %s)",
                rows,
            )
            moved.adjudications = len(rows)
        if promoted is not None:
            rows = _promotions(vault, pg, promoted)
            cur.executemany(
                "INSERT INTO cuecard_promotions (submission, added, detail, promoted_at, line) "
                "VALUES (%s, %s, %s, coalesce(%s, now()), %s)",
                rows,
            )
            moved.promotions = len(rows)


def import_records(vault: Vault, pg: PgVault, moved: Moved) -> None:
    """Forgotten lines, session archives, use records and the digest cursor."""
    from cuecard.core.vault._facts import bare, fact_id
    from cuecard.core.vault.folder._digest import cursor_file
    from cuecard.core.vault.postgres._logs import parse_cursor, parse_usage

    layout, conn = vault.layout, pg.conn
    names = _file_names(vault)
    forgotten = [
        (names.get(name, name), line, fact_id(bare(line)) if bare(line) else None)
        for name in md_files(vault.tree, layout.forgotten)
        for line in _text(vault.tree, f"{layout.forgotten}/{name}").splitlines()
    ]
    archives = [
        (name, _text(vault.tree, f"{layout.sessions}/{name}"))
        for name in md_files(vault.tree, layout.sessions)
    ]
    cache = Tree(vault.cache_dir)
    usage = optional_text(cache, vault.usage_log.name)
    uses = parse_usage(usage or "")
    prefix = layout.sessions + "/"
    cursor = [
        (key[len(prefix) :], size, sha256)
        for key, (size, sha256) in sorted(
            parse_cursor(optional_text(cache, cursor_file(vault.cache_dir).name) or "").items()
        )
        if key.startswith(prefix) and "/" not in key[len(prefix) :]
    ]
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO cuecard_forgotten (file, line, id) VALUES (%s, %s, %s)", forgotten
        )
        cur.executemany("INSERT INTO cuecard_archives (name, text) VALUES (%s, %s)", archives)
        cur.executemany(
            "UPDATE cuecard_facts SET uses = %s, last_used = %s WHERE id = %s",
            [(count, day, ident) for ident, (count, day) in uses.items()],
        )
        cur.executemany(
            "INSERT INTO cuecard_digest_cursor (name, size, sha256) VALUES (%s, %s, %s)", cursor
        )
    row = conn.execute("SELECT count(DISTINCT id) FROM cuecard_facts WHERE uses > 0").fetchone()
    moved.forgotten, moved.archives, moved.cursor = len(forgotten), len(archives), len(cursor)
    moved.uses = int(row[0]) if row else 0
