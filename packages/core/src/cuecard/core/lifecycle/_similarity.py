"""Similarity between memories, for duplicates at ingestion and "similar memories" in review.

Word-set Jaccard over title and body: cheap, deterministic, and good enough to catch a proposal
that restates a live memory. The per-memory word sets are cached in
``.cuecard/local/similarity.json`` and refreshed incrementally by content hash.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path

from cuecard.core.store._memory import Memory

__all__ = ["DUPLICATE_AT", "SimilarityIndex", "jaccard", "words"]

DUPLICATE_AT = 0.75
_WORD = re.compile(r"[^\W_]{3,}|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]", re.UNICODE)
_STOP = frozenset(
    """the and for that this with from are was were not but you your have has had its into when
    then than they them their there will would should could can may must any all use using used
    """.split()
)


def words(text: str) -> frozenset[str]:
    """The content words of ``text``, lowercased."""
    return frozenset(w for w in (m.lower() for m in _WORD.findall(text)) if w not in _STOP)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _hash(memory: Memory) -> str:
    return hashlib.sha256(f"{memory.title}\n{memory.body}".encode()).hexdigest()[:16]


class SimilarityIndex:
    """Word sets of the live memories, cached on disk."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._sets: dict[str, frozenset[str]] = {}

    def refresh(self, memories: Iterable[Memory]) -> SimilarityIndex:
        """Bring the cache up to date with ``memories`` (only changed ones are recomputed)."""
        from cuecard.core.engine._paths import local_tree

        tree, local = local_tree(str(self.path.parent))  # by descriptor: no link, no FIFO
        rel = "/".join(p for p in (local, self.path.name) if p)
        try:
            cached = json.loads(tree.read_bytes(rel, 64 * 1024 * 1024))
        except (OSError, ValueError):
            cached = {}
        fresh: dict[str, dict[str, object]] = {}
        changed = False
        for memory in memories:
            digest = _hash(memory)
            entry = cached.get(memory.id) if isinstance(cached, dict) else None
            if not isinstance(entry, dict) or entry.get("h") != digest:
                entry = {"h": digest, "w": sorted(words(f"{memory.title} {memory.body}"))}
                changed = True
            fresh[memory.id] = entry
            self._sets[memory.id] = frozenset(str(w) for w in entry.get("w", []))
        if changed or len(fresh) != len(cached):
            # a cache: a link or FIFO in its place is left there, and the cache goes unwritten
            with contextlib.suppress(OSError):
                tree.write(rel, json.dumps(fresh), durable=False)
        return self

    def similar(self, text: str, *, at_least: float = 0.3) -> list[tuple[str, float]]:
        """Memories whose words overlap ``text``'s, most similar first."""
        mine = words(text)
        scored = [(ident, jaccard(mine, theirs)) for ident, theirs in self._sets.items()]
        return sorted(((i, s) for i, s in scored if s >= at_least), key=lambda x: -x[1])
