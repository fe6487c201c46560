"""Weighted reciprocal-rank fusion of ranked streams, with a cap per note. Pure; stdlib only.

Each stream is a list of items, best first; an item is ``(path, key)`` (the note it came from
and its fact id). An item's fused score is the sum over the streams that returned it of
``weight / (k + rank)`` (rank 1 is the best), so only ranks count, never a stream's raw scores,
and a stream of weight 0 is ignored. Ties keep the order of the first stream that ranked them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["DATED_VECTORS", "DEFAULT_K", "Fused", "fuse", "query_weights"]

DEFAULT_K = 60
# A query that names a date ("in May 2023"): the vector stream, which reads no date, counts this
# share of its weight, and BM25, which reaches the dated facts, counts for more (chosen on the
# dev split of tools/bench/recall_conversation_set.json from 1, 0.5 and 0: 0.5).
DATED_VECTORS = 0.5

Item = tuple[str, str]


class Fused:
    """One fused result: the item, its fused score and its rank in every stream (``None``
    where the stream did not return it)."""

    __slots__ = ("item", "ranks", "score")

    def __init__(self, item: Item, score: float, ranks: dict[str, int | None]) -> None:
        self.item = item
        self.score = score
        self.ranks = ranks

    def __repr__(self) -> str:
        return f"Fused({self.item!r}, {self.score:.5f}, {self.ranks!r})"


def query_weights(weights: Mapping[str, float], query: str) -> dict[str, float]:
    """``weights`` for ``query``: the vectors' weight times ``DATED_VECTORS`` when it names a
    date."""
    from cuecard.core.recall._dates import date_terms

    out = dict(weights)
    if out.get("vectors", 0) > 0 and date_terms(query):
        out["vectors"] *= DATED_VECTORS
    return out


def fuse(
    streams: Mapping[str, Sequence[Item]],
    weights: Mapping[str, float],
    *,
    limit: int,
    per_note: int,
    k: int = DEFAULT_K,
) -> list[Fused]:
    """The best ``limit`` items of the weighted RRF of ``streams``, at most ``per_note`` from
    any one note (path). A stream missing from ``weights`` has weight 1."""
    ranks: dict[Item, dict[str, int | None]] = {}
    scores: dict[Item, float] = {}
    first_seen: dict[Item, tuple[int, int]] = {}
    for order, (name, items) in enumerate(streams.items()):
        weight = float(weights.get(name, 1.0))
        seen: set[Item] = set()
        for position, item in enumerate(items, start=1):
            if item in seen:
                continue
            seen.add(item)
            ranks.setdefault(item, dict.fromkeys(streams))[name] = position
            first_seen.setdefault(item, (order, position))
            if weight > 0:
                scores[item] = scores.get(item, 0.0) + weight / (k + position)
    ordered = sorted(
        (item for item in scores if scores[item] > 0),
        key=lambda item: (-scores[item], first_seen[item]),
    )
    taken: list[Fused] = []
    per_path: dict[str, int] = {}
    for item in ordered:
        if len(taken) >= limit:
            break
        if per_path.get(item[0], 0) >= per_note:
            continue
        per_path[item[0]] = per_path.get(item[0], 0) + 1
        taken.append(Fused(item, scores[item], ranks[item]))
    return taken
