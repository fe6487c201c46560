"""One vault: its root, its layout, its paths, its recall index and its use records.

Every file below the root is read and written through ``tree`` (``cuecard.core.fs.Tree``): by
directory descriptor, no link followed at any depth, no FIFO or device opened. Standard library
only: the cold ``vault search`` process opens a vault through this module.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from cuecard.core.base._confined import Tree
from cuecard.core.recall._index import RecallIndex
from cuecard.core.vault._errors import NotAVault
from cuecard.core.vault._layout import Layout, detect_layout
from cuecard.core.vault.folder import _recall
from cuecard.core.vault.folder._lock import vault_lock

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import date, datetime

__all__ = ["Clock", "Vault"]

Clock = Callable[[], "datetime"]


def _local_now() -> datetime:
    from datetime import datetime

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
        notify: Callable[[str], None] | None = None,
    ) -> None:
        self.root = root
        self.tree = Tree(root)
        """The vault folder: every file below it is reached through this."""
        self.layout = layout
        self.now: Clock = clock or _local_now
        self.notify = notify
        """Where lines for the user go (waiting for the lock, a mirror not updated): the command
        line prints them on stderr; ``None`` drops them. Library code never prints."""
        self.cache_dir = cache_dir or Path(_recall.cache_dir(str(root)))
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

    def rel(self, path: Path | str) -> str:
        """The vault-relative ``/`` path of ``path`` (a path below the root)."""
        return Path(path).relative_to(self.root).as_posix()

    def read(self, path: Path | str) -> str:
        """The text of the regular file ``path`` below the root (undecodable bytes replaced),
        ``""`` when there is none; ``UnsafePath`` for a link, FIFO or device on the way."""
        try:
            return self.tree.read_bytes(self.rel(path)).decode("utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    def write(self, path: Path | str, text: str | bytes) -> None:
        """Replace the file ``path`` below the root atomically (folders made as needed)."""
        self.tree.write(self.rel(path), text)

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
        return _recall.note_paths(str(self.root), self.layout)

    def inbox_files(self) -> list[Path]:
        """Submissions waiting: ``*.md`` directly in the inbox, not READMEs, not symlinks."""
        try:
            entries = self.tree.entries(self.layout.inbox)
        except OSError:
            return []
        return [
            self.inbox / name
            for name, kind in entries
            if name.endswith(".md")
            and name.lower() != "readme.md"
            and not name.startswith(".")
            and kind == "file"
        ]

    # -- locking --------------------------------------------------------------------------------

    def lock(self, timeout: float | None = None) -> contextlib.AbstractContextManager[None]:
        """The vault lock (bounded wait; ``CUECARD_VAULT_LOCK_TIMEOUT`` overrides 30 s)."""
        if timeout is None:
            timeout = float(os.environ.get("CUECARD_VAULT_LOCK_TIMEOUT") or 30.0)
        return vault_lock(self.root, timeout=timeout, on_wait=self.notify)

    # -- recall ---------------------------------------------------------------------------------

    @property
    def index(self) -> RecallIndex:
        if self._index is None:
            self._index = RecallIndex(
                self.cache_dir / "recall.sqlite3",
                self.root,
                self.note_paths,
                _recall.extract,
                rules=_recall.RULES,
            )
        return self._index

    # -- use records ----------------------------------------------------------------------------

    @property
    def usage_log(self) -> Path:
        return self.cache_dir / "usage.log"

    def record_use(self, ids: list[str]) -> None:
        """Record that these facts were returned (search, show): ``forget`` spares them."""
        _recall.record_use(str(self.cache_dir), ids, self.now().date().isoformat())

    def last_uses(self) -> dict[str, date]:
        """Fact id -> the last day it was returned by search or show."""
        from datetime import date

        found = {}
        for ident, day in _recall.last_uses(str(self.cache_dir)).items():
            try:
                found[ident] = date.fromisoformat(day)
            except ValueError:
                continue
        return found

    def iter_notes(self) -> Iterator[tuple[str, Path]]:
        for rel in self.note_paths():
            yield rel, self.root / rel
