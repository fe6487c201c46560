"""What a vault holds, as a search would see it: the recall index (a cache of the notes) is
brought up to date first, as a search does; nothing in the vault itself is written."""

from __future__ import annotations

import os
import re
from typing import Any

from cuecard.core.vault.folder._conflicts import queue
from cuecard.core.vault.folder._vault import Vault

__all__ = ["status"]

_WHEN = re.compile(r"^- (\d{4}-\d{2}-\d{2} \d{2}:\d{2}) ")


def status(vault: Vault) -> dict[str, Any]:
    last = None
    try:
        text = vault.path(vault.layout.promoted).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        text = ""
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


def recall_mode() -> dict[str, Any]:
    """How ``vault search`` ranks by default: mode, the streams it fuses, whether vectors run."""
    from cuecard.core.vault.folder._hybrid import load_settings, resolve_mode, vectors_state

    settings = load_settings()
    mode = resolve_mode(None, settings)
    why = vectors_state()
    streams = ["bm25"]
    if mode == "hybrid":
        streams += [n for n in ("graph", "vectors") if settings.weights[n] > 0]
        if why is not None and "vectors" in streams:
            streams.remove("vectors")
    return {
        "mode": mode,
        "configured": settings.mode,
        "streams": streams,
        "vectors": "available" if why is None else why,
    }
