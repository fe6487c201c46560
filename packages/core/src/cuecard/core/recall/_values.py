"""The recall index's value types: how it ranks (``Ranking``) and what it stores (``Entry``).
Below the index, its loader and its write path, which all use them. Standard library only.
"""

from __future__ import annotations

__all__ = ["NEIGHBOUR_SHARE", "Entry", "Ranking"]

# An entry gains this share of the best score among the entries next to it (up to
# ``_scoring.NEIGHBOUR_WINDOW`` entries away, the share divided by the distance); tuned on
# tools/bench/recall_quality.py.
NEIGHBOUR_SHARE = 0.5


class Ranking:
    """How an index tokenises and ranks; the defaults are cuecard's search.

    - ``content``: a query drops its English function words ("what", "did", "how").
    - ``stem``: plain English words are stemmed (``cuecard.core.engine._words.stem``), in entries
      and queries alike.
    - ``context``: an entry's ``context`` (its note's headings) is indexed with its terms.
    - ``neighbours``: the share (0-1; 0 turns it off) of a neighbour's score an entry gains.
    - ``exact``: with ``stem``, among the best ``EXACT_WINDOW`` entries those that name every
      plain query word as typed rank first.
    """

    __slots__ = ("content", "context", "exact", "neighbours", "stem")

    def __init__(
        self,
        *,
        content: bool = True,
        stem: bool = True,
        context: bool = True,
        neighbours: float = NEIGHBOUR_SHARE,
        exact: bool = True,
    ) -> None:
        self.content = content
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
