"""Session archives: a redacted block appended to ``sessions/<YYYY-MM-DD>.md`` under the lock."""

from __future__ import annotations

from pathlib import Path

from cuecard.core.vault._rules import render_block
from cuecard.core.vault.folder._vault import Vault

__all__ = ["archive_session"]


def archive_session(vault: Vault, agent: str, title: str, text: str) -> tuple[str, int] | None:
    """Append the block; return the archive's file name and line count, or ``None`` if empty."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return None
    now = vault.now()
    block = render_block(now.strftime("%H:%M"), agent, title, lines)
    folder = vault.path(vault.layout.sessions)
    path = folder / f"{now.date().isoformat()}.md"
    with vault.lock():
        old = vault.read(path) or f"# {now.date().isoformat()}\n\n"
        if not old.endswith("\n"):
            old += "\n"
        vault.write(path, old + block)
    return Path(path).name, len(lines)
