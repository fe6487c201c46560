"""Reading and scoring a recall index's posting blocks (the query side of ``_index``).

Standard library only (the cold search imports it). Okapi BM25 in the form of SQLite FTS5 and
rank_bm25; a term's postings are read block by block (``memoryview.cast``, no decoding
module), rarest term first, and a search stops early when no unread entry can reach the best
(``max_score``); the best entries then gain a share of their neighbours' scores
(``with_neighbours``). The concept graph reads the same blocks (``term_docs``).
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Sequence

__all__ = [
    "K1",
    "B",
    "best_scores",
    "ints",
    "max_score",
    "term_docs",
    "with_neighbours",
]

K1 = 1.2
B = 0.75
# Entries this many places away in a file count as neighbours (``with_neighbours``).
NEIGHBOUR_WINDOW = 1
# Candidates (at least; twice the pool if more) whose scores are completed from the query terms
# not read in full when ``max_score`` tests whether it may stop.
CANDIDATES = 48


def ints(blob: bytes) -> list[int]:
    """A posting block's column (native 4-byte unsigned integers) as a list."""
    return memoryview(blob).cast("I").tolist()


def term_docs(conn: sqlite3.Connection, term: str) -> list[int]:
    """The entries holding ``term``, in id order."""
    out: list[int] = []
    for (docs,) in conn.execute("SELECT docs FROM postings WHERE term = ? ORDER BY first", (term,)):
        out += ints(docs)
    return out


def _add_scores(
    conn: sqlite3.Connection, term: str, weight: float, avgdl: float, scores: dict[int, float]
) -> None:
    """Add ``term``'s Okapi BM25 share (the form of SQLite FTS5 and rank_bm25) to the ``scores``
    of every entry holding it: idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avgdl))."""
    flat, slope = K1 * (1 - B), K1 * B / avgdl
    alone = not scores  # no entry scored yet: the term's blocks (disjoint) fill the dict in C
    get = scores.get
    for docs, tfs, lens in conn.execute(
        "SELECT docs, tfs, lens FROM postings WHERE term = ?", (term,)
    ):
        shares = [
            weight * tf / (tf + flat + slope * length)
            for tf, length in zip(ints(tfs), ints(lens), strict=True)
        ]
        if alone:
            scores.update(zip(ints(docs), shares, strict=True))
        else:
            for doc, share in zip(ints(docs), shares, strict=True):
                scores[doc] = get(doc, 0.0) + share


def best_scores(scores: dict[int, float], count: int) -> list[tuple[int, float]]:
    """The best ``count`` of ``scores``, best first (ties: the lower id first)."""
    size = len(scores)
    if size > 16 * count > 0:
        # The count-th best of a sample is at most the count-th best of all: a cut that keeps
        # every one of the best and, with a sample of about sqrt(size * count), few others.
        stride = size // max(8 * count, 2 * math.isqrt(size * count))
        cut = sorted(list(scores.values())[::stride], reverse=True)[count - 1]
        ranked = [(-score, doc) for doc, score in scores.items() if score >= cut]
    else:
        ranked = [(-score, doc) for doc, score in scores.items()]
    ranked.sort()
    return [(doc, -score) for score, doc in ranked[:count]]


def _upto(values: Sequence[int], value: int) -> int:
    """How many of the sorted ``values`` are at most ``value``."""
    low, high = 0, len(values)
    while low < high:
        middle = (low + high) // 2
        if values[middle] <= value:
            low = middle + 1
        else:
            high = middle
    return low


