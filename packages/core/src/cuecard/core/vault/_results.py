"""What a vault search returns: ``Result`` values in a ``Found`` list. Standard library only.

Both backends return these from ``Backend.search`` and the command line prints them; the cold
``vault search`` process imports this module, so it stays free of dataclasses and typing.
"""

from __future__ import annotations

__all__ = ["Found", "Result"]


class Result:
    """One result: its note (a vault-relative path or the note's file name), the fact's id, its
    shown line (redacted and made safe when it was indexed) and its score; ``ranks`` holds its
    rank in each search stream (hybrid mode and ``explain`` only)."""

    __slots__ = ("key", "path", "ranks", "score", "text")

    def __init__(
        self,
        path: str,
        key: str,
        text: str,
        score: float,
        ranks: dict[str, int | None] | None = None,
    ) -> None:
        self.path = path
        self.key = key
        self.text = text
        self.score = score
        self.ranks: dict[str, int | None] = {} if ranks is None else ranks

    def __repr__(self) -> str:
        return f"Result({self.path!r}, {self.key!r}, {self.text!r}, {self.score:.3f})"


class Found(list[Result]):
    """A search's results, best first, and how they were found: ``mode`` (``bm25`` or
    ``hybrid``), whether ``explain`` was asked, and ``info`` (what each stream contributed).
    ``plain`` is plain BM25 without ``explain``: the lean search, printed in its own shape."""

    def __init__(
        self,
        results: list[Result] | None = None,
        *,
        mode: str = "bm25",
        explain: bool = False,
        info: dict[str, object] | None = None,
    ) -> None:
        super().__init__(results or [])
        self.mode = mode
        self.explain = explain
        self.info: dict[str, object] = {} if info is None else info

    @property
    def plain(self) -> bool:
        return self.mode == "bm25" and not self.explain
