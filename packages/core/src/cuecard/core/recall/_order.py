"""The last steps of a ranking of facts, shared by every place that ranks them: exact forms
first, or the length prior (``Ranking.exact``, ``Ranking.prior``).

Pure and standard library only (the cold search imports it). The recall index (``_index``)
and the PostgreSQL vault's ranking in SQL (``vault/postgres/_search``, for a machine whose
cache folder cannot be written) each score BM25 with the neighbours' share over a pool of
``pool_size`` entries, best first, and hand it to ``settle`` with a way to read the entries'
texts, so both order their results by the same rules:

- among the best ``EXACT_WINDOW`` entries, those that name every plain query word as typed
  come first (a known item keeps its place above the word's other forms);
- when none does (a question, not an item), each score is multiplied by the entry's number of
  words to the power ``Ranking.prior``; and when every query term is in half the entries or
  more (``common``: BM25 weighs them all alike), the entries holding more of the terms come
  first, the prior ordering those alike.
"""

from __future__ import annotations

from cuecard.core.recall._tokens import _is_cjk, exact_words, has_word

TYPE_CHECKING = False  # the cold search imports no typing
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from cuecard.core.recall._values import Ranking

__all__ = ["EXACT_WINDOW", "POOL", "PRIOR_POOL", "pool_size", "settle", "with_prior", "words"]

# The best entries whose neighbours are looked at (at least; three times the limit if more).
POOL = 24
# The best entries whose scores the length prior weighs (at least; see ``Ranking.prior``).
PRIOR_POOL = 60
# Among this many best entries, those that name every plain query word exactly as typed rank
# first (in their order): with stemming, an entry may hold all the words' other forms and
# outscore the one a known-item query copies (tools/bench/recall.py's known-item MRR fell below
# plain BM25's); a fixed window, so a longer result list does not reorder its top.
EXACT_WINDOW = 24


def pool_size(limit: int, ranking: Ranking) -> int:
    """How many of the best entries by BM25 a search of ``limit`` results scores further."""
    if ranking.neighbours > 0 or ranking.prior > 0:
        return max(limit * 3, PRIOR_POOL if ranking.prior > 0 else POOL)
    return limit


def words(text: str) -> int:
    """How many words ``text`` holds: its space-separated pieces, a Chinese, Japanese or Korean
    character counting as one (a token count would give such text twice as many)."""
    if text.isascii():
        return len(text.split())
    count = 0
    for piece in text.split():
        cjk = sum(1 for char in piece if _is_cjk(char))
        count += cjk + (cjk < len(piece))
    return count


def with_prior(
    ranked: list[tuple[int, float]], read: Mapping[int, tuple[str, int]], power: float
) -> list[tuple[int, float]]:
    """``ranked`` rescored by a length prior: each score times the number of words of the
    entry's text (``read[key][0]``) to the ``power``; an entry holding more of the query's
    terms (``read[key][1]``, given when they are all common) first, whatever its length."""
    scored = []
    for key, score in ranked:
        text, matched = read.get(key, ("", 0))
        scored.append((-matched, -score * max(words(text), 1) ** power, key))
    scored.sort()
    return [(key, -score) for _, score, key in scored]


def settle(
    ranked: list[tuple[int, float]],
    limit: int,
    query: str,
    ranking: Ranking,
    read: Callable[[list[int]], Mapping[int, tuple[str, int]]],
) -> list[tuple[int, float]]:
    """The best ``limit`` of ``ranked`` (entry numbers with their BM25 and neighbour scores,
    best first; a lower number first among equal scores), ordered as the module docstring says.
    ``read(keys)`` gives each key's text (what a result shows) and how many of the query's
    terms it holds (0 unless every query term is common); it is asked for the entries it needs
    only: the best ``max(limit, EXACT_WINDOW)``, and every one when the prior runs."""
    texts = dict(read([key for key, _ in ranked[: max(limit, EXACT_WINDOW)]]))
    plain = exact_words(query, content=ranking.content) if ranking.stem else []
    exact = {
        key
        for key, _ in ranked[:EXACT_WINDOW]
        if plain and key in texts and all(has_word(texts[key][0].lower(), w) for w in plain)
    }
    if exact and ranking.exact:
        ranked = [r for r in ranked if r[0] in exact] + [r for r in ranked if r[0] not in exact]
    elif not exact and ranking.prior > 0:
        texts.update(read([key for key, _ in ranked if key not in texts]))
        ranked = with_prior(ranked, texts, ranking.prior)
    return ranked[:limit]
