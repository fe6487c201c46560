"""What the link-planting suites compare: every entry under a folder, and its contents, read
without following a link (the canary tree must come out of every planted run unchanged)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def entries(folder: Path, under: str = "") -> list[str]:
    """Every entry under ``folder`` (or its subfolder ``under``), relative to ``folder``, sorted;
    links not followed."""
    out = []
    for here, dirs, files in os.walk(folder / under if under else folder):
        for name in dirs + files:
            out.append(str(Path(here, name).relative_to(folder)))
    return sorted(out)


def snapshot(folder: Path) -> dict[str, Any]:
    """Each entry under ``folder``: a link's target, a folder, or a file's bytes."""
    out: dict[str, Any] = {}
    for rel in entries(folder):
        path = folder / rel
        if path.is_symlink():
            out[rel] = ("link", os.readlink(path))
        elif path.is_dir():
            out[rel] = ("dir",)
        else:
            out[rel] = ("file", path.read_bytes())
    return out
