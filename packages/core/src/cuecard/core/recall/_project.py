"""Recall over a project's live memories, indexed in ``.cuecard/local/recall.sqlite3``.

Reads the memory files as plain JSON (no pydantic: this is the cold search path).
"""

from __future__ import annotations

import os

from cuecard.core.base._confined import Tree
from cuecard.core.engine._paths import opted_in
from cuecard.core.recall._index import Entry, RecallIndex

__all__ = ["LIVE_STATUSES", "project_index", "project_root"]

LIVE_STATUSES = frozenset({"active", "contested"})


def project_root(start: str | None = None) -> str | None:
    """The nearest folder at or above ``start`` (or ``CUECARD_PROJECT_DIR``) that opted in."""
    env = os.environ.get("CUECARD_PROJECT_DIR")
    here = os.path.realpath(env if env and start is None else (start or os.getcwd()))
    while True:
        if opted_in(here):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _list(root: str) -> list[str]:
    """The memory files of the project at ``root`` (none when ``.cuecard/`` or its
    ``memories/`` is a link or not a plain folder: walked by descriptor)."""
    try:
        entries = Tree(root).entries(".cuecard/memories")
    except OSError:
        return []
    return [name for name, kind in entries if name.endswith(".json") and kind == "file"]


def _extract(rel: str, text: str) -> list[Entry]:
    import json

    from cuecard.core.engine._secrets import redact
    from cuecard.core.engine._text import neutralise

    try:
        raw = json.loads(text)
    except json.JSONDecodeError:
        return []
    if not isinstance(raw, dict) or raw.get("status") not in LIVE_STATUSES:
        return []
    fields = {k: raw.get(k) for k in ("id", "topic", "kind", "title", "body")}
    if not all(isinstance(v, str) for v in fields.values()):
        return []
    shown = f"{fields['title']} ({fields['kind']}, {fields['topic']}): {fields['body']}"
    keywords: list[str] = []
    for clause in raw.get("triggers") or []:
        if isinstance(clause, dict):
            for name in ("keywords", "symbols", "paths", "commands"):
                values = clause.get(name)
                if isinstance(values, list):
                    keywords.extend(str(v) for v in values)
    terms = " ".join(
        [fields["topic"] or "", fields["title"] or "", fields["body"] or "", *keywords]
    )
    return [Entry(str(fields["id"]), neutralise(redact(shown)), redact(terms))]


def project_index(root: str) -> RecallIndex:
    memories = os.path.join(root, ".cuecard", "memories")
    return RecallIndex(
        os.path.join(root, ".cuecard", "local", "recall.sqlite3"),
        memories,
        lambda: _list(root),
        _extract,
        rules="project-1",
        db_tree=Tree(root),
    )
