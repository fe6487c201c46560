"""A folder vault's session archives for a digest: ``sessions/*.md``, the cursor file
``digest-cursor.json`` in the vault's cache folder, and the inbox (see ``vault._digest``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cuecard.core.vault._digest import Claim, cursor_start
from cuecard.core.vault._location import cache_tree
from cuecard.core.vault.folder._vault import Vault

__all__ = ["FolderArchives", "cursor_file"]


def cursor_file(cache_dir: Path) -> Path:
    """Where a folder vault keeps its digest cursor: ``digest-cursor.json`` in its cache."""
    return cache_dir / "digest-cursor.json"


class FolderArchives:
    """A folder vault's ``sessions/*.md``, the cursor file ``digest-cursor.json`` in the vault's
    cache folder (one flock serialises digests on this machine), and its inbox folder."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self.cursor_file = cursor_file(vault.cache_dir)
        self.cache_tree = cache_tree(vault.cache_dir)

    def _cursor(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.cache_tree.read_bytes(self.cursor_file.name))
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
        try:
            data = self.vault.tree.read_bytes(rel)
        except OSError:
            return None
        seen = cursor.get(rel) or {}
        start = cursor_start(data, seen.get("size"), seen.get("sha256"))
        return None if start == len(data) else Claim(name, rel, data, start)

    def pending(self) -> list[str]:
        try:
            entries = self.vault.tree.entries(self.vault.layout.sessions)
        except OSError:
            return []
        names = [
            name
            for name, kind in entries
            if name.endswith(".md") and len(name) > 3 and name != "README.md" and kind == "file"
        ]
        cursor = self._cursor()
        return [name for name in names if self._read(name, cursor) is not None]

    @contextmanager
    def claim(self, name: str, *, lock: bool) -> Iterator[Claim | None]:
        if not lock:
            yield self._read(name, self._cursor())
            return
        with self.cache_tree.locked("digest-cursor.lock"):
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
        self.cache_tree.write(
            self.cursor_file.name, json.dumps({"files": cursor}, indent=1, sort_keys=True)
        )
        return written
