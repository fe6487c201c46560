"""Recall: the persisted BM25 index and its tokenizer. Re-exported lazily."""

from __future__ import annotations

from cuecard.core.base._lazy import lazy_exports as _lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.recall._index import Hit as Hit
    from cuecard.core.recall._index import RecallIndex as RecallIndex
    from cuecard.core.recall._index import SyncReport as SyncReport
    from cuecard.core.recall._index import collect_notices as collect_notices
    from cuecard.core.recall._project import project_index as project_index
    from cuecard.core.recall._project import project_root as project_root
    from cuecard.core.recall._tokens import query_tokens as query_tokens
    from cuecard.core.recall._tokens import tokens as tokens
    from cuecard.core.recall._values import Entry as Entry
    from cuecard.core.recall._values import Ranking as Ranking

_EXPORTS: dict[str, str] = {
    "Entry": "cuecard.core.recall._values",
    "Hit": "cuecard.core.recall._index",
    "Ranking": "cuecard.core.recall._values",
    "RecallIndex": "cuecard.core.recall._index",
    "SyncReport": "cuecard.core.recall._index",
    "collect_notices": "cuecard.core.recall._index",
    "project_index": "cuecard.core.recall._project",
    "project_root": "cuecard.core.recall._project",
    "query_tokens": "cuecard.core.recall._tokens",
    "tokens": "cuecard.core.recall._tokens",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
