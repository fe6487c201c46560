"""The inbox's processed submissions: a submission a review saw, or one a decision settled, is
moved from ``inbox/`` to ``processed/``. Shared by promotion and conflict adjudication."""

from __future__ import annotations

import os

from cuecard.core.vault.folder._vault import Vault

__all__ = ["archive_sources"]


def archive_sources(vault: Vault, names: list[str]) -> list[str]:
    """Move the inbox submissions ``names`` to ``processed/`` (a name taken there gets a
    suffix); the names moved. A link, a non-file or a name that is not a submission's stays.
    The caller holds the vault lock."""
    moved = []
    vault.processed.mkdir(parents=True, exist_ok=True)
    for name in sorted(set(names)):
        if "/" in name or "\\" in name or name.startswith(".") or not name.endswith(".md"):
            continue
        if name.lower() == "readme.md":
            continue
        src = vault.inbox / name
        if src.is_symlink() or not src.is_file():
            continue
        stem, n = name[:-3], 1
        while True:
            dst = vault.processed / (name if n == 1 else f"{stem}-{n}.md")
            try:
                os.link(src, dst)
            except FileExistsError:
                n += 1
                continue
            break
        src.unlink()
        moved.append(name)
    return moved
