"""Where a digest finds session archives and their cursor, and where its facts go.

``Archives`` is the small interface ``_digest.digest`` runs on: the names of archives with text
past their cursor, a *claim* on one archive (its bytes and where the last successful digest
stopped, held against every other digest while its request runs) and a *commit* (submit the
facts, move the cursor to the end of what was read). ``FolderArchives`` is a folder vault's
``sessions/*.md`` with the cursor file ``digest-cursor.json`` in the vault's cache folder;
``_pg_digest.PgArchives`` is a PostgreSQL vault's tables, one cursor for the whole fleet.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Protocol

from cuecard.core._fsio import atomic_write, locked
from cuecard.core.vault.folder._vault import Vault

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.vault.postgres._vault import PgVault

__all__ = ["Archives", "Claim", "FolderArchives", "archives_of", "cursor_file", "cursor_start"]


class Claim:
    """One archive as read now: its name in reports, its bytes, and where the last successful
    digest stopped (0 when never digested, or when the file was rewritten)."""

    __slots__ = ("data", "label", "name", "start")

    def __init__(self, name: str, label: str, data: bytes, start: int) -> None:
        self.name = name
        self.label = label
        self.data = data
        self.start = start

    @property
    def new_text(self) -> str:
        return self.data[self.start :].decode("utf-8", "replace")


def cursor_file(cache_dir: Path) -> Path:
    """Where a folder vault keeps its digest cursor: ``digest-cursor.json`` in its cache."""
    return cache_dir / "digest-cursor.json"


def cursor_start(data: bytes, size: int | None, sha256: str | None) -> int:
    """Where to read ``data`` from: the cursor's size when its SHA-256 is that of the first
    ``size`` bytes (text was only appended), else 0 (a new or rewritten archive: read whole)."""
    if size is None or sha256 is None or not 0 <= size <= len(data):
        return 0
    return size if hashlib.sha256(data[:size]).hexdigest() == sha256 else 0


class Archives(Protocol):
    """Session archives, their digest cursor and the inbox, on one kind of vault (a folder's
    ``sessions/`` and cache file, or PostgreSQL's tables: ``_pg_digest``)."""

    def pending(self) -> list[str]:
        """Names of the archives holding text past their cursor, in order (a hint: read
        without locks; ``claim`` decides)."""
        ...

    def claim(self, name: str, *, lock: bool) -> AbstractContextManager[Claim | None]:
        """The archive as it is now, or ``None`` when nothing is left past its cursor. With
        ``lock`` no other digest (any process, any machine) claims it until the block ends,
        and ``commit`` may be called inside; an exception inside discards ``commit``'s work
        where the backend can (PostgreSQL: one transaction)."""
        ...

    def commit(self, claim: Claim, facts: list[str]) -> tuple[str, int] | None:
        """Submit ``facts`` (if any) as agent ``digest`` and move the cursor to the end of what
        was read; the submission's name in reports and its fact count."""
        ...


class FolderArchives:
    """A folder vault's ``sessions/*.md``, the cursor file ``digest-cursor.json`` in the vault's
    cache folder (one flock serialises digests on this machine), and its inbox folder."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self.cursor_file = cursor_file(vault.cache_dir)

    def _cursor(self) -> dict[str, dict[str, Any]]:
        try:
            with open(self.cursor_file, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            return {}
        files = data.get("files") if isinstance(data, dict) else None
        return {
            str(k): v
            for k, v in (files or {}).items()
            if isinstance(v, dict)
            and isinstance(v.get("size"), int)
            and isinstance(v.get("sha256"), str)
        }

    def _read(self, name: str, cursor: dict[str, dict[str, Any]]) -> Claim | None:
        rel = f"{self.vault.layout.sessions}/{name}"
        path = self.vault.path(self.vault.layout.sessions) / name
        if path.is_symlink() or not path.is_file():
            return None
        data = path.read_bytes()
        seen = cursor.get(rel) or {}
        start = cursor_start(data, seen.get("size"), seen.get("sha256"))
        return None if start == len(data) else Claim(name, rel, data, start)

    def pending(self) -> list[str]:
        folder = self.vault.path(self.vault.layout.sessions)
        try:
            names = sorted(
                p.name
                for p in folder.iterdir()
                if p.suffix == ".md"
                and p.name != "README.md"
                and p.is_file()
                and not p.is_symlink()
            )
        except FileNotFoundError:
            return []
        cursor = self._cursor()
        return [name for name in names if self._read(name, cursor) is not None]

    @contextmanager
    def claim(self, name: str, *, lock: bool) -> Iterator[Claim | None]:
        if not lock:
            yield self._read(name, self._cursor())
            return
        self.cursor_file.parent.mkdir(parents=True, exist_ok=True)
        with locked(self.cursor_file.with_name("digest-cursor.lock")):
            yield self._read(name, self._cursor())

    def commit(self, claim: Claim, facts: list[str]) -> tuple[str, int] | None:
        from cuecard.core.vault.folder._submit import submit

        written = None
        if facts:
            name, count = submit(self.vault, "digest", facts)
            written = (f"{self.vault.layout.inbox}/{name}", count)
        cursor = self._cursor()
        cursor[claim.label] = {
            "size": len(claim.data),
            "sha256": hashlib.sha256(claim.data).hexdigest(),
        }
        atomic_write(self.cursor_file, json.dumps({"files": cursor}, indent=1, sort_keys=True))
        return written


def archives_of(vault: Vault | PgVault) -> Archives:
    """The archives of a folder vault or of a PostgreSQL vault."""
    if isinstance(vault, Vault):
        return FolderArchives(vault)
    from cuecard.core.vault.postgres._digest import PgArchives

    return PgArchives(vault)
