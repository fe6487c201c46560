"""Session digest on a PostgreSQL vault: the archives, their cursor and the inbox are tables.

``cuecard_archives`` holds one row per day (the text a folder's ``sessions/<day>.md`` holds);
``cuecard_digest_cursor`` holds, per archive, the size and SHA-256 of the UTF-8 text digested so
far: one cursor for the whole fleet, so each archive's text is digested once, not once per
machine. The rules are the folder vault's (``vault._digest.cursor_start``): text appended
past the cursor is sent; an archive whose first ``size`` bytes changed is read again whole.

Two digests at once, on any machines: each archive is claimed in its own transaction that
first makes sure its cursor row exists (``INSERT ... ON CONFLICT DO NOTHING``) and then locks it
(``SELECT ... FOR UPDATE``). A second digest of the same archive waits on that row lock until
the first commits, then reads the cursor the first wrote and finds nothing new (or only what
was appended since): the same text is never sent twice. The request runs while the row is
locked; the submission and the cursor update commit together, so the cursor advances only with
the facts it produced, and a failed request (or a killed process) rolls both back. Only the
archive being digested is locked: archiving, searching and every other command go on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager

from cuecard.core.vault._digest import Claim, cursor_start
from cuecard.core.vault.postgres._vault import PgVault

__all__ = ["PgArchives"]

# Archives whose text is not wholly digested: no cursor, or a cursor that is not the whole text.
_PENDING = """
SELECT a.name
FROM cuecard_archives a LEFT JOIN cuecard_digest_cursor c ON c.name = a.name
WHERE c.name IS NULL
   OR c.size <> octet_length(convert_to(a.text, 'UTF8'))
   OR c.sha256 <> encode(sha256(convert_to(a.text, 'UTF8')), 'hex')
ORDER BY a.name
"""
_EMPTY = hashlib.sha256(b"").hexdigest()


class PgArchives:
    """The ``vault._digest.Archives`` of a PostgreSQL vault (see the module docstring)."""

    def __init__(self, vault: PgVault) -> None:
        self.vault = vault

    def pending(self) -> list[str]:
        with self.vault.conn.transaction():
            rows = self.vault.conn.execute(_PENDING).fetchall()
        return [str(r[0]) for r in rows]

    def _read(self, name: str, *, lock: bool) -> Claim | None:
        conn = self.vault.conn
        if lock:
            # The row must exist to be locked; a cursor at 0 reads the archive whole, and it
            # is rolled back with the transaction if the digest fails.
            conn.execute(
                "INSERT INTO cuecard_digest_cursor (name, size, sha256) VALUES (%s, 0, %s) "
                "ON CONFLICT (name) DO NOTHING",
                (name, _EMPTY),
            )
            seen = conn.execute(
                "SELECT size, sha256 FROM cuecard_digest_cursor WHERE name = %s FOR UPDATE",
                (name,),
            ).fetchone()
        else:
            seen = conn.execute(
                "SELECT size, sha256 FROM cuecard_digest_cursor WHERE name = %s", (name,)
            ).fetchone()
        row = conn.execute("SELECT text FROM cuecard_archives WHERE name = %s", (name,)).fetchone()
        if row is None:
            return None
        data = str(row[0]).encode("utf-8")
        start = cursor_start(data, *(None, None) if seen is None else (int(seen[0]), str(seen[1])))
        return None if start == len(data) else Claim(name, f"sessions/{name}", data, start)

    @contextmanager
    def claim(self, name: str, *, lock: bool) -> Iterator[Claim | None]:
        with self.vault.conn.transaction():
            yield self._read(name, lock=lock)

    def commit(self, claim: Claim, facts: list[str]) -> tuple[str, int] | None:
        """Inside ``claim``'s transaction: the submission and the cursor commit together."""
        written = self.vault.submit("digest", facts) if facts else None
        self.vault.conn.execute(
            "INSERT INTO cuecard_digest_cursor (name, size, sha256) VALUES (%s, %s, %s) "
            "ON CONFLICT (name) DO UPDATE SET size = EXCLUDED.size, sha256 = EXCLUDED.sha256, "
            "updated_at = now()",
            (claim.name, len(claim.data), hashlib.sha256(claim.data).hexdigest()),
        )
        return written
