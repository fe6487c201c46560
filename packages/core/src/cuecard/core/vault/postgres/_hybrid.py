"""Hybrid search on a PostgreSQL vault: local streams over this machine's mirror, fused.

The streams, fused by the folder vault's weighted RRF (``recall._fusion``) with the same
``[recall]`` settings and the same output, all computed on this machine over the *mirror* of
the database's active facts (``_mirror``: one small file per note in this machine's cache folder
for the vault URL, indexed by the same ``RecallIndex`` the folder vault uses):

- ``bm25`` (the lexical stream): the folder vault's BM25 over the mirror, the ranking plain
  search uses. Its weight is ``recall.weights.bm25``.
- ``graph`` and ``vectors``: the concept graph (that index's postings, as on a folder vault) and
  (with ``cuecard-core[vectors]``) local vectors, kept by content hash in ``vectors.sqlite3``
  beside it, so only facts not embedded before are embedded.

Each hybrid search first reads the database's generation number of the searchable facts and
fetches the active facts again only when it differs from the mirror's (see ``_mirror``); the
generation is read before the fetch, so the mirror is never older than the search's start.
"""

from __future__ import annotations

from cuecard.core.vault._errors import VaultError
from cuecard.core.vault._results import Result
from cuecard.core.vault.postgres._mirror import note_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.vault._settings import Settings
    from cuecard.core.vault.postgres._vault import PgVault

__all__ = ["LEXICAL", "pg_hybrid_results"]

LEXICAL = "Okapi BM25 over this machine's mirror of the facts (the folder vault's ranking)"


# -- search -------------------------------------------------------------------------------------


def pg_hybrid_results(
    vault: PgVault, query: str, limit: int, settings: Settings, *, vectors: bool
) -> tuple[list[Result], dict[str, object]]:
    """The fused results for ``query`` on a PostgreSQL vault, and what each stream contributed
    (the same shape as ``folder._hybrid.hybrid_results``, plus ``lexical`` and ``mirror``)."""
    from cuecard.core.recall._fusion import fuse, query_weights
    from cuecard.core.vault._render import clean
    from cuecard.core.vault._settings import vectors_state
    from cuecard.core.vault.postgres._mirror import MIRROR_ERRORS, pg_cache_dir

    mirror = vault.mirror()
    try:
        if mirror is None:
            raise OSError("not writable")
        fetched = mirror.refresh(vault)
    except MIRROR_ERRORS as exc:
        raise VaultError(
            f"{pg_cache_dir(vault.url)}: hybrid search on a PostgreSQL vault keeps a mirror of "
            f"its facts in this machine's cache folder, which must be writable ({exc})"
        ) from None
    index = mirror.index
    pool = max(limit * 4, 40)
    weights = settings.weights
    texts: dict[tuple[str, str], str] = {}
    streams: dict[str, list[tuple[str, str]]] = {}
    info: dict[str, object] = {
        "lexical": LEXICAL,
        "mirror": {"facts": mirror.facts, "fetched": fetched},
    }
    if weights["bm25"] > 0:
        hits = mirror.rank(query, pool)
        streams["bm25"] = [(h.path, h.key) for h in hits]
        texts.update({(h.path, h.key): h.text for h in hits})
    why = vectors_state() if vectors else "not asked"
    run_vectors = vectors and why is None and weights["vectors"] > 0
    if weights["graph"] > 0:
        from cuecard.core.recall._graph import graph_search

        graph, expansion = graph_search(index._connect(), query, pool)
        streams["graph"] = [(note_path(h.path), h.key) for h in graph]
        texts.update({(note_path(h.path), h.key): h.text for h in graph})
        info["expansion"] = {c: [t for t, _ in near] for c, near in expansion.items()}
    if run_vectors:
        from cuecard.core.recall._vectors import vector_search

        found = vector_search(index, query, pool)
        streams["vectors"] = [(note_path(h.path), h.key) for h in found]
        texts.update({(note_path(h.path), h.key): h.text for h in found})
    if vectors and not run_vectors:
        info["vectors_off"] = why or "weight 0"
    fused = fuse(
        streams,
        query_weights(weights, query),
        limit=limit,
        per_note=settings.per_note,
        k=settings.rrf_k,
    )
    info["streams"] = {name: len(items) for name, items in streams.items()}
    # The database is shared: text is redacted and made safe again here, whoever wrote it.
    results = [Result(f.item[0], f.item[1], clean(texts[f.item]), f.score, f.ranks) for f in fused]
    return results, info
