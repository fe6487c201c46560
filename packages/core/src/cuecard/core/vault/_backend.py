"""The vault backend interface: what every ``cuecard vault`` command asks of a vault.

Two implementations behind one interface. ``FolderBackend`` is the Markdown folder (the embedded
default: notes, an inbox folder, a pending-list file, a conflict file, under a lock file).
``PgBackend`` (in ``_pg_backend``) is a PostgreSQL database that many machines share, selected by
a ``postgresql://`` URL in the vault setting. Commands open one with ``open_backend`` and never
ask which they hold; where the two store things differently (the pending list is a file or a
table), ``places`` names where, for messages.

Search is here too, for callers that hold a backend (the review UI, tests); the ``vault search``
and ``recall`` commands keep their own lean cold path in ``_search``.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, Self, TypeVar

from cuecard.core.recall._index import Hit
from cuecard.core.vault._notes import NoteHost
from cuecard.core.vault.folder._conflicts import Conflict
from cuecard.core.vault.folder._forget import Candidate
from cuecard.core.vault.folder._promote import Applied, Pending, Review
from cuecard.core.vault.folder._vault import Vault

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import date

    from cuecard.core.vault._digest import DigestConfig

__all__ = [
    "Backend",
    "FolderBackend",
    "Opened",
    "Places",
    "Reviewed",
    "Shown",
    "check_note_name",
    "open_backend",
]


@dataclass(frozen=True)
class Places:
    """Where a backend keeps each queue and archive, as shown in messages."""

    pending_list: str
    processed: str
    conflicts: str
    forgotten: str
    sessions: str


@dataclass
class Reviewed:
    """A review's findings, the conflicts it newly queued, and the pending items with their ids
    (the number a person gives to ``vault pending drop``)."""

    review: Review
    queued: int
    items: list[tuple[int, Pending]] = field(default_factory=list)


@dataclass(frozen=True)
class Shown:
    """A canonical note: its file name, its id (``None`` for an extra note) and its text."""

    file: str
    id: str | None
    text: str


class Backend(Protocol):
    """A vault, folder or database. Every method is one whole operation, safe to run while
    other processes (other machines, for a database) run any of them."""

    kind: str
    """``folder`` or ``postgresql``."""
    location: str
    """The folder path or the URL (never holding a password)."""
    layout_name: str
    places: Places

    def close(self) -> None: ...

    def __enter__(self) -> Backend: ...

    def __exit__(self, *exc: object) -> None: ...

    def today(self) -> date:
        """The vault clock's date (stamps, forgetting)."""
        ...

    def status(self) -> dict[str, Any]:
        """What ``vault status --json`` prints."""
        ...

    def submit(self, agent: str, lines: list[str]) -> tuple[str, int]:
        """Queue one submission; its name and fact count."""
        ...

    def search(self, query: str, limit: int) -> list[Hit]:
        """The best canonical facts (lexical ranking); they count as used."""
        ...

    def show(self, name: str) -> Shown:
        """A canonical note by id or file name; its facts count as used. ``NotFound`` if none."""
        ...

    def inbox(self) -> list[str]:
        """The names of the submissions waiting for review or promotion, in order."""
        ...

    def pending(self) -> list[tuple[int, Pending]]:
        """The pending list as it stands (what ``apply`` would promote), with item ids."""
        ...

    def review(self) -> Reviewed:
        """Classify the waiting submissions into the pending list; queue conflicts."""
        ...

    def drop_pending(self, ident: int) -> Pending | None:
        """Leave one pending item out of the next apply; the item, or None if no such id."""
        ...

    def apply(self, *, auto: bool) -> tuple[Applied, int]:
        """Promote the pending list (``auto``: review first, in one step); (done, conflicts)."""
        ...

    def conflicts(self) -> list[Conflict]:
        """The conflict queue, in order."""
        ...

    def adjudicate(self, ident: str, decision: str) -> Conflict:
        """Carry out a decision on one queued conflict (id or unique prefix)."""
        ...

    def forget(self, *, today: date, days: int, apply: bool) -> list[Candidate]:
        """The stale, unprotected, unused facts; moved out (reversibly) when ``apply``."""
        ...

    def archive(self, agent: str, title: str, text: str) -> tuple[str, int] | None:
        """Append a redacted session block to the day's archive; (archive name, lines)."""
        ...

    def digest(self, config: DigestConfig, *, dry_run: bool, limit: int | None) -> dict[str, Any]:
        """Digest new session-archive text into one submission (see ``_digest``)."""
        ...


