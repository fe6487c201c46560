"""The inbox's processed submissions: a submission a review saw, or one a decision settled, is
moved from ``inbox/`` to ``processed/``. Shared by promotion and conflict adjudication."""

from __future__ import annotations

from cuecard.core.vault.folder._vault import Vault

__all__ = ["archive_sources"]


def archive_sources(vault: Vault, names: list[str]) -> list[str]:
    """Move the inbox submissions ``names`` to ``processed/`` (a name taken there gets a
        suffix); the names moved. A link, a non-file or a name that is not a submission's stays;
    moved by descriptor (``Tree.move``), never through a link.
        The caller holds the vault lock."""
    moved = []
    inbox, processed = vault.layout.inbox, vault.layout.processed
    vault.tree.mkdirs(processed)
    for name in sorted(set(names)):
        if "/" in name or "\\" in name or name.startswith(".") or not name.endswith(".md"):
            continue
        if name.lower() == "readme.md":
            continue
        if not vault.tree.is_file(f"{inbox}/{name}"):
            continue
        stem, n = name[:-3], 1
        try:
            while not vault.tree.move(
                f"{inbox}/{name}", f"{processed}/{name if n == 1 else f'{stem}-{n}.md'}"
            ):
                n += 1
        except FileNotFoundError:
            continue  # gone since it was listed
        moved.append(name)
    return moved
