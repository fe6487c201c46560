"""The concept-graph recall stream, read from a recall index's own tables.

Standard library only (it runs in the cold search process). Concepts are the index's tokens
that carry meaning on their own: identifiers and words of three characters or more, and pairs of
adjacent Chinese, Japanese or Korean characters (never a lone character nor a bare number).
Two concepts are joined by an edge when they occur in the same entry; the edge's strength is
their co-occurrence count over the geometric mean of their entry counts (cosine). The graph is
not stored apart: the index's postings are its adjacency lists, so it is always exactly as fresh
as the BM25 index and costs nothing to keep in sync.

A query's concepts score every entry holding them (``DIRECT`` times their idf), then one hop
adds their strongest neighbours (``strength`` times the neighbour's idf): an entry that shares
no word with the query but names the concepts that usually come with its words is found.
"""

from __future__ import annotations

import math
import sqlite3

from cuecard.core.engine._words import stem
from cuecard.core.recall._scoring import best_scores, term_docs
from cuecard.core.recall._tokens import FUNCTION_WORDS, _is_cjk, query_tokens

__all__ = [
    "DIRECT",
    "FUNCTION_WORDS",
    "GraphHit",
    "concepts",
    "content_query",
    "graph_search",
    "is_concept",
    "neighbours",
]

DIRECT = 2.0
# One hop: at most this many neighbours per query concept, each at least this strong.
NEIGHBOURS = 6
MIN_STRENGTH = 0.2
# Co-occurrence is counted over at most this many entries of a query concept (the rarest
# first are the most telling; a concept in more entries than this is too common to expand).
MAX_SPREAD = 400


class GraphHit:
    """One entry the graph stream found: its row id in the index, path, key, text, score."""

    __slots__ = ("key", "path", "row", "score", "text")

    def __init__(self, row: int, path: str, key: str, text: str, score: float) -> None:
        self.row = row
        self.path = path
        self.key = key
        self.text = text
        self.score = score

    def __repr__(self) -> str:
        return f"GraphHit({self.path!r}, {self.key!r}, {self.score:.3f})"


# Function words (from ``_tokens``) and their stemmed forms are no concepts.
_NOT_CONCEPTS = FUNCTION_WORDS | frozenset(stem(w) for w in FUNCTION_WORDS)


def is_concept(token: str) -> bool:
    """A token that names something: a word or identifier (3+ chars, not a bare number nor a
    function word) or a CJK bigram."""
    if _is_cjk(token[0]):
        return len(token) == 2 and _is_cjk(token[1])
    return (
        len(token) >= 3
        and token not in _NOT_CONCEPTS
        and not token.replace(".", "").replace(":", "").isdigit()
    )


def content_query(query: str) -> str:
    """``query`` without its English function words (the query itself when nothing is left)."""
    kept = [w for w in query.split() if w.lower().strip("?!.,;:'\"()") not in FUNCTION_WORDS]
    return " ".join(kept) if kept else query


def concepts(text: str) -> list[str]:
    """The distinct concepts of ``text``, in first-seen order."""
    return [t for t in query_tokens(text) if is_concept(t)]


def _idf(docs: int, df: int) -> float:
    return math.log(1.0 + (docs - df + 0.5) / (df + 0.5))


def neighbours(
    conn: sqlite3.Connection,
    concept: str,
    df: int,
    docs: int,
    dfs: dict[str, int],
    judged: dict[str, bool] | None = None,
) -> list[tuple[str, float]]:
    """The strongest concepts co-occurring with ``concept`` (strength = cosine of their entry
    sets), strongest first; ``dfs`` caches entry counts, ``judged`` which terms are concepts
    (one search meets the same terms in entry after entry)."""
    if df < 2 or df > MAX_SPREAD:
        return []
    if judged is None:
        judged = {}
    together: dict[str, int] = {}
    held = term_docs(conn, concept)
    for start in range(0, len(held), 500):
        ids = held[start : start + 500]
        for (terms,) in conn.execute(
            f"SELECT terms FROM entries WHERE id IN ({','.join('?' * len(ids))})",  # noqa: S608
            ids,
        ):
            for term in set(str(terms).split(" ")):
                if not term or term == concept:
                    continue
                kept = judged.get(term)
                if kept is None:
                    kept = judged[term] = is_concept(term)
                if kept:
                    together[term] = together.get(term, 0) + 1
    shared = [t for t, n in together.items() if n >= 2]
    missing = [t for t in shared if t not in dfs]
    for start in range(0, len(missing), 500):
        chunk = missing[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for term, count in conn.execute(
            f"SELECT term, df FROM terms WHERE term IN ({marks})",  # noqa: S608
            chunk,
        ):
            dfs[str(term)] = int(count)
    ranked = sorted(
        (
            (together[t] / math.sqrt(df * dfs[t]), t)
            for t in shared
            if dfs.get(t, 0) > 0 and dfs[t] < docs
        ),
        key=lambda pair: (-pair[0], pair[1]),
    )
    return [(t, s) for s, t in ranked[:NEIGHBOURS] if s >= MIN_STRENGTH]


def graph_search(
    conn: sqlite3.Connection, query: str, limit: int
) -> tuple[list[GraphHit], dict[str, list[tuple[str, float]]]]:
    """The best ``limit`` entries of the index behind ``conn`` for ``query`` by the concept graph,
    and each query concept's expansion (for ``--explain``)."""
    found = concepts(query)
    if not found or limit < 1:
        return [], {}
    try:
        docs_row = conn.execute("SELECT value FROM meta WHERE key = 'docs'").fetchone()
        marks = ",".join("?" * len(found))
        dfs = {
            str(t): int(n)
            for t, n in conn.execute(
                f"SELECT term, df FROM terms WHERE term IN ({marks})",  # noqa: S608
                found,
            )
            if int(n) > 0
        }
    except sqlite3.OperationalError:
        return [], {}
    docs = int(docs_row[0]) if docs_row else 0
    if docs < 1:
        return [], {}
    weights: dict[str, float] = {}
    expansion: dict[str, list[tuple[str, float]]] = {}
    judged: dict[str, bool] = {}
    for concept in found:
        df = dfs.get(concept, 0)
        if df == 0:
            continue
        weights[concept] = weights.get(concept, 0.0) + DIRECT * _idf(docs, df)
        near = neighbours(conn, concept, df, docs, dfs, judged)
        if near:
            expansion[concept] = near
        for term, strength in near:
            if term not in found:
                weights[term] = weights.get(term, 0.0) + strength * _idf(docs, dfs[term])
    if not weights:
        return [], expansion
    scores: dict[int, float] = {}
    for term in sorted(weights):
        weight = weights[term]
        for doc in term_docs(conn, term):
            scores[doc] = scores.get(doc, 0.0) + weight
    ranked = best_scores(scores, limit)
    if not ranked:
        return [], expansion
    rows: dict[int, tuple[str, str, str]] = {}
    for ident, path, key, text in conn.execute(
        "SELECT id, path, key, text FROM entries WHERE id IN "  # noqa: S608
        f"({','.join('?' * len(ranked))})",
        [d for d, _ in ranked],
    ):
        rows[int(ident)] = (str(path), str(key), str(text))
    hits = [GraphHit(int(d), *rows[int(d)], float(s)) for d, s in ranked if int(d) in rows]
    return hits, expansion
