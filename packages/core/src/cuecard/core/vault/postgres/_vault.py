"""The PostgreSQL vault: one database many machines search and submit to at once.

Selected by a ``postgresql://`` URL in the vault setting; psycopg is imported only then. The
password comes from ``PGPASSWORD`` or a pgpass file (libpq reads both), never from the URL.
Submissions are inserts (a unique name, no file races); readers never block writers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from cuecard.core.recall._index import Hit
from cuecard.core.vault._errors import VaultError
from cuecard.core.vault._layout import DEFAULT, Layout
from cuecard.core.vault._shared import NOTE_IDS
from cuecard.core.vault.postgres._inflight import Inflight, text_array

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime

    import psycopg

    from cuecard.core.vault.postgres._mirror import Mirror

__all__ = ["NOTE_IDS", "PgVault", "connect", "open_pg", "safe_url"]

# The uses of facts, as their own transaction (``PgVault.record_use``): its commit does not
# wait for the write-ahead log to reach the disk (``synchronous_commit`` off for this
# transaction only; every other write stays durable).
_USED = (
    "WITH s AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true)) "
    "UPDATE cuecard_facts SET uses = uses + 1, last_used = $2::date FROM s "
    "WHERE id = ANY($1::text[])"
)


def safe_url(url: str) -> str:
    """The URL as shown in messages and status (it never holds a password: those are refused)."""
    return url


def connect(url: str) -> psycopg.Connection[tuple[Any, ...]]:
    """A connection, or ``VaultError`` naming the vault and the reason (never a password)."""
    try:
        import psycopg
    except ImportError:
        from cuecard.core.base._pip import pip_command

        raise VaultError(
            f"{safe_url(url)}: a PostgreSQL vault needs psycopg: "
            f"{pip_command('cuecard-core[postgres]')}"
        ) from None
    try:
        return psycopg.connect(url, connect_timeout=10, application_name="cuecard")
    except psycopg.Error as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise VaultError(f"PostgreSQL vault {safe_url(url)}: cannot connect ({reason})") from None


class PgVault:
    """A vault held in PostgreSQL, behind the same commands as the folder vault."""

    layout_name = "postgresql"
    layout: Layout = DEFAULT
    """Wording of what the database holds as text (stamps, superseded heading, log lines): the
    default layout, as ``vault export`` writes it."""

    def __init__(self, url: str, *, clock: Callable[[], datetime] | None = None) -> None:
        self.url = url
        self._conn = connect(url)
        self._sent = Inflight(self._conn)
        self._clock = clock
        self._mirror: Mirror | None = None
        self._no_mirror = False

    @property
    def conn(self) -> psycopg.Connection[tuple[Any, ...]]:
        """The connection, once the answers of the statements sent without waiting (``send``)
        have been read: an error in one of them is raised here."""
        self._sent.settle()
        return self._conn

    def now(self) -> datetime:
        if self._clock is not None:
            return self._clock()
        from datetime import datetime

        return datetime.now().astimezone()

    def close(self) -> None:
        """Close the mirror and the connection, after reading the answers of the statements
        sent without waiting (an error in one of them raised)."""
        try:
            self._sent.settle()
        finally:
            if self._mirror is not None:
                self._mirror.close()
                self._mirror = None
            self._conn.close()

    def __enter__(self) -> PgVault:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- schema ---------------------------------------------------------------------------------

    def migrate(self) -> tuple[list[int], int]:
        """Apply missing migrations: (versions applied now, version held afterwards)."""
        from cuecard.core.vault.postgres._schema import current_version, migrate

        self.conn.autocommit = True
        applied = migrate(self.conn)
        return applied, current_version(self.conn)

    def require_schema(self) -> None:
        from cuecard.core.vault.postgres._schema import LATEST, current_version

        version = current_version(self.conn)
        self.conn.commit()
        if version < LATEST:
            raise VaultError(
                f"PostgreSQL vault {safe_url(self.url)}: schema version {version}, this cuecard "
                f"needs {LATEST}; run `cuecard vault migrate-db` first"
            )
        if version > LATEST:
            raise VaultError(
                f"PostgreSQL vault {safe_url(self.url)}: schema version {version} is newer than "
                f"this cuecard knows ({LATEST}); upgrade cuecard"
            )

    # -- writing --------------------------------------------------------------------------------

    def submit(self, agent: str, lines: list[str]) -> tuple[str, int]:
        """Insert one submission; its name (``<agent>-<stamp>-<nn>.md``) and fact count."""
        from cuecard.core.vault._rules import MAX_SEQUENCE, check_agent, check_facts

        check_agent(agent)
        facts = check_facts(lines)
        body = "".join(f"- {fact}\n" for fact in facts)
        stamp = self.now().strftime("%Y%m%d-%H%M%S")
        for sequence in range(1, MAX_SEQUENCE + 1):
            name = f"{agent}-{stamp}-{sequence:02d}.md"
            with self.conn.transaction():
                row = self.conn.execute(
                    "INSERT INTO cuecard_submissions (name, agent, body, facts) "
                    "VALUES (%s, %s, %s, %s) ON CONFLICT (name) WHERE status <> 'processed' "
                    "DO NOTHING RETURNING seq",
                    (name, agent, body, len(facts)),
                ).fetchone()
            if row is not None:
                return name, len(facts)
        raise VaultError(f"could not allocate a submission name for {agent}-{stamp}-NN.md")

    def add_note_text(self, note: str, text: str, source: str = "import") -> int:
        """Store a note's text as a folder vault's note file holds it; the facts added.

        A note that holds no fact yet (its template, or nothing) becomes ``text`` byte for byte
        (an import); otherwise ``text`` is appended after the note's current text, as pasting
        it at the end of the note file would. Its new facts are inserted in one statement.
        ``source`` is kept for callers; a fact's source is read from its line's stamp.
        """
        from cuecard.core.vault._facts import note_facts
        from cuecard.core.vault.postgres._notes import lock_note, store_note

        if note not in NOTE_IDS:
            raise VaultError(f"note {note!r}: not a canonical note id ({', '.join(NOTE_IDS)})")
        with self.conn.transaction():
            current = lock_note(self, note)
            if note_facts(current):
                body = current if current.endswith("\n") else current + "\n"
                text = body + text
            return store_note(self, note, text)

    def alone(self, sql: Any, params: Any = None) -> list[tuple[Any, ...]]:
        """The rows of one statement run as its own transaction: one round trip (no BEGIN and
        COMMIT around it) when no transaction is open, else inside the open one."""
        from psycopg.pq import TransactionStatus

        conn = self.conn
        if conn.autocommit or conn.info.transaction_status != TransactionStatus.IDLE:
            cur = conn.execute(sql, params)
            return cur.fetchall() if cur.description else []
        conn.autocommit = True
        try:
            cur = conn.execute(sql, params)
            return cur.fetchall() if cur.description else []
        finally:
            conn.autocommit = False

    def send(self, sql: str, params: Sequence[str | None] = ()) -> bool:
        """Send one statement (``$1``-style parameters as text) as its own transaction without
        waiting for its answer (``_inflight``); whether it was sent (not while a transaction is
        open). Its answer is read by ``answer``, at the next use of ``conn`` or at ``close``."""
        return self._sent.send(sql, params)

    def answer(self) -> list[tuple[str | None, ...]]:
        """The rows (text) of the statement ``send`` sent, waiting for them; its error raised."""
        return self._sent.answer()

    def record_use(self, ids: list[str], *, wait: bool = True) -> None:
        """Count a use of each fact today. Alone in its transaction the statement's commit does
        not wait for the disk (a use count lost in a server crash is harmless), and with
        ``wait=False`` this returns once it is sent (its answer read as ``send`` says); inside
        an open transaction it is one more statement of that transaction."""
        if not ids:
            return
        keys, day = list(dict.fromkeys(ids)), self.now().date()
        if self.send(_USED, [text_array(keys), day.isoformat()]):
            if wait:
                self.answer()
            return
        self.conn.execute(
            "UPDATE cuecard_facts SET uses = uses + 1, last_used = %s WHERE id = ANY(%s)",
            (day, keys),
        )

    # -- reading --------------------------------------------------------------------------------

    def mirror(self) -> Mirror | None:
        """This machine's mirror of the active facts (``_mirror``), opened once per vault
        object; ``None`` when the cache folder cannot be written."""
        if self._mirror is None and not self._no_mirror:
            from cuecard.core.vault.postgres._mirror import MIRROR_ERRORS, Mirror

            try:
                self._mirror = Mirror(self.url)
            except MIRROR_ERRORS:
                self._no_mirror = True
        return self._mirror

    def search(self, query: str, limit: int) -> list[Hit]:
        """The best facts for ``query``, ranked on this machine's mirror by the folder vault's
        BM25 (``_mirror``), or in the database (``_search.rank``) on a machine whose cache
        folder cannot be written; they count as used."""
        mirror = self.mirror()
        if mirror is not None:
            from cuecard.core.vault.postgres._mirror import MIRROR_ERRORS

            try:
                return mirror.search(self, query, limit)
            except MIRROR_ERRORS:
                self._no_mirror = True
                self._mirror = None
                mirror.close()
        from cuecard.core.vault.postgres._search import rank

        hits = rank(self, query, limit)
        self.record_use([h.key for h in hits])
        return hits

    def note(self, note: str) -> str | None:
        """A note's document (as a folder vault's note file holds it), or None when there is
        no such note; its facts count as used."""
        from cuecard.core.vault._facts import fact_id, note_facts

        with self.conn.transaction():
            row = self.conn.execute(
                "SELECT text FROM cuecard_notes WHERE note = %s", (note,)
            ).fetchone()
        if row is None:
            return None
        text = str(row[0])
        self.record_use([fact_id(f.text) for f in note_facts(text)])
        return text

    def status(self) -> dict[str, Any]:
        from cuecard.core.vault._settings import recall_mode

        with self.conn.transaction():
            row = self.conn.execute(
                "SELECT (SELECT count(*) FROM cuecard_notes), "
                "(SELECT count(*) FROM cuecard_facts WHERE status = 'active'), "
                "(SELECT count(*) FROM cuecard_submissions "
                "WHERE status IN ('pending', 'reviewed')), "
                "(SELECT count(*) FROM cuecard_conflicts WHERE open), "
                "(SELECT to_char(max(promoted_at), 'YYYY-MM-DD HH24:MI') FROM cuecard_promotions)"
            ).fetchone()
        assert row is not None
        notes, facts, pending, conflicts, last = row
        return {
            "vault": safe_url(self.url),
            "layout": self.layout_name,
            "index": {"path": safe_url(self.url), "exists": True, "notes": notes, "facts": facts},
            "pending": pending,
            "conflicts": conflicts,
            "last_promotion": last,
            "recall": recall_mode(),
        }


def open_pg(url: str) -> PgVault:
    """The PostgreSQL vault at ``url``, its schema checked."""
    vault = PgVault(url)
    try:
        vault.require_schema()
    except BaseException:
        vault.close()
        raise
    return vault
