"""The PostgreSQL implementation of the vault backend interface (``vault._backend.Backend``).

A thin adapter: each method is one of the PostgreSQL vault's transactions (``_vault``,
``_promote``, ``_conflicts``, ...). psycopg is imported only when one is opened.
"""

from __future__ import annotations

from typing import Any

from cuecard.core.vault._model import (
    Applied,
    Candidate,
    Conflict,
    Found,
    Pending,
    Places,
    Result,
    Reviewed,
    Shown,
)
from cuecard.core.vault._shared import Opened, check_note_name
from cuecard.core.vault.postgres._notes import note_file_name, note_id_of_file
from cuecard.core.vault.postgres._vault import NOTE_IDS, PgVault, open_pg

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import date

    from cuecard.core.vault._digest import DigestConfig
    from cuecard.core.vault._settings import Settings

__all__ = ["PgBackend", "note_id_of"]

_PLACES = Places(
    pending_list="table cuecard_pending",
    processed="processed submissions (table cuecard_submissions)",
    conflicts="table cuecard_conflicts",
    forgotten="table cuecard_forgotten",
    sessions="table cuecard_archives",
)


def note_id_of(name: str) -> str | None:
    """The note id a name gives: an id (``env``), its file name, or ``<id>.md``."""
    if name in NOTE_IDS:
        return name
    if name.endswith(".md") and name[:-3] in NOTE_IDS:
        return name[:-3]
    return note_id_of_file(name)


class PgBackend(Opened):
    """A PostgreSQL vault behind the backend interface."""

    kind = "postgresql"
    layout_name = "postgresql"
    places = _PLACES

    def __init__(self, vault: PgVault) -> None:
        self.vault = vault
        self.location = vault.url

    @classmethod
    def open(cls, url: str) -> PgBackend:
        return cls(open_pg(url))

    def close(self) -> None:
        self.vault.close()

    def status(self) -> dict[str, Any]:
        return self.vault.status()

    def submit(self, agent: str, lines: list[str]) -> tuple[str, int]:
        return self.vault.submit(agent, lines)

    def today(self) -> date:
        return self.vault.now().date()

    def search(
        self,
        query: str,
        limit: int,
        *,
        mode: str = "bm25",
        explain: bool = False,
        settings: Settings | None = None,
    ) -> Found:
        if mode == "bm25" and not explain:  # the lean path
            hits = self.vault.search(query, limit)
            return Found([Result(h.path, h.key, h.text, h.score) for h in hits])
        if mode == "bm25":
            from cuecard.core.vault._render import clean
            from cuecard.core.vault.postgres._hybrid import LEXICAL

            hits = self.vault.search(query, limit)  # records their uses
            results = [
                Result(h.path, h.key, clean(h.text), h.score, {"bm25": i})
                for i, h in enumerate(hits, 1)
            ]
            info: dict[str, object] = {"lexical": LEXICAL, "streams": {"bm25": len(hits)}}
            return Found(results, mode=mode, explain=explain, info=info)
        from cuecard.core.vault._settings import load_settings
        from cuecard.core.vault.postgres._hybrid import pg_hybrid_results

        chosen = settings or load_settings()
        results, info = pg_hybrid_results(self.vault, query, limit, chosen, vectors=True)
        self.vault.record_use([r.key for r in results])
        return Found(results, mode=mode, explain=explain, info=info)

    def show(self, name: str) -> Shown:
        from cuecard.core.base._errors import NotFound

        check_note_name(name)
        note_id = note_id_of(name)
        text = None if note_id is None else self.vault.note(note_id)
        if note_id is None or text is None:
            raise NotFound(f"note {name!r}: no such canonical note (ids: {', '.join(NOTE_IDS)})")
        return Shown(note_file_name(note_id), note_id, text)

    def inbox(self) -> list[str]:
        with self.vault.conn.transaction():
            rows = self.vault.conn.execute(
                "SELECT name FROM cuecard_submissions WHERE status IN ('pending', 'reviewed') "
                "ORDER BY name"
            ).fetchall()
        return [str(r[0]) for r in rows]

    def pending(self) -> list[tuple[int, Pending]]:
        from cuecard.core.vault.postgres._promote import pending_rows

        return pending_rows(self.vault)

    def review(self) -> Reviewed:
        from cuecard.core.vault.postgres._promote import pending_rows, review_pg

        result, queued = review_pg(self.vault)
        return Reviewed(result, queued, pending_rows(self.vault))

    def drop_pending(self, ident: int) -> Pending | None:
        from cuecard.core.vault.postgres._promote import drop_pending

        return drop_pending(self.vault, ident)

    def apply(self, *, auto: bool) -> tuple[Applied, int]:
        from cuecard.core.vault.postgres._promote import apply_pg, review_pg

        conflicts = len(review_pg(self.vault, header=False)[0].conflicts) if auto else 0
        return apply_pg(self.vault), conflicts

    def conflicts(self) -> list[Conflict]:
        from cuecard.core.vault.postgres._conflicts import queue_pg

        return queue_pg(self.vault)

    def adjudicate(self, ident: str, decision: str) -> Conflict:
        from cuecard.core.vault.postgres._conflicts import adjudicate_pg

        return adjudicate_pg(self.vault, ident, decision)

    def forget(self, *, today: date, days: int, apply: bool) -> list[Candidate]:
        from cuecard.core.vault.postgres._forget import apply_forget_pg, candidates_pg

        if apply:
            return apply_forget_pg(self.vault, today=today, days=days)
        return candidates_pg(self.vault, today=today, days=days)

    def archive(self, agent: str, title: str, text: str) -> tuple[str, int] | None:
        from cuecard.core.vault.postgres._archive import archive_session_pg

        return archive_session_pg(self.vault, agent, title, text)

    def digest(self, config: DigestConfig, *, dry_run: bool, limit: int | None) -> dict[str, Any]:
        from cuecard.core.vault._digest import digest
        from cuecard.core.vault.postgres._digest import PgArchives

        return digest(PgArchives(self.vault), config, dry_run=dry_run, limit=limit)