_NOTE_NAME = re.compile(r"^[^/\\\x00]+\.md$", re.IGNORECASE)


def check_note_name(name: str) -> None:
    """A note id, or a bare ``NAME.md`` (no path separator, no ``..``, no leading dot):
    ``UsageError`` otherwise, before any file or row is touched."""
    from cuecard.core._errors import UsageError
    from cuecard.core.vault.postgres._vault import NOTE_IDS

    if name in NOTE_IDS:
        return
    if ".." in name or not _NOTE_NAME.fullmatch(name) or name.startswith("."):
        raise UsageError(
            f"note {name!r}: give a note id or a bare NAME.md (no path separators, no '..')"
        )


_V = TypeVar("_V", bound=NoteHost)


class Opened(Generic[_V]):
    """What every backend does alike: a context manager over ``close``, and the vault clock."""

    vault: _V

    def close(self) -> None:
        return None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def today(self) -> date:
        return self.vault.now().date()


class FolderBackend(Opened[Vault]):
    """The Markdown folder vault (``Vault`` and the functions that edit its files)."""

    kind = "folder"

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self.location = str(vault.root)
        self.layout_name = vault.layout.name
        layout = vault.layout
        self.places = Places(
            layout.pending, layout.processed, layout.conflicts, layout.forgotten, layout.sessions
        )

    def status(self) -> dict[str, Any]:
        from cuecard.core.vault.folder._status import status

        return status(self.vault)

    def submit(self, agent: str, lines: list[str]) -> tuple[str, int]:
        from cuecard.core.vault.folder._submit import submit

        return submit(self.vault, agent, lines)

    def search(self, query: str, limit: int) -> list[Hit]:
        index = self.vault.index
        index.sync()
        hits = index.search(query, limit)
        self.vault.record_use([h.key for h in hits])
        return hits

    def show(self, name: str) -> Shown:
        from cuecard.core._errors import NotFound
        from cuecard.core.vault._facts import fact_id, note_facts

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
        if path.is_symlink() or not path.is_file():
            raise NotFound(f"note {name!r}: no such canonical note (ids: {', '.join(ids)})")
        text = path.read_text(encoding="utf-8", errors="replace")
        vault.record_use([fact_id(f.text) for f in note_facts(text)])
        return Shown(path.name, vault.note_id_of(str(path.relative_to(vault.root))), text)

    def inbox(self) -> list[str]:
        return [p.name for p in self.vault.inbox_files()]

    def pending(self) -> list[tuple[int, Pending]]:
        from cuecard.core.vault.folder._promote import numbered_pending

        return numbered_pending(self.vault)

    def review(self) -> Reviewed:
        from cuecard.core.vault.folder._promote import review, write_review

        result = review(self.vault)
        queued = write_review(self.vault, result, "cuecard vault apply")
        return Reviewed(result, queued, list(enumerate(result.pending, 1)))

    def drop_pending(self, ident: int) -> Pending | None:
        """Tick item ``ident`` of the pending list, as a person would by hand."""
        from cuecard.core.vault.folder._promote import tick_pending

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

        return digest(self.vault, config, dry_run=dry_run, limit=limit)

    def _mirror(self) -> None:
        """Copy the notes to the mirror database when one is set (see ``_mirror``). A failure
        only warns: the folder is the vault, and the next write or ``vault mirror`` catches up."""
        from cuecard.core.vault.transfer._mirror import mirror_location, mirror_notes

        try:
            url = mirror_location()
            if url is not None:
                mirror_notes(self.vault, url)
        except Exception as exc:  # the folder's change is done; the copy must not undo it
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            print(
                f"warning: the vault mirror was not updated ({reason}); "
                "`cuecard vault mirror` retries",
                file=sys.stderr,
            )


def open_backend(location: str) -> Backend:
    """The vault at a folder path or a ``postgresql://`` URL (schema checked)."""
    from cuecard.core.vault._location import is_database_url

    if is_database_url(location):
        from cuecard.core.vault.postgres._backend import PgBackend

        return PgBackend.open(location)
    return FolderBackend(Vault.open(Path(location)))
