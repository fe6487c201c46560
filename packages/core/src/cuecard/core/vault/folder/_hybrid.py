"""Hybrid search on a folder vault: BM25, the concept graph and (with the extra) local vectors
over the vault's recall index, fused by weighted RRF with the ``[recall]`` settings
(``vault._settings``). Plain BM25 (without ``explain``) never comes here: the cold search path
stays lean.
"""

from __future__ import annotations

from cuecard.core.vault._results import Result

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.recall._index import RecallIndex
    from cuecard.core.vault._settings import Settings

__all__ = ["hybrid_results"]


def hybrid_results(
    index: RecallIndex, query: str, limit: int, settings: Settings, *, vectors: bool
) -> tuple[list[Result], dict[str, object]]:
    """The fused results for ``query`` over a synchronised ``RecallIndex``, and what each
    stream contributed (counts; the graph's expansion; why vectors did not run)."""
    from cuecard.core.recall._fusion import fuse, query_weights
    from cuecard.core.recall._graph import graph_search
    from cuecard.core.vault._settings import vectors_state

    pool = max(limit * 4, 40)
    texts: dict[tuple[str, str], str] = {}
    streams: dict[str, list[tuple[str, str]]] = {}
    info: dict[str, object] = {}
    weights = settings.weights
    if weights["bm25"] > 0:
        # (the query as typed: the ranking drops its function words itself, after the dates it
        # names are read; "May" is one)
        hits = index.search(query, pool)
        streams["bm25"] = [(h.path, h.key) for h in hits]
        texts.update({(h.path, h.key): h.text for h in hits})
    if weights["graph"] > 0:
        graph, expansion = graph_search(index._connect(), query, pool)
        streams["graph"] = [(h.path, h.key) for h in graph]
        texts.update({(h.path, h.key): h.text for h in graph})
        info["expansion"] = {c: [t for t, _ in near] for c, near in expansion.items()}
    why = vectors_state() if vectors else "not asked"
    if vectors and why is None and weights["vectors"] > 0:
        from cuecard.core.recall._vectors import vector_search

        found = vector_search(index, query, pool)
        streams["vectors"] = [(h.path, h.key) for h in found]
        texts.update({(h.path, h.key): h.text for h in found})
    elif vectors:
        info["vectors_off"] = why or "weight 0"
    fused = fuse(
        streams,
        query_weights(weights, query),
        limit=limit,
        per_note=settings.per_note,
        k=settings.rrf_k,
    )
    info["streams"] = {name: len(items) for name, items in streams.items()}
    results = [Result(f.item[0], f.item[1], texts[f.item], f.score, f.ranks) for f in fused]
    return results, info
