"""The Markdown folder vault behind the backend interface (``vault._backend.Backend``).

Opening one reads only the layout's marker folders, and searching needs neither pathlib nor
``Vault``: the cold ``vault search`` process runs ``search`` with the standard library and the
recall index alone. Every other operation goes to ``Vault`` and the functions that edit its
files.
"""

from __future__ import annotations

from cuecard.core.vault._errors import NotAVault
from cuecard.core.vault._layout import Layout, detect_layout
from cuecard.core.vault._shared import Opened, check_note_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import date
    from typing import Any

    from cuecard.core.vault._digest import DigestConfig
    from cuecard.core.vault._model import (
        Applied,
        Candidate,
        Conflict,
        Found,
        Pending,
        Places,
        Reviewed,
        Shown,
    )
    from cuecard.core.vault._settings import Settings
    from cuecard.core.vault.folder._vault import Vault

__all__ = ["FolderBackend"]


class FolderBackend(Opened):
    """The Markdown folder vault (``Vault`` and the functions that edit its files)."""

    kind = "folder"

    def __init__(
        self,
        root: str,
        layout: Layout,
        *,
        on_change: Callable[[Vault], None] | None = None,
        notify: Callable[[str], None] | None = None,
    ) -> None:
        self.root = root
        self.layout = layout
        self.layout_name = layout.name
        self._on_change = on_change
        self._notify = notify
        self._vault: Vault | None = None

    @classmethod
    def open(
        cls,
        location: str,
        *,
        on_change: Callable[[Vault], None] | None = None,
        notify: Callable[[str], None] | None = None,
    ) -> FolderBackend:
        """The folder vault at ``location``; ``NotAVault`` when no known layout is there.
        ``on_change`` runs after each change of the notes (``open_backend`` passes the mirror);
        ``notify`` gets the lines for the user (``Vault.notify``)."""
        layout = detect_layout(location)
        if layout is None:
            from pathlib import Path

            raise NotAVault(
                f"{Path(location)}: no vault here (neither notes/ with inbox/ nor "
                "50-Agent-Context/); create one with `cuecard vault init`"
            )
        return cls(location, layout, on_change=on_change, notify=notify)

    @property
    def vault(self) -> Vault:
        """The folder's ``Vault`` (made on first use: searching needs none)."""
        if self._vault is None:
            from pathlib import Path

            from cuecard.core.vault.folder._vault import Vault

            self._vault = Vault(Path(self.root), self.layout, notify=self._notify)
        return self._vault

    @property
    def location(self) -> str:
        """The folder path."""
        return str(self.vault.root)

    @property
    def places(self) -> Places:
        from cuecard.core.vault._model import Places

        layout = self.layout
        return Places(
            layout.pending, layout.processed, layout.conflicts, layout.forgotten, layout.sessions
        )

    def today(self) -> date:
        return self.vault.now().date()

    def status(self) -> dict[str, Any]:
        from cuecard.core.vault.folder._status import status

        return status(self.vault)

    def submit(self, agent: str, lines: list[str]) -> tuple[str, int]:
        from cuecard.core.vault.folder._submit import submit

        return submit(self.vault, agent, lines)

    def search(
        self,
        query: str,
        limit: int,
        *,
        mode: str = "bm25",
        explain: bool = False,
        settings: Settings | None = None,
    ) -> Found:
        import time

        from cuecard.core.vault._results import Found, Result
        from cuecard.core.vault.folder._recall import cache_dir, notes_index, record_use

        index = notes_index(self.root, self.layout)
        index.sync()
        info: dict[str, object]
        if mode == "bm25":
            hits = index.search(query, limit)
            results = [
                Result(h.path, h.key, h.text, h.score, {"bm25": i}) for i, h in enumerate(hits, 1)
            ]
            info = {"streams": {"bm25": len(hits)}}
        else:
            from cuecard.core.vault._settings import load_settings
            from cuecard.core.vault.folder._hybrid import hybrid_results

            chosen = settings or load_settings()
            results, info = hybrid_results(index, query, limit, chosen, vectors=True)
        record_use(cache_dir(self.root), [r.key for r in results], time.strftime("%Y-%m-%d"))
        return Found(results, mode=mode, explain=explain, info=info)

    def show(self, name: str) -> Shown:
        from cuecard.core.base._errors import NotFound
        from cuecard.core.vault._facts import fact_id, note_facts
        from cuecard.core.vault._model import Shown

        check_note_name(name)
        vault = self.vault
        ids = (*vault.layout.notes, "other")
        if name in ids:
            path = vault.note_file(name)
        else:
            path = vault.root / vault.layout.notes_dir / name
            catch_all = vault.root / vault.layout.catch_all
            if not path.is_file() and catch_all.name == name:
                path = catch_all
        if not vault.tree.is_file(vault.rel(path)):
            raise NotFound(f"note {name!r}: no such canonical note (ids: {', '.join(ids)})")
        text = vault.read(path)
        vault.record_use([fact_id(f.text) for f in note_facts(text)])
        return Shown(path.name, vault.note_id_of(str(path.relative_to(vault.root))), text)

    def inbox(self) -> list[str]:
        return [p.name for p in self.vault.inbox_files()]

    def pending(self) -> list[tuple[int, Pending]]:
        from cuecard.core.vault.folder._pending import numbered_pending

        return numbered_pending(self.vault)

    def review(self) -> Reviewed:
        from cuecard.core.vault._model import Reviewed
        from cuecard.core.vault.folder._promote import review, write_review

        result = review(self.vault)
        queued = write_review(self.vault, result, "cuecard vault apply")
        return Reviewed(result, queued, list(enumerate(result.pending, 1)))

    def drop_pending(self, ident: int) -> Pending | None:
        """Tick item ``ident`` of the pending list, as a person would by hand."""
        from cuecard.core.vault.folder._pending import tick_pending

        with self.vault.lock():
            ticked = tick_pending(self.vault, lambda number, _: number == ident)
        return ticked[0] if ticked else None

    def apply(self, *, auto: bool) -> tuple[Applied, int]:
        from cuecard.core.vault.folder._promote import apply_pending
        from cuecard.core.vault.folder._promote import auto as review_and_apply

        if auto:
            result, done, _ = review_and_apply(self.vault)
            conflicts = len(result.conflicts)
        else:
            done, conflicts = apply_pending(self.vault, "cuecard vault apply"), 0
        self._mirror()
        return done, conflicts

    def conflicts(self) -> list[Conflict]:
        from cuecard.core.vault.folder._conflicts import queue

        return queue(self.vault)

    def adjudicate(self, ident: str, decision: str) -> Conflict:
        from cuecard.core.vault.folder._conflicts import adjudicate

        conflict = adjudicate(self.vault, ident, decision)
        self._mirror()
        return conflict

    def forget(self, *, today: date, days: int, apply: bool) -> list[Candidate]:
        from cuecard.core.vault.folder._forget import apply_forget, candidates

        if not apply:
            return candidates(self.vault, today=today, days=days)
        moved = apply_forget(self.vault, today=today, days=days)
        self._mirror()
        return moved

    def archive(self, agent: str, title: str, text: str) -> tuple[str, int] | None:
        from cuecard.core.vault.folder._archive import archive_session

        return archive_session(self.vault, agent, title, text)

    def digest(self, config: DigestConfig, *, dry_run: bool, limit: int | None) -> dict[str, Any]:
        from cuecard.core.vault._digest import digest
        from cuecard.core.vault.folder._digest import FolderArchives

        return digest(FolderArchives(self.vault), config, dry_run=dry_run, limit=limit)

    def _mirror(self) -> None:
        """Run the change hook (the mirror database's copy, when one is set)."""
        if self._on_change is not None:
            self._on_change(self.vault)