def with_neighbours(
    conn: sqlite3.Connection,
    ranked: list[tuple[int, float]],
    weights: dict[str, float],
    avgdl: float,
    share: float,
) -> list[tuple[int, float]]:
    """The best entries and the entries next to them, rescored: each gains ``share`` of the best
    score ``d`` entries away in its file, divided by ``d`` (up to ``NEIGHBOUR_WINDOW``)."""
    own = {int(d): float(s) for d, s in ranked}
    near = conn.execute(
        "SELECT DISTINCT e.id, e.path, e.pos FROM entries h JOIN entries e "  # noqa: S608
        "ON e.path = h.path AND e.pos BETWEEN h.pos - ? AND h.pos + ? "
        f"WHERE h.id IN ({','.join('?' * len(own))})",
        [NEIGHBOUR_WINDOW, NEIGHBOUR_WINDOW, *own],
    ).fetchall()
    missing = [int(i) for i, _, _ in near if int(i) not in own]
    if missing:
        own.update(_contributions(conn, list(weights), missing, weights, avgdl))
    at = {(str(path), int(pos)): int(i) for i, path, pos in near}
    scored = []
    for ident, path, pos in near:
        best = 0.0
        for d in range(1, NEIGHBOUR_WINDOW + 1):
            for other in (at.get((path, pos - d)), at.get((path, pos + d))):
                if other is not None:
                    best = max(best, own[other] / d)
        scored.append((int(ident), own[int(ident)] + share * best))
    scored.sort(key=lambda pair: (-pair[1], pair[0]))
    return scored


def _contributions(
    conn: sqlite3.Connection,
    terms: list[str],
    ids: list[int],
    weights: dict[str, float],
    avgdl: float,
) -> dict[int, float]:
    """The BM25 sum of ``terms`` for each of ``ids`` (looked up in the terms' blocks)."""
    out: dict[int, float] = dict.fromkeys(ids, 0.0)
    flat, slope = K1 * (1 - B), K1 * B / avgdl
    wanted = sorted(out)
    for term in terms:
        weight = weights[term]
        firsts: list[int] = []
        blocks: list[tuple[memoryview, ...]] = []
        for first, *columns in conn.execute(
            "SELECT first, docs, tfs, lens FROM postings WHERE term = ? ORDER BY first", (term,)
        ):
            firsts.append(int(first))
            blocks.append(tuple(memoryview(c).cast("I") for c in columns))
        for ident in wanted:
            block = _upto(firsts, ident) - 1
            if block < 0:
                continue
            docs, tfs, lens = blocks[block]
            at = _upto(docs, ident) - 1
            if docs[at] == ident:
                tf = tfs[at]
                out[ident] += weight * tf / (tf + flat + slope * lens[at])
    return out


def max_score(
    conn: sqlite3.Connection,
    order: list[str],
    weights: dict[str, float],
    caps: dict[str, float],
    avgdl: float,
    limit: int,
    pool: int,
) -> list[tuple[int, float]]:
    """The best ``pool`` entries, the best ``limit`` of them exact (MaxScore): the terms are read
    in full in ``order`` (rarest first); after each, the best candidates' scores are completed
    from the terms not read yet (their blocks holding the candidates only), and the search
    stops when no other entry can reach the ``limit``-th of those (a term adds at most its
    ``caps``)."""
    scores: dict[int, float] = {}
    take = max(pool * 2, CANDIDATES)
    for at, term in enumerate(order):
        _add_scores(conn, term, weights[term], avgdl, scores)
        rest = order[at + 1 :]
        if not rest:
            break
        partial = best_scores(scores, take + 1)
        top = partial[:take]
        # (Widened by far more than the rounding of the sums it bounds.)
        headroom = sum(caps[t] for t in rest) * (1 + 1e-9)
        bound = (partial[take][1] if len(partial) > take else 0.0) + headroom
        if len(top) < limit or top[limit - 1][1] + headroom <= bound:
            continue  # not even the partial scores can tell; read the next term
        extra = _contributions(conn, rest, [d for d, _ in top], weights, avgdl)
        scored = sorted(((d, x + extra[d]) for d, x in top), key=lambda pair: (-pair[1], pair[0]))
        if scored[limit - 1][1] > bound:
            return scored[:pool]
    return best_scores(scores, pool)
