"""What a session tells ingestion: the triggers it suggests, the corrections that ground a memory.

A proposal without triggers gets the folders the session touched most, never cuecard's own
``.cuecard/`` files (the proposal's own write is in the footprint). A recorded user correction
grounds auto-accept only when it names the memory: the correction's preview shares a word (in the
sense of ``_words``) with the memory's topic or title, beyond the words any sentence holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cuecard.core.engine._footprint import Footprint, touched_paths
from cuecard.core.engine._paths import STORE_DIR
from cuecard.core.engine._words import words

__all__ = ["naming_correction", "suggest_triggers"]

# Words a correction and a title share without naming the same thing.
_COMMON = frozenset(
    words(
        "a an and are as at be but by do does did for from has have how i if in into is it its "
        "no not of on or so that the then this to use used using was we were what when where "
        "which why will with you your should must never always don't do not instead wrong right "
        "fix make one all any new old file files code"
    )
)


def suggest_triggers(root: Path, session: str) -> list[dict[str, Any]]:
    """Trigger clauses from what the session touched: its most visited folders, outside
    ``.cuecard/``."""
    paths = [
        p
        for p in touched_paths(str(root / STORE_DIR / "local"), session)
        if p and p != STORE_DIR and not p.startswith(f"{STORE_DIR}/")
    ]
    if not paths:
        return []
    folders: dict[str, int] = {}
    for path in paths:
        folder = path.rsplit("/", 1)[0] if "/" in path else path
        folders[folder] = folders.get(folder, 0) + 1
    best = sorted(folders, key=lambda f: -folders[f])[:3]
    globs = [f"{f}/**" if "/" in f or f not in paths else f for f in best]
    return [{"on": ["read", "edit", "write"], "paths": globs}]


def _names(preview: str, topic: str, title: str) -> bool:
    said = set(words(preview)) - _COMMON
    named = set(words(topic.replace("/", " ").replace("-", " ").replace("_", " ")))
    named |= set(words(title))
    return bool(said & (named - _COMMON))


def naming_correction(root: Path, session: str, topic: str, title: str) -> bool | None:
    """Whether the session recorded a user correction, after something the agent did, that
    names the memory (``True``); ``False`` when its corrections name something else; ``None``
    when it recorded none."""
    acted = False
    found: bool | None = None
    for record in Footprint(str(root / STORE_DIR / "local"), session).records():
        if record["e"] == "tool":
            acted = True
        elif record["e"] == "prompt" and record.get("correction") and acted:
            if _names(str(record.get("preview", "")), topic, title):
                return True
            found = False
    return found
