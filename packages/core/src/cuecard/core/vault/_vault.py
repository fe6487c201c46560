"""One vault: its root, its layout, its paths, its recall index and its use records.

Standard library only: the cold ``vault search`` process opens a vault through this module.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Iterator
from datetime import date, datetime
from pathlib import Path

from cuecard.core._text import redact
from cuecard.core.recall._index import Entry, RecallIndex
from cuecard.core.vault._errors import NotAVault
from cuecard.core.vault._facts import fact_id, note_facts
from cuecard.core.vault._layout import Layout, detect_layout
from cuecard.core.vault._location import cache_home
from cuecard.core.vault._lock import vault_lock

__all__ = ["Clock", "Vault"]

Clock = Callable[[], datetime]


def _local_now() -> datetime:
    return datetime.now().astimezone()


class Vault:
    """A vault folder read and written through one layout."""

    def __init__(
        self,
        root: Path,
        layout: Layout,
        *,
        clock: Clock | None = None,
        cache_dir: Path | None = None,
    ) -> None:
        self.root = root
        self.layout = layout
        self.now: Clock = clock or _local_now
        key = hashlib.sha256(str(root.resolve()).encode("utf-8")).hexdigest()[:16]
        self.cache_dir = (cache_dir or cache_home() / "vaults") / key
        self._index: RecallIndex | None = None

    @classmethod
    def open(cls, root: Path, **kwargs: object) -> Vault:
        """The vault at ``root``; ``NotAVault`` when no known layout is there."""
        layout = detect_layout(root)
        if layout is None:
            raise NotAVault(
                f"{root}: no vault here (neither notes/ with inbox/ nor 50-Agent-Context/); "
                "create one with `cuecard vault init`"
            )
        return cls(root, layout, **kwargs)  # type: ignore[arg-type]

    # -- paths ----------------------------------------------------------------------------------

    def path(self, rel: str) -> Path:
        return self.root / rel

    @property
    def inbox(self) -> Path:
        return self.root / self.layout.inbox

    @property
    def processed(self) -> Path:
        return self.root / self.layout.processed

    def note_file(self, note_id: str) -> Path:
        return self.layout.note_file(self.root, note_id)

    def note_id_of(self, rel: str) -> str | None:
        """The canonical id of a vault-relative note path, if it is one."""
        for note_id in (*self.layout.notes, "other"):
            if self.note_file(note_id) == self.root / rel:
                return note_id
        return None

    def note_paths(self) -> list[str]:
        """Vault-relative paths of every note that holds canonical facts (symlinks skipped)."""
        found: list[str] = []
        notes = self.root / self.layout.notes_dir
        with contextlib.suppress(OSError):
            for entry in sorted(os.scandir(notes), key=lambda e: e.name):
                if (
                    entry.name.endswith(".md")
                    and entry.name != "README.md"
                    and not entry.name.startswith(".")
                    and entry.is_file(follow_symlinks=False)
                ):
                    found.append(f"{self.layout.notes_dir}/{entry.name}")
        catch_all = self.root / self.layout.catch_all
        if (
            self.layout.catch_all not in found
            and catch_all.is_file()
            and not catch_all.is_symlink()
        ):
            found.append(self.layout.catch_all)
        return found

    def inbox_files(self) -> list[Path]:
        """Submissions waiting: ``*.md`` directly in the inbox, not READMEs, not symlinks."""
        try:
            entries = list(os.scandir(self.inbox))
        except OSError:
            return []
        return sorted(
            self.inbox / e.name
            for e in entries
            if e.name.endswith(".md")
            and e.name.lower() != "readme.md"
            and not e.name.startswith(".")
            and e.is_file(follow_symlinks=False)
        )

    # -- locking --------------------------------------------------------------------------------

    def lock(self, timeout: float | None = None) -> contextlib.AbstractContextManager[None]:
        """The vault lock (bounded wait; ``CUECARD_VAULT_LOCK_TIMEOUT`` overrides 30 s)."""
        if timeout is None:
            timeout = float(os.environ.get("CUECARD_VAULT_LOCK_TIMEOUT") or 30.0)
        return vault_lock(self.root, timeout=timeout)

    # -- recall ---------------------------------------------------------------------------------

    def _extract(self, rel: str, text: str) -> list[Entry]:
        entries = []
        for fact in note_facts(text):
            if fact.superseded or fact.placeholder:
                continue
            entries.append(Entry(fact_id(fact.text), redact(fact.line.strip()), redact(fact.text)))
        return entries

    @property
    def index(self) -> RecallIndex:
        if self._index is None:
            self._index = RecallIndex(
                self.cache_dir / "recall.sqlite3", self.root, self.note_paths, self._extract
            )
        return self._index

    # -- use records ----------------------------------------------------------------------------

    @property
    def usage_log(self) -> Path:
        return self.cache_dir / "usage.log"

    def record_use(self, ids: list[str]) -> None:
        """Append one use per fact id (an append-only log: concurrent searchers never clash)."""
        if not ids:
            return
        day = self.now().date().isoformat()
        payload = "".join(f"{i}\t{day}\n" for i in dict.fromkeys(ids)).encode()
        with contextlib.suppress(OSError):
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.usage_log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                os.write(fd, payload)
            finally:
                os.close(fd)

    def last_uses(self) -> dict[str, date]:
        """Fact id -> the last day it was returned by search or show."""
        last: dict[str, date] = {}
        with contextlib.suppress(OSError):
            for line in self.usage_log.read_text(encoding="utf-8", errors="replace").splitlines():
                ident, _, day = line.partition("\t")
                try:
                    when = date.fromisoformat(day)
                except ValueError:
                    continue
                if ident not in last or when > last[ident]:
                    last[ident] = when
        return last

    def iter_notes(self) -> Iterator[tuple[str, Path]]:
        for rel in self.note_paths():
            yield rel, self.root / rel
