"""The recall index's value types: how it ranks (``Ranking``) and what it stores (``Entry``).
Below the index, its loader and its write path, which all use them. Standard library only.
"""

from __future__ import annotations

__all__ = ["NEIGHBOUR_SHARE", "PRIOR", "Entry", "Ranking"]

# An entry gains this share of the best score among the entries next to it (up to
# ``_scoring.NEIGHBOUR_WINDOW`` entries away, the share divided by the distance); tuned on
# tools/bench/recall_quality.py.
NEIGHBOUR_SHARE = 0.5
# With ``Ranking.prior`` p > 0 and no entry of the best ``_order.EXACT_WINDOW`` naming every
# query word, each score is multiplied by the entry's number of words to the power p: BM25 then
# no longer prefers "That's so cool!" to the turn that tells something when a question shares
# only a name or a date with both. 0.5 on the dev split of
# tools/bench/recall_conversation_set.json (0.25, 0.5, 0.75, 1 tried; 0.5 the best R@10, and an
# entry then needs four times the words to pass one that BM25 scores twice as high).
PRIOR = 0.5


class Ranking:
    """How an index tokenises and ranks; the defaults are cuecard's search.

    - ``content``: a query drops its English function words ("what", "did", "how").
    - ``stem``: plain English words are stemmed (``cuecard.core.engine._words.stem``), in entries
      and queries alike.
    - ``context``: an entry's ``context`` (its note's headings) is indexed with its terms.
    - ``neighbours``: the share (0-1; 0 turns it off) of a neighbour's score an entry gains.
    - ``exact``: with ``stem``, among the best ``_order.EXACT_WINDOW`` entries those that name every
      plain query word as typed rank first.
    - ``dates``: a date the query names ("in May 2023", "on 8 May 2023") is also searched as
      its day's and month's terms (``_dates``), which the vault's extractor gives its facts
      from their own text and their innermost dated heading.
    - ``prior``: the power of an entry's length in words its score is multiplied by when no
      entry among the best names every query word (``PRIOR``; 0 turns it off).
    """

    __slots__ = ("content", "context", "dates", "exact", "neighbours", "prior", "stem")

    def __init__(
        self,
        *,
        content: bool = True,
        stem: bool = True,
        context: bool = True,
        neighbours: float = NEIGHBOUR_SHARE,
        exact: bool = True,
        dates: bool = True,
        prior: float = PRIOR,
    ) -> None:
        self.content = content
        self.dates = dates
        self.prior = prior
        self.exact = exact
        self.stem = stem
        self.context = context
        self.neighbours = neighbours

    def tag(self) -> str:
        """What changes the stored index (a change rebuilds it)."""
        return f"s{int(self.stem)}c{int(self.context)}"


class Entry:
    """One searchable unit of a file: ``key`` (a fact or memory id), ``text`` (what a result
    shows, already redacted), ``terms`` (what is tokenised; ``text`` when empty) and
    ``context`` (words about it outside it, such as its note's headings; indexed with it when
    the ranking says so)."""

    __slots__ = ("context", "key", "terms", "text")

    def __init__(self, key: str, text: str, terms: str = "", context: str = "") -> None:
        self.key = key
        self.text = text
        self.terms = terms
        self.context = context
