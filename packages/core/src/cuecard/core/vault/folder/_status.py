"""What a vault holds, as a search would see it: the recall index (a cache of the notes) is
brought up to date first, as a search does; nothing in the vault itself is written."""

from __future__ import annotations

import os
import re
from typing import Any

from cuecard.core.vault._settings import recall_mode
from cuecard.core.vault.folder._conflicts import queue
from cuecard.core.vault.folder._vault import Vault

__all__ = ["status"]

_WHEN = re.compile(r"^- (\d{4}-\d{2}-\d{2} \d{2}:\d{2}) ")


def status(vault: Vault) -> dict[str, Any]:
    last = None
    text = vault.read(vault.path(vault.layout.promoted))
    for line in text.splitlines():
        found = _WHEN.match(line)
        if found:
            last = found.group(1)
    vault.index.sync()
    counts = vault.index.counts()
    return {
        "vault": str(vault.root),
        "layout": vault.layout.name,
        "index": {
            "path": str(vault.index.db_path),
            "exists": os.path.isfile(vault.index.db_path),
            "notes": counts["files"],
            "facts": counts["entries"],
        },
        "pending": len(vault.inbox_files()),
        "conflicts": len(queue(vault)),
        "last_promotion": last,
        "recall": recall_mode(),
    }
